import CZlib

/// PNG encoding of a cairo ARGB32 picture: 8-bit RGBA, rows unfiltered, deflated by zlib at the
/// level asked, written in IDAT chunks of at most `chunk` bytes, so a picture of any size encodes
/// in flat memory.
///
/// Why not cairo's own writer (libpng at zlib's default level 6, adaptive filters): on map
/// tiles it spent 80 % of `geo tiles`' time, 6.6 ms a 256-px tile. Unfiltered rows at level 2
/// encode the same tiles in under 1 ms and come out smaller (21 KB against 27 KB on the
/// bench/tiles.py corpus), and at level 6 a rendered picture comes out smaller than cairo's too
/// (11.3 KB against 12.3 KB for a 1024×768 line on white): lines on a transparent or plain
/// background are long runs of equal pixels, which deflate finds without filters, while the
/// Sub and Up filters turn antialiased edges into noise (measured: on that picture at level 6,
/// Sub 16 % and Up 34 % larger; Up 44 % larger on tiles). The colours are cairo's own
/// unpremultiplication, rounding included, so a decoded picture is the same pixel for pixel as
/// cairo's writer made it.
enum PNGEncoder {
    static let chunk = 1 << 18

    /// Encodes the `width`×`height` premultiplied native-endian ARGB words at `pixels` (rows
    /// `rowWords` words apart) into `sink`; throws the write's or zlib's failure.
    static func encode(_ pixels: UnsafePointer<UInt32>, width: Int, height: Int, rowWords: Int, level: Int32, into sink: Sink) throws(DrawingError) {
        var header = [UInt8](repeating: 0, count: 13)
        store(UInt32(width), at: 0, in: &header)
        store(UInt32(height), at: 4, in: &header)
        header[8] = 8   // bits a channel
        header[9] = 6   // RGBA; compression, filter and interlace methods 0
        try write([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], to: sink)
        try writeChunk("IHDR", header[...], to: sink)

        var stream = z_stream()
        guard deflateInit2_(&stream, level, Z_DEFLATED, 15, 9, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw DrawingError("cannot start zlib's deflate (out of memory)")
        }
        defer { deflateEnd(&stream) }
        let rowBytes = 1 + 4 * width
        let rowsAtOnce = max(1, 65536 / rowBytes)
        var rows = [UInt8](repeating: 0, count: rowBytes * rowsAtOnce)
        var output = [UInt8](repeating: 0, count: 12 + chunk + 4)   // room for the chunk's length, type and CRC
        var outputUsed = 0

        /// Runs deflate over `input` (nil: finish the stream), sending each full chunk on.
        func deflateAll(_ input: UnsafeMutableBufferPointer<UInt8>?) throws(DrawingError) {
            stream.next_in = input?.baseAddress
            stream.avail_in = UInt32(input?.count ?? 0)
            while true {
                let status = output.withUnsafeMutableBufferPointer { buffer in
                    stream.next_out = buffer.baseAddress! + 8 + outputUsed
                    stream.avail_out = UInt32(chunk - outputUsed)
                    let status = deflate(&stream, input == nil ? Z_FINISH : Z_NO_FLUSH)
                    outputUsed = chunk - Int(stream.avail_out)
                    return status
                }
                guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
                    throw DrawingError("zlib's deflate failed (status \(status))")
                }
                if outputUsed == chunk { try flushIDAT(&output, count: &outputUsed, to: sink) }
                if input == nil ? status == Z_STREAM_END : stream.avail_in == 0 { break }
            }
        }

        var row = 0
        while row < height {
            let count = min(rowsAtOnce, height - row)
            try rows.withUnsafeMutableBufferPointer { buffer throws(DrawingError) in
                for index in 0..<count {
                    let line = buffer.baseAddress! + index * rowBytes
                    line[0] = 0   // filter type None
                    unpremultiply(pixels + (row + index) * rowWords, count: width, into: line + 1)
                }
                try deflateAll(UnsafeMutableBufferPointer(rebasing: buffer[0..<count * rowBytes]))
            }
            row += count
        }
        try deflateAll(nil)
        if outputUsed > 0 { try flushIDAT(&output, count: &outputUsed, to: sink) }
        try writeChunk("IEND", [UInt8]()[...], to: sink)
    }

    /// Premultiplied ARGB words to RGBA bytes, as cairo's PNG writer does it (round to nearest).
    @inline(__always)
    static func unpremultiply(_ words: UnsafePointer<UInt32>, count: Int, into bytes: UnsafeMutablePointer<UInt8>) {
        for index in 0..<count {
            let word = words[index], alpha = word >> 24
            let out = bytes + 4 * index
            switch alpha {
            case 0:
                out[0] = 0; out[1] = 0; out[2] = 0; out[3] = 0
            case 255:
                out[0] = UInt8(truncatingIfNeeded: word >> 16)
                out[1] = UInt8(truncatingIfNeeded: word >> 8)
                out[2] = UInt8(truncatingIfNeeded: word)
                out[3] = 255
            default:
                out[0] = UInt8(truncatingIfNeeded: (((word >> 16) & 0xFF) * 255 + alpha / 2) / alpha)
                out[1] = UInt8(truncatingIfNeeded: (((word >> 8) & 0xFF) * 255 + alpha / 2) / alpha)
                out[2] = UInt8(truncatingIfNeeded: ((word & 0xFF) * 255 + alpha / 2) / alpha)
                out[3] = UInt8(truncatingIfNeeded: alpha)
            }
        }
    }

    /// Sends the compressed bytes at output[8...] as one IDAT chunk; the first 8 bytes are the
    /// room left for its length and type, so the chunk goes out in one write.
    private static func flushIDAT(_ output: inout [UInt8], count: inout Int, to sink: Sink) throws(DrawingError) {
        store(UInt32(count), at: 0, in: &output)
        output[4] = 0x49; output[5] = 0x44; output[6] = 0x41; output[7] = 0x54   // "IDAT"
        let crc = output.withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress! + 4, UInt32(4 + count))) }
        store(crc, at: 8 + count, in: &output)
        try write(output[0..<12 + count], to: sink)
        count = 0
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
        bytes[offset] = UInt8(truncatingIfNeeded: value >> 24)
        bytes[offset + 1] = UInt8(truncatingIfNeeded: value >> 16)
        bytes[offset + 2] = UInt8(truncatingIfNeeded: value >> 8)
        bytes[offset + 3] = UInt8(truncatingIfNeeded: value)
    }

    private static func write(_ bytes: ArraySlice<UInt8>, to sink: Sink) throws(DrawingError) {
        guard bytes.withUnsafeBytes({ sink.append($0) }) else { throw DrawingError(sink.failureMessage) }
    }
}
