#if canImport(Glibc)
import Glibc
#endif
import CProj
import Geometry

/// A map projection: WGS84 longitude and latitude to the plane of any CRS PROJ knows
/// (`EPSG:3857`, `+proj=ortho +lat_0=… +lon_0=…`, a WKT or PROJJSON text), x east and y north
/// (PROJ's `proj_normalize_for_visualization`). One PJ context per object: use an object from
/// one thread at a time (each thread makes its own).
/// Sendable by hand: it may move between threads (a pool hands it out), but is used by one at
/// a time, as its PJ context requires; nothing in it changes after init.
public final class Projection: @unchecked Sendable {
    /// The CRS as given.
    public let crs: String
    /// PROJ's context and transformation; nil for Web Mercator, which is worked out here.
    private let proj: (context: OpaquePointer, transform: OpaquePointer)?

    /// `EPSG:3857`, every map tile's projection, is worked out by `WebMercator` as PROJ's
    /// pipeline for it does, bit for bit: no PROJ object is made, which would read PROJ's database (10 ms a process, then 1.5 ms a thread), and
    /// no point goes through proj_trans (5 % of a tile run).
    static let webMercatorCode = "EPSG:3857"

    public convenience init(crs: String) throws(ProjectionError) {
        try self.init(crs: crs, throughPROJ: crs != Projection.webMercatorCode)
    }

    /// "; did you mean '+proj=ortho +lat_0=… +lon_0=…'?" for a bare projection name that PROJ
    /// knows as +proj=NAME, "; did you mean 'EPSG:3857'?" for a bare code; else nothing.
    static func suggestion(for crs: String) -> String {
        guard !crs.isEmpty, crs.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else { return "" }
        let meant = crs.allSatisfy(\.isNumber) ? "EPSG:\(crs)" : "+proj=\(crs)"
        guard (try? Projection(crs: meant)) != nil else { return "" }
        // The azimuthal projections look from a centre, which the user will want to choose.
        let centred = ["ortho", "gnom", "stere", "aeqd", "laea"].contains(crs)
        return "; did you mean '\(meant)\(centred ? " +lat_0=… +lon_0=…" : "")'?"
    }

    /// `throughPROJ` false: `crs` is Web Mercator, worked out here.
    init(crs: String, throughPROJ: Bool) throws(ProjectionError) {
        self.crs = crs
        guard throughPROJ else {
            proj = nil
            return
        }
        guard let context = proj_context_create() else { throw ProjectionError("PROJ could not start") }
        proj_log_level(context, PJ_LOG_NONE)
        // A bare PROJ string names an operation; `+type=crs` makes it the CRS it describes.
        var target = crs
        if target.hasPrefix("+") && !target.contains("+type=") { target += " +type=crs" }
        guard let raw = proj_create_crs_to_crs(context, "EPSG:4326", target, nil) else {
            proj_context_destroy(context)
            throw ProjectionError("'\(crs)' is not a CRS PROJ knows" + Projection.suggestion(for: crs))
        }
        guard let normalized = proj_normalize_for_visualization(context, raw) else {
            proj_destroy(raw)
            proj_context_destroy(context)
            throw ProjectionError("'\(crs)' has no east/north axis order")
        }
        proj_destroy(raw)
        proj = (context, normalized)
        // A projection that maps no part of the Earth (a vertical CRS) cannot draw. Any that maps
        // some part can: a globe centred anywhere shows a hemisphere, a local projection its
        // zone. So the probe is a grid of the whole Earth every 5 degrees, not fixed points
        // that only some centres show.
        guard Projection.mapsSomething(self) else {
            throw ProjectionError("'\(crs)' does not map longitude and latitude to a plane")
        }
    }

    private init(crs: String, context: OpaquePointer, transform: OpaquePointer) {
        self.crs = crs
        proj = (context, transform)
    }

    /// The same projection for another thread: PROJ's clone of this one's object, in a context
    /// of its own. Making it again from the CRS reads PROJ's database again: 1.5 ms after the
    /// first in a process (10 ms), more with threads starting at once, against 0.15 ms. Where
    /// PROJ cannot clone the object, it is made again. Not to be called while another thread
    /// transforms with this projection (PROJ reads the object it clones).
    public func copy() -> Projection {
        guard let (_, transform) = proj else { return try! Projection(crs: crs, throughPROJ: false) }
        if let context = proj_context_create() {
            proj_log_level(context, PJ_LOG_NONE)
            if let clone = proj_clone(context, transform) { return Projection(crs: crs, context: context, transform: clone) }
            proj_context_destroy(context)
        }
        // This CRS made a projection once: it makes one again.
        return try! Projection(crs: crs, throughPROJ: true)
    }

    private static func mapsSomething(_ projection: Projection) -> Bool {
        var xs: [Double] = [], ys: [Double] = []
        for latitude in stride(from: -87.5, through: 87.5, by: 5) {
            for longitude in stride(from: -177.5, through: 177.5, by: 5) {
                xs.append(longitude)
                ys.append(latitude)
            }
        }
        xs += [0, 0]
        ys += [90, -90]
        let count = xs.count
        xs.withUnsafeMutableBufferPointer { x in
            ys.withUnsafeMutableBufferPointer { y in projection.forward(x: x.baseAddress!, y: y.baseAddress!, count: count) }
        }
        return xs.contains { $0.isFinite }
    }

    deinit {
        guard let (context, transform) = proj else { return }
        proj_destroy(transform)
        proj_context_destroy(context)
    }

    /// Projects `count` positions in place: longitudes in `x`, latitudes in `y` become x and y.
    /// A position the projection cannot map (the far side of a globe) becomes infinity in both.
    public func forward(x: UnsafeMutablePointer<Double>, y: UnsafeMutablePointer<Double>, count: Int) {
        guard count > 0 else { return }
        guard let (_, transform) = proj else { return WebMercator.project(x: x, y: y, count: count) }
        _ = proj_trans_generic(transform, PJ_FWD, x, MemoryLayout<Double>.stride, count,
                               y, MemoryLayout<Double>.stride, count, nil, 0, 0, nil, 0, 0)
        for index in 0..<count where !x[index].isFinite || !y[index].isFinite || abs(x[index]) > 1e30 || abs(y[index]) > 1e30 {
            x[index] = .infinity
            y[index] = .infinity
        }
        proj_errno_reset(transform)
    }

    /// One position projected, or nil when the projection cannot map it.
    public func forward(_ position: Position) -> (x: Double, y: Double)? {
        var x = position.longitude, y = position.latitude
        forward(x: &x, y: &y, count: 1)
        return x.isFinite ? (x, y) : nil
    }
}

/// A CRS PROJ cannot use for drawing.
public struct ProjectionError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
