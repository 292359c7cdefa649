import Geodesy
import Geometry

/// Visvalingam–Whyatt (1993): repeatedly remove the vertex whose triangle with its two
/// neighbours has the least area on the ellipsoid, then measure its neighbours' new triangles.
/// Each vertex's importance is its triangle's area when it went (made never less than that of
/// a vertex removed before it, so that importance follows the order of removal); `weighted`
/// multiplies the area by mapshaper's weight 1 − 0.7·cos θ, θ the angle at the vertex, so that
/// spikes go sooner and right angles later.
struct Visvalingam {
    let model: EdgeModel
    let weighted: Bool

    /// The vertices of `part` in the order they go, with their importance (m²), leaving the
    /// part's minimum.
    func removals(_ part: Part) -> [(vertex: Int, importance: Double)] {
        let path = part.positions
        guard path.count > part.minimum else { return [] }
        var previous = Array(-1..<(path.count - 1)), next = Array(1...path.count)
        var current = [Double](repeating: 0, count: path.count)
        var heap = BinaryHeap<(metric: Double, vertex: Int)> { a, b in
            a.metric != b.metric ? a.metric < b.metric : a.vertex < b.vertex
        }
        for vertex in 1..<(path.count - 1) {
            current[vertex] = metric(path[vertex - 1], path[vertex], path[vertex + 1])
            heap.push((current[vertex], vertex))
        }
        var order: [(vertex: Int, importance: Double)] = []
        order.reserveCapacity(path.count - part.minimum)
        var floor = 0.0
        while order.count < path.count - part.minimum, let (value, vertex) = heap.pop() {
            // A stale entry: the vertex went already, or its triangle changed since.
            guard next[vertex] >= 0, value == current[vertex] else { continue }
            floor = max(floor, value)
            order.append((vertex, floor))
            let before = previous[vertex], after = next[vertex]
            next[before] = after
            previous[after] = before
            next[vertex] = -1
            for neighbour in [before, after] where neighbour > 0 && neighbour < path.count - 1 {
                current[neighbour] = metric(path[previous[neighbour]], path[neighbour], path[next[neighbour]])
                heap.push((current[neighbour], neighbour))
            }
        }
        return order
    }

    /// The triangle's effective area, m² (Web Mercator m² for the projected kind).
    func metric(_ a: Position, _ b: Position, _ c: Position) -> Double {
        let area = abs(model.signedArea(ofRing: [a, b, c]))
        return weighted ? area * (1 - 0.7 * model.angleCosine(at: b, from: a, to: c)) : area
    }
}
