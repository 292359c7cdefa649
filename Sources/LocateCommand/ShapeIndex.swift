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
/// more than the distance to anything in it: in 3-D the chord bounds the geodesic distance from
/// below, and in the Web Mercator plane distances are the planar ones. So the search visits
/// boxes nearest first and stops once the next box is farther than what it has found.
final class ShapeIndex: Sendable {
    struct Entry: Sendable {
        var box: Box
        var shape: Int32
        /// The part whose edges this piece holds, or -1 for a polygon's inside.
        var part: Int32
    }

    struct Node: Sendable {
        var box: Box
        /// Leaves: entries[first ..< first + count]; inner nodes (count -1): children at first
        /// and second.
        var first: Int32
        var count: Int32
        var second: Int32 = 0
    }

    let shapes: [LocatedShape]
    /// Each shape's `id` member, raw JSON, if it has one.
    let ids: [[UInt8]?]
    let space: SearchSpace
    let model: EdgeModel
    private let entries: [Entry]
    private let nodes: [Node]
    static let edgesPerPiece = 8
    static let entriesPerLeaf = 4

    init(shapes: [LocatedShape], ids: [[UInt8]?], model: EdgeModel) {
        self.shapes = shapes
        self.ids = ids
        self.model = model
        space = SearchSpace(model: model)
        var entries: [Entry] = []
        for (s, shape) in shapes.enumerated() {
            for (k, path) in shape.parts.enumerated() {
                let edges = LocatedShape.edgeCount(path, closed: shape.closed[k])
                var start = 0
                repeat {
                    let end = min(edges, start + ShapeIndex.edgesPerPiece)
                    var latitudes = path[start].latitude...path[start].latitude
                    var spans = [LongitudeSpan(west: path[start].longitude, width: 0)]
                    for index in start..<end {
                        let a = path[index], b = path[(index + 1) % path.count]
                        let range = model.latitudeRange(ofEdgeFrom: a, to: b)
                        latitudes = min(latitudes.lowerBound, range.lowerBound)...max(latitudes.upperBound, range.upperBound)
                        spans.append(model.longitudeSpan(ofEdgeFrom: a, to: b))
                    }
                    for box in ShapeIndex.boxes(latitudes, covering(spans), space) {
                        entries.append(Entry(box: box, shape: Int32(s), part: Int32(k)))
                    }
                    start = end
                } while start < edges
            }
            for rings in shape.polygons {
                guard let outer = rings.first, outer.count > 2 else { continue }
                var latitudes = outer[0].latitude...outer[0].latitude
                var spans: [LongitudeSpan] = []
                for index in outer.indices {
                    let a = outer[index], b = outer[(index + 1) % outer.count]
                    let range = model.latitudeRange(ofEdgeFrom: a, to: b)
                    latitudes = min(latitudes.lowerBound, range.lowerBound)...max(latitudes.upperBound, range.upperBound)
                    spans.append(model.longitudeSpan(ofEdgeFrom: a, to: b))
                }
                var span = covering(spans)
                // A ring around a pole holds it, and every longitude near it.
                if model.kind != .projected && model.location(of: Position(longitude: 0, latitude: 90), inRing: outer) != .outside {
                    latitudes = latitudes.lowerBound...90
                    span = .all
                }
                if model.kind != .projected && model.location(of: Position(longitude: 0, latitude: -90), inRing: outer) != .outside {
                    latitudes = -90...latitudes.upperBound
                    span = .all
                }
                for box in ShapeIndex.boxes(latitudes, span, space) {
                    entries.append(Entry(box: box, shape: Int32(s), part: -1))
                }
            }
        }
        var nodes: [Node] = []
        ShapeIndex.build(&entries, 0..<entries.count, &nodes)
        self.entries = entries
        self.nodes = nodes
    }

    /// The shapes a point finds: those containing it first (distance 0 for choosing and
    /// ordering), then by distance, ties by their order in the file; every shape within
    /// `within` metres, or else the `limit` nearest (default 1), and at most `limit`.
    func search(_ p: Position, within: Double?, limit: Int?, locator: Locator) -> [(shape: Int, location: Location)] {
        let probe = space.point(p)
        let wanted = limit ?? (within == nil ? 1 : Int.max)
        // Per shape: the best distance found so far (0 when inside); parts already measured.
        var found: [Int: Double] = [:]
        var measured: Set<Int> = []
        var threshold = within ?? .infinity
        func record(_ shape: Int, _ distance: Double) {
            if let within, distance > within { return }
            found[shape] = min(found[shape] ?? .infinity, distance)
            if within == nil && found.count >= wanted { threshold = found.values.sorted()[wanted - 1] }
        }
        var queue = MinimumQueue()
        if let root = nodes.first { queue.push(space.distance(probe, to: root.box), 0) }
        while let (bound, index) = queue.pop() {
            if bound > threshold { break }
            let node = nodes[index]
            if node.count < 0 {
                for child in [Int(node.first), Int(node.second)] {
                    queue.push(space.distance(probe, to: nodes[child].box), child)
                }
                continue
            }
            for entry in entries[Int(node.first)..<Int(node.first + node.count)] {
                let shape = Int(entry.shape)
                guard found[shape] != 0, space.distance(probe, to: entry.box) <= threshold else { continue }
                if entry.part < 0 {
                    if shapes[shape].polygons.contains(where: { model.contains(polygon: $0, p) }) { record(shape, 0) }
                    continue
                }
                // A part is measured whole, once, whichever of its pieces is reached first.
                guard measured.insert(shape << 24 | Int(entry.part)).inserted,
                      let location = locator.locate(p, in: shapes[shape], parts: [Int(entry.part)]) else { continue }
                record(shape, location.distance)
            }
        }
        let chosen = found.sorted { ($0.value, $0.key) < ($1.value, $1.key) }.prefix(wanted)
        return chosen.compactMap { shape, _ in
            locator.locate(p, in: shapes[shape]).map { (shape, $0) }
        }
    }

    // MARK: Building

    /// Top-down: split the entries at the median of the box centres along the widest axis.
    /// Returns the index of the subtree's root.
    @discardableResult
    private static func build(_ entries: inout [Entry], _ range: Range<Int>, _ nodes: inout [Node]) -> Int {
        var box = Box.empty
        for entry in entries[range] { box.formUnion(entry.box) }
        let index = nodes.count
        nodes.append(Node(box: box, first: Int32(range.lowerBound), count: Int32(range.count)))
        guard range.count > entriesPerLeaf else { return index }
        let extent = box.high - box.low
        let axis = extent.x >= extent.y && extent.x >= extent.z ? 0 : extent.y >= extent.z ? 1 : 2
        entries[range].sort { $0.box.center[axis] < $1.box.center[axis] }
        let middle = range.lowerBound + range.count / 2
        let left = build(&entries, range.lowerBound..<middle, &nodes)
        let right = build(&entries, middle..<range.upperBound, &nodes)
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
