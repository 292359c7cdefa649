#if canImport(Glibc)
import Glibc
#endif
import CProj
import Geometry
import Synchronization

/// How a path's edges run and are measured (docs/algorithms.md, the Maps SDK's GMSLengthKind).
public enum EdgeKind: String, CaseIterable, Sendable {
    /// The shortest path on the ellipsoid: PROJ's geod_* (Karney), error below 15 nm.
    case geodesic
    /// The constant-bearing line (loxodrome), measured on the ellipsoid: see RhumbMath.
    case rhumb
    /// A straight line in Web Mercator (EPSG:3857), in Web Mercator metres: x = aλ,
    /// y = a·asinh(tan φ), the short way across ±180.
    case projected
}

/// How geo measures and walks edges: every command's lengths and positions along edges go
/// through here. PROJ's geodesic routines are also called by the other files of this module
/// that need more than an edge (Area, Circle, Containment, EdgeExtent, NearestPoint, Rhumb),
/// through the `Geodesic` parameters kept here; no other module calls them.
public struct EdgeModel: Sendable {
    public let earth: Earth
    public let kind: EdgeKind
    let geodesic: Geodesic
    let rhumb: RhumbMath

    public init(earth: Earth, kind: EdgeKind) {
        self.earth = earth
        self.kind = kind
        geodesic = Geodesic(earth)
        rhumb = RhumbMath(earth: earth, geodesic: geodesic)
    }

    /// Checks that every position can be measured by this kind (latitudes are already within
    /// [-90, 90]: the readers reject anything else).
    public func validate(_ path: Path) throws(BadRecord) {
        guard kind == .projected else { return }
        for position in path where abs(position.latitude) == 90 {
            throw BadRecord("latitude \(number: position.latitude) has no Web Mercator y (the projected kind)")
        }
    }

    /// The length of the edge from `a` to `b`, metres (Web Mercator metres for `projected`).
    @inline(__always)
    public func length(_ a: Position, _ b: Position) -> Double {
        switch kind {
        case .geodesic:
            var s12 = 0.0
            geod_inverse(geodesic.pointer, a.latitude, a.longitude, b.latitude, b.longitude, &s12, nil, nil)
            return s12
        case .rhumb:
            return rhumb.inverse(a.latitude, a.longitude, b.latitude, b.longitude).length
        case .projected:
            let (dx, dy) = mercatorDelta(a, b)
            return hypot(dx, dy)
        }
    }

    /// The length of a path, edge by edge, compensated.
    public func length(of path: Path, closed: Bool = false) -> Double {
        var sum = CompensatedSum()
        guard path.count > 1 else { return 0 }
        for index in 1..<path.count { sum.add(length(path[index - 1], path[index])) }
        if closed && path.first != path.last { sum.add(length(path[path.count - 1], path[0])) }
        return sum.value
    }

    /// The distance from the start at each vertex.
    public func cumulativeLengths(of path: Path) -> [Double] {
        var sum = CompensatedSum()
        var distances = [Double]()
        distances.reserveCapacity(path.count)
        for index in path.indices {
            if index > 0 { sum.add(length(path[index - 1], path[index])) }
            distances.append(sum.value)
        }
        return distances
    }

    /// An edge to walk along.
    public func edge(_ a: Position, _ b: Position) -> Edge {
        Edge(model: self, from: a, to: b)
    }

    // MARK: Web Mercator

    /// y = a·asinh(tan φ) on the ellipsoid's a, as measures take it (WebMercator.measuredY).
    @inline(__always)
    func mercatorY(_ latitude: Double) -> Double { WebMercator.measuredY(latitude: latitude, radius: earth.a) }

    /// (Δx, Δy) in Web Mercator metres, Δλ the short way.
    @inline(__always)
    func mercatorDelta(_ a: Position, _ b: Position) -> (Double, Double) {
        (earth.a * longitudeDifference(a.longitude, b.longitude) * .pi / 180, mercatorY(b.latitude) - mercatorY(a.latitude))
    }
}

/// One edge, ready for many positions along it (a geodesic is set up once with
/// geod_inverseline, then each point costs one geod_position).
public struct Edge {
    public let start: Position
    public let end: Position
    public let length: Double
    private let model: EdgeModel
    private var line = geod_geodesicline()
    private var azimuth = 0.0

    init(model: EdgeModel, from a: Position, to b: Position) {
        self.model = model
        start = a
        end = b
        switch model.kind {
        case .geodesic:
            geod_inverseline(&line, model.geodesic.pointer, a.latitude, a.longitude, b.latitude, b.longitude,
                             GEOD_LATITUDE.rawValue | GEOD_LONGITUDE.rawValue | GEOD_DISTANCE_IN.rawValue)
            length = line.s13
        case .rhumb:
            (length, azimuth) = model.rhumb.inverse(a.latitude, a.longitude, b.latitude, b.longitude)
        case .projected:
            let (dx, dy) = model.mercatorDelta(a, b)
            length = hypot(dx, dy)
        }
    }

    /// The point `distance` metres from the start along the edge (0...length), longitude in
    /// [-180, 180]. The ends are returned exactly as given (longitude normalised).
    public func position(atDistance distance: Double) -> Position {
        if distance <= 0 || length == 0 { return Position(longitude: normalizedLongitude(start.longitude), latitude: start.latitude) }
        if distance >= length { return Position(longitude: normalizedLongitude(end.longitude), latitude: end.latitude) }
        switch model.kind {
        case .geodesic:
            var latitude = 0.0, longitude = 0.0
            withUnsafePointer(to: line) { geod_position($0, distance, &latitude, &longitude, nil) }
            return Position(longitude: longitude, latitude: latitude)
        case .rhumb:
            // A rhumb line with an end at a pole is the meridian of its other end (a pole's own
            // longitude means nothing).
            let poleEnd = abs(start.latitude) == 90 ? end : abs(end.latitude) == 90 ? start : nil
            let (latitude, longitude) = model.rhumb.position(start.latitude, poleEnd?.longitude ?? start.longitude,
                                                             azimuth: azimuth, distance: distance)
            return Position(longitude: longitude, latitude: latitude)
        case .projected:
            let t = distance / length
            let longitude = start.longitude + t * longitudeDifference(start.longitude, end.longitude)
            let y = model.mercatorY(start.latitude) + t * (model.mercatorY(end.latitude) - model.mercatorY(start.latitude))
            let latitude = atan(sinh(y / model.earth.a)) * 180 / .pi
            return Position(longitude: normalizedLongitude(longitude), latitude: latitude)
        }
    }

    public func position(atFraction fraction: Double) -> Position {
        position(atDistance: fraction * length)
    }
}

/// PROJ's geodesic parameters for one Earth, initialised once and shared read-only by every
/// thread (geod_geodesic is a few hundred bytes: passing a pointer avoids copying it per edge).
/// Initialised on first use: every edge model holds one, but a map of straight Web Mercator
/// lines never measures a geodesic, and geod_init is what would load PROJ (its library and the
/// forty it links, 11-14 ms of a run's start).
/// Sendable by hand: `storage` is written once, by geod_init under `lock`, before `ready` is
/// set with release ordering; every read follows an acquiring load of `ready`.
final class Geodesic: @unchecked Sendable {
    private let storage: UnsafeMutablePointer<geod_geodesic>
    private let earth: Earth
    private let ready = Atomic<Bool>(false)
    private let lock = Mutex<Void>(())

    init(_ earth: Earth) {
        storage = .allocate(capacity: 1)
        self.earth = earth
    }

    var pointer: UnsafeMutablePointer<geod_geodesic> {
        if !ready.load(ordering: .acquiring) {
            lock.withLock { _ in
                guard !ready.load(ordering: .relaxed) else { return }
                geod_init(storage, earth.a, earth.f)
                ready.store(true, ordering: .releasing)
            }
        }
        return storage
    }

    deinit { storage.deallocate() }
}
