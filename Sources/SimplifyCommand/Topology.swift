#if canImport(Glibc)
import Glibc
#endif
import Geodesy
import Geometry

/// What JTS's TopologyPreservingSimplifier promises, judged in Web Mercator: simplifying a
/// polygon's rings makes no edge cross or touch another edge of the polygon (of its own ring or
/// another) where the input's did not, folds no edge back over its neighbour, and moves no ring
/// in or out of another (no hole leaves its shell). Where an edge that replaced removed vertices (a shortcut) does, the most
/// important vertex it removed comes back (`restore`), and the polygon is judged again, until
/// nothing is wrong; pairs of the input's own edges are never judged (an invalid input stays
/// as invalid as it was, no more).
struct TopologyGuard {
    /// Each ring's positions in Web Mercator (x = λ unrolled along the ring, y = asinh(tan φ),
    /// both in degrees: only their shape matters here).
    let rings: [[(x: Double, y: Double)]]

    /// `rings`: a Polygon's, or every ring of a MultiPolygon's parts, which are judged together
    /// (shapely calls a MultiPolygon whose parts cross or nest invalid).
    init(rings: [Path]) {
        self.rings = rings.map { ring in
            var x = ring.first.map { normalizedLongitude($0.longitude) } ?? 0
            var previous = ring.first?.longitude ?? 0
            return ring.map { position in
                x += longitudeDifference(previous, position.longitude)
                previous = position.longitude
                // A pole has no y: a latitude a hair short of it keeps the ring's shape.
                let latitude = max(-89.999999, min(89.999999, position.latitude)) * .pi / 180
                return (x, asinh(tan(latitude)) * 180 / .pi)
            }
        }
    }

    /// One edge of the simplified polygon: ring `ring`'s vertices `low` to `high`, the
    /// `index`-th of the ring's `count` edges.
    struct Edge {
        let ring: Int
        let low: Int
        let high: Int
        let index: Int
        let count: Int
        let closing: Bool
        var isShortcut: Bool { !closing && high - low > 1 }
    }

    /// Restores vertices in `kept` until the polygon is as valid as the input was.
    func repair(kept: inout [[Bool]], restore: (_ ring: Int, _ low: Int, _ high: Int) -> Int?) {
        while true {
            var shortcuts = Set<[Int]>()
            for (a, b) in conflicts(kept) {
                for edge in [a, b] where edge.isShortcut { shortcuts.insert([edge.ring, edge.low, edge.high]) }
            }
            if shortcuts.isEmpty { shortcuts = containmentChanged(kept) }
            var restored = false
            for shortcut in shortcuts.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
                if let vertex = restore(shortcut[0], shortcut[1], shortcut[2]), !kept[shortcut[0]][vertex] {
                    kept[shortcut[0]][vertex] = true
                    restored = true
                }
            }
            if !restored { return }
        }
    }

    func edges(_ kept: [[Bool]]) -> [Edge] {
        var edges: [Edge] = []
        for (ring, flags) in kept.enumerated() {
            let vertices = flags.indices.filter { flags[$0] }
            guard vertices.count > 1 else { continue }
            let points = rings[ring]
            let closed = points.first! == points.last!
            let count = vertices.count - 1 + (closed ? 0 : 1)
            for index in 0..<(vertices.count - 1) {
                edges.append(Edge(ring: ring, low: vertices[index], high: vertices[index + 1], index: index, count: count, closing: false))
            }
            if !closed { edges.append(Edge(ring: ring, low: vertices.last!, high: vertices[0], index: count - 1, count: count, closing: true)) }
        }
        return edges
    }

    /// Pairs of edges that meet where they should not, at least one of them a shortcut: a sweep
    /// over the edges in order of their least x.
    func conflicts(_ kept: [[Bool]]) -> [(Edge, Edge)] {
        let edges = edges(kept)
        func box(_ edge: Edge) -> (minX: Double, maxX: Double, minY: Double, maxY: Double) {
            let p = rings[edge.ring][edge.low], q = rings[edge.ring][edge.high]
            return (min(p.x, q.x), max(p.x, q.x), min(p.y, q.y), max(p.y, q.y))
        }
        let boxes = edges.map(box)
        let order = edges.indices.sorted { boxes[$0].minX < boxes[$1].minX }
        var active: [Int] = []
        var found: [(Edge, Edge)] = []
        for i in order {
            active.removeAll { boxes[$0].maxX < boxes[i].minX }
            for j in active where boxes[j].minY <= boxes[i].maxY && boxes[i].minY <= boxes[j].maxY {
                let a = edges[i], b = edges[j]
                if (a.isShortcut || b.isShortcut) && meet(a, b) { found.append((a, b)) }
            }
            active.append(i)
        }
        return found
    }

    /// Whether two edges meet badly: any common point for edges apart; for neighbours in a
    /// ring, folding back along each other beyond the vertex they share.
    func meet(_ a: Edge, _ b: Edge) -> Bool {
        let p1 = rings[a.ring][a.low], p2 = rings[a.ring][a.high]
        let q1 = rings[b.ring][b.low], q2 = rings[b.ring][b.high]
        if a.ring == b.ring && a.count >= 3 {
            let gap = abs(a.index - b.index)
            if gap == 1 || gap == a.count - 1 {
                // The shared vertex s, and the other ends u (of a) and v (of b).
                let (s, u, v) = b.index == (a.index + 1) % a.count ? (p2, p1, q2) : (p1, p2, q1)
                return orientation(u, s, v) == 0 && (u.x - s.x) * (v.x - s.x) + (u.y - s.y) * (v.y - s.y) > 0
            }
        }
        let d1 = orientation(q1, q2, p1), d2 = orientation(q1, q2, p2)
        let d3 = orientation(p1, p2, q1), d4 = orientation(p1, p2, q2)
        if ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0)) { return true }
        return (d1 == 0 && within(p1, q1, q2)) || (d2 == 0 && within(p2, q1, q2))
            || (d3 == 0 && within(q1, p1, p2)) || (d4 == 0 && within(q2, p1, p2))
    }

    func orientation(_ p: (x: Double, y: Double), _ q: (x: Double, y: Double), _ r: (x: Double, y: Double)) -> Double {
        (q.x - p.x) * (r.y - p.y) - (q.y - p.y) * (r.x - p.x)
    }

    /// Whether `p`, on the line through `a` and `b`, lies on the segment.
    func within(_ p: (x: Double, y: Double), _ a: (x: Double, y: Double), _ b: (x: Double, y: Double)) -> Bool {
        min(a.x, b.x) <= p.x && p.x <= max(a.x, b.x) && min(a.y, b.y) <= p.y && p.y <= max(a.y, b.y)
    }

    /// Shortcuts that changed which rings hold which: a ring's first position (which stays)
    /// inside another ring simplified but not as given, or the other way round (a hole left out
    /// of its shell, one part's shell now inside another's, an island out of its lake). Each
    /// such shortcut of the holding ring whose replaced vertices' box holds the position.
    func containmentChanged(_ kept: [[Bool]]) -> Set<[Int]> {
        guard rings.count > 1 else { return [] }
        var shortcuts = Set<[Int]>()
        for (index, ring) in rings.enumerated() where ring.count > 3 {
            let box = (minX: ring.map(\.x).min()!, maxX: ring.map(\.x).max()!, minY: ring.map(\.y).min()!, maxY: ring.map(\.y).max()!)
            let vertices = ring.indices.filter { kept[index][$0] }
            let simplified = vertices.map { ring[$0] }
            for (other, points) in rings.enumerated() where other != index {
                guard let point = points.first, box.minX <= point.x, point.x <= box.maxX, box.minY <= point.y, point.y <= box.maxY,
                      contains(simplified, point) != contains(ring, point) else { continue }
                for (low, high) in zip(vertices, vertices.dropFirst()) where high - low > 1 {
                    let chain = ring[low...high]
                    if chain.contains(where: { $0.x >= point.x }) && chain.contains(where: { $0.x <= point.x })
                        && chain.contains(where: { $0.y >= point.y }) && chain.contains(where: { $0.y <= point.y }) {
                        shortcuts.insert([index, low, high])
                    }
                }
            }
        }
        return shortcuts
    }

    /// Even–odd point in ring.
    func contains(_ ring: [(x: Double, y: Double)], _ p: (x: Double, y: Double)) -> Bool {
        var inside = false
        guard var previous = ring.last else { return false }
        for current in ring {
            if (current.y > p.y) != (previous.y > p.y)
                && p.x < (previous.x - current.x) * (p.y - current.y) / (previous.y - current.y) + current.x {
                inside.toggle()
            }
            previous = current
        }
        return inside
    }
}
