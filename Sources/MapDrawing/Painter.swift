#if canImport(Glibc)
import Glibc
#endif
import Drawing
import Geodesy
import Geometry
import Styles

/// Draws records on the canvas as the Maps SDK draws its shapes: polylines with their stroke or
/// spans, polygons filled with their holes open and their rings stroked over the fill, points as
/// markers.
package final class Painter {
    package let canvas: Canvas
    package let tracer: Tracer
    /// --geodesic: every edge drawn as its curve, whatever the records say.
    package let allCurved: Bool
    /// Something reached the picture: a run that finds nothing to draw says so (never a silent
    /// blank picture).
    package private(set) var inked = false
    /// Device pixels per style pixel: stroke widths and marker sizes are multiplied by it (2 for
    /// tiles drawn for a high-density screen, which show the same map in twice the pixels).
    package let pixelRatio: Double

    package init(canvas: Canvas, tracer: Tracer, allCurved: Bool, pixelRatio: Double = 1) {
        self.canvas = canvas
        self.tracer = tracer
        self.allCurved = allCurved
        self.pixelRatio = pixelRatio
    }

    package func draw(_ shape: Shape?, style: FeatureStyle) {
        draw(shape, scaledStyle: scaled(style))
    }

    /// Draws a shape from the display list: the straight lines of one solid colour a map is
    /// mostly made of are stroked from the vertices where they lie (`strokeStraight`), each
    /// other path and shape decoded and drawn as `draw(_:style:)` draws it; the same pixels.
    package func draw(_ bytes: DisplayList.ShapeBytes, style: FeatureStyle) {
        let style = scaled(style)
        if bytes.isPolygons, let region = nearRegion(style) { return indexedPolygons(bytes, near: region, style) }
        guard bytes.isLines, !curved(style), !style.hasSpans, let colour = style.stroke.solidColour else {
            return draw(bytes.shape, scaledStyle: style)
        }
        let region = nearRegion(style) ?? .everything
        bytes.forEachLinePath { path in
            guard path.isIndexed else {
                if !strokeStraight(path, colour: colour, style) { line(path.decoded, style, spans: []) }
                return
            }
            // A long line is stroked a leaf at a time (PathIndex), as one line: the same pixels
            // whether the picture is a tile, which draws the leaves near it, or not.
            var pieces: [[Pixel]] = []
            path.forEachStretch(near: region) { vertices, near in
                guard near else { return }
                let stretch = path.slice(vertices)
                if tracer.traceStraight(stretch, into: &straightPoints) {
                    pieces.append(straightPoints)
                } else {
                    pieces += tracer.trace(stretch.decoded, curved: false).map(\.points)
                }
            }
            strokeAsOne(pieces, colour: colour, style)
        }
    }

    /// Where the picture is, in projected units, and how many of them a pixel spans: when set (a
    /// tile's painter sets it), long shapes drawn straight are drawn from the parts of them near
    /// it (`PathIndex`), with the same pixels.
    package var region: (box: PathIndex.Box, unitsPerPixel: Double)?

    /// What of a long shape is drawn: the region widened by what the style's strokes reach (half
    /// the width, a pixel of antialiasing and one to spare), or everywhere when there is no
    /// region; nil when the shape must be drawn whole: edges drawn as curves (their boxes are
    /// not their vertices'), a stroke that is not of one colour (a gradient or a stamp is laid
    /// along the whole path).
    private func nearRegion(_ style: FeatureStyle) -> PathIndex.Box? {
        guard !curved(style), style.stroke.solidColour != nil else { return nil }
        guard let region else { return .everything }
        return region.box.widened(by: (style.strokeWidth / 2 + 2) * region.unitsPerPixel)
    }

    /// Strokes pieces of one line as one line.
    private func strokeAsOne(_ pieces: [[Pixel]], colour: Colour, _ style: FeatureStyle) {
        guard !pieces.isEmpty else { return }
        for piece in pieces { noteInk(piece, reach: style.strokeWidth / 2 + 1) }
        canvas.stroke(pieces: pieces, colour: faded(colour, style), width: style.strokeWidth)
    }

    private func scaled(_ style: FeatureStyle) -> FeatureStyle {
        guard pixelRatio != 1 else { return style }
        var scaled = style
        scaled.strokeWidth *= pixelRatio
        scaled.markerRadius *= pixelRatio
        return scaled
    }

    private func draw(_ shape: Shape?, scaledStyle style: FeatureStyle) {
        switch shape {
        case nil: return
        case .points(let points):
            for point in points where point.x.first?.isFinite == true {
                let pixel = tracer.view.pixel(x: point.x[0], y: point.y[0])
                noteInk([pixel], reach: style.markerRadius)
                canvas.marker(at: pixel, radius: style.markerRadius, colour: style.markerColour)
            }
        case .line(let path): line(path, style, spans: style.spans(ofPart: 0))
        case .lines(let paths): for (part, path) in paths.enumerated() { line(path, style, spans: style.spans(ofPart: part)) }
        case .polygons(let polygons): self.polygons(polygons, style)
        case .collection(let members): for member in members { draw(member, scaledStyle: style) }
        }
    }

    private func curved(_ style: FeatureStyle) -> Bool { allCurved || style.geodesic }

    /// Marks the picture inked when the box round `points`, `reach` pixels wider, meets it.
    private func noteInk(_ points: [Pixel], reach: Double) {
        guard !inked, let first = points.first else { return }
        var minX = first.x, maxX = first.x, minY = first.y, maxY = first.y
        for point in points {
            minX = min(minX, point.x); maxX = max(maxX, point.x)
            minY = min(minY, point.y); maxY = max(maxY, point.y)
        }
        let view = tracer.view
        inked = maxX + reach > 0 && minX - reach < Double(view.width) && maxY + reach > 0 && minY - reach < Double(view.height)
    }

    /// The pixels of the straight line under way (`strokeStraight`), kept from one to the next.
    private var straightPoints: [Pixel] = []

    /// Strokes a straight path of one colour as `line` would, when the tracer can follow it
    /// without cutting it (Tracer.traceStraight); false, with nothing drawn, otherwise.
    private func strokeStraight(_ path: DisplayList.PathBytes, colour: Colour, _ style: FeatureStyle) -> Bool {
        guard tracer.traceStraight(path, into: &straightPoints) else { return false }
        guard !straightPoints.isEmpty else { return true }
        noteInk(straightPoints, reach: style.strokeWidth / 2 + 1)
        canvas.stroke(straightPoints, colour: faded(colour, style), width: style.strokeWidth)
        return true
    }

    /// Strokes one path (a LineString, or one part of a MultiLineString) with its spans.
    private func line(_ path: ProjectedPath, _ style: FeatureStyle, spans: [FeatureStyle.Span]) {
        let curved = curved(style)
        let stretches = tracer.trace(path, curved: curved)
        guard !stretches.isEmpty else { return }
        for stretch in stretches { noteInk(stretch.points, reach: style.strokeWidth / 2 + 1) }
        let count = path.positions.count
        guard !spans.isEmpty || style.stroke.isRamp, count > 1 else {
            stroke(stretches, style.stroke, style, lengths: [], span: 0...Double(max(count - 1, 0)))
            return
        }
        let lengths = edgeLengths(path, curved: curved, closed: false)
        guard !spans.isEmpty else {
            stroke(stretches, style.stroke, style, lengths: lengths, span: 0...Double(count - 1))
            return
        }
        // GMSPolyline.spans: end to end from the first vertex; the last covers the rest; spans
        // past the end are left out.
        let end = Double(count - 1)
        var start = 0.0
        for (index, span) in spans.enumerated() where start < end {
            let stop = index == spans.count - 1 ? end : min(end, start + span.segments)
            let pieces = stretches.compactMap { $0.slice(start, stop) }
            stroke(pieces, .style(span.style), style, lengths: lengths, span: start...stop)
            start = stop
        }
    }

    /// Strokes stretches in one stroke; a gradient ramps over `span` (in t), by length along it.
    private func stroke(_ stretches: [Stretch], _ stroke: FeatureStyle.Stroke, _ style: FeatureStyle, lengths: [Double], span: ClosedRange<Double>) {
        let width = style.strokeWidth
        func faded(_ colour: Colour) -> Colour { self.faded(colour, style) }
        func gradient(_ from: Colour, _ to: Colour) {
            let measure = Measure(lengths: lengths, span: span)
            for stretch in stretches {
                canvas.strokeGradient(stretch.points, ramp: stretch.t.map(measure.fraction), from: faded(from), to: faded(to), width: width)
            }
        }
        switch stroke {
        case .colour(let colour), .style(.solid(let colour)):
            for stretch in stretches { canvas.stroke(stretch.points, colour: faded(colour), width: width) }
        case .ramp(let from, let to), .style(.gradient(let from, let to)):
            gradient(from, to)
        case .style(.sprite(let name)):
            for stretch in stretches { canvas.strokeSprite(stretch.points, stamp: name) }
        case .style(.texture(let name)):
            for stretch in stretches { canvas.strokeTexture(stretch.points, stamp: name, width: width) }
        }
    }

    /// A stroke's colour at the style's opacity.
    private func faded(_ colour: Colour, _ style: FeatureStyle) -> Colour {
        var colour = colour
        colour.alpha = UInt8((Double(colour.alpha) * style.strokeOpacity).rounded())
        return colour
    }

    /// Each edge's length in the measure spans and gradients are laid out in: by --kind when
    /// drawn as curves, projected length when straight.
    private func edgeLengths(_ path: ProjectedPath, curved: Bool, closed: Bool) -> [Double] {
        var positions = path.positions, xs = path.x, ys = path.y
        if closed, let first = positions.first, positions.count > 1, first != positions.last! {
            positions.append(first)
            xs.append(xs[0])
            ys.append(ys[0])
        }
        guard positions.count > 1 else { return [] }
        if curved { return (1..<positions.count).map { tracer.model.length(positions[$0 - 1], positions[$0]) } }
        return (1..<positions.count).map { index in
            let length = hypot(xs[index] - xs[index - 1], ys[index] - ys[index - 1])
            return length.isFinite ? length : 0
        }
    }

    /// All the rings of all the polygons filled together (so that parts cut at ±180 join without
    /// a seam), outer rings turned counter-clockwise and holes clockwise on the screen whatever
    /// way they wound, then every ring stroked over the fill (but not along a cut at ±180).
    private func polygons(_ polygons: [[ProjectedPath]], _ style: FeatureStyle) {
        let curved = curved(style)
        var rings: [[Pixel]] = []
        for polygon in polygons {
            for (index, ring) in polygon.enumerated() {
                rings += filled(tracer.trace(ring, curved: curved, closed: true), outer: index == 0, style)
            }
        }
        canvas.fill(rings, colour: style.fill)
        for polygon in polygons {
            for ring in polygon {
                let stretches = tracer.trace(ring, curved: curved, closed: true, skipCuts: true)
                let lengths = style.stroke.isRamp ? edgeLengths(ring, curved: curved, closed: true) : []
                stroke(stretches, style.stroke, style, lengths: lengths, span: 0...Double(max(lengths.count, 1)))
            }
        }
    }

    /// A ring's pixels to fill, turned counter-clockwise on the screen for an outer ring and
    /// clockwise for a hole, whatever way it wound; nil when it has no area to fill.
    /// `projectedArea`, when known, is the whole ring's (y grows upwards there).
    private func oriented(_ points: [Pixel], outer: Bool, _ style: FeatureStyle, projectedArea: Double? = nil) -> [Pixel]? {
        guard points.count > 2 else { return nil }
        var points = points
        let counterClockwise = projectedArea.map { $0 > 0 } ?? (signedArea(points) < 0)  // y grows downwards
        if counterClockwise != outer { points.reverse() }
        noteInk(points, reach: style.strokeWidth / 2 + 1)
        return points
    }

    /// Polygons drawn from what of them is near `region`, as `polygons` draws them whole: each
    /// ring reduced (PathIndex) and filled with its points thinned a leaf at a time (from each
    /// leaf's first vertex anew, so that the points kept near a tile are those kept when the
    /// ring is drawn whole), then stroked a leaf at a time, as one line a ring.
    private func indexedPolygons(_ bytes: DisplayList.ShapeBytes, near region: PathIndex.Box, _ style: FeatureStyle) {
        var rings: [[Pixel]] = [], outlines: [[ProjectedPath]] = []
        bytes.forEachPolygon { polygon in
            for (index, ring) in polygon.enumerated() {
                let (path, anchors) = ring.reduced(near: region)
                let stretches = tracer.trace(path, curved: false, closed: true)
                // One stretch, a point a vertex, when the ring is not cut at ±180: its anchors hold.
                let uncut = stretches.count == 1 && stretches[0].points.count == path.positions.count
                rings += filled(stretches, outer: index == 0, style, anchors: uncut ? anchors : [0], projectedArea: uncut ? ring.signedArea : nil)
                outlines.append(ring.outline(near: region))
            }
        }
        canvas.fill(rings, colour: style.fill, thinned: true)
        guard let colour = style.stroke.solidColour else { return }
        for ring in outlines {
            strokeAsOne(ring.flatMap { tracer.trace($0, curved: false, skipCuts: true).map(\.points) }, colour: colour, style)
        }
    }

    /// The rings to fill for one ring's stretches, oriented: on a map torn at ±180, a ring cut
    /// there joined across the tear and drawn at its place and a world to each side (`TornRing`);
    /// else one ring, joined along a globe's horizon. `anchors`: the points are thinned here, from
    /// each anchor anew (`PathThinning.thinned`), for a fill told they are.
    private func filled(_ stretches: [Stretch], outer: Bool, _ style: FeatureStyle, anchors: [Int]? = nil,
                        projectedArea: Double? = nil) -> [[Pixel]] {
        func thinned(_ points: [Pixel]) -> [Pixel] { anchors.map { PathThinning.thinned(points, anchors: $0) } ?? points }
        guard tracer.frame.torn, stretches.count > 1 else {
            return oriented(thinned(joinedAlongTheHorizon(stretches)), outer: outer, style, projectedArea: projectedArea).map { [$0] } ?? []
        }
        let map = mapEdges
        guard map.world.isFinite else { return oriented(thinned(stretches.flatMap(\.points)), outer: outer, style).map { [$0] } ?? [] }
        let ring = TornRing.joined(stretches.map(\.points), world: map.world, poles: map.poles).points
        guard let points = oriented(thinned(ring), outer: outer, style) else { return [] }
        return TornRing.copies(points, world: map.world, west: map.west, east: map.west + map.world)
    }

    /// The width of the map torn at ±180, its west edge, and the y of its top and bottom edges,
    /// in pixels.
    private var mapEdges: (world: Double, west: Double, poles: (top: Double, bottom: Double)) {
        let frame = tracer.frame, view = tracer.view, centre = frame.centre ?? 0
        func pixel(_ longitude: Double, _ latitude: Double) -> Pixel? {
            frame.project(Position(longitude: longitude, latitude: latitude)).map { view.pixel(x: $0.x, y: $0.y) }
        }
        guard let east = pixel(centre + 180, 0), let west = pixel(centre - 180, 0),
              let top = pixel(centre, frame.latitudeLimit), let bottom = pixel(centre, -frame.latitudeLimit) else {
            return (.infinity, 0, (0, 0))
        }
        return (east.x - west.x, west.x, (top.y, bottom.y))
    }

    /// A ring's visible stretches as one ring to fill. Where the ring goes behind a globe
    /// (a projection not torn at ±180 breaks a ring only at its horizon), the stretches are
    /// joined along the horizon, the disc's edge round the projection's centre, the short way
    /// round from where the ring left to where it comes back: the fill stays on the visible
    /// side and never folds over the globe.
    private func joinedAlongTheHorizon(_ stretches: [Stretch]) -> [Pixel] {
        guard !tracer.frame.torn, !stretches.isEmpty else { return stretches.flatMap(\.points) }
        let centre = tracer.view.pixel(x: 0, y: 0)
        var out: [Pixel] = []
        func arc(from a: Pixel, to b: Pixel) {
            let a0 = atan2(a.y - centre.y, a.x - centre.x), a1 = atan2(b.y - centre.y, b.x - centre.x)
            let r0 = hypot(a.x - centre.x, a.y - centre.y), r1 = hypot(b.x - centre.x, b.y - centre.y)
            let delta = remainder(a1 - a0, 2 * .pi)
            let steps = max(1, Int((abs(delta) / (.pi / 90)).rounded(.up)))
            for step in 1..<steps {
                let f = Double(step) / Double(steps), angle = a0 + f * delta, r = r0 + f * (r1 - r0)
                out.append(Pixel(centre.x + r * cos(angle), centre.y + r * sin(angle)))
            }
        }
        func apart(_ a: Pixel, _ b: Pixel) -> Bool { hypot(a.x - b.x, a.y - b.y) > 0.5 }
        for stretch in stretches {
            if let last = out.last, apart(last, stretch.points[0]) { arc(from: last, to: stretch.points[0]) }
            out += stretch.points
        }
        if let first = out.first, let last = out.last, apart(first, last) { arc(from: last, to: first) }
        return out
    }

    // MARK: The graticule

    /// Meridians and parallels every `step` degrees, in light grey, under what is drawn next.
    package func drawGraticule(every step: Double) {
        let frame = tracer.frame
        let centre = frame.centre ?? 0
        let colour = Colour(red: 0xBB, green: 0xBB, blue: 0xBB)
        var stretches: [Stretch] = []
        var longitude = (-180 / step).rounded(.up) * step
        while longitude < 180 {
            stretches += tracer.traceGraticuleLine(from: Position(longitude: longitude, latitude: -89.9),
                                                      to: Position(longitude: longitude, latitude: 89.9))
            longitude += step
        }
        var latitude = (-90 / step).rounded(.down) * step + step
        while latitude < 90 {
            stretches += tracer.traceGraticuleLine(from: Position(longitude: centre - 180, latitude: latitude),
                                                      to: Position(longitude: centre + 180, latitude: latitude))
            latitude += step
        }
        for stretch in stretches { canvas.stroke(stretch.points, colour: colour, width: 1) }
    }

    private func signedArea(_ points: [Pixel]) -> Double {
        var sum = 0.0
        var previous = points[points.count - 1]
        for point in points {
            sum += previous.x * point.y - point.x * previous.y
            previous = point
        }
        return sum / 2
    }
}

/// Where a point lies along a span, as a fraction of the span's length (edges weighted by
/// their lengths): what a gradient ramps by.
package struct Measure {
    private let cumulative: [Double]
    private let lengths: [Double]
    private let start: Double
    private let total: Double

    package init(lengths: [Double], span: ClosedRange<Double>) {
        self.lengths = lengths
        var sum = 0.0
        var cumulative = [0.0]
        for length in lengths { sum += length; cumulative.append(sum) }
        self.cumulative = cumulative
        start = Measure.distance(span.lowerBound, cumulative, lengths)
        total = Measure.distance(span.upperBound, cumulative, lengths) - start
    }

    package static func distance(_ t: Double, _ cumulative: [Double], _ lengths: [Double]) -> Double {
        guard !lengths.isEmpty else { return 0 }
        let edge = min(max(Int(t.rounded(.down)), 0), lengths.count - 1)
        return cumulative[edge] + (t - Double(edge)) * lengths[edge]
    }

    package func fraction(_ t: Double) -> Double {
        guard total > 0 else { return 0 }
        return min(1, max(0, (Measure.distance(t, cumulative, lengths) - start) / total))
    }
}

extension Stretch {
    /// The part of the stretch between t = `from` and t = `to`, its ends interpolated; nil when
    /// nothing of it is there.
    package func slice(_ from: Double, _ to: Double) -> Stretch? {
        guard let first = t.first, let last = t.last, last > from, first < to || (first == to && from == to) else { return nil }
        var part = Stretch()
        func point(at value: Double, _ index: Int) -> Pixel {
            // value lies between t[index - 1] and t[index]
            let a = points[index - 1], b = points[index]
            let f = (value - t[index - 1]) / (t[index] - t[index - 1])
            return Pixel(a.x + f * (b.x - a.x), a.y + f * (b.y - a.y))
        }
        for index in t.indices {
            let value = t[index]
            if value < from { continue }
            if part.points.isEmpty && value > from && index > 0 {
                part.points.append(point(at: from, index))
                part.t.append(from)
            }
            if value > to {
                if index > 0 {
                    part.points.append(point(at: to, index))
                    part.t.append(to)
                }
                break
            }
            part.points.append(points[index])
            part.t.append(value)
        }
        return part.points.count > 1 ? part : nil
    }
}
