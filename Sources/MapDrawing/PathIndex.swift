#if canImport(Glibc)
import Glibc
#endif
import Geometry

/// A long path's boxes, kept with it in the display list, so that a tile draws the parts of the
/// path near it and not the whole path: a 76,000-vertex borough ring or a 40,000-vertex track
/// would otherwise be walked whole by every tile it touches (23 s for New York at zoom 17).
///
/// The boxes (of projected x and y) form a tree: a leaf bounds `leafEdges` consecutive edges,
/// a node the `fanOut` nodes below it, up to one root. A path of at most `leafEdges` edges has
/// none. Stored level by level, leaves first, then the path's signed area (the shoelace sum of
/// its projected vertices, as a ring: positive counter-clockwise), which orients a ring drawn
/// from a few of its parts as it is oriented whole:
///
///     index := for each level, for each node: minX, minY, maxX, maxY as f64; area as f64
///
/// A box holding a vertex the projection does not show (infinite x or y) is the whole plane, and
/// one holding an edge across ±180 (drawn to the edges of the world, the short way) spans every
/// x. Straight edges lie within their vertices' box in the projected plane otherwise; edges
/// drawn as curves do not, so only straight edges are culled by it (`Painter`).
package enum PathIndex {
    static let leafEdges = 64
    static let fanOut = 4
    static let boxBytes = 32

    /// The bytes of the index of a path of `vertices`: its boxes and its area.
    static func size(vertices: Int) -> Int {
        let boxes = boxCount(vertices: vertices)
        return boxes > 0 ? boxBytes * boxes + 8 : 0
    }

    /// How many boxes a path of `vertices` has.
    static func boxCount(vertices: Int) -> Int {
        levels(vertices: vertices).last.map { $0.start + $0.nodes } ?? 0
    }

    /// Where each level of a path's boxes starts among them, and how many nodes it has, leaves
    /// first, up to the root; none for a path of one leaf or less.
    static func levels(vertices: Int) -> [(start: Int, nodes: Int)] {
        guard vertices - 1 > leafEdges else { return [] }
        var levels = [(start: 0, nodes: (vertices - 2) / leafEdges + 1)]
        while let last = levels.last, last.nodes > 1 {
            levels.append((last.start + last.nodes, (last.nodes + fanOut - 1) / fanOut))
        }
        return levels
    }

    /// Whether the edge between two longitudes is drawn across ±180 (the short way round), or
    /// may be: what the tracer decides, with room to spare.
    static func mayCross(_ a: Double, _ b: Double) -> Bool {
        abs(a - b) >= 179.999 || abs(remainder(a, 360) - remainder(b, 360)) >= 179.999
    }

    /// Writes the index of the path whose longitudes and projected coordinates are `longitude`,
    /// `x` and `y` at `out` (`size(vertices: count)` bytes).
    static func write(longitude: (Int) -> Double, x: UnsafePointer<Double>, y: UnsafePointer<Double>, count: Int, to out: UnsafeMutableRawPointer) {
        let levels = levels(vertices: count)
        guard let leaves = levels.first, let root = levels.last else { return }
        // Taken from the first vertex, so that the products keep their digits.
        var area = 0.0
        for vertex in 0..<count {
            let next = vertex + 1 == count ? 0 : vertex + 1
            area += (x[vertex] - x[0]) * (y[next] - y[0]) - (x[next] - x[0]) * (y[vertex] - y[0])
        }
        out.storeBytes(of: area / 2, toByteOffset: boxBytes * (root.start + root.nodes), as: Double.self)
        var at = 0
        func store(_ box: Box) {
            out.storeBytes(of: box.minX, toByteOffset: at, as: Double.self)
            out.storeBytes(of: box.minY, toByteOffset: at + 8, as: Double.self)
            out.storeBytes(of: box.maxX, toByteOffset: at + 16, as: Double.self)
            out.storeBytes(of: box.maxY, toByteOffset: at + 24, as: Double.self)
            at += boxBytes
        }
        for leaf in 0..<leaves.nodes {
            var box = Box.empty
            let first = leaf * leafEdges
            for vertex in first...min((leaf + 1) * leafEdges, count - 1) {
                box.add(x[vertex], y[vertex])
                if vertex > first && mayCross(longitude(vertex - 1), longitude(vertex)) { box.minX = -.infinity; box.maxX = .infinity }
            }
            store(box)
        }
        for (below, level) in zip(levels, levels.dropFirst()) {
            for parent in 0..<level.nodes {
                var box = Box.empty
                for child in (parent * fanOut)..<min((parent + 1) * fanOut, below.nodes) { box.add(read(out, below.start + child)) }
                store(box)
            }
        }
    }

    static func read(_ base: UnsafeRawPointer, _ node: Int) -> Box {
        let at = node * boxBytes
        return Box(minX: base.loadUnaligned(fromByteOffset: at, as: Double.self), minY: base.loadUnaligned(fromByteOffset: at + 8, as: Double.self),
                   maxX: base.loadUnaligned(fromByteOffset: at + 16, as: Double.self), maxY: base.loadUnaligned(fromByteOffset: at + 24, as: Double.self))
    }

    /// A box of projected coordinates.
    package struct Box {
        package var minX, minY, maxX, maxY: Double

        static let empty = Box(minX: .infinity, minY: .infinity, maxX: -.infinity, maxY: -.infinity)
        static let everything = Box(minX: -.infinity, minY: -.infinity, maxX: .infinity, maxY: .infinity)

        package init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
            self.minX = minX; self.minY = minY; self.maxX = maxX; self.maxY = maxY
        }

        mutating func add(_ x: Double, _ y: Double) {
            guard x.isFinite, y.isFinite else { return self = .everything }
            minX = min(minX, x); maxX = max(maxX, x)
            minY = min(minY, y); maxY = max(maxY, y)
        }

        mutating func add(_ box: Box) {
            minX = min(minX, box.minX); maxX = max(maxX, box.maxX)
            minY = min(minY, box.minY); maxY = max(maxY, box.maxY)
        }

        /// Whether the boxes share a point.
        func meets(_ other: Box) -> Bool {
            minX <= other.maxX && other.minX <= maxX && minY <= other.maxY && other.minY <= maxY
        }

        /// The box `margin` wider on every side.
        package func widened(by margin: Double) -> Box {
            Box(minX: minX - margin, minY: minY - margin, maxX: maxX + margin, maxY: maxY + margin)
        }
    }
}

extension DisplayList.PathBytes {
    /// Whether the path has boxes (it is longer than a leaf).
    package var isIndexed: Bool { index != nil }

    /// The signed area of the path as a ring, in projected units (positive counter-clockwise),
    /// when it is indexed and its vertices all show.
    package var signedArea: Double? {
        guard let index else { return nil }
        let area = index.loadUnaligned(fromByteOffset: PathIndex.boxBytes * PathIndex.boxCount(vertices: count), as: Double.self)
        return area.isFinite ? area : nil
    }

    /// The path cut in consecutive stretches of vertices, in order, each with whether its edges
    /// may come near `region` (a leaf whose box meets it) or not (all of them within one box that
    /// does not). Stretches share their end vertices. A path without boxes is one stretch, near.
    package func forEachStretch(near region: PathIndex.Box, _ body: (_ vertices: ClosedRange<Int>, _ near: Bool) -> Void) {
        let levels = PathIndex.levels(vertices: count)
        guard let index, !levels.isEmpty else { return body(0...max(count - 1, 0), true) }
        func visit(level: Int, node: Int, leafSpan: Int) {
            let first = node * leafSpan * PathIndex.leafEdges
            let last = min((node + 1) * leafSpan * PathIndex.leafEdges, count - 1)
            // Far: its box does not meet the region, and the one edge that stands for it
            // (`reduced`) is drawn where the box is, not across ±180.
            let near = PathIndex.read(index, levels[level].start + node).meets(region) || PathIndex.mayCross(longitude(first), longitude(last))
            guard near, level > 0 else { return body(first...last, near) }
            for child in (node * PathIndex.fanOut)..<min((node + 1) * PathIndex.fanOut, levels[level - 1].nodes) {
                visit(level: level - 1, node: child, leafSpan: leafSpan / PathIndex.fanOut)
            }
        }
        var leafSpan = 1
        for _ in 1..<levels.count { leafSpan *= PathIndex.fanOut }
        visit(level: levels.count - 1, node: 0, leafSpan: leafSpan)
    }

    /// The vertices in `range`, as a path of their own (without boxes).
    package func slice(_ range: ClosedRange<Int>) -> DisplayList.PathBytes {
        DisplayList.PathBytes(base: base + 32 * range.lowerBound, count: range.count, index: nil)
    }

    /// The path with each stretch far from `region` replaced by its one edge from its first
    /// vertex to its last, and where each stretch begins in it (its anchors). Inside the region
    /// the ring this makes fills exactly what the whole ring fills: the stretch and the edge that
    /// replaces it lie in a box, a convex set, that does not meet the region, so they wind the
    /// same number of times round every point of it.
    package func reduced(near region: PathIndex.Box) -> (path: ProjectedPath, anchors: [Int]) {
        var path = ProjectedPath(positions: [], x: [], y: [])
        var anchors: [Int] = []
        func add(_ vertex: Int) {
            path.positions.append(Position(longitude: longitude(vertex), latitude: latitude(vertex)))
            path.x.append(x(vertex))
            path.y.append(y(vertex))
        }
        guard count > 0 else { return (path, anchors) }
        forEachStretch(near: region) { vertices, near in
            anchors.append(path.positions.count)
            if near {
                for vertex in vertices.lowerBound..<vertices.upperBound { add(vertex) }
            } else {
                add(vertices.lowerBound)
            }
        }
        add(count - 1)
        return (path, anchors)
    }

    /// The stretches of a ring near `region`, each a path of its own, to stroke (the ring's
    /// closing edge added when its last vertex is not its first).
    package func outline(near region: PathIndex.Box) -> [ProjectedPath] {
        guard count > 0 else { return [] }
        var paths: [ProjectedPath] = []
        forEachStretch(near: region) { vertices, near in if near { paths.append(slice(vertices).decoded) } }
        let last = count - 1
        if longitude(0) != longitude(last) || latitude(0) != latitude(last) {
            paths.append(ProjectedPath(positions: [Position(longitude: longitude(last), latitude: latitude(last)),
                                                   Position(longitude: longitude(0), latitude: latitude(0))],
                                       x: [x(last), x(0)], y: [y(last), y(0)]))
        }
        return paths
    }
}
