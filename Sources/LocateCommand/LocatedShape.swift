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
    /// The latitudes each run of `edgesPerPiece` edges of each part covers (for the index).
    var pieceLatitudes: [[ClosedRange<Double>]] = []
    var polygons: [[Path]] = []
    /// The part each polygon's outer ring is.
    var outerParts: [Int] = []
    static let edgesPerPiece = 8

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
            let outerPart = parts.count
            for ring in rings { try addPart(ring, closed: true, model) }
            if let outer = rings.first, !outer.isEmpty {
                polygons.append(rings)
                outerParts.append(outerPart)
            }
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
        var latitudes: [ClosedRange<Double>] = []
        for index in 0..<Self.edgeCount(path, closed: isRing) {
            let edge = model.lengthAndLatitudeRange(ofEdgeFrom: path[index], to: path[(index + 1) % path.count])
            total.add(edge.length)
            sums.append(total.value)
            if index % Self.edgesPerPiece == 0 {
                latitudes.append(edge.latitudes)
            } else {
                let last = latitudes[latitudes.count - 1]
                latitudes[latitudes.count - 1] = min(last.lowerBound, edge.latitudes.lowerBound)...max(last.upperBound, edge.latitudes.upperBound)
            }
        }
        if latitudes.isEmpty { latitudes.append(path[0].latitude...path[0].latitude) }
        parts.append(path)
        closed.append(isRing)
        cumulative.append(sums)
        pieceLatitudes.append(latitudes)
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

/// The nearest position found so far on one shape.
struct Nearest: Sendable {
    var distance: Double
    var position: Position
    var along: Double
    var part: Int
    var edge: Int
}

/// The exact nearest position on a shape's parts, by the model's kind. Edges are skipped when a
/// cheap lower bound on their distance (a chord in 3-D, which no path on the surface is
/// shorter than, less half the edge's length) is already no better than the best found.
struct Locator: Sendable {
    let model: EdgeModel
    let space: SearchSpace

    /// Every part of the shape, whole.
    func locate(_ p: Position, in shape: LocatedShape) -> Location? {
        var best: Nearest?
        for k in shape.parts.indices { measure(p, shape, part: k, edges: nil, &best) }
        return best.map { location(p, shape, $0) }
    }

    /// The fields for the nearest position found.
    func location(_ p: Position, _ shape: LocatedShape, _ best: Nearest) -> Location {
        let inside = shape.hasPolygons ? shape.polygons.contains { model.contains(polygon: $0, p) } : nil
        return Location(distance: best.distance, along: best.along, point: best.position,
                        edge: shape.firstEdge(ofPart: best.part) + best.edge, inside: inside)
    }

    /// Improves `best` with the edges `edges` (all when nil) of part `k`, leaving out edges that
    /// are surely farther than `cap` (what the caller could still use).
    func measure(_ p: Position, _ shape: LocatedShape, part k: Int, edges: Range<Int>?, cap: Double = .infinity,
                 _ best: inout Nearest?) {
        let path = shape.parts[k]
        if path.count == 1 {
            if cap < .infinity && space.lowerBound(space.point(p), space.point(path[0]), space.point(path[0]), length: 0) > cap { return }
            let single = model.nearestPoint(onEdgeFrom: path[0], to: path[0], near: p)
            if best == nil || single.distance < best!.distance { best = Nearest(distance: single.distance, position: single.position, along: 0, part: k, edge: 0) }
            return
        }
        let probe = space.point(p)
        let sums = shape.cumulative[k]
        let range = edges ?? 0..<(sums.count - 1)
        var previous = space.point(path[range.lowerBound])
        for index in range {
            let b = path[(index + 1) % path.count]
            let next = space.point(b)
            defer { previous = next }
            let bound = space.lowerBound(probe, previous, next, length: sums[index + 1] - sums[index])
            if bound > cap || (best != nil && bound >= best!.distance) { continue }
            let candidate = model.nearestPoint(onEdgeFrom: path[index], to: b, near: p)
            if best == nil || candidate.distance < best!.distance
                || (candidate.distance == best!.distance && (k, index) < (best!.part, best!.edge)) {
                best = Nearest(distance: candidate.distance, position: candidate.position,
                               along: sums[index] + candidate.along, part: k, edge: index)
            }
        }
    }
}
