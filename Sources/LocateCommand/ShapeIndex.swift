#if canImport(Glibc)
import Glibc
#endif
import Geodesy
import Geometry

/// The shapes of `--shapes FILE`, loaded once, and a bounding-volume hierarchy over pieces of
/// them, so that a point is compared with the few shapes near it, not with every shape.
///
/// Never missing a shape rests on two facts. Every piece's box contains every point of its
/// edges and, for a polygon, of its inside: a run of edges is boxed by its exact latitude range
/// (a geodesic edge reaches past its ends to its vertex latitude) and longitude span, turned
/// into the search space; a polygon's inside lies within the latitudes and longitudes of its
/// outer ring, or reaches a pole it contains. And the distance from a point to a box is never
/// more than the distance to anything in it: in 3-D the chord, and the angle seen from the
/// centre times b, bound the geodesic distance from below (SearchSpace.lowerBound), and in the
/// Web Mercator plane distances are the planar ones. So the search visits
/// boxes nearest first and stops once the next box is farther than what it has found.
final class ShapeIndex: Sendable {
    /// A run of at most `edgesPerPiece` edges of one part, or (part -1) a polygon's inside.
    struct Piece: Sendable {
        var box: Box
        var shape: Int32
        var part: Int32
        var firstEdge: Int32
        var edgeCount: Int32
    }

    struct Node: Sendable {
        var box: Box
        /// Leaves: order[first ..< first + count]; inner nodes (count -1): children at first
        /// and second.
        var first: Int32
        var count: Int32
        var second: Int32 = 0
    }

    let shapes: [LocatedShape]
    /// Each shape's `id` member, raw JSON, if it has one.
    let ids: [[UInt8]?]
    /// With `--join`, the properties each shape's matches carry.
    let joined: JoinedProperties?
    let space: SearchSpace
    let model: EdgeModel
    /// The pieces in shape order, each shape's at piecesOf[shape].
    private let pieces: [Piece]
    private let piecesOf: [Range<Int>]
    /// Piece indices in tree order.
    private let order: [Int32]
    private let nodes: [Node]
    static let piecesPerLeaf = 4

    init(shapes: [LocatedShape], ids: [[UInt8]?], joined: JoinedProperties?, model: EdgeModel) {
        self.shapes = shapes
        self.ids = ids
        self.joined = joined
        self.model = model
        space = SearchSpace(model: model)
        var pieces: [Piece] = []
        var piecesOf: [Range<Int>] = []
        for (s, shape) in shapes.enumerated() {
            let start = pieces.count
            for (k, path) in shape.parts.enumerated() {
                let edges = LocatedShape.edgeCount(path, closed: shape.closed[k])
                for (number, latitudes) in shape.pieceLatitudes[k].enumerated() {
                    let first = number * LocatedShape.edgesPerPiece, end = min(edges, first + LocatedShape.edgesPerPiece)
                    var spans = [LongitudeSpan(west: path[first].longitude, width: 0)]
                    for index in first..<end { spans.append(model.longitudeSpan(ofEdgeFrom: path[index], to: path[(index + 1) % path.count])) }
                    for box in ShapeIndex.boxes(latitudes, covering(spans), space) {
                        pieces.append(Piece(box: box, shape: Int32(s), part: Int32(k), firstEdge: Int32(first), edgeCount: Int32(end - first)))
                    }
                }
            }
            // A polygon's inside: within its outer ring's latitudes and longitudes (the outer ring
            // is the first part of the polygon's rings among the shape's parts).
            for (rings, ringPart) in zip(shape.polygons, shape.outerParts) {
                guard let outer = rings.first, outer.count > 2 else { continue }
                let ranges = shape.pieceLatitudes[ringPart]
                var latitudes = ranges.dropFirst().reduce(ranges[0]) { min($0.lowerBound, $1.lowerBound)...max($0.upperBound, $1.upperBound) }
                var spans: [LongitudeSpan] = []
                for index in outer.indices {
                    spans.append(model.longitudeSpan(ofEdgeFrom: outer[index], to: outer[(index + 1) % outer.count]))
                }
                var span = covering(spans)
                // A ring around a pole holds it, and every longitude near it.
                // Only a ring that winds round the poles can hold one: ask the costly question then.
                let winding = outer.indices.reduce(0.0) { sum, index in
                    sum + longitudeDifference(outer[index].longitude, outer[(index + 1) % outer.count].longitude)
                }
                for pole in [90.0, -90.0] where model.kind != .projected && (abs(winding) > 180 || spans.contains(where: \.isAll))
                    && model.location(of: Position(longitude: 0, latitude: pole), inRing: outer) != .outside {
                    latitudes = min(latitudes.lowerBound, pole)...max(latitudes.upperBound, pole)
                    span = .all
                }
                for box in ShapeIndex.boxes(latitudes, span, space) {
                    pieces.append(Piece(box: box, shape: Int32(s), part: -1, firstEdge: 0, edgeCount: 0))
                }
            }
            piecesOf.append(start..<pieces.count)
        }
        var order = (0..<pieces.count).map(Int32.init)
        var nodes: [Node] = []
        ShapeIndex.build(pieces, &order, 0..<order.count, &nodes)
        self.pieces = pieces
        self.piecesOf = piecesOf
        self.order = order
        self.nodes = nodes
    }

    /// The shapes a point finds: those containing it first (distance 0 for choosing and
    /// ordering), then by distance, ties by their order in the file; every shape within
    /// `within` metres, or else the `limit` nearest (default 1), and at most `limit`.
    func search(_ p: Position, within: Double?, limit: Int?, locator: Locator) -> [(shape: Int, location: Location)] {
        let probe = space.point(p)
        let wanted = limit ?? (within == nil ? 1 : Int.max)
        // Per shape: the nearest position found so far, and whether it holds the point.
        var nearest: [Int: Nearest] = [:]
        var inside: Set<Int> = []
        var threshold = within ?? .infinity
        func ordering(_ shape: Int) -> Double { inside.contains(shape) ? 0 : nearest[shape]?.distance ?? .infinity }
        func update() {
            guard within == nil else { return }
            let candidates = Set(nearest.keys).union(inside)
            guard candidates.count >= wanted else { return }
            threshold = candidates.map(ordering).sorted()[wanted - 1]
        }
        var queue = MinimumQueue()
        if let root = nodes.first { queue.push(space.lowerBound(probe, toBox: root.box), 0) }
        while let (bound, index) = queue.pop() {
            if bound > threshold { break }
            let node = nodes[index]
            if node.count < 0 {
                for child in [Int(node.first), Int(node.second)] {
                    queue.push(space.lowerBound(probe, toBox: nodes[child].box), child)
                }
                continue
            }
            for slot in order[Int(node.first)..<Int(node.first + node.count)] {
                let piece = pieces[Int(slot)]
                let shape = Int(piece.shape)
                guard space.lowerBound(probe, toBox: piece.box) <= threshold else { continue }
                if piece.part < 0 {
                    if !inside.contains(shape) && shapes[shape].polygons.contains(where: { model.contains(polygon: $0, p) }) {
                        inside.insert(shape)
                        update()
                    }
                    continue
                }
                var best = nearest[shape]
                let edges = Int(piece.firstEdge)..<Int(piece.firstEdge + piece.edgeCount)
                locator.measure(p, shapes[shape], part: Int(piece.part), edges: edges, cap: threshold, &best)
                guard let best else { continue }
                nearest[shape] = best
                update()
            }
        }
        let candidates = Set(nearest.keys).union(inside).filter { ordering($0) <= threshold }
        let chosen = candidates.sorted { (ordering($0), $0) < (ordering($1), $1) }.prefix(wanted)
        return chosen.map { shape in
            // Every piece nearer than the threshold was measured; a shape holding the point may
            // be farther from its rings: measure on, nearest pieces first, as far as it takes.
            var best = nearest[shape]
            if best == nil || best!.distance > threshold {
                let own = piecesOf[shape].filter { pieces[$0].part >= 0 }
                    .map { (space.lowerBound(probe, toBox: pieces[$0].box), $0) }.sorted { $0 < $1 }
                for (bound, index) in own {
                    if let best, bound > best.distance { break }
                    let piece = pieces[index]
                    let edges = Int(piece.firstEdge)..<Int(piece.firstEdge + piece.edgeCount)
                    locator.measure(p, shapes[shape], part: Int(piece.part), edges: edges, &best)
                }
            }
            return (shape, locator.location(p, shapes[shape], best!))
        }
    }

    // MARK: Building

    /// Top-down: split the entries at the median of the box centres along the widest axis.
    /// Returns the index of the subtree's root.
    @discardableResult
    private static func build(_ pieces: [Piece], _ order: inout [Int32], _ range: Range<Int>, _ nodes: inout [Node]) -> Int {
        var box = Box.empty
        for slot in order[range] { box.formUnion(pieces[Int(slot)].box) }
        let index = nodes.count
        nodes.append(Node(box: box, first: Int32(range.lowerBound), count: Int32(range.count)))
        guard range.count > piecesPerLeaf else { return index }
        let extent = box.high - box.low
        let axis = extent.x >= extent.y && extent.x >= extent.z ? 0 : extent.y >= extent.z ? 1 : 2
        order[range].sort { pieces[Int($0)].box.center[axis] < pieces[Int($1)].box.center[axis] }
        let middle = range.lowerBound + range.count / 2
        let left = build(pieces, &order, range.lowerBound..<middle, &nodes)
        let right = build(pieces, &order, middle..<range.upperBound, &nodes)
        nodes[index] = Node(box: box, first: Int32(left), count: -1, second: Int32(right))
        return index
    }

    /// The boxes, in the search space, holding every point with latitude in `latitudes` and
    /// longitude in `span`: one box in 3-D; in the Web Mercator plane, two when the span crosses
    /// the antimeridian.
    static func boxes(_ latitudes: ClosedRange<Double>, _ span: LongitudeSpan, _ space: SearchSpace) -> [Box] {
        let margin = 1e-6 * space.earth.a
        func widened(_ box: Box) -> Box {
            Box(low: box.low - SIMD3(repeating: margin), high: box.high + SIMD3(repeating: margin))
        }
        if space.planar {
            let low = space.point(Position(longitude: 0, latitude: latitudes.lowerBound)).y
            let high = space.point(Position(longitude: 0, latitude: latitudes.upperBound)).y
            let scale = space.earth.a * .pi / 180
            let west = normalizedLongitude(span.west)
            if span.isAll || west + span.width > 180 {
                let pieces: [(Double, Double)] = span.isAll ? [(-180, 180)] : [(west, 180), (-180, west + span.width - 360)]
                return pieces.map { widened(Box(low: SIMD3($0.0 * scale, low, 0), high: SIMD3($0.1 * scale, high, 0))) }
            }
            return [widened(Box(low: SIMD3(west * scale, low, 0), high: SIMD3((west + span.width) * scale, high, 0)))]
        }
        // z grows with latitude; the distance from the axis is greatest at the latitude nearest
        // the equator and least at the one farthest from it.
        let lowPoint = space.point(Position(longitude: 0, latitude: latitudes.lowerBound))
        let highPoint = space.point(Position(longitude: 0, latitude: latitudes.upperBound))
        let nearest = latitudes.contains(0) ? 0 : (abs(latitudes.lowerBound) < abs(latitudes.upperBound) ? latitudes.lowerBound : latitudes.upperBound)
        let farthest = abs(latitudes.lowerBound) > abs(latitudes.upperBound) ? latitudes.lowerBound : latitudes.upperBound
        let radii = [space.point(Position(longitude: 0, latitude: nearest)).x, space.point(Position(longitude: 0, latitude: farthest)).x]
        var longitudes = [span.west, span.west + span.width]
        for axis in stride(from: -180.0, through: 540, by: 90) where span.isAll || (axis > span.west && axis < span.west + span.width) {
            longitudes.append(axis)
        }
        var box = Box.empty
        for longitude in longitudes {
            let (sine, cosine) = sincosDegrees(longitude)
            for radius in radii {
                let corner = SIMD3(radius * cosine, radius * sine, 0)
                box.formUnion(Box(low: corner, high: corner))
            }
        }
        box.low.z = lowPoint.z
        box.high.z = highPoint.z
        return [widened(box)]
    }
}

/// The smallest arc of longitudes covering every span: the complement of the widest gap
/// between them.
func covering(_ spans: [LongitudeSpan]) -> LongitudeSpan {
    if spans.contains(where: \.isAll) { return .all }
    let sorted = spans.map { (west: normalizedLongitude($0.west), width: $0.width) }.sorted { $0.west < $1.west }
    guard let first = sorted.first else { return .all }
    // Walk round the circle from the first span's start, merging overlaps and noting gaps.
    var reach = first.west + first.width
    var widestGap = 0.0, gapEnd = first.west
    for span in sorted.dropFirst() {
        if span.west > reach, span.west - reach > widestGap {
            widestGap = span.west - reach
            gapEnd = span.west
        }
        reach = max(reach, span.west + span.width)
    }
    // The gap that wraps round from the last reach to the first start.
    let wrapGap = first.west + 360 - reach
    if wrapGap >= widestGap { return wrapGap <= 0 ? .all : LongitudeSpan(west: first.west, width: reach - first.west) }
    return LongitudeSpan(west: gapEnd, width: 360 - widestGap)
}

/// A binary heap of (bound, node), least bound first.
struct MinimumQueue {
    private var items: [(Double, Int)] = []

    mutating func push(_ bound: Double, _ node: Int) {
        items.append((bound, node))
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child].0 < items[parent].0 else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> (Double, Int)? {
        guard let top = items.first else { return nil }
        let last = items.removeLast()
        if !items.isEmpty {
            items[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1, right = left + 1
                var least = parent
                if left < items.count && items[left].0 < items[least].0 { least = left }
                if right < items.count && items[right].0 < items[least].0 { least = right }
                if least == parent { break }
                items.swapAt(parent, least)
                parent = least
            }
        }
        return top
    }
}
