#if canImport(Glibc)
import Glibc
#endif
import Drawing
import Geodesy
import Geometry
import MapDrawing

/// The tiles of one zoom that a shape puts ink on, worked out in world pixels (Web Mercator,
/// 256 × 2^z across): every tile within `reach` pixels of a line or an outline (half the stroke
/// and a pixel of antialiasing; a marker's radius), and every tile whose centre a polygon covers.
/// A tile listed may still end up blank (a faint corner): tiles are drawn and kept only when
/// they show ink; a tile with ink is never missed.
final class TileCover {
    private(set) var zoom: Int
    let selection: TileSelection
    let model: EdgeModel
    /// The tiles found so far, as TileAddress keys, each once.
    private(set) var tiles: [UInt64] = []
    /// Rows of tiles whose centre a polygon covers, as spans of columns within the selection
    /// (not tile by tile: a country at zoom 14 covers millions of tiles, a few thousand rows).
    /// A tile in a span and not in `tiles` (which the outline, a line or a marker reaches) is
    /// wholly inside the fill, with no edge within a pixel: `forEachInteriorRun`.
    private var interiorSpans: [(row: Int, first: Int, last: Int)] = []
    /// The same keys, once there are more than a few: a path is mostly in one to four tiles of
    /// a zoom, found in the list faster than hashed (a set for each feature and zoom was 2 % of
    /// a run).
    private var many: Set<UInt64> = []
    private var lastKey = UInt64.max
    private var last: Int
    private var worldWidth: Double

    init(zoom: Int, selection: TileSelection, model: EdgeModel) {
        self.zoom = zoom
        self.selection = selection
        self.model = model
        last = (1 << zoom) - 1
        worldWidth = 256 * Double(1 << zoom)
    }

    /// Empties the cover for another shape or zoom, keeping its buffers (a cover made for each
    /// feature and zoom, copying the selection and the edge model, was a third of pass 1; a class,
    /// so that its closures over itself do not copy it).
    func restart(atZoom zoom: Int) {
        self.zoom = zoom
        last = (1 << zoom) - 1
        worldWidth = 256 * Double(1 << zoom)
        tiles.removeAll(keepingCapacity: true)
        interiorSpans.removeAll(keepingCapacity: true)
        many.removeAll(keepingCapacity: true)
        lastKey = .max
    }

    func add(_ shape: Shape?, style: FeatureStyle, curved: Bool) {
        switch shape {
        case nil: return
        case .points(let points):
            for point in points where point.x.first?.isFinite == true {
                let p = TileSpace.worldPixel(x: point.x[0], y: point.y[0], zoom: zoom)
                addBox(minX: p.x, minY: p.y, maxX: p.x, maxY: p.y, reach: style.markerRadius + 1)
            }
        case .line(let path): addOutline(path, closed: false, curved: curved, reach: style.strokeWidth / 2 + 1)
        case .lines(let paths): for path in paths { addOutline(path, closed: false, curved: curved, reach: style.strokeWidth / 2 + 1) }
        case .polygons(let polygons):
            for rings in polygons {
                for ring in rings { addOutline(ring, closed: true, curved: curved, reach: style.strokeWidth / 2 + 1) }
                addInterior(rings, curved: curved)
            }
        case .collection(let members): for member in members { add(member, style: style, curved: curved) }
        }
    }

    /// The tiles wholly inside the shape's fill, no outline, line or marker within reach (nor a
    /// pixel of antialiasing): drawn, they would be of the fill's one colour. Handed over as runs
    /// along a row (the first tile and how many, eastward), each tile once, none of them in
    /// `tiles`: memory stays that of the outline's tiles and the rows, however many tiles the
    /// fill covers.
    func forEachInteriorRun(_ body: (_ first: TileAddress, _ count: Int) -> Void) {
        guard !interiorSpans.isEmpty else { return }
        // The tiles the edges reach, by row: the gaps in the runs.
        var reached: [Int: [Int]] = [:]
        for key in tiles {
            let tile = TileAddress(key: key)
            reached[tile.y, default: []].append(tile.x)
        }
        for row in reached.keys { reached[row]!.sort() }
        // One polygon's spans come row by row, west to east; a multipolygon's parts need sorting
        // (in place: at a deep zoom a country's spans are megabytes).
        interiorSpans.sort { ($0.row, $0.first) < ($1.row, $1.first) }
        let spans = interiorSpans
        var index = 0
        while index < spans.count {
            // Spans of one row that overlap or touch are one (a multipolygon's parts may).
            let row = spans[index].row
            var first = spans[index].first, last = spans[index].last
            index += 1
            while index < spans.count && spans[index].row == row && spans[index].first <= last + 1 {
                last = max(last, spans[index].last)
                index += 1
            }
            let gaps = reached[row] ?? []
            // The first gap at or east of `first`.
            var gap = 0, high = gaps.count
            while gap < high {
                let middle = (gap + high) / 2
                if gaps[middle] < first { gap = middle + 1 } else { high = middle }
            }
            var x = first
            while x <= last {
                let end = gap < gaps.count ? min(last + 1, gaps[gap]) : last + 1
                if end > x { body(TileAddress(z: zoom, x: x, y: row), end - x) }
                x = end + 1
                gap += 1
            }
        }
    }

    // MARK: Lines and outlines

    /// The path as world-pixel pieces that do not cross the antimeridian: each straight edge, or
    /// a curved edge sampled along its curve; an edge across ±180 is cut there, as the tracer
    /// cuts it, and continues from the other side.
    private func pieces(_ path: ProjectedPath, closed: Bool, curved: Bool, _ body: ((x: Double, y: Double), (x: Double, y: Double)) -> Void) {
        let n = path.positions.count
        guard n > 0 else { return }
        if n == 1 {
            let p = TileSpace.worldPixel(x: path.x[0], y: path.y[0], zoom: zoom)
            body(p, p)
            return
        }
        let edges = closed ? n : n - 1
        for index in 0..<edges {
            let next = (index + 1) % n
            let a = path.positions[index], b = path.positions[next]
            if curved {
                // Sampled so that no piece is over 64 world pixels: the curve between samples is
                // then within a fraction of a pixel of the piece (covered by the reach).
                let edge = model.edge(a, b)
                var samples = 16
                var points = sample(edge, count: samples)
                let span = polylineLength(points)
                if span / 64 > Double(samples) {
                    samples = min(1 << 16, Int((span / 64).rounded(.up)))
                    points = sample(edge, count: samples)
                }
                for k in 1..<points.count { straight(points[k - 1], points[k], body) }
            } else {
                straight(a, b, metresA: (path.x[index], path.y[index]), metresB: (path.x[next], path.y[next]), body)
            }
        }
    }

    private func sample(_ edge: Edge, count: Int) -> [Position] {
        (0...count).map { edge.position(atFraction: Double($0) / Double(count)) }
    }

    /// The length in world pixels of a sampled curve, the short way round at ±180.
    private func polylineLength(_ points: [Position]) -> Double {
        var total = 0.0
        for k in 1..<points.count {
            let a = WebMercator.metres(points[k - 1]), b = WebMercator.metres(points[k])
            var dx = abs(b.x - a.x)
            if dx > WebMercator.half { dx = 2 * WebMercator.half - dx }
            total += hypot(dx, b.y - a.y)
        }
        return total * worldWidth / (2 * WebMercator.half)
    }

    private func straight(_ a: Position, _ b: Position, metresA: (Double, Double)? = nil, metresB: (Double, Double)? = nil,
                          _ body: ((x: Double, y: Double), (x: Double, y: Double)) -> Void) {
        let ma = metresA ?? WebMercator.metres(a), mb = metresB ?? WebMercator.metres(b)
        guard ma.0.isFinite, ma.1.isFinite, mb.0.isFinite, mb.1.isFinite else { return }
        let pa = TileSpace.worldPixel(x: ma.0, y: ma.1, zoom: zoom), pb = TileSpace.worldPixel(x: mb.0, y: mb.1, zoom: zoom)
        let delta = normalizedLongitude(b.longitude) - normalizedLongitude(a.longitude)
        guard abs(delta) > 180 else { return body(pa, pb) }
        // Across the antimeridian: a's side runs to its edge of the world, b's from the other.
        let eastward = delta < 0
        let unwrappedB = pb.x + (eastward ? worldWidth : -worldWidth)
        let edgeX = eastward ? worldWidth : 0
        let f = (edgeX - pa.x) / (unwrappedB - pa.x)
        let cutY = pa.y + (f.isFinite ? f : 0) * (pb.y - pa.y)
        body(pa, (edgeX, cutY))
        body((worldWidth - edgeX, cutY), pb)
    }

    private func addOutline(_ path: ProjectedPath, closed: Bool, curved: Bool, reach: Double) {
        let margin = reach + (curved ? 1 : 0)
        if !curved, let box = boundingBox(path) {
            // The straight edges stay within their vertices' box (an edge across ±180 is cut
            // to the world's sides, which the box then spans): when that box, with the reach,
            // is one tile, the edges, which join up, put that tile in and no other (a low
            // zoom's usual case).
            let x0 = max(0, Int(floor((box.minX - margin) / 256))), x1 = min(last, Int(floor((box.maxX + margin) / 256)))
            let y0 = max(0, Int(floor((box.minY - margin) / 256))), y1 = min(last, Int(floor((box.maxY + margin) / 256)))
            if x0 == x1 && y0 == y1 {
                insert(TileAddress(z: zoom, x: x0, y: y0))
                return
            }
        }
        pieces(path, closed: closed, curved: curved) { a, b in
            // Cut into steps of at most 128 pixels, so that a long diagonal lists the tiles along
            // it, not the whole box it spans.
            let length = hypot(b.x - a.x, b.y - a.y)
            let steps = max(1, Int((length / 128).rounded(.up)))
            var previous = a
            for step in 1...steps {
                let t = Double(step) / Double(steps)
                let point = (x: a.x + t * (b.x - a.x), y: a.y + t * (b.y - a.y))
                addSegment(previous, point, reach: margin)
                previous = point
            }
        }
    }

    /// The path's vertices' box in world pixels; nil when a vertex is not finite.
    private func boundingBox(_ path: ProjectedPath) -> (minX: Double, minY: Double, maxX: Double, maxY: Double)? {
        guard var minX = path.x.first, var minY = path.y.first else { return nil }
        var maxX = minX, maxY = minY
        for index in path.x.indices {
            let x = path.x[index], y = path.y[index]
            guard x.isFinite, y.isFinite else { return nil }
            minX = min(minX, x); maxX = max(maxX, x)
            minY = min(minY, y); maxY = max(maxY, y)
        }
        let low = TileSpace.worldPixel(x: minX, y: maxY, zoom: zoom), high = TileSpace.worldPixel(x: maxX, y: minY, zoom: zoom)
        return (low.x, low.y, high.x, high.y)
    }

    /// The tiles a segment (of at most 128 pixels) comes within `reach` of: of the few its box
    /// meets, those the segment crosses when they are `reach` wider (Liang–Barsky). A tile its box
    /// meets but it does not would list a feature that draws nothing there, and keep a tile
    /// wholly inside a neighbour's fill from being known to be.
    private func addSegment(_ a: (x: Double, y: Double), _ b: (x: Double, y: Double), reach: Double) {
        let x0 = max(0, Int(floor((min(a.x, b.x) - reach) / 256))), x1 = min(last, Int(floor((max(a.x, b.x) + reach) / 256)))
        let y0 = max(0, Int(floor((min(a.y, b.y) - reach) / 256))), y1 = min(last, Int(floor((max(a.y, b.y) + reach) / 256)))
        guard x0 <= x1, y0 <= y1 else { return }
        for x in x0...x1 {
            for y in y0...y1 {
                let widened = (Double(x) * 256 - reach, Double(y) * 256 - reach, Double(x + 1) * 256 + reach, Double(y + 1) * 256 + reach)
                if (x0 == x1 && y0 == y1) || Canvas.clipSegment(Pixel(a.x, a.y), Pixel(b.x, b.y), widened) != nil {
                    insert(TileAddress(z: zoom, x: x, y: y))
                }
            }
        }
    }

    private func addBox(minX: Double, minY: Double, maxX: Double, maxY: Double, reach: Double) {
        let x0 = max(0, Int(floor((minX - reach) / 256))), x1 = min(last, Int(floor((maxX + reach) / 256)))
        let y0 = max(0, Int(floor((minY - reach) / 256))), y1 = min(last, Int(floor((maxY + reach) / 256)))
        guard x0 <= x1, y0 <= y1 else { return }
        for x in x0...x1 {
            for y in y0...y1 { insert(TileAddress(z: zoom, x: x, y: y)) }
        }
    }

    /// Lists a tile once (the last one listed is asked first: a path's pieces mostly fall in
    /// the tile of the piece before).
    private func insert(_ tile: TileAddress) {
        let key = tile.key
        guard key != lastKey, selection.contains(tile) else { return }
        lastKey = key
        if tiles.count < 16 {
            guard !tiles.contains(key) else { return }
            if tiles.count == 15 { many = Set(tiles) }
        }
        if tiles.count >= 15 {
            guard many.insert(key).inserted else { return }
        }
        tiles.append(key)
    }

    // MARK: Interiors

    /// The tiles whose centre the polygon covers (even-odd over its rings: holes open), row by
    /// row of tile centres, as spans of columns within the selection. The outline's tiles are
    /// listed apart, so the tiles it only partly covers are all there.
    private func addInterior(_ rings: [ProjectedPath], curved: Bool) {
        var edges: [(a: Pixel, b: Pixel)] = []
        for ring in rings {
            // The ring as it is filled (`TornRing`, as the painter fills it): cut at ±180 into
            // stretches, joined again past the edge of the world and closed round a pole when it
            // goes round the world, at its place and a world to each side. The edges that close
            // it round a pole are edges of the fill: the tiles they cross are not wholly inside.
            var stretches: [[Pixel]] = []
            pieces(ring, closed: true, curved: curved) { a, b in
                if stretches.isEmpty || stretches[stretches.count - 1].last != Pixel(a.x, a.y) { stretches.append([Pixel(a.x, a.y)]) }
                stretches[stretches.count - 1].append(Pixel(b.x, b.y))
            }
            var (points, closing) = TornRing.joined(stretches, world: worldWidth, poles: (0, worldWidth))
            guard let start = points.first, points.count > 2 else { continue }
            if points[points.count - 1] != start { points.append(start) }
            for shift in [0, -worldWidth, worldWidth] {
                for (a, b) in closing { addSegment((a.x + shift, a.y), (b.x + shift, b.y), reach: 1) }
            }
            for copy in TornRing.copies(points, world: worldWidth, west: 0, east: worldWidth) {
                for k in copy.indices where copy[k].y != copy[(k + 1) % copy.count].y {
                    edges.append((copy[k], copy[(k + 1) % copy.count]))
                }
            }
        }
        let allowed = selection.rows(atZoom: zoom), columns = selection.columns(atZoom: zoom)
        guard !edges.isEmpty, !columns.isEmpty else { return }
        // The row of the first and last tile centre at or below `low` and before `high`: centres
        // at (r + 0.5) × 256, an edge counted over [low, high).
        func firstRow(_ low: Double) -> Int { max(allowed.lowerBound, Int((low / 256 - 0.5).rounded(.up))) }
        func lastRow(_ high: Double) -> Int { min(allowed.upperBound, Int((high / 256 - 0.5).rounded(.up)) - 1) }
        let top = edges.reduce(Double.infinity) { min($0, $1.a.y, $1.b.y) }, bottom = edges.reduce(-Double.infinity) { max($0, $1.a.y, $1.b.y) }
        guard firstRow(top) <= lastRow(bottom) else { return }
        let rows = firstRow(top)...lastRow(bottom)
        // Crossings are gathered for a band of rows at a time, so that memory holds a band's,
        // not the whole polygon's at a deep zoom.
        let band = min(1024, rows.count)
        var crossings = [[Double]](repeating: [], count: band)
        for bandStart in stride(from: rows.lowerBound, through: rows.upperBound, by: band) {
            let bandEnd = min(rows.upperBound, bandStart + band - 1)
            for index in crossings.indices { crossings[index].removeAll(keepingCapacity: true) }
            for (a, b) in edges {
                let first = max(bandStart, firstRow(min(a.y, b.y))), last = min(bandEnd, lastRow(max(a.y, b.y)))
                guard first <= last else { continue }
                for row in first...last {
                    let y = (Double(row) + 0.5) * 256
                    crossings[row - bandStart].append(a.x + (y - a.y) / (b.y - a.y) * (b.x - a.x))
                }
            }
            for offset in 0...(bandEnd - bandStart) where crossings[offset].count > 1 {
                crossings[offset].sort()
                let xs = crossings[offset]
                for k in stride(from: 0, to: xs.count - 1, by: 2) {
                    // Columns whose centre lies between the two crossings.
                    let from = Int((xs[k] / 256 - 0.5).rounded(.up)), to = Int((xs[k + 1] / 256 - 0.5).rounded(.down))
                    for allowed in columns where from <= allowed.upperBound && to >= allowed.lowerBound {
                        interiorSpans.append((bandStart + offset, max(from, allowed.lowerBound), min(to, allowed.upperBound)))
                    }
                }
            }
        }
    }
}
