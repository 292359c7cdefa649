#if canImport(Glibc)
import Glibc
#endif
import CCairo
import Styles

/// The picture formats geo draws, all through one cairo code path.
public enum ImageFormat: String, CaseIterable, Sendable {
    case svg, png, pdf
}

/// How edges are smoothed in PNG pictures: cairo's best antialiasing, or its fast one (4×4
/// samples a pixel instead of 256×15: 17 levels of coverage, about twice as fast on dense
/// data). PDF and SVG leave it to their viewer.
public enum Antialiasing: String, CaseIterable, Sendable {
    case good, fast
}

/// How a PNG is compressed: `.compact` (zlib level 6, as cairo's and libpng's writers) for a
/// picture someone keeps; `.fast` (geo's run deflater, RunDeflate) for map tiles, thousands at
/// a time, where zlib spent most of the time.
public enum PNGCompression: Sendable {
    case compact, fast
}

/// A point in pixels: x to the right, y down, (0, 0) the top left corner of the picture.
public struct Pixel: Equatable, Sendable {
    public var x: Double
    public var y: Double
    public init(_ x: Double, _ y: Double) {
        self.x = x
        self.y = y
    }
}

/// A picture being drawn, in pixels, on a cairo surface of the chosen format: the one drawing
/// code path for PNG, PDF and SVG. Knows nothing of geography. Coordinates far outside the
/// picture are clipped before cairo sees them (cairo's 24.8 fixed point would wrap them), so any
/// finite input draws correctly.
public final class Canvas {
    public let width: Int
    public let height: Int
    public let format: ImageFormat
    /// The surface, the cairo context and the lines queued for geo's rasterizer: every cairo
    /// call goes through it.
    let gate: CairoGate
    private let sink: Sink
    private var stamps: [String: Stamp] = [:]
    private let compression: PNGCompression
    private let workspace: PNGWorkspace?

    /// A canvas whose finished picture goes to `fd` (PNG is encoded at `finish`; PDF and SVG
    /// stream as they are drawn), or, with `fd` -1, is kept in memory (`encoded`).
    /// `threads`: how many threads draw lines on a PNG canvas; `workspace`: the PNG encoder's
    /// buffers, for a caller that encodes picture after picture.
    public init(format: ImageFormat, width: Int, height: Int, fd: Int32, antialiasing: Antialiasing = .good, threads: Int = 1,
                compression: PNGCompression = .compact, workspace: PNGWorkspace? = nil) {
        self.format = format
        self.compression = compression
        self.workspace = workspace
        self.width = width
        self.height = height
        sink = Sink(fd: fd)
        let closure = Unmanaged.passUnretained(sink).toOpaque()
        let surface: OpaquePointer
        switch format {
        case .png:
            surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height))
        case .pdf:
            surface = cairo_pdf_surface_create_for_stream(Sink.write, closure, Double(width), Double(height))
        case .svg:
            surface = cairo_svg_surface_create_for_stream(Sink.write, closure, Double(width), Double(height))
            cairo_svg_surface_set_document_unit(surface, CAIRO_SVG_UNIT_PX)
        }
        gate = CairoGate(surface: surface, width: width, height: height, threads: threads)
        self.antialiasing = antialiasing
        setUp()
    }

    private let antialiasing: Antialiasing

    /// cairo's state for geo's drawing: round joins and caps, the winding rule, the antialiasing.
    private func setUp() {
        let antialiasing = antialiasing
        gate.draw(drawsPixels: false) { cairo in
            cairo_set_line_join(cairo, CAIRO_LINE_JOIN_ROUND)
            cairo_set_line_cap(cairo, CAIRO_LINE_CAP_ROUND)
            cairo_set_fill_rule(cairo, CAIRO_FILL_RULE_WINDING)
            cairo_set_antialias(cairo, antialiasing == .fast ? CAIRO_ANTIALIAS_FAST : CAIRO_ANTIALIAS_GOOD)
        }
    }

    /// Makes a PNG canvas kept in memory (`fd` -1) ready for another picture of its size, as
    /// a new one: transparent, no bytes encoded, cairo's state as new, stamps kept. Its
    /// buffers (the picture, the rasterizer's coverage) are kept: a thread drawing tile after
    /// tile spares their allocation, page faults and unmapping each time.
    public func reset() {
        precondition(format == .png && sink.fd < 0, "only a PNG canvas kept in memory is reset")
        gate.reset()
        sink.bytes.removeAll(keepingCapacity: true)
        sink.failure = nil
        setUp()
    }

    /// The widest stroke that can still change the picture: wider ones look the same.
    public var widestStroke: Double { 2 * (Double(width) + Double(height)) }

    /// The rectangle geometry is clipped to: the picture with room for the widest stroke.
    var guardBox: (minX: Double, minY: Double, maxX: Double, maxY: Double) {
        let margin = widestStroke + 64
        return (-margin, -margin, Double(width) + margin, Double(height) + margin)
    }

    /// Stamps by name, for the styles sprite(NAME) and texture(NAME).
    public func register(_ stamp: Stamp, as name: String) { stamps[name] = stamp }

    public func hasStamp(_ name: String) -> Bool { stamps[name] != nil }

    // MARK: Layers

    /// Draws what follows on a layer of its own, until `endLayer`.
    public func beginLayer() {
        gate.draw { cairo_push_group($0) }
    }

    /// Lays the layer begun last onto the picture, after drawing `under` beneath it.
    public func endLayer(under: () throws -> Void) rethrows {
        let layer = gate.draw { cairo_pop_group($0)! }
        defer { cairo_pattern_destroy(layer) }
        try under()
        gate.draw { cairo in
            cairo_set_source(cairo, layer)
            cairo_paint(cairo)
        }
    }

    // MARK: Drawing

    public func fillBackground(_ colour: Colour) {
        gate.draw { cairo in
            Canvas.setColour(colour, on: cairo)
            cairo_paint(cairo)
        }
    }

    /// Strokes a line through `points` in one colour: on a PNG canvas, lines up to
    /// LineRasterizer.widest pixels wide are drawn by geo's own rasterizer (see there), the rest by
    /// cairo.
    public func stroke(_ points: [Pixel], colour: Colour, width: Double) {
        guard width > 0, colour.alpha > 0 else { return }
        // A line within the guard box (nearly every one) is drawn as it is, with no list of
        // pieces made for it: a map tile strokes some twenty thousand lines a second a thread.
        if withinGuard(points) { return strokeWithin(CollectionOfOne(points), colour: colour, width: width) }
        strokeWithin(clipLine(points), colour: colour, width: width)
    }

    /// Strokes the pieces as one line: where they overlap, their pixels are laid once, as the
    /// pixels of one line are (the stretches of a long line near a tile, drawn without the rest).
    public func stroke(pieces: [[Pixel]], colour: Colour, width: Double) {
        guard width > 0, colour.alpha > 0 else { return }
        if pieces.allSatisfy(withinGuard) { return strokeWithin(pieces, colour: colour, width: width) }
        strokeWithin(pieces.flatMap(clipLine), colour: colour, width: width)
    }

    /// Strokes pieces within the guard box as one line.
    private func strokeWithin<Pieces: Collection<[Pixel]>>(_ pieces: Pieces, colour: Colour, width: Double) {
        if gate.queue(pieces, lineWidth: width, colour: colour) { return }
        gate.draw { cairo in
            for piece in pieces where piece.count > 0 {
                Canvas.addLine(piece, to: cairo)
            }
            Canvas.setColour(colour, on: cairo)
            cairo_set_line_width(cairo, min(width, widestStroke))
            cairo_stroke(cairo)
        }
    }

    /// Strokes a line whose colour ramps from `from` at `ramp[0]` to `to` at 1, `ramp` giving
    /// for each point the fraction of the ramp reached there.
    public func strokeGradient(_ points: [Pixel], ramp: [Double], from: Colour, to: Colour, width: Double) {
        guard width > 0, points.count > 1 else { return }
        gate.draw { cairo in
            cairo_set_line_width(cairo, min(width, widestStroke))
            for index in 1..<points.count {
                let a = points[index - 1], b = points[index]
                for piece in clipLine([a, b]) where piece.count > 1 {
                    let pattern = cairo_pattern_create_linear(a.x, a.y, b.x, b.y)!
                    Canvas.addStop(pattern, 0, from.mixed(with: to, ramp[index - 1]))
                    Canvas.addStop(pattern, 1, from.mixed(with: to, ramp[index]))
                    Canvas.addLine(piece, to: cairo)
                    cairo_set_source(cairo, pattern)
                    cairo_stroke(cairo)
                    cairo_pattern_destroy(pattern)
                }
            }
        }
    }

    private static func addStop(_ pattern: OpaquePointer, _ offset: Double, _ colour: Colour) {
        cairo_pattern_add_color_stop_rgba(pattern, offset, Double(colour.red) / 255, Double(colour.green) / 255,
                                          Double(colour.blue) / 255, Double(colour.alpha) / 255)
    }

    /// Fills rings together, nonzero: give outer rings counter-clockwise on the screen and holes
    /// clockwise (`oriented`), so that holes are holes and touching parts join without a seam.
    /// `thinned`: the rings' points are already thinned (`PathThinning.thinned`), and go to cairo as they are.
    public func fill(_ rings: [[Pixel]], colour: Colour, thinned: Bool = false) {
        guard colour.alpha > 0 else { return }
        gate.draw { cairo in
            for ring in rings where ring.count > 2 {
                let clipped = clipRing(ring)
                guard clipped.count > 2 else { continue }
                Canvas.addLine(clipped, to: cairo, thinning: !thinned)
                cairo_close_path(cairo)
            }
            Canvas.setColour(colour, on: cairo)
            cairo_fill(cairo)
        }
    }

    /// A marker for a point: a disc of `radius` pixels in `colour`, ringed in white.
    public func marker(at point: Pixel, radius: Double, colour: Colour) {
        let box = guardBox
        guard point.x > box.minX, point.x < box.maxX, point.y > box.minY, point.y < box.maxY else { return }
        gate.draw { cairo in
            cairo_new_path(cairo)
            cairo_arc(cairo, point.x, point.y, radius, 0, 2 * .pi)
            Canvas.setColour(colour, on: cairo)
            cairo_fill_preserve(cairo)
            cairo_set_source_rgba(cairo, 1, 1, 1, Double(colour.alpha) / 255)
            cairo_set_line_width(cairo, max(1, radius / 4))
            cairo_stroke(cairo)
        }
    }

    /// GMSTextureStyle: the stamp tiled along the line, its width scaled to the stroke's, its
    /// top towards where the line goes.
    public func strokeTexture(_ points: [Pixel], stamp name: String, width: Double) {
        guard let stamp = stamps[name], width > 0, points.count > 1 else { return }
        let width = min(width, widestStroke)
        let scale = width / stamp.width
        gate.draw { cairo in
            cairo_set_line_width(cairo, width)
            cairo_save(cairo)
            cairo_set_line_cap(cairo, CAIRO_LINE_CAP_BUTT)
            var along = 0.0
            for index in 1..<points.count {
                let a = points[index - 1], b = points[index]
                let length = hypot(b.x - a.x, b.y - a.y)
                defer { along += length }
                guard length > 0 else { continue }
                let d = Pixel((b.x - a.x) / length, (b.y - a.y) / length), n = Pixel(-d.y, d.x)
                // Image (u, v) → picture: across the stroke by u, along it by (height − v), tiles
                // continuing from the start of the line.
                let phase = (stamp.height * scale - along.truncatingRemainder(dividingBy: stamp.height * scale))
                var toPicture = cairo_matrix_t(xx: n.x * scale, yx: n.y * scale, xy: -d.x * scale, yy: -d.y * scale,
                                               x0: a.x + d.x * phase - n.x * width / 2, y0: a.y + d.y * phase - n.y * width / 2)
                guard cairo_matrix_invert(&toPicture) == CAIRO_STATUS_SUCCESS else { continue }
                for piece in clipLine([a, b]) where piece.count > 1 {
                    let pattern = cairo_pattern_create_for_surface(stamp.surface)!
                    cairo_pattern_set_extend(pattern, CAIRO_EXTEND_REPEAT)
                    cairo_pattern_set_matrix(pattern, &toPicture)
                    Canvas.addLine(piece, to: cairo)
                    cairo_set_source(cairo, pattern)
                    cairo_stroke(cairo)
                    cairo_pattern_destroy(pattern)
                }
            }
            cairo_restore(cairo)
        }
    }

    /// GMSSpriteStyle: the stamp at its own size, repeated along the line a stamp's height apart,
    /// centred on it and turned with it (its top towards where the line goes).
    public func strokeSprite(_ points: [Pixel], stamp name: String) {
        guard let stamp = stamps[name], points.count > 1 else { return }
        var next = stamp.height / 2, along = 0.0
        let box = guardBox
        gate.draw { cairo in
            for index in 1..<points.count {
                let a = points[index - 1], b = points[index]
                let length = hypot(b.x - a.x, b.y - a.y)
                guard length > 0 else { continue }
                while next <= along + length {
                    let t = (next - along) / length
                    let p = Pixel(a.x + t * (b.x - a.x), a.y + t * (b.y - a.y))
                    next += stamp.height
                    guard p.x > box.minX, p.x < box.maxX, p.y > box.minY, p.y < box.maxY else {
                        // Far off the picture: skip ahead instead of stepping through every stamp.
                        let skipped = ((along + length - next) / stamp.height).rounded(.down)
                        if skipped > 0 { next += skipped * stamp.height }
                        continue
                    }
                    cairo_save(cairo)
                    cairo_translate(cairo, p.x, p.y)
                    cairo_rotate(cairo, atan2(b.y - a.y, b.x - a.x) + .pi / 2)
                    cairo_set_source_surface(cairo, stamp.surface, -stamp.width / 2, -stamp.height / 2)
                    cairo_paint(cairo)
                    cairo_restore(cairo)
                }
                along += length
            }
        }
    }

    private static func setColour(_ colour: Colour, on cairo: OpaquePointer) {
        cairo_set_source_rgba(cairo, Double(colour.red) / 255, Double(colour.green) / 255,
                              Double(colour.blue) / 255, Double(colour.alpha) / 255)
    }

    /// Adds a line through `points` to cairo's path, thinned (`PathThinning`: cairo's time
    /// goes into stroking every tiny segment with its joins) unless `thinning` is false.
    private static func addLine(_ points: [Pixel], to cairo: OpaquePointer, thinning: Bool = true) {
        cairo_move_to(cairo, points[0].x, points[0].y)
        if points.count == 1 {
            cairo_line_to(cairo, points[0].x, points[0].y)  // a dot: round caps draw it
            return
        }
        guard thinning else {
            for point in points.dropFirst() { cairo_line_to(cairo, point.x, point.y) }
            return
        }
        let thinning = PathThinning()
        thinning.start(points[0])
        for point in points.dropFirst() {
            if let kept = thinning.offer(point) { cairo_line_to(cairo, kept.x, kept.y) }
        }
        if let last = thinning.finish() { cairo_line_to(cairo, last.x, last.y) }
    }

    // MARK: Output

    /// Ends the picture and writes what is still to be written (all of a PNG); throws the
    /// write's failure.
    public func finish() throws(DrawingError) {
        switch format {
        case .png:
            try gate.withPicture { (pixels, rowWords, status) throws(DrawingError) in
                guard let pixels else { throw DrawingError(String(cString: cairo_status_to_string(status))) }
                try PNGEncoder.encode(pixels, width: width, height: height, rowWords: rowWords, compression: compression,
                                      oneColour: gate.knownColour, workspace: workspace ?? PNGWorkspace(), into: sink)
            }
        case .pdf, .svg:
            let status = gate.finishDocument()
            if let error = sink.failure { throw DrawingError(String(cString: strerror(error))) }
            guard status == CAIRO_STATUS_SUCCESS else { throw DrawingError(String(cString: cairo_status_to_string(status))) }
        }
    }

    /// The one colour (0xRRGGBB) every pixel of a PNG canvas is known to be at its alpha, when
    /// only geo's own lines of one colour were drawn: the PNG is then written from it.
    public var knownColour: UInt32? { gate.knownColour }

    /// The finished picture's bytes, when the canvas was made with no descriptor.
    public var encoded: [UInt8] { sink.bytes }

    /// The premultiplied ARGB word of a pixel of a PNG canvas, as cairo holds it.
    public func word(x: Int, y: Int) -> UInt32? {
        guard format == .png, (0..<width).contains(x), (0..<height).contains(y) else { return nil }
        return gate.withPicture { pixels, rowWords, _ in pixels.map { $0[y * rowWords + x] } }
    }

    /// Every pixel of a PNG canvas, row by row, as `word` gives them (tests and the fuzzer read
    /// a picture whole this way); empty for PDF and SVG.
    public func words() -> [UInt32] {
        guard format == .png else { return [] }
        return gate.withPicture { pixels, rowWords, _ in
            guard let pixels else { return [] }
            return (0..<height).flatMap { row in UnsafeBufferPointer(start: pixels + row * rowWords, count: width) }
        }
    }

    /// Whether every pixel of a PNG canvas holds `word` (a tile with no ink is all background).
    public func isUniform(_ word: UInt32) -> Bool {
        guard format == .png else { return false }
        // Transparent: known without looking when only geo's lines were drawn.
        if word == 0, let ink = gate.knownInk { return !ink }
        return gate.withPicture { pixels, rowWords, _ in
            guard let pixels else { return false }
            // The first row word by word, then every other row against it with memcmp (vector
            // compares: a tile a few microseconds, where a tile of countries is mostly one colour).
            for column in 0..<width where pixels[column] != word { return false }
            for row in 1..<max(height, 1) where memcmp(pixels, pixels + row * rowWords, width * 4) != 0 { return false }
            return true
        }
    }

    /// The colour of a pixel of a PNG canvas (tests), unpremultiplied.
    public func pixel(x: Int, y: Int) -> Colour? {
        guard let word = word(x: x, y: y) else { return nil }
        let alpha = UInt8(word >> 24)
        func channel(_ shift: UInt32) -> UInt8 {
            alpha == 0 ? 0 : UInt8(min(255, (Double((word >> shift) & 0xFF) * 255 / Double(alpha)).rounded()))
        }
        return Colour(red: channel(16), green: channel(8), blue: channel(0), alpha: alpha)
    }

    // MARK: Clipping

    /// Whether every point lies in the guard box.
    private func withinGuard(_ points: [Pixel]) -> Bool {
        let box = guardBox
        return points.allSatisfy { $0.x >= box.minX && $0.x <= box.maxX && $0.y >= box.minY && $0.y <= box.maxY }
    }

    /// The parts of a line inside the guard box (Liang–Barsky on each segment).
    func clipLine(_ points: [Pixel]) -> [[Pixel]] {
        if withinGuard(points) { return [points] }
        let box = guardBox
        var pieces: [[Pixel]] = [], current: [Pixel] = []
        if points.count == 1 { return [] }
        for index in 1..<points.count {
            let a = points[index - 1], b = points[index]
            guard let (t0, t1) = Canvas.clipSegment(a, b, box) else {
                if !current.isEmpty { pieces.append(current); current = [] }
                continue
            }
            let start = Pixel(a.x + t0 * (b.x - a.x), a.y + t0 * (b.y - a.y))
            let end = Pixel(a.x + t1 * (b.x - a.x), a.y + t1 * (b.y - a.y))
            if current.isEmpty || t0 > 0 {
                if !current.isEmpty { pieces.append(current) }
                current = [start]
            }
            current.append(end)
            if t1 < 1 { pieces.append(current); current = [] }
        }
        if !current.isEmpty { pieces.append(current) }
        return pieces
    }

    /// Where the segment from `a` to `b` is inside the box, as the fractions of it from `a`
    /// (Liang–Barsky); nil when it misses the box. The tile cover asks it too.
    public static func clipSegment(_ a: Pixel, _ b: Pixel, _ box: (minX: Double, minY: Double, maxX: Double, maxY: Double)) -> (Double, Double)? {
        var t0 = 0.0, t1 = 1.0
        let dx = b.x - a.x, dy = b.y - a.y
        for (p, q) in [(-dx, a.x - box.minX), (dx, box.maxX - a.x), (-dy, a.y - box.minY), (dy, box.maxY - a.y)] {
            if p == 0 {
                if q < 0 { return nil }
                continue
            }
            let r = q / p
            if p < 0 { if r > t1 { return nil }; t0 = max(t0, r) } else { if r < t0 { return nil }; t1 = min(t1, r) }
        }
        return (t0, t1)
    }

    /// A ring clipped to the guard box: what it covers inside the box is unchanged, and the
    /// edges it gains run outside the picture.
    func clipRing(_ ring: [Pixel]) -> [Pixel] { Canvas.clipRing(ring, to: guardBox) }

    /// A ring clipped to a box (Sutherland–Hodgman; a side may be infinite): what it covers
    /// inside the box is unchanged. A ring cut at ±180 is cut to the map's columns with it too.
    public static func clipRing(_ ring: [Pixel], to box: (minX: Double, minY: Double, maxX: Double, maxY: Double)) -> [Pixel] {
        if ring.allSatisfy({ $0.x >= box.minX && $0.x <= box.maxX && $0.y >= box.minY && $0.y <= box.maxY }) { return ring }
        var output = ring
        let edges: [(inside: (Pixel) -> Bool, cut: (Pixel, Pixel) -> Pixel)] = [
            ({ $0.x >= box.minX }, { a, b in Pixel(box.minX, a.y + (box.minX - a.x) / (b.x - a.x) * (b.y - a.y)) }),
            ({ $0.x <= box.maxX }, { a, b in Pixel(box.maxX, a.y + (box.maxX - a.x) / (b.x - a.x) * (b.y - a.y)) }),
            ({ $0.y >= box.minY }, { a, b in Pixel(a.x + (box.minY - a.y) / (b.y - a.y) * (b.x - a.x), box.minY) }),
            ({ $0.y <= box.maxY }, { a, b in Pixel(a.x + (box.maxY - a.y) / (b.y - a.y) * (b.x - a.x), box.maxY) }),
        ]
        for edge in edges {
            let input = output
            output = []
            guard var previous = input.last else { break }
            for point in input {
                if edge.inside(point) {
                    if !edge.inside(previous) { output.append(edge.cut(previous, point)) }
                    output.append(point)
                } else if edge.inside(previous) {
                    output.append(edge.cut(previous, point))
                }
                previous = point
            }
        }
        return output
    }
}

/// A PNG image to stamp along lines (GMSSpriteStyle, GMSTextureStyle).
/// Sendable by hand: the image surface is only read after init, and only one canvas draws with
/// it (another thread's canvas draws with its own `copy()`).
public final class Stamp: @unchecked Sendable {
    let surface: OpaquePointer
    let width: Double
    let height: Double

    /// Reads the PNG image at `path`; throws with the reason it cannot be read.
    public convenience init(png path: String) throws(DrawingError) {
        let image = cairo_image_surface_create_from_png(path)!
        let status = cairo_surface_status(image)
        guard status == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(image)
            let reason = status == CAIRO_STATUS_FILE_NOT_FOUND ? "no such file"
                : status == CAIRO_STATUS_READ_ERROR ? "cannot read it, or it is not a PNG image"
                : String(cString: cairo_status_to_string(status))
            throw DrawingError("cannot read '\(path)': \(reason)")
        }
        self.init(surface: image)
    }

    private init(surface: OpaquePointer) {
        self.surface = surface
        width = Double(cairo_image_surface_get_width(surface))
        height = Double(cairo_image_surface_get_height(surface))
    }

    /// The same image in a surface of its own, for another drawing thread. Not shared because
    /// cairo may set a source surface's transform, filter and extend on the surface's own pixman
    /// image while it draws with it (a texture stroke's matrix differs on every canvas), so two
    /// canvases drawing at once with one stamp would race. Copied from the decoded pixels, which
    /// are only read, rather than read and decoded from the file again.
    public func copy() -> Stamp {
        let format = cairo_image_surface_get_format(surface)
        let columns = cairo_image_surface_get_width(surface), rows = cairo_image_surface_get_height(surface)
        let image = cairo_image_surface_create(format, columns, rows)!
        if let from = cairo_image_surface_get_data(surface), let to = cairo_image_surface_get_data(image) {
            let fromStride = Int(cairo_image_surface_get_stride(surface)), toStride = Int(cairo_image_surface_get_stride(image))
            for row in 0..<Int(rows) { memcpy(to + row * toStride, from + row * fromStride, min(fromStride, toStride)) }
        }
        // cairo must know that its pixels were written behind its back.
        cairo_surface_mark_dirty_rectangle(image, 0, 0, columns, rows)
        return Stamp(surface: image)
    }

    deinit { cairo_surface_destroy(surface) }
}

/// Where a canvas's bytes go: a file descriptor, every write checked.
/// With no descriptor (fd < 0), the bytes are kept in memory.
final class Sink {
    let fd: Int32
    var failure: Int32?
    var bytes: [UInt8] = []

    init(fd: Int32) { self.fd = fd }

    /// Writes `data` whole (or keeps it, with no descriptor); false after a failed write.
    func append(_ data: UnsafeRawBufferPointer) -> Bool {
        guard failure == nil else { return false }
        if fd < 0 {
            bytes.append(contentsOf: data)
            return true
        }
        var written = 0
        while written < data.count {
            let count = Glibc.write(fd, data.baseAddress! + written, data.count - written)
            if count < 0 {
                if errno == EINTR { continue }
                failure = errno
                return false
            }
            written += count
        }
        return true
    }

    /// Why the last write failed, in the system's words.
    var failureMessage: String { failure.map { String(cString: strerror($0)) } ?? "write failed" }

    static let write: cairo_write_func_t = { closure, data, length in
        let sink = Unmanaged<Sink>.fromOpaque(closure!).takeUnretainedValue()
        return sink.append(UnsafeRawBufferPointer(start: data, count: Int(length))) ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR
    }
}

/// Why a picture cannot be drawn or written.
public struct DrawingError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
