/// A GeoJSON position, `[longitude, latitude]` (RFC 7946). Altitudes and further numbers in the
/// input are validated and left in the raw bytes, which pass through when a geometry is unchanged.
public struct Position: Equatable, Sendable {
    public var longitude: Double
    public var latitude: Double
    public init(longitude: Double, latitude: Double) {
        self.longitude = longitude
        self.latitude = latitude
    }
}

/// A sequence of positions: a LineString, a ring, a MultiPoint's points.
public typealias Path = [Position]

/// The seven RFC 7946 geometry types.
public indirect enum Geometry: Equatable, Sendable {
    case point(Position)
    case multiPoint(Path)
    case lineString(Path)
    case multiLineString([Path])
    case polygon([Path])
    case multiPolygon([[Path]])
    case geometryCollection([Geometry])

    public var typeName: String {
        switch self {
        case .point: "Point"
        case .multiPoint: "MultiPoint"
        case .lineString: "LineString"
        case .multiLineString: "MultiLineString"
        case .polygon: "Polygon"
        case .multiPolygon: "MultiPolygon"
        case .geometryCollection: "GeometryCollection"
        }
    }
}

extension Geometry {
    /// The geometry of a path: nil for the empty path, a Point for one position, else a
    /// LineString (what a decoded polyline is).
    public static func path(_ path: Path) -> Geometry? {
        switch path.count {
        case 0: nil
        case 1: .point(path[0])
        default: .lineString(path)
        }
    }

    /// The one path of a geometry, in order, the single helper every command uses:
    /// - to write it (`along` nil: one encoded polyline, `--to polyline`, `decode --to latlng`): a
    ///   LineString's or MultiPoint's positions, a Point as a path of one, a Polygon without
    ///   holes as its ring, null as the empty path; geometries of several paths throw;
    /// - to walk along it (`along`, what the path is for, ends the message: interpolate, spans):
    ///   a LineString (maybe empty) or a Point; anything else throws.
    public static func singlePath(of geometry: Geometry?, along purpose: String? = nil) throws(BadRecord) -> Path {
        switch (geometry, purpose) {
        case (.lineString(let path), _): return path
        case (.point(let position), _): return [position]
        case (nil, let purpose?): throw BadRecord("a null geometry has no path \(purpose)")
        case (.some(let other), let purpose?): throw BadRecord("a \(other.typeName) is not a path \(purpose): give LineStrings or MultiLineStrings")
        case (nil, nil): return []
        case (.multiPoint(let path), nil): return path
        case (.polygon(let rings), nil) where rings.count <= 1: return rings.first ?? []
        case (.polygon(let rings), nil):
            throw BadRecord("a Polygon with \(rings.count - 1) hole\(rings.count == 2 ? "" : "s") has more than one path")
        case (.some(let other), nil):
            throw BadRecord("a \(other.typeName) has more than one path")
        }
    }
}
