import Geodesy
import Geometry
import Polyline

/// What `geo simplify` does to one record's geometry: its paths gathered as parts, the kept
/// vertices chosen by the method and the amount, polygons' topology repaired, the geometry
/// rebuilt from the kept positions.
struct Simplifier: Sendable {
    let model: EdgeModel
    let method: Simplify.Method
    let amount: Simplify.Amount
    let distance: EdgeDistance
    /// Picks which geodesic distances Douglas–Peucker computes exactly (nil: all of them).
    let bound: ConformalBound?

    func simplify(_ geometry: Geometry?) throws -> Geometry? {
        var parts: [Part] = []
        var polygons: [[Range<Int>]] = []
        try gather(geometry, into: &parts, polygons: &polygons)
        let kept = try keptVertices(parts, polygons: polygons)
        var next = 0
        return rebuild(geometry, kept: kept, parts: parts, next: &next)
    }

    /// Every path of the geometry in order; the rings of each Polygon or MultiPolygon, one range
    /// of them a polygon.
    func gather(_ geometry: Geometry?, into parts: inout [Part], polygons: inout [[Range<Int>]]) throws {
        func add(_ path: Path, ring: Bool) throws {
            try model.validate(path)
            parts.append(Part(positions: path, isRing: ring))
        }
        switch geometry {
        case nil: break
        case .point(let position): try model.validate([position])
        case .multiPoint(let points): try model.validate(points)
        case .lineString(let path): try add(path, ring: false)
        case .multiLineString(let paths): for path in paths { try add(path, ring: false) }
        case .polygon(let rings):
            try gather(.multiPolygon([rings]), into: &parts, polygons: &polygons)
        case .multiPolygon(let members):
            polygons.append(try members.map { rings in
                let start = parts.count
                for ring in rings { try add(ring, ring: true) }
                return start..<parts.count
            })
        case .geometryCollection(let members): for member in members { try gather(member, into: &parts, polygons: &polygons) }
        }
    }

    func rebuild(_ geometry: Geometry?, kept: [[Bool]], parts: [Part], next: inout Int) -> Geometry? {
        func path() -> Path {
            defer { next += 1 }
            let flags = kept[next]
            return parts[next].positions.indices.filter { flags[$0] }.map { parts[next].positions[$0] }
        }
        switch geometry {
        case nil, .point, .multiPoint: return geometry
        case .lineString: return .lineString(path())
        case .multiLineString(let paths): return .multiLineString(paths.map { _ in path() })
        case .polygon(let rings): return .polygon(rings.map { _ in path() })
        case .multiPolygon(let members): return .multiPolygon(members.map { $0.map { _ in path() } })
        case .geometryCollection(let members): return .geometryCollection(members.map { rebuild($0, kept: kept, parts: parts, next: &next)! })
        }
    }

    /// Which vertices of each part stay.
    func keptVertices(_ parts: [Part], polygons: [[Range<Int>]]) throws -> [[Bool]] {
        var kept = parts.map { part in
            var flags = [Bool](repeating: part.positions.count <= part.minimum, count: part.positions.count)
            if !flags.isEmpty { flags[0] = true; flags[flags.count - 1] = true }
            return flags
        }
        let restore: (Int, Int, Int) -> Int?
        if method == .dp {
            let dp = DouglasPeucker(parts: parts, distance: distance, model: model, bound: bound)
            try douglasPeucker(dp, parts, &kept)
            restore = { part, low, high in dp.farthest(part: part, low: low, high: high) }
        } else {
            let visvalingam = Visvalingam(model: model, weighted: method == .weighted)
            let removals = parts.map(visvalingam.removals)
            try remove(removals, parts, &kept)
            // The most important vertex the shortcut removed.
            var importance = parts.map { [Double](repeating: .infinity, count: $0.positions.count) }
            for (part, order) in removals.enumerated() { for (vertex, value) in order { importance[part][vertex] = value } }
            restore = { part, low, high in
                ((low + 1)..<high).filter { !kept[part][$0] }.max { importance[part][$0] < importance[part][$1] }
            }
        }
        for members in polygons {
            guard let first = members.first?.lowerBound, let last = members.last?.upperBound else { continue }
            var rings = Array(kept[first..<last])
            TopologyGuard(rings: parts[first..<last].map(\.positions)).repair(kept: &rings) { ring, low, high in restore(first + ring, low, high) }
            kept.replaceSubrange(first..<last, with: rings)
        }
        return kept
    }

    /// Douglas–Peucker to the amount.
    func douglasPeucker(_ dp: DouglasPeucker, _ parts: [Part], _ kept: inout [[Bool]]) throws {
        switch amount {
        case .tolerance(let tolerance):
            var heap = dp.start(parts.indices, kept: &kept, floor: tolerance)
            dp.cut(&heap, kept: &kept, over: tolerance)
        case .maxPoints(let most):
            for part in parts.indices {
                var heap = dp.start([part], kept: &kept, floor: 0)
                var count = kept[part].count { $0 }
                dp.expand(&heap, kept: &kept, floor: 0) { _, _, _, _, _ in
                    count += 1
                    return count <= most
                }
            }
        case .keep(let share):
            var heap = dp.start(parts.indices, kept: &kept, floor: 0)
            var more = target(share, parts)
            dp.expand(&heap, kept: &kept, floor: 0) { _, _, _, _, _ in
                more -= 1
                return more >= 0
            }
        case .maxChars(let budget, let precision):
            var heap = dp.start(parts.indices, kept: &kept, floor: 0)
            let budgetCounter = try CharacterCount(parts, precision: precision)
            var characters = budgetCounter.total(kept)
            try budgetCounter.check(characters, budget: budget)
            dp.expand(&heap, kept: &kept, floor: 0) { _, part, low, vertex, high in
                let added = budgetCounter.edge(part, low, vertex) + budgetCounter.edge(part, vertex, high) - budgetCounter.edge(part, low, high)
                guard characters + added <= budget else { return false }
                characters += added
                return true
            }
        }
    }

    /// Visvalingam's removals to the amount.
    func remove(_ removals: [[(vertex: Int, importance: Double)]], _ parts: [Part], _ kept: inout [[Bool]]) throws {
        for part in parts.indices { for vertex in kept[part].indices { kept[part][vertex] = true } }
        // Every part's removals in one order, least important first.
        var merged = removals.enumerated().flatMap { part, order in order.map { (part: part, vertex: $0.vertex, importance: $0.importance) } }
        merged.sort { $0.importance != $1.importance ? $0.importance < $1.importance : $0.part != $1.part ? $0.part < $1.part : false }
        switch amount {
        case .tolerance(let tolerance):
            for removal in merged where removal.importance < tolerance * tolerance { kept[removal.part][removal.vertex] = false }
        case .maxPoints(let most):
            for (part, order) in removals.enumerated() {
                for removal in order.prefix(max(0, parts[part].positions.count - most)) { kept[part][removal.vertex] = false }
            }
        case .keep(let share):
            let keeping = target(share, parts)
            for removal in merged.prefix(max(0, merged.count - keeping)) { kept[removal.part][removal.vertex] = false }
        case .maxChars(let budget, let precision):
            let counter = try CharacterCount(parts, precision: precision)
            var characters = counter.total(kept)
            // Each part's kept vertices as a linked list, to find a removed vertex's neighbours.
            var previous = parts.map { Array(-1..<($0.positions.count - 1)) }
            var next = parts.map { Array(1...max(1, $0.positions.count)) }
            for removal in merged {
                if characters <= budget { break }
                let part = removal.part, vertex = removal.vertex
                let before = previous[part][vertex], after = next[part][vertex]
                characters += counter.edge(part, before, after) - counter.edge(part, before, vertex) - counter.edge(part, vertex, after)
                next[part][before] = after
                previous[part][after] = before
                kept[part][vertex] = false
            }
            try counter.check(characters, budget: budget)
        }
    }

    /// How many removable vertices (beyond each part's minimum) `--keep` keeps: its share of them.
    func target(_ share: Double, _ parts: [Part]) -> Int {
        Int((share * Double(parts.reduce(0) { $0 + $1.positions.count - $1.minimum })).rounded())
    }
}

/// The characters of a record's encoded polylines, one a path, as kept vertices change: the
/// first position's own values, then each kept edge's differences.
struct CharacterCount {
    let latitudes: [[Int64]]
    let longitudes: [[Int64]]

    init(_ parts: [Part], precision: Int) throws {
        let encoder = PolylineEncoder(precision: precision)
        do {
            latitudes = try parts.map { part throws(PolylineError) in try part.positions.map { (p) throws(PolylineError) in try encoder.integer(p.latitude) } }
            longitudes = try parts.map { part throws(PolylineError) in try part.positions.map { (p) throws(PolylineError) in try encoder.integer(p.longitude) } }
        } catch {
            throw BadRecord("a coordinate is too large to encode at precision \(precision)")
        }
    }

    /// The characters of the edge from vertex `a` to `b` of `part` (`a` = -1: from the origin).
    func edge(_ part: Int, _ a: Int, _ b: Int) -> Int {
        let fromLatitude = a < 0 ? 0 : latitudes[part][a], fromLongitude = a < 0 ? 0 : longitudes[part][a]
        return PolylineEncoder.encodedLength(latitudes[part][b] &- fromLatitude)
            + PolylineEncoder.encodedLength(longitudes[part][b] &- fromLongitude)
    }

    func total(_ kept: [[Bool]]) -> Int {
        var sum = 0
        for (part, flags) in kept.enumerated() {
            var previous = -1
            for vertex in flags.indices where flags[vertex] {
                sum += edge(part, previous, vertex)
                previous = vertex
            }
        }
        return sum
    }

    func check(_ characters: Int, budget: Int) throws {
        guard characters > budget else { return }
        throw BadRecord("its polyline takes \(characters) characters with every removable vertex gone, more than --max-chars \(budget)")
    }
}
