#if canImport(Glibc)
import Glibc
#endif
import RasterKernels
import Styles
import Threads

/// Strokes solid-colour lines straight into the pixels of a PNG canvas: the one drawing
/// operation a map of many paths is made of, done without cairo's general stroker, and on
/// several threads.
///
/// A line with round joins and round caps (what geo draws) covers exactly the points within
/// half its width of one of its segments: the union of one capsule a segment. So each pixel
/// near a segment gets the coverage of a band of the line's width at the distance of the pixel's
/// centre from the segment (the overlap of [d - ½, d + ½] with [-w/2, w/2]), and the line's
/// coverage of a pixel is the largest of its segments' (a union: joins and overlaps are not
/// painted twice). Once every segment is in, the coverage is laid onto the picture in the line's
/// colour (source over, premultiplied ARGB, as cairo stores it; a pixel already of that colour
/// keeps it exactly, so that a picture in one colour has one colour an alpha and is written as
/// a palette PNG) and cleared.
///
/// Error bound, against the exact share of each pixel the line covers (its area; measured by
/// Tests/GeoTests/LineRasterizerTests.swift on random lines, the edge cases pinned there to
/// golden images): exact across a line parallel to the pixel grid; at most 0.09 of a pixel
/// (`coverageErrorBound`; 0.085 is the largest seen) for lines 2 px wide or more, at their
/// caps and where a diagonal edge cuts a pixel's corner; at most 1/π + ½ level (0.32,
/// `thinCoverageErrorBound`) for thinner lines, reached by a dot 2/π px wide, which the rule
/// draws as wide as its band (coverage w) where its disc covers πw²/4.
///
/// The work is a few distance evaluations a pixel the line touches, where cairo's stroker
/// builds the outline of every segment and join and scan-converts it with 256 samples a pixel:
/// on the corpus' 2 million vertices cairo took about 2.5 s of CPU, this about a third of it.
/// Lines wider than `widest` pixels are left to cairo, whose cost does not grow with the area.
///
/// Lines are queued and drawn in batches (`flush`) by `bands` threads, each owning the rows of
/// every `bands`-th stripe of 32 and holding coverage for those rows only (together, one
/// picture's worth whatever the number of threads): each thread draws every queued line in
/// order within its rows, so the picture is the same whatever the number of threads. The canvas
/// queues lines through its `CairoGate`, which draws them before any cairo call and queues them
/// only when writing the pixels directly gives what cairo would.
final class LineRasterizer {
    /// Lines up to this width (pixels) are drawn here; wider ones by cairo.
    static let widest = 16.0
    /// How far a pixel's coverage can be from the exact share of it the line covers, for lines
    /// 2 px wide or more (see the type).
    static let coverageErrorBound = 0.09
    /// The same for any width (see the type).
    static let thinCoverageErrorBound = 0.32
    /// Points queued before the lines must be drawn: 1 MB.
    static let batch = 1 << 16

    let width: Int
    let height: Int
    private let bands: [Band]
    private let helpers: [BandThread]

    /// The queued lines: their points (thinned: `PathThinning`), and for each its last
    /// point's index + 1, its half width and its colour.
    private var points: [Pixel] = []
    private var lines: [(end: Int, half: Double, colour: Colour)] = []
    private let thinning = PathThinning()

    var isEmpty: Bool { lines.isEmpty }
    /// Whether the lines drawn so far laid any ink (a pixel's alpha above 0).
    var inked: Bool { bands.contains { $0.inked } }

    /// For a new picture: no line has laid ink yet.
    func forgetInk() { for band in bands { band.inked = false } }
    /// Cells of coverage all the threads hold together: one picture's, rounded up to stripes.
    var cells: Int { bands.reduce(0) { $0 + $1.cells } }
    var isFull: Bool { points.count >= LineRasterizer.batch }

    init(width: Int, height: Int, threads: Int) {
        self.width = width
        self.height = height
        let count = max(1, min(threads, (height + Band.stripe - 1) / Band.stripe))
        bands = (0..<count).map { Band(index: $0, of: count, width: width, height: height) }
        helpers = bands.dropFirst().map(BandThread.init)
        // No room reserved for a whole batch: a tile queues a few thousand points, and a megabyte
        // reserved each time cost a mapping and its unmapping (a TLB flush on every core) a tile.
    }

    deinit { for helper in helpers { helper.stop() } }

    /// Queues one line made of `pieces`: their pixels are covered once, however they overlap
    /// (a point that is not finite between two pieces breaks the line there, as the kernel
    /// reads it). Each piece is thinned (`PathThinning`) on its own.
    func add<Pieces: Collection<[Pixel]>>(_ pieces: Pieces, lineWidth: Double, colour: Colour) {
        guard lineWidth > 0 else { return }
        let start = points.count
        for line in pieces {
            guard let first = line.first else { continue }
            if points.count > start { points.append(Pixel(.nan, .nan)) }
            points.append(first)
            // A dot within a line of several pieces: a segment of no length, round ends.
            if line.count == 1 && pieces.count > 1 { points.append(first) }
            thinning.start(first)
            for point in line.dropFirst() {
                if let kept = thinning.offer(point) { points.append(kept) }
            }
            if let last = thinning.finish() { points.append(last) }
        }
        guard points.count > start else { return }
        lines.append((points.count, lineWidth / 2, colour))
    }

    /// Draws the queued lines onto `pixels` (premultiplied ARGB32, the picture's size, rows
    /// `width` pixels apart), each band on its own thread, and empties the queue.
    func flush(onto pixels: UnsafeMutablePointer<UInt32>) {
        guard !lines.isEmpty else { return }
        points.withUnsafeBufferPointer { points in
            lines.withUnsafeBufferPointer { lines in
                let work = Batch(points: points, lines: lines, pixels: pixels)
                for helper in helpers { helper.start(work) }
                bands[0].draw(work)
                for helper in helpers { helper.wait() }
            }
        }
        points.removeAll(keepingCapacity: true)
        lines.removeAll(keepingCapacity: true)
    }
}

/// What a flush hands every band: the queued lines and the picture. Sendable by hand: the
/// flushing thread keeps the buffers alive and unchanged until every band is done, and each band
/// writes only its own rows of `pixels`.
struct Batch: @unchecked Sendable {
    let points: UnsafeBufferPointer<Pixel>
    let lines: UnsafeBufferPointer<(end: Int, half: Double, colour: Colour)>
    let pixels: UnsafeMutablePointer<UInt32>
}

/// The rows one thread draws, and its scratch: the coverage of the line under way (0–255, all 0
/// between lines) over its own rows only, its stripes stacked one under the other, so that all
/// the bands together hold one picture's worth whatever the number of threads; and the pixels
/// the line covers, each once. Sendable by hand: one thread at a time uses it, its BandThread
/// between `start` and `wait` (band 0: the flushing thread itself).
final class Band: @unchecked Sendable {
    /// Rows go to bands in stripes this tall, in turn: each band gets some of every region.
    static let stripe = 32

    let index: Int
    let count: Int
    let width: Int
    let height: Int
    private let coverage: UnsafeMutablePointer<UInt8>
    /// How many cells `coverage` holds (its stripes' rows × the width).
    let cells: Int
    private var touched = geo_touched(items: nil, count: 0, capacity: 0)
    /// Coverage by squared distance, for the width of the line under way.
    private let table = UnsafeMutablePointer<geo_cover_table>.allocate(capacity: 1)
    /// The colour of the line under way at every alpha.
    private let ramp = UnsafeMutablePointer<geo_colour_ramp>.allocate(capacity: 1)
    /// Whether a line laid ink in this band's rows.
    var inked = false

    init(index: Int, of count: Int, width: Int, height: Int) {
        self.index = index
        self.count = count
        self.width = width
        self.height = height
        let stripes = (height + Band.stripe - 1) / Band.stripe
        let cells = (stripes - index + count - 1) / count * Band.stripe * width
        coverage = .allocate(capacity: cells)
        coverage.initialize(repeating: 0, count: cells)
        self.cells = cells
        table.pointee.half = -1
        geo_colour_ramp_fill(ramp, 0)
    }

    deinit {
        coverage.deallocate()
        table.deallocate()
        ramp.deallocate()
        free(touched.items)
    }

    /// Draws every line of the batch, in order, within this band's rows.
    func draw(_ work: Batch) {
        var start = 0
        for line in work.lines {
            if table.pointee.half != line.half { geo_cover_table_fill(table, line.half) }
            UnsafeRawPointer(work.points.baseAddress! + start).withMemoryRebound(to: Double.self, capacity: 2 * (line.end - start)) {
                geo_cover_line(coverage, width, height, index, count, Band.stripe, $0, line.end - start, line.half, table, &touched)
            }
            start = line.end
            if touched.count > 0 {
                let colour = line.colour
                let argb = UInt32(colour.alpha) << 24 | UInt32(colour.red) << 16 | UInt32(colour.green) << 8 | UInt32(colour.blue)
                if ramp.pointee.colour != argb { geo_colour_ramp_fill(ramp, argb) }
                if geo_composite_coverage(coverage, touched.items, touched.count, work.pixels, ramp) >> 24 != 0 { inked = true }
                touched.count = 0
            }
        }
    }
}

/// A thread that draws one band of every batch it is given: `start` hands it a batch, `wait`
/// returns when it has drawn it. Started as every geo thread is (`startThread`); the batches
/// are handed over through POSIX semaphores, a wake-up each way a flush.
/// Sendable by hand: `work` and `stopping` are written before `go` is posted and read after it
/// is waited for, and the band is drawn before `done` is posted: the semaphores order them.
final class BandThread: @unchecked Sendable {
    private let band: Band
    private var work: Batch?
    private var stopping = false
    private let go = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
    private let done = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)

    init(_ band: Band) {
        self.band = band
        sem_init(go, 0, 0)
        sem_init(done, 0, 0)
        startThread { self.loop() }
    }

    deinit {
        sem_destroy(go)
        sem_destroy(done)
        go.deallocate()
        done.deallocate()
    }

    private func loop() {
        while true {
            while sem_wait(go) != 0 {}
            if stopping { break }
            band.draw(work!)
            work = nil
            sem_post(done)
        }
    }

    func start(_ batch: Batch) {
        work = batch
        sem_post(go)
    }

    func wait() { while sem_wait(done) != 0 {} }

    /// Ends the thread (which holds the last reference to itself until it has ended).
    func stop() {
        stopping = true
        sem_post(go)
    }
}
