#if canImport(Glibc)
import Glibc
#endif
import CProj

/// The figure of the Earth computations run on: a PROJ ellipsoid by name (`--ellps`, default
/// WGS84) or a sphere of a given radius (`--sphere R`; 6371009 m is the Maps SDK's kGMSEarthRadius).
public struct Earth: Sendable, Equatable {
    public let name: String
    /// Equatorial radius, metres.
    public let a: Double
    /// Flattening (0 for a sphere).
    public let f: Double

    public var isSphere: Bool { f == 0 }
    /// Eccentricity squared, f(2 − f).
    public var e2: Double { f * (2 - f) }

    public init(name: String, a: Double, f: Double) {
        self.name = name
        self.a = a
        self.f = f
    }

    public static let wgs84 = Earth(name: "WGS84", a: 6378137, f: 1 / 298.257223563)

    public static func sphere(radius: Double) -> Earth {
        Earth(name: "sphere \(radius)", a: radius, f: 0)
    }

    /// Every ellipsoid PROJ knows by name (`proj_list_ellps`), as `+ellps=` takes them.
    public static let ellipsoidNames: [String] = {
        var names: [String] = []
        var entry = proj_list_ellps()
        while let current = entry, let id = current.pointee.id {
            names.append(String(cString: id))
            entry = current + 1
        }
        return names
    }()

    /// The PROJ ellipsoid called `name`, with PROJ's own parameters.
    public init(ellipsoid name: String) throws(EarthError) {
        guard Earth.ellipsoidNames.contains(name) else { throw EarthError.unknownEllipsoid(name) }
        let context = proj_context_create()
        defer { proj_context_destroy(context) }
        proj_log_level(context, PJ_LOG_NONE)
        guard let crs = proj_create(context, "+proj=longlat +ellps=\(name) +no_defs +type=crs") else {
            throw EarthError.unknownEllipsoid(name)
        }
        defer { proj_destroy(crs) }
        guard let ellipsoid = proj_get_ellipsoid(context, crs) else { throw EarthError.unknownEllipsoid(name) }
        defer { proj_destroy(ellipsoid) }
        var a = 0.0, b = 0.0, inverseFlattening = 0.0
        var computed: Int32 = 0
        guard proj_ellipsoid_get_parameters(context, ellipsoid, &a, &b, &computed, &inverseFlattening) != 0 else {
            throw EarthError.unknownEllipsoid(name)
        }
        self.init(name: name, a: a, f: inverseFlattening == 0 ? 0 : 1 / inverseFlattening)
    }
}

public enum EarthError: Error, Equatable, CustomStringConvertible {
    case unknownEllipsoid(String)

    public var description: String {
        switch self {
        case .unknownEllipsoid(let name): "unknown ellipsoid '\(name)' (see 'geo help length' for PROJ's names)"
        }
    }
}
