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
/// vertex spiral (every range cut one vertex from its end) costs no stack.
struct DouglasPeucker {
    let parts: [Part]
    let distance: EdgeDistance
    /// Each part's positions as unit vectors, for the spherical bound (empty without one).
    let vectors: [[SIMD3<Double>]]
    let bound: SphericalBound?

    init(parts: [Part], distance: EdgeDistance) {
        self.parts = parts
        self.distance = distance
        if case .edge(let model) = distance, let bound = SphericalBound(model: model) {
            self.bound = bound
            vectors = parts.map { $0.positions.map(SphericalBound.unitVector) }
        } else {
            bound = nil
            vectors = []
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
            forced.push(evaluate(top, cap: .infinity, floor: 0, &scratch))
            var count = 2
            while count < parts[index].minimum, let range = forced.pop() {
                kept[index][range.vertex] = true
                count += 1
                for child in children(of: range, floor: 0, &scratch) { forced.push(child) }
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
            for child in children(of: range, floor: floor, &scratch) { heap.push(child) }
        }
    }

    /// The vertex inside `low...high` that Douglas–Peucker keeps first: the farthest from the
    /// edge low→high (the first of equals). For restoring a vertex that topology needs.
    func farthest(part: Int, low: Int, high: Int) -> Int? {
        var scratch = Scratch()
        let range = evaluate(Range(key: .infinity, part: part, low: low, high: high, vertex: -1), cap: .infinity, floor: 0, &scratch)
        return range.vertex >= 0 ? range.vertex : nil
    }

    func children(of range: Range, floor: Double, _ scratch: inout Scratch) -> [Range] {
        [Range(key: range.key, part: range.part, low: range.low, high: range.vertex, vertex: -1),
         Range(key: range.key, part: range.part, low: range.vertex, high: range.high, vertex: -1)]
            .filter { $0.high - $0.low > 1 }
            .map { evaluate($0, cap: range.key, floor: floor, &scratch) }
    }

    /// A buffer reused from range to range.
    struct Scratch {
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
        case .edge(let model):
            let (vertex, farthest) = farthestOnEdges(model, range, path, floor: floor, &scratch)
            result.vertex = vertex
            result.key = min(farthest, cap)
        }
        return result
    }

    /// The farthest vertex from the geodesic (or rhumb, or Mercator) edge low→high, exactly. For
    /// geodesics a cheap spherical distance with an error bound picks the vertices worth an
    /// exact distance (see `SphericalBound`); the result is what measuring all of them exactly
    /// gives.
    func farthestOnEdges(_ model: EdgeModel, _ range: Range, _ path: Path, floor: Double, _ scratch: inout Scratch) -> (Int, Double) {
        let a = path[range.low], b = path[range.high]
        func exact(_ k: Int) -> Double { model.nearestPoint(onEdgeFrom: a, to: b, near: path[k]).distance }
        let vectors = bound == nil ? [] : self.vectors[range.part]
        guard let bound, let edge = bound.edge(vectors[range.low], vectors[range.high]) else {
            var best = -1.0, vertex = -1
            for k in (range.low + 1)..<range.high {
                let d = exact(k)
                if d > best { best = d; vertex = k }
            }
            return (vertex, best)
        }
        // The largest lower bound: the farthest vertex is at least that far, so only vertices
        // whose upper bound reaches it can be the farthest.
        var highestLow = 0.0, highestHigh = 0.0
        for k in (range.low + 1)..<range.high {
            let (low, high) = edge.bounds(vectors[k])
            highestLow = max(highestLow, low)
            highestHigh = max(highestHigh, high)
        }
        if highestHigh <= floor { return (-1, highestHigh) }
        scratch.candidates.removeAll(keepingCapacity: true)
        for k in (range.low + 1)..<range.high {
            let high = edge.bounds(vectors[k]).high
            if high >= highestLow { scratch.candidates.append((high, k)) }
        }
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

/// A cheap bound on the geodesic distance from a point to a geodesic edge, from the same
/// question on a sphere of radius a (unit vectors of the geodetic latitude and longitude, the
/// distance to the great-circle arc). Two facts bound the error:
/// - Distances: on the ellipsoid ds² = M²dφ² + N²cos²φ dλ², on the sphere a²(dφ² + cos²φ dλ²),
///   and M, N lie between a(1−e²) (M at the equator) and a/√(1−e²) (M and N at a pole), so any
///   curve's length, hence any distance, differs by a factor within [1−e², 1/√(1−e²)].
/// - Edges: the geodesic, drawn on the sphere, strays from the great-circle arc between its ends
///   by at most 6.6e-11·L² metres on WGS84 for L up to 10,000 km (measured with geographiclib over
///   random edges at every latitude; 1,956 m at 15,000 km); `deviation` allows 3e-10·L² scaled
///   by the flattening, and edges over 10,000 km are measured exactly.
/// So the exact distance d and the spherical one d̃ satisfy (1−e²)(d̃ − δ) ≤ d ≤ (d̃ + δ)/√(1−e²).
/// The bound only chooses which vertices get an exact distance; every distance compared with
/// the tolerance or another is exact, so the result is that of measuring every vertex exactly.
struct SphericalBound {
    let radius: Double
    let below: Double
    let above: Double
    let deviationFactor: Double

    init?(model: EdgeModel) {
        guard model.kind == .geodesic, model.earth.f >= 0, model.earth.f < 0.01 else { return nil }
        radius = model.earth.a
        let e2 = model.earth.e2
        below = (1 - e2) * (1 - 1e-12)
        above = 1 / (1 - e2).squareRoot() * (1 + 1e-12)
        deviationFactor = 3e-10 * max(1, model.earth.f / (1 / 298.257223563)) * 6378137 / model.earth.a
    }

    static func unitVector(_ p: Position) -> SIMD3<Double> {
        let (sinLatitude, cosLatitude) = sincosDegrees(p.latitude)
        let (sinLongitude, cosLongitude) = sincosDegrees(p.longitude)
        return SIMD3(cosLatitude * cosLongitude, cosLatitude * sinLongitude, sinLatitude)
    }

    /// The arc from `a` to `b`, or nil when it is too long for the bound.
    func edge(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Arc? {
        let normal = cross(a, b)
        let sine = length(normal)
        let angle = atan2(sine, dot(a, b))
        let arc = angle * radius
        guard arc <= 1e7 else { return nil }
        // Ends closer than a micrometre: the edge is a point.
        let isPoint = sine * radius < 1e-6
        let deviation = deviationFactor * arc * arc + 1e-6
        return Arc(a: a, b: b, normal: isPoint ? .zero : normal / sine, isPoint: isPoint, bound: self, deviation: deviation)
    }

    struct Arc {
        let a: SIMD3<Double>
        let b: SIMD3<Double>
        let normal: SIMD3<Double>
        let isPoint: Bool
        let bound: SphericalBound
        let deviation: Double

        /// Lower and upper bounds on the exact distance from `p` to the edge, metres.
        @inline(__always)
        func bounds(_ p: SIMD3<Double>) -> (low: Double, high: Double) {
            let angle: Double
            if !isPoint && dot(cross(a, p), normal) >= 0 && dot(cross(p, b), normal) >= 0 {
                angle = asin(min(1, abs(dot(p, normal))))
            } else {
                angle = min(between(p, a), isPoint ? .infinity : between(p, b))
            }
            let spherical = angle * bound.radius
            return (max(0, (spherical - deviation) * bound.below), (spherical + deviation) * bound.above)
        }

        @inline(__always)
        func between(_ u: SIMD3<Double>, _ v: SIMD3<Double>) -> Double { atan2(length(cross(u, v)), dot(u, v)) }
    }
}

@inline(__always) func dot(_ u: SIMD3<Double>, _ v: SIMD3<Double>) -> Double { (u * v).sum() }
@inline(__always) func length(_ u: SIMD3<Double>) -> Double { dot(u, u).squareRoot() }
@inline(__always) func cross(_ u: SIMD3<Double>, _ v: SIMD3<Double>) -> SIMD3<Double> {
    SIMD3(u.y * v.z - u.z * v.y, u.z * v.x - u.x * v.z, u.x * v.y - u.y * v.x)
}
