#if canImport(Glibc)
import Glibc
#endif
import Geodesy
import Geometry

/// How far a vertex lies from the edge that would replace it: Douglas–Peucker's measure.
enum EdgeDistance: Sendable {
    /// android-maps-utils' `PolyUtil.distanceToLine` on a sphere of this radius: the foot of the
    /// perpendicular found in plain latitude–longitude radians, its distance by haversine.
    case polyUtil(radius: Double)
    /// The geodesic distance from the vertex to the nearest point of the edge running by the
    /// model's kind (`EdgeModel.nearestPoint`).
    case edge(EdgeModel)
}

/// Douglas–Peucker over the parts of one record, most important vertex first: a heap of the
/// ranges between kept vertices, keyed by the distance of the farthest vertex inside (capped by
/// the range it was cut from, so that keys come out in falling order and the vertices kept
/// after any number of steps are exactly what Douglas–Peucker keeps at that tolerance). The
/// caller's `accept` says when to stop. An explicit heap instead of recursion: a 1,000,000
/// vertex spiral (every range cut one vertex from its end) costs no stack. With a tolerance
/// (`floor` > 0) a key may be a lower bound of that distance above the tolerance: which ranges
/// are cut, and where, is all a tolerance asks, and that stays exact.
struct DouglasPeucker {
    let parts: [Part]
    let distance: EdgeDistance
    /// The edges' model, read in place for each range (binding it out of `distance` would copy
    /// it, retaining its PROJ state, on every range).
    let model: EdgeModel
    /// Each part's positions on the conformal sphere, for the bound (empty without one).
    let vertices: [[SIMD4<Double>]]
    let bound: ConformalBound?
    /// Each part's Web Mercator y, computed once, for projected edges (empty otherwise).
    let mercatorY: [[Double]]

    /// `bound`: nil measures every vertex exactly (what the bound must agree with).
    init(parts: [Part], distance: EdgeDistance, model: EdgeModel, bound: ConformalBound?) {
        self.parts = parts
        self.distance = distance
        self.model = model
        if case .edge = distance, let bound {
            self.bound = bound
            vertices = parts.map { $0.positions.map(bound.vertex) }
        } else {
            self.bound = nil
            vertices = []
        }
        if case .edge = distance, model.kind == .projected {
            mercatorY = parts.map { $0.positions.map { WebMercator.measuredY(latitude: $0.latitude, radius: model.earth.a) } }
        } else {
            mercatorY = []
        }
    }

    /// One range between two kept vertices, with its farthest vertex inside.
    struct Range {
        var key: Double
        var part: Int
        var low: Int
        var high: Int
        var vertex: Int
    }

    typealias Heap = BinaryHeap<Range>

    /// The ranges of `selected` parts to cut, after keeping each part's minimum (a ring's four
    /// positions), farthest first, whatever the amount. `floor`: ranges whose vertices are all
    /// at most this far need no exact distances (Douglas–Peucker at tolerance `floor` never
    /// cuts them).
    func start(_ selected: some Sequence<Int>, kept: inout [[Bool]], floor: Double) -> Heap {
        var heap = Heap { a, b in
            a.key != b.key ? a.key > b.key : a.part != b.part ? a.part < b.part : a.vertex < b.vertex
        }
        var scratch = Scratch()
        for index in selected where parts[index].positions.count > 2 {
            let top = Range(key: .infinity, part: index, low: 0, high: parts[index].positions.count - 1, vertex: -1)
            var forced = Heap(before: heap.before)
            // The order of forced vertices needs exact keys; without any, `floor` serves.
            forced.push(evaluate(top, cap: .infinity, floor: parts[index].minimum > 2 ? 0 : floor, &scratch))
            var count = 2
            while count < parts[index].minimum, let range = forced.pop() {
                kept[index][range.vertex] = true
                count += 1
                let (left, right) = children(of: range, floor: 0, &scratch)
                if let left { forced.push(left) }
                if let right { forced.push(right) }
            }
            while let range = forced.pop() { heap.push(range) }
        }
        return heap
    }

    /// Keeps vertices one at a time, most important first, while `accept(key, part, low,
    /// vertex, high)` says yes: `key` is the vertex's distance (capped), `low` and `high` the
    /// kept vertices on either side.
    func expand(_ heap: inout Heap, kept: inout [[Bool]], floor: Double, accept: (Double, Int, Int, Int, Int) -> Bool) {
        var scratch = Scratch()
        while let range = heap.pop() {
            // A range left uncut (all its vertices within `floor`) ends nothing: others may tie.
            guard range.vertex >= 0 else { continue }
            guard accept(range.key, range.part, range.low, range.vertex, range.high) else { break }
            kept[range.part][range.vertex] = true
            let (left, right) = children(of: range, floor: floor, &scratch)
            if let left { heap.push(left) }
            if let right { heap.push(right) }
        }
    }

    /// Keeps every vertex Douglas–Peucker keeps at `tolerance`, after `start(floor: tolerance)`:
    /// each range whose farthest vertex is farther than the tolerance is cut there. Which ranges
    /// are cut does not depend on the order they are cut in, so a stack serves, not the heap.
    func cut(_ heap: inout Heap, kept: inout [[Bool]], over tolerance: Double) {
        var stack: [Range] = []
        while let range = heap.pop() { stack.append(range) }
        var scratch = Scratch()
        while let range = stack.popLast() {
            guard range.vertex >= 0, range.key > tolerance else { continue }
            kept[range.part][range.vertex] = true
            let (left, right) = children(of: range, floor: tolerance, &scratch)
            if let left { stack.append(left) }
            if let right { stack.append(right) }
        }
    }

    /// The vertex inside `low...high` that Douglas–Peucker keeps first: the farthest from the
    /// edge low→high (the first of equals). For restoring a vertex that topology needs.
    func farthest(part: Int, low: Int, high: Int) -> Int? {
        var scratch = Scratch()
        let range = evaluate(Range(key: .infinity, part: part, low: low, high: high, vertex: -1), cap: .infinity, floor: 0, &scratch)
        return range.vertex >= 0 ? range.vertex : nil
    }

    /// The two ranges either side of the range's farthest vertex, evaluated (those with a
    /// vertex inside).
    func children(of range: Range, floor: Double, _ scratch: inout Scratch) -> (Range?, Range?) {
        func child(_ low: Int, _ high: Int) -> Range? {
            guard high - low > 1 else { return nil }
            return evaluate(Range(key: range.key, part: range.part, low: low, high: high, vertex: -1), cap: range.key, floor: floor, &scratch)
        }
        return (child(range.low, range.vertex), child(range.vertex, range.high))
    }

    /// Buffers reused from range to range.
    struct Scratch {
        var chords: [Double] = []
        var candidates: [(bound: Double, vertex: Int)] = []
    }

    /// The range with its farthest vertex and key (that distance, capped by `cap`). A range whose
    /// vertices are all within `floor` gets an upper bound of their distances as its key and no
    /// vertex (-1): it is never cut.
    func evaluate(_ range: Range, cap: Double, floor: Double, _ scratch: inout Scratch) -> Range {
        var result = range
        let path = parts[range.part].positions
        switch distance {
        case .polyUtil(let radius):
            var best = 0.0, vertex = -1
            // PolyUtil nudges a closed ring's last point by 1e-11° so that the first range has
            // an edge to measure from (its #201); the test vectors depend on it.
            var end = path[range.high]
            if range.high == path.count - 1 && path.count > 1 && path[0] == path[path.count - 1] {
                end = Position(longitude: end.longitude + 1e-11, latitude: end.latitude + 1e-11)
            }
            for k in (range.low + 1)..<range.high {
                let d = polyUtilDistance(path[k], path[range.low], end, radius: radius)
                if d > best { best = d; vertex = k }
            }
            result.vertex = vertex
            result.key = min(best, cap)
        case .edge:
            let (vertex, farthest) = farthestOnEdges(range, path, floor: floor, &scratch)
            result.vertex = vertex
            result.key = min(farthest, cap)
        }
        return result
    }

    /// The farthest vertex from the geodesic (or rhumb, or Mercator) edge low→high, exactly. For
    /// geodesics the conformal bound picks the vertices worth an exact distance; the result is
    /// what measuring all of them exactly gives.
    func farthestOnEdges(_ range: Range, _ path: Path, floor: Double, _ scratch: inout Scratch) -> (Int, Double) {
        let a = path[range.low], b = path[range.high]
        if model.kind == .projected { return farthestOnSegment(range, path) }
        func exact(_ k: Int) -> Double { model.nearestPoint(onEdgeFrom: a, to: b, near: path[k]).distance }
        if let bound, let found = vertices[range.part].withUnsafeBufferPointer({
            farthestByBound(bound, $0, range, floor: floor, &scratch, exact)
        }) {
            return found
        }
        var best = -1.0, vertex = -1
        for k in (range.low + 1)..<range.high {
            let d = exact(k)
            if d > best { best = d; vertex = k }
        }
        return (vertex, best)
    }

    /// The farthest vertex from the Web Mercator segment low→high: `EdgeModel.nearestPoint`'s
    /// own arithmetic, with each vertex's y computed once instead of once per range.
    func farthestOnSegment(_ range: Range, _ path: Path) -> (Int, Double) {
        mercatorY[range.part].withUnsafeBufferPointer { y in
            let a = path[range.low], b = path[range.high], ya = y[range.low], yb = y[range.high]
            var best = -1.0, vertex = -1
            for k in (range.low + 1)..<range.high {
                let d = model.mercatorSegmentDistance(a, ya: ya, b, yb: yb, path[k], yp: y[k]).distance
                if d > best { best = d; vertex = k }
            }
            return (vertex, best)
        }
    }

    /// The farthest vertex by the conformal bound, nil where the bound does not apply (an edge
    /// or a distance too long for it). Only vertices whose upper bound reaches the largest lower
    /// bound can be the farthest; they get exact distances, the largest upper bound first, until
    /// the next cannot beat the best. With `floor` > 0 (a tolerance: only whether a range is cut
    /// and where matters, not its key's exact value) a single such vertex whose lower bound is
    /// over the floor is the farthest with no exact distance, its lower bound the key; a range
    /// whose upper bounds are all within the floor is not cut (vertex -1).
    func farthestByBound(_ bound: ConformalBound, _ vertices: UnsafeBufferPointer<SIMD4<Double>>, _ range: Range, floor: Double,
                         _ scratch: inout Scratch, _ exact: (Int) -> Double) -> (Int, Double)? {
        guard let arc = bound.edge(vertices[range.low], vertices[range.high]) else { return nil }
        // Pass 1, cheap: each vertex's squared chord to the arc, the largest, the largest 1/k.
        let first = range.low + 1, count = range.high - first
        if scratch.chords.count < count { scratch.chords = [Double](repeating: 0, count: max(count, 2 * scratch.chords.count)) }
        var top = first, topChord = -1.0, largestInverse = 0.0
        var highestLow = 0.0, highestHigh = 0.0, lowest = top
        let bounded = scratch.chords.withUnsafeMutableBufferPointer { chords in
            for offset in 0..<count {
                let vertex = vertices[first + offset]
                let q = arc.chordSquared(vertex)
                chords[offset] = q
                if q > topChord { topChord = q; top = first + offset }
                largestInverse = max(largestInverse, vertex.w)
            }
            let topDistance = arc.distance(chordSquared: topChord)
            guard let rho = arc.rho(topDistance) else { return false }
            // ρ grows with the distance: the top's holds for every vertex of the range.
            let topLow = arc.bounds(distance: topDistance, inverseScale: vertices[top].w, rho: rho).low
            // A vertex's upper bound is at most (D + δ)·largestInverse/(1 − ρ): below topLow, it
            // is not the farthest. The spherical distance that takes, as a squared chord, less a hair.
            let needed = topLow * (1 - rho) / largestInverse / (1 + 1e-9) - arc.deviation
            let threshold = arc.chordSquared(distance: needed) * (1 - 1e-9)
            // Pass 2: the bounds of the rest.
            scratch.candidates.removeAll(keepingCapacity: true)
            for offset in 0..<count where chords[offset] >= threshold {
                let k = first + offset
                let (low, high) = arc.bounds(distance: arc.distance(chordSquared: chords[offset]), inverseScale: vertices[k].w, rho: rho)
                if low > highestLow { highestLow = low; lowest = k }
                highestHigh = max(highestHigh, high)
                scratch.candidates.append((high, k))
            }
            return true
        }
        guard bounded else { return nil }
        if highestHigh <= floor { return (-1, highestHigh) }
        scratch.candidates.removeAll { $0.bound < highestLow }
        if floor > 0 && scratch.candidates.count == 1 && highestLow > floor { return (lowest, highestLow) }
        scratch.candidates.sort { $0.bound != $1.bound ? $0.bound > $1.bound : $0.vertex < $1.vertex }
        var best = -1.0, vertex = -1
        for (high, k) in scratch.candidates {
            if high < best { break }
            let d = exact(k)
            if d > best || (d == best && k < vertex) { best = d; vertex = k }
        }
        return (vertex, best)
    }
}

/// `PolyUtil.distanceToLine`, as android-maps-utils computes it (radians, haversine on `radius`).
func polyUtilDistance(_ p: Position, _ start: Position, _ end: Position, radius: Double) -> Double {
    if start == end { return haversineDistance(end, p, radius: radius) }
    let radians = Double.pi / 180
    let s0lat = p.latitude * radians, s0lng = p.longitude * radians
    let s1lat = start.latitude * radians, s1lng = start.longitude * radians
    let s2lat = end.latitude * radians, s2lng = end.longitude * radians
    let s2s1lat = s2lat - s1lat, s2s1lng = s2lng - s1lng
    let u = ((s0lat - s1lat) * s2s1lat + (s0lng - s1lng) * s2s1lng) / (s2s1lat * s2s1lat + s2s1lng * s2s1lng)
    if u <= 0 { return haversineDistance(p, start, radius: radius) }
    if u >= 1 { return haversineDistance(p, end, radius: radius) }
    let foot = Position(longitude: start.longitude + u * (end.longitude - start.longitude),
                        latitude: start.latitude + u * (end.latitude - start.latitude))
    return haversineDistance(p, foot, radius: radius)
}

/// `SphericalUtil.computeDistanceBetween` on a sphere of `radius`.
func haversineDistance(_ a: Position, _ b: Position, radius: Double) -> Double {
    let radians = Double.pi / 180
    func hav(_ x: Double) -> Double { let s = sin(x * 0.5); return s * s }
    let lat1 = a.latitude * radians, lat2 = b.latitude * radians
    let h = hav(lat1 - lat2) + hav((a.longitude - b.longitude) * radians) * cos(lat1) * cos(lat2)
    return radius * 2 * asin(min(1, h.squareRoot()))
}
