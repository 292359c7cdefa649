#if canImport(Glibc)
import Glibc
#endif
import Geodesy
import Geometry

/// A shape ready to be located against: its lines (paths, and a polygon's rings, closed), the
/// distance from each part's start at each vertex, and its polygons (for `inside`).
struct LocatedShape: Sendable {
    var parts: [Path] = []
    var closed: [Bool] = []
    /// cumulative[k][i]: the distance along part k from its start to vertex i; for a closed
    /// ring one more entry, the whole ring.
    var cumulative: [[Double]] = []
    var polygons: [[Path]] = []

    init(_ geometry: Geometry?, model: EdgeModel) throws(BadRecord) {
        try add(geometry, model)
    }

    private mutating func add(_ geometry: Geometry?, _ model: EdgeModel) throws(BadRecord) {
        switch geometry {
        case nil: return
        case .point(let position): try addPart([position], closed: false, model)
        case .multiPoint(let points): for point in points { try addPart([point], closed: false, model) }
        case .lineString(let path): try addPart(path, closed: false, model)
        case .multiLineString(let paths): for path in paths { try addPart(path, closed: false, model) }
        case .polygon(let rings):
            for ring in rings { try addPart(ring, closed: true, model) }
            if !rings.isEmpty { polygons.append(rings) }
        case .multiPolygon(let list): for rings in list { try add(.polygon(rings), model) }
        case .geometryCollection(let members): for member in members { try add(member, model) }
        }
    }

    private mutating func addPart(_ path: Path, closed ring: Bool, _ model: EdgeModel) throws(BadRecord) {
        guard !path.isEmpty else { return }
        try model.validate(path)
        let isRing = ring && path.count > 1
        var sums = [0.0]
        sums.reserveCapacity(path.count + 1)
        var total = CompensatedSum()
        for index in 0..<Self.edgeCount(path, closed: isRing) {
            total.add(model.length(path[index], path[(index + 1) % path.count]))
            sums.append(total.value)
        }
        parts.append(path)
        closed.append(isRing)
        cumulative.append(sums)
    }

    var isEmpty: Bool { parts.isEmpty }
    var hasPolygons: Bool { !polygons.isEmpty }

    /// The edges of a part: a ring's closing edge counts when its last vertex is not its first.
    static func edgeCount(_ path: Path, closed: Bool) -> Int {
        guard path.count > 1 else { return 0 }
        return closed && path.first != path.last ? path.count : path.count - 1
    }

    /// Edges before part `k` (edge indices count through every part).
    func firstEdge(ofPart k: Int) -> Int {
        var count = 0
        for index in 0..<k { count += Self.edgeCount(parts[index], closed: closed[index]) }
        return count
    }
}

/// Where a point is relative to one shape: the fields of `properties.locate`.
struct Location: Sendable {
    var distance: Double
    var along: Double
    var point: Position
    var edge: Int
    /// nil for a shape without polygons.
    var inside: Bool?
}

/// The exact nearest position on a shape's parts, by the model's kind. Edges are skipped when a
/// cheap lower bound on their distance (a chord in 3-D, which no path on the surface is
/// shorter than, less half the edge's length) is already no better than the best found.
struct Locator: Sendable {
    let model: EdgeModel
    let space: SearchSpace

    func locate(_ p: Position, in shape: LocatedShape, parts: [Int]? = nil) -> Location? {
        let probe = space.point(p)
        var best: (distance: Double, position: Position, along: Double, part: Int, edge: Int)?
        for k in parts ?? Array(shape.parts.indices) {
            let path = shape.parts[k]
            if path.count == 1 {
                let single = model.nearestPoint(onEdgeFrom: path[0], to: path[0], near: p)
                if best == nil || single.distance < best!.distance { best = (single.distance, single.position, 0, k, 0) }
                continue
            }
            let sums = shape.cumulative[k]
            var previous = space.point(path[0])
            for index in 0..<(sums.count - 1) {
                let b = path[(index + 1) % path.count]
                let next = space.point(b)
                let half = (sums[index + 1] - sums[index]) / 2
                defer { previous = next }
                if let best, space.lowerBound(probe, previous, next) - half >= best.distance { continue }
                let candidate = model.nearestPoint(onEdgeFrom: path[index], to: b, near: p)
                if best == nil || candidate.distance < best!.distance {
                    best = (candidate.distance, candidate.position, sums[index] + candidate.along, k, index)
                }
            }
        }
        guard let best else { return nil }
        let inside = shape.hasPolygons ? shape.polygons.contains { model.contains(polygon: $0, p) } : nil
        return Location(distance: best.distance, along: best.along, point: best.position,
                        edge: shape.firstEdge(ofPart: best.part) + best.edge, inside: inside)
    }
}

/// The space the index and the pruning measure in: 3-D Earth-centred coordinates, where the
/// chord between two points is never longer than any path on the surface between them (so it
/// bounds geodesic distances from below), or for `projected` the Web Mercator plane (x, y, 0),
/// whose distances are the planar ones, a point counting in the copy of the world nearest.
struct SearchSpace: Sendable {
    let earth: Earth
    let planar: Bool

    init(model: EdgeModel) {
        earth = model.earth
        planar = model.kind == .projected
    }

    typealias Point = SIMD3<Double>

    /// 2πa: the width of the Web Mercator world.
    var worldWidth: Double { 2 * .pi * earth.a }

    func point(_ position: Position) -> Point {
        let (sinPhi, cosPhi) = sincosDegrees(position.latitude)
        if planar {
            return Point(earth.a * normalizedLongitude(position.longitude) * .pi / 180, earth.a * asinh(sinPhi / cosPhi), 0)
        }
        let (sinLambda, cosLambda) = sincosDegrees(position.longitude)
        let n = earth.a / (1 - earth.e2 * sinPhi * sinPhi).squareRoot()
        return Point(n * cosPhi * cosLambda, n * cosPhi * sinLambda, n * (1 - earth.e2) * sinPhi)
    }

    /// The least distance from `p` to the segment's end points' bounding box: with half the
    /// edge's length taken off, a bound on the distance to anything on the edge.
    func lowerBound(_ p: Point, _ a: Point, _ b: Point) -> Double {
        distance(p, to: Box(low: pointwiseMin(a, b), high: pointwiseMax(a, b)))
    }

    /// The least distance from `p` to the box (for `projected`, from the nearest copy of `p`).
    func distance(_ p: Point, to box: Box) -> Double {
        func plain(_ q: Point) -> Double {
            let d = pointwiseMax(pointwiseMax(box.low - q, q - box.high), Point(repeating: 0))
            return (d * d).sum().squareRoot()
        }
        guard planar else { return plain(p) }
        return min(plain(p), plain(p + Point(worldWidth, 0, 0)), plain(p - Point(worldWidth, 0, 0)))
    }
}

/// An axis-aligned box in the search space.
struct Box: Sendable {
    var low: SIMD3<Double>
    var high: SIMD3<Double>

    static let empty = Box(low: SIMD3(repeating: .infinity), high: SIMD3(repeating: -.infinity))

    mutating func formUnion(_ other: Box) {
        low = pointwiseMin(low, other.low)
        high = pointwiseMax(high, other.high)
    }

    var center: SIMD3<Double> { (low + high) / 2 }
}
