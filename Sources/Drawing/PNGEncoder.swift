import CZlib
import RasterKernels
import RunDeflate

/// PNG encoding of a cairo ARGB32 picture: 8-bit RGBA (or an 8-bit palette when that holds the
/// picture exactly: see `Palette`), rows unfiltered, deflated by zlib (a
/// picture someone keeps) or by geo's run deflater (map tiles), written in IDAT chunks of at
/// most `chunk` bytes, so a picture of any size encodes in flat memory.
///
/// Why not cairo's own writer (libpng at zlib's default level 6, adaptive filters): on map
/// tiles it spent 80 % of `geo tiles`' time, 6.6 ms a 256-px tile. Unfiltered rows encode the
/// same tiles far faster and come out smaller, and at level 6 a rendered picture comes out
/// smaller than cairo's too (11.3 KB against 12.3 KB for a 1024×768 line on white): lines on a
/// transparent or plain background are long runs of equal pixels, which deflate finds without
/// filters, while the Sub and Up filters turn antialiased edges into noise (measured: on that
/// picture at level 6, Sub 16 % and Up 34 % larger; Up 44 % larger on tiles). The colours are
/// cairo's own unpremultiplication, rounding included, so a decoded picture is the same pixel
/// for pixel as cairo's writer made it.
enum PNGEncoder {
    static let chunk = 1 << 18

    /// Encodes the `width`×`height` premultiplied native-endian ARGB words at `pixels` (rows
    /// `rowWords` words apart) into `sink`; throws the write's or zlib's failure.
    /// `oneColour` (0xRRGGBB): every pixel is known to be that colour at its alpha, or transparent.
    static func encode(_ pixels: UnsafePointer<UInt32>, width: Int, height: Int, rowWords: Int, compression: PNGCompression,
                       oneColour: UInt32? = nil, workspace: PNGWorkspace, into sink: Sink) throws(DrawingError) {
        let palette = Palette(pixels, width: width, height: height, rowWords: rowWords, oneColour: oneColour)
        var header = [UInt8](repeating: 0, count: 13)
        store(UInt32(width), at: 0, in: &header)
        store(UInt32(height), at: 4, in: &header)
        header[8] = 8                        // bits a channel, or an index
        header[9] = palette == nil ? 6 : 3   // RGBA, or a palette; compression, filter and interlace methods 0
        try write([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], to: sink)
        try writeChunk("IHDR", header[...], to: sink)
        if let palette {
            try writeChunk("PLTE", palette.colours[...], to: sink)
            try writeChunk("tRNS", palette.alphas[...], to: sink)
        }

        let pixelBytes = palette == nil ? 4 : 1
        let rowBytes = 1 + pixelBytes * width
        // A batch is one deflate block for the run deflater, which builds Huffman codes for each:
        // a whole 256-px tile in one.
        let rowsAtOnce = max(1, (compression == .fast ? 1 << 19 : 1 << 16) / rowBytes)
        let deflater: any Deflater = switch compression {
        case .fast: RunDeflater(rowBytes: rowBytes, pixelBytes: pixelBytes, batch: rowsAtOnce * rowBytes, workspace: workspace)
        case .compact: try ZlibDeflater(level: 6)
        }
        var idat = IDATWriter(sink: sink, workspace: workspace)
        // One row more in front: the last row of the previous batch, which the run deflater
        // matches against.
        workspace.reserve(rows: rowBytes * (rowsAtOnce + 1))
        var row = 0
        while row < height {
            let count = min(rowsAtOnce, height - row)
            let first = workspace.rows + rowBytes
            if row > 0 { (first - rowBytes).update(from: first + (rowsAtOnce - 1) * rowBytes, count: rowBytes) }
            if palette != nil {
                geo_png_alpha_rows(pixels + row * rowWords, width, count, rowWords, first)
            } else {
                geo_png_rows(pixels + row * rowWords, width, count, rowWords, first)
            }
            try deflater.deflate(UnsafeBufferPointer(start: first, count: count * rowBytes), history: row > 0 ? rowBytes : 0, into: &idat)
            row += count
        }
        try deflater.finish(into: &idat)
        try idat.flush()
        try writeChunk("IEND", [UInt8]()[...], to: sink)
    }

    /// A palette indexed by alpha, for a picture whose pixels of one alpha are all one colour (a
    /// picture in one colour over a transparent background, however antialiased: most map tiles
    /// and many overlays). It decodes to exactly the pixels RGBA would (the same
    /// unpremultiplication), and its rows are a quarter of the bytes to deflate. A pixel's index
    /// is its alpha, so the rows need no lookup; an alpha no pixel has gets an entry all the
    /// same (black), up to the largest used: a tile's antialiased lines use nearly every alpha.
    struct Palette {
        /// PLTE: each entry's red, green and blue; tRNS: its alpha (its index).
        var colours: [UInt8] = []
        var alphas: [UInt8] = []

        /// Nil when two pixels of one alpha differ in colour. With `oneColour` (0xRRGGBB) known
        /// to be every pixel's, the pixels are only read for their largest alpha.
        init?(_ pixels: UnsafePointer<UInt32>, width: Int, height: Int, rowWords: Int, oneColour: UInt32?) {
            var byAlpha = [UInt32](repeating: 0, count: 256)
            let largest: Int
            if let oneColour {
                var ramp = geo_colour_ramp()
                geo_colour_ramp_fill(&ramp, oneColour)
                withUnsafeBytes(of: ramp.words) { byAlpha = Array($0.bindMemory(to: UInt32.self)) }
                largest = Int(geo_png_largest_alpha(pixels, width, height, rowWords))
            } else {
                guard geo_png_alpha_palette(pixels, width, height, rowWords, &byAlpha) != 0 else { return nil }
                largest = byAlpha.lastIndex { $0 != 0 } ?? 0
            }
            for alpha in 0...largest {
                colours += PNGEncoder.unpremultiply(byAlpha[alpha]).prefix(3)
                alphas.append(UInt8(alpha))
            }
        }
    }

    /// Premultiplied ARGB words to RGBA bytes, as cairo's PNG writer does it (round to nearest):
    /// the definition `geo_png_rows` is tested against.
    static func unpremultiply(_ word: UInt32) -> [UInt8] {
        let alpha = word >> 24
        guard alpha > 0 else { return [0, 0, 0, 0] }
        let channel = { (shift: UInt32) in UInt8(truncatingIfNeeded: (((word >> shift) & 0xFF) * 255 + alpha / 2) / alpha) }
        return [channel(16), channel(8), channel(0), UInt8(alpha)]
    }

    private static func writeChunk(_ type: String, _ data: ArraySlice<UInt8>, to sink: Sink) throws(DrawingError) {
        var chunk = [UInt8](repeating: 0, count: 4)
        store(UInt32(data.count), at: 0, in: &chunk)
        chunk += Array(type.utf8)
        chunk += data
        let crc = chunk.withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress! + 4, UInt32($0.count - 4))) }
        chunk += [0, 0, 0, 0]
        store(crc, at: chunk.count - 4, in: &chunk)
        try write(chunk[...], to: sink)
    }

    private static func store(_ value: UInt32, at offset: Int, in bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBufferPointer { store(value, at: $0.baseAddress! + offset) }
    }

    /// Big-endian, as PNG stores its lengths and CRCs.
    static func store(_ value: UInt32, at bytes: UnsafeMutablePointer<UInt8>) {
        bytes[0] = UInt8(truncatingIfNeeded: value >> 24)
        bytes[1] = UInt8(truncatingIfNeeded: value >> 16)
        bytes[2] = UInt8(truncatingIfNeeded: value >> 8)
        bytes[3] = UInt8(truncatingIfNeeded: value)
    }

    private static func write(_ bytes: ArraySlice<UInt8>, to sink: Sink) throws(DrawingError) {
        guard bytes.withUnsafeBytes({ sink.append($0) }) else { throw DrawingError(sink.failureMessage) }
    }
}

/// The encoder's buffers, kept from one picture to the next by a caller that encodes many (a
/// tile-drawing thread): a tile's are half a megabyte or more, which a fresh allocation pays for
/// in page faults each time.
public final class PNGWorkspace {
    private(set) var rows = UnsafeMutablePointer<UInt8>.allocate(capacity: 0)
    private(set) var tokens = UnsafeMutablePointer<UInt32>.allocate(capacity: 0)
    private(set) var output = UnsafeMutablePointer<UInt8>.allocate(capacity: 0)
    /// An IDAT chunk being filled: its length and type, `PNGEncoder.chunk` bytes, its CRC.
    let chunk = UnsafeMutablePointer<UInt8>.allocate(capacity: 8 + PNGEncoder.chunk + 4)
    private var capacity = (rows: 0, tokens: 0, output: 0)

    public init() {}

    deinit {
        chunk.deallocate()
        rows.deallocate()
        tokens.deallocate()
        output.deallocate()
    }

    func reserve(rows count: Int) {
        guard count > capacity.rows else { return }
        rows.deallocate()
        rows = .allocate(capacity: count)
        capacity.rows = count
    }

    func reserve(tokens count: Int, output bytes: Int) {
        if count > capacity.tokens {
            tokens.deallocate()
            tokens = .allocate(capacity: count)
            capacity.tokens = count
        }
        if bytes > capacity.output {
            output.deallocate()
            output = .allocate(capacity: bytes)
            capacity.output = bytes
        }
    }
}

/// The compressed stream on its way out: IDAT chunks of at most `PNGEncoder.chunk` bytes, each
/// sent in one write (the buffer keeps room for the chunk's length, type and CRC).
struct IDATWriter {
    let sink: Sink
    private let buffer: UnsafeMutablePointer<UInt8>
    private var used = 0

    init(sink: Sink, workspace: PNGWorkspace) {
        self.sink = sink
        buffer = workspace.chunk
    }

    /// Adds the `count` bytes at `bytes`.
    mutating func append(_ bytes: UnsafePointer<UInt8>, count: Int) throws(DrawingError) {
        var done = 0
        while done < count {
            let piece = min(count - done, PNGEncoder.chunk - used)
            (buffer + 8 + used).update(from: bytes + done, count: piece)
            used += piece
            done += piece
            if used == PNGEncoder.chunk { try flush() }
        }
    }

    /// Sends what is buffered as one IDAT chunk.
    mutating func flush() throws(DrawingError) {
        guard used > 0 else { return }
        PNGEncoder.store(UInt32(used), at: buffer)
        buffer[4] = 0x49; buffer[5] = 0x44; buffer[6] = 0x41; buffer[7] = 0x54   // "IDAT"
        PNGEncoder.store(UInt32(crc32(0, buffer + 4, UInt32(4 + used))), at: buffer + 8 + used)
        guard sink.append(UnsafeRawBufferPointer(start: buffer, count: 12 + used)) else { throw DrawingError(sink.failureMessage) }
        used = 0
    }
}

/// One zlib stream made from a picture's rows, batch by batch.
protocol Deflater: AnyObject {
    /// Compresses `data`, whose `history` bytes before it (the previous batch's last row) may
    /// be referred to.
    func deflate(_ data: UnsafeBufferPointer<UInt8>, history: Int, into idat: inout IDATWriter) throws(DrawingError)
    func finish(into idat: inout IDATWriter) throws(DrawingError)
}

/// zlib's deflate at a level: the smallest files, for a picture someone keeps.
final class ZlibDeflater: Deflater {
    private var stream = z_stream()
    private let output = UnsafeMutablePointer<UInt8>.allocate(capacity: 1 << 16)

    init(level: Int32) throws(DrawingError) {
        guard deflateInit2_(&stream, level, Z_DEFLATED, 15, 9, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw DrawingError("cannot start zlib's deflate (out of memory)")
        }
    }

    deinit {
        deflateEnd(&stream)
        output.deallocate()
    }

    func deflate(_ data: UnsafeBufferPointer<UInt8>, history: Int, into idat: inout IDATWriter) throws(DrawingError) {
        try run(data, into: &idat)
    }

    func finish(into idat: inout IDATWriter) throws(DrawingError) {
        try run(nil, into: &idat)
    }

    /// Runs deflate over `input` (nil: finish the stream), handing each output buffer on.
    private func run(_ input: UnsafeBufferPointer<UInt8>?, into idat: inout IDATWriter) throws(DrawingError) {
        stream.next_in = UnsafeMutablePointer(mutating: input?.baseAddress)
        stream.avail_in = UInt32(input?.count ?? 0)
        while true {
            stream.next_out = output
            stream.avail_out = 1 << 16
            let status = CZlib.deflate(&stream, input == nil ? Z_FINISH : Z_NO_FLUSH)
            let produced = (1 << 16) - Int(stream.avail_out)
            guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
                throw DrawingError("zlib's deflate failed (status \(status))")
            }
            try idat.append(output, count: produced)
            if input == nil ? status == Z_STREAM_END : stream.avail_in == 0 && produced < 1 << 16 { break }
        }
    }
}

/// geo's run deflater (RunDeflate): matches one pixel back and one row up only, with Huffman
/// codes made for each batch; 4.6 times as fast as zlib's level 2 on map tiles, for smaller
/// files on palette tiles and 12–30 % larger ones on RGBA tiles (see RunDeflate.h).
final class RunDeflater: Deflater {
    private var state = geo_run_deflate()
    private let workspace: PNGWorkspace

    init(rowBytes: Int, pixelBytes: Int, batch: Int, workspace: PNGWorkspace) {
        geo_run_deflate_start(&state, rowBytes, Int32(pixelBytes))
        workspace.reserve(tokens: batch, output: geo_run_deflate_bound(batch))
        self.workspace = workspace
    }

    func deflate(_ data: UnsafeBufferPointer<UInt8>, history: Int, into idat: inout IDATWriter) throws(DrawingError) {
        let produced = geo_run_deflate_block(&state, data.baseAddress, data.count, history, workspace.tokens, workspace.output)
        try idat.append(workspace.output, count: produced)
    }

    func finish(into idat: inout IDATWriter) throws(DrawingError) {
        let produced = geo_run_deflate_finish(&state, workspace.output)
        try idat.append(workspace.output, count: produced)
    }
}
