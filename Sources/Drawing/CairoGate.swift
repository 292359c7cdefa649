#if canImport(Glibc)
import Glibc
#endif
import CCairo
import Styles

/// A canvas's only way to cairo: it owns the surface and the cairo context, and every cairo
/// call goes through `draw`, which first draws the lines queued for geo's rasterizer. So the
/// picture is drawn in the order the canvas was asked, as if cairo had drawn every line itself,
/// and a drawing method added later cannot forget to keep that order.
///
/// Lines are queued only while geo can draw them exactly where cairo would and as cairo would
/// lay them (`directTarget`): onto an image of the picture's size with no device offset, no
/// clip, the OVER operator and the identity matrix. In any other state they go to cairo.
final class CairoGate {
    let width: Int
    let height: Int
    private let surface: OpaquePointer
    private var context: OpaquePointer
    private let threads: Int
    /// Whether the picture is pixels (PNG): lines of a PDF or SVG always go to cairo.
    private let isImage: Bool
    private var lines: LineRasterizer?
    /// `directTarget`'s answer, kept until the next call through the gate (only those change
    /// cairo's state); `.unknown` after one.
    private var target: TargetState = .unknown

    private enum TargetState {
        case unknown, none
        case image(surface: OpaquePointer, pixels: UnsafeMutablePointer<UInt32>)
    }

    /// What the picture holds, as far as the gate knows without looking at it.
    enum Contents: Equatable {
        /// Nothing drawn: transparent, as an image surface starts.
        case blank
        /// Only lines drawn by geo's rasterizer, all of this red, green and blue (0xRRGGBB):
        /// each pixel is that colour at its alpha (the rasterizer keeps a pixel of the line's
        /// colour on it), or transparent.
        case lines(UInt32)
        /// Anything else: cairo drew, or lines of several colours.
        case unknown
    }

    /// Every call through `draw` that may change pixels makes it `.unknown` (the default, so
    /// that a drawing method added later cannot leave it wrong); queued lines make it `.lines`.
    private(set) var contents: Contents

    /// Takes over `surface` (an image surface can have lines drawn by geo; others never).
    init(surface: OpaquePointer, width: Int, height: Int, threads: Int) {
        self.surface = surface
        self.width = width
        self.height = height
        self.threads = threads
        isImage = cairo_surface_get_type(surface) == CAIRO_SURFACE_TYPE_IMAGE
        contents = isImage ? .blank : .unknown
        context = cairo_create(surface)
    }

    deinit {
        cairo_destroy(context)
        cairo_surface_destroy(surface)
    }

    /// Makes an image's picture transparent again, as new, for another picture of the same size
    /// (a tile-drawing thread draws tile after tile): its pixels cleared, a new cairo context
    /// (cairo's state as new), the rasterizer's buffers kept.
    func reset() {
        precondition(isImage, "only an image is reset")
        drawQueuedLines()
        cairo_destroy(context)
        cairo_surface_flush(surface)
        if let data = cairo_image_surface_get_data(surface) {
            memset(data, 0, Int(cairo_image_surface_get_stride(surface)) * height)
            cairo_surface_mark_dirty_rectangle(surface, 0, 0, Int32(width), Int32(height))
        }
        context = cairo_create(surface)
        target = .unknown
        contents = .blank
        lines?.forgetInk()
    }

    /// Runs `body` with the cairo context, once the queued lines are drawn. Unless it only
    /// sets cairo's state or reads (`drawsPixels` false), the picture's contents are then unknown.
    func draw<T, Failure: Error>(drawsPixels: Bool = true, _ body: (OpaquePointer) throws(Failure) -> T) throws(Failure) -> T {
        drawQueuedLines()
        defer { target = .unknown }
        if drawsPixels { contents = .unknown }
        return try body(context)
    }

    /// The colour (0xRRGGBB) every pixel is known to be at its alpha, or transparent: that of geo's
    /// lines when only they were drawn, in one colour.
    var knownColour: UInt32? {
        switch contents {
        case .blank: return 0
        case .lines(let rgb): return rgb
        case .unknown: return nil
        }
    }

    /// Whether the picture has any pixel that is not transparent, when that is known without
    /// looking (nothing drawn, or only geo's lines, which count the alpha they lay); nil otherwise.
    var knownInk: Bool? {
        switch contents {
        case .blank: return false
        case .lines:
            drawQueuedLines()
            return lines?.inked ?? false
        case .unknown: return nil
        }
    }

    /// Queues `pieces` (one line cut by clipping) for geo's rasterizer, when it can draw them
    /// (see the type); false when they must go to cairo.
    func queue<Pieces: Collection<[Pixel]>>(_ pieces: Pieces, lineWidth: Double, colour: Colour) -> Bool {
        guard isImage, lineWidth <= LineRasterizer.widest, directTarget() != nil else { return false }
        if lines == nil { lines = LineRasterizer(width: width, height: height, threads: threads) }
        lines!.add(pieces, lineWidth: lineWidth, colour: colour)
        let rgb = UInt32(colour.red) << 16 | UInt32(colour.green) << 8 | UInt32(colour.blue)
        switch contents {
        case .blank: contents = .lines(rgb)
        case .lines(let known) where known != rgb: contents = .unknown
        default: break
        }
        if lines!.isFull { drawQueuedLines() }
        return true
    }

    /// Runs `body` with the finished picture's pixels (premultiplied ARGB32 as cairo holds them,
    /// rows `rowWords` apart), or nil and cairo's status when the surface has failed or is not
    /// an image.
    func withPicture<T, Failure: Error>(_ body: (UnsafePointer<UInt32>?, _ rowWords: Int, cairo_status_t) throws(Failure) -> T)
        throws(Failure) -> T {
        try draw(drawsPixels: false) { (_) throws(Failure) in
            cairo_surface_flush(surface)
            let status = cairo_surface_status(surface)
            guard status == CAIRO_STATUS_SUCCESS, cairo_surface_get_type(surface) == CAIRO_SURFACE_TYPE_IMAGE,
                  let data = cairo_image_surface_get_data(surface)
            else { return try body(nil, 0, status) }
            return try body(UnsafeRawPointer(data).assumingMemoryBound(to: UInt32.self),
                            Int(cairo_image_surface_get_stride(surface)) / 4, status)
        }
    }

    /// Ends a streamed document (PDF, SVG): cairo writes what it still holds.
    func finishDocument() -> cairo_status_t {
        draw { _ in
            cairo_surface_finish(surface)
            return cairo_surface_status(surface)
        }
    }

    /// The pixels cairo draws into now (the picture, or the layer begun last), when geo can write
    /// lines into them as cairo would (see the type); nil otherwise.
    private func directTarget() -> UnsafeMutablePointer<UInt32>? {
        switch target {
        case .image(_, let pixels): return pixels
        case .none: return nil
        case .unknown:
            target = findTarget()
            if case .image(_, let pixels) = target { return pixels }
            return nil
        }
    }

    private func findTarget() -> TargetState {
        guard let group = cairo_get_group_target(context), cairo_surface_get_type(group) == CAIRO_SURFACE_TYPE_IMAGE,
              Int(cairo_image_surface_get_width(group)) == width, Int(cairo_image_surface_get_height(group)) == height
        else { return .none }
        var offsetX = 0.0, offsetY = 0.0
        cairo_surface_get_device_offset(group, &offsetX, &offsetY)
        // The clip last: cairo allocates its list of rectangles.
        guard offsetX == 0, offsetY == 0, cairo_get_operator(context) == CAIRO_OPERATOR_OVER, hasIdentityMatrix, hasNoClip
        else { return .none }
        cairo_surface_flush(group)
        guard let data = cairo_image_surface_get_data(group), Int(cairo_image_surface_get_stride(group)) == 4 * width
        else { return .none }
        return .image(surface: group, pixels: UnsafeMutableRawPointer(data).assumingMemoryBound(to: UInt32.self))
    }

    private var hasIdentityMatrix: Bool {
        var matrix = cairo_matrix_t()
        cairo_get_matrix(context, &matrix)
        return matrix.xx == 1 && matrix.yy == 1 && matrix.xy == 0 && matrix.yx == 0 && matrix.x0 == 0 && matrix.y0 == 0
    }

    /// No clip, or one that is a rectangle holding the whole picture (what cairo reports with
    /// none).
    private var hasNoClip: Bool {
        guard let list = cairo_copy_clip_rectangle_list(context) else { return false }
        defer { cairo_rectangle_list_destroy(list) }
        guard list.pointee.status == CAIRO_STATUS_SUCCESS, list.pointee.num_rectangles == 1 else { return false }
        let box = list.pointee.rectangles[0]
        return box.x <= 0 && box.y <= 0 && box.x + box.width >= Double(width) && box.y + box.height >= Double(height)
    }

    private func drawQueuedLines() {
        guard let lines, !lines.isEmpty else { return }
        guard case .image(let group, let pixels) = target else {
            // Lines are queued only with a target known, and the state cannot change until a
            // call through the gate, which draws them first.
            preconditionFailure("lines queued with no pixels to draw them into")
        }
        lines.flush(onto: pixels)
        cairo_surface_mark_dirty_rectangle(group, 0, 0, Int32(width), Int32(height))
    }

    /// Cells of coverage the rasterizer's threads hold (tests: one picture's worth).
    var rasterizerCells: Int { lines?.cells ?? 0 }
}
