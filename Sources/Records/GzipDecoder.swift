import CZlib

/// gzip input decompressed as it streams past (zlib's inflate), at flat memory: zlib's 32 KiB
/// window and one buffer of compressed bytes. Members one after another (`cat a.gz b.gz`) read
/// as one text, as gzip -d reads them.
final class GzipDecoder {
    /// Where the compressed bytes come from: fills the buffer it is given, 0 at the end.
    typealias Refill = (UnsafeMutablePointer<UInt8>, Int) throws(RunFailure) -> Int

    /// What is wrong with the compressed data, once it has been found (the text ends there).
    private(set) var problem: String?
    /// z_stream points back at itself from zlib's state: it must not move, so it lives on the heap.
    private let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    private let input: UnsafeMutablePointer<UInt8>
    private let inputSize = 64 * 1024
    private let refill: Refill
    private var inputEnded = false
    private var memberEnded = false

    /// `first`: bytes already read from the input (its magic bytes, when it was recognised).
    init(first: [UInt8], refill: @escaping Refill) {
        self.refill = refill
        input = UnsafeMutablePointer<UInt8>.allocate(capacity: max(inputSize, first.count))
        input.initialize(from: first, count: first.count)
        stream.initialize(to: z_stream())
        stream.pointee.next_in = input
        stream.pointee.avail_in = UInt32(first.count)
        // 16 + 15: a gzip header and trailer around deflate data, with the largest window.
        if inflateInit2_(stream, 16 + 15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) != Z_OK {
            problem = "cannot start zlib's inflate (out of memory)"
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
        input.deallocate()
    }

    /// Fills `destination` with up to `count` decompressed bytes; 0 at the end of the text,
    /// which is also where it stops when the data is corrupt or cut short (`problem` says so).
    func read(_ destination: UnsafeMutablePointer<UInt8>, _ count: Int) throws(RunFailure) -> Int {
        guard problem == nil else { return 0 }
        while true {
            if stream.pointee.avail_in == 0 && !inputEnded {
                let got = try refill(input, inputSize)
                stream.pointee.next_in = input
                stream.pointee.avail_in = UInt32(got)
                inputEnded = got == 0
            }
            if memberEnded {
                if stream.pointee.avail_in == 0 { return 0 }  // (the input has ended, else it was refilled)
                // Another member follows: read on as if it were the same one.
                inflateReset(stream)
                memberEnded = false
            }
            stream.pointee.next_out = destination
            stream.pointee.avail_out = UInt32(count)
            let status = inflate(stream, Z_NO_FLUSH)
            let produced = count - Int(stream.pointee.avail_out)
            switch status {
            case Z_STREAM_END:
                memberEnded = true
            case Z_OK, Z_BUF_ERROR:
                // No progress without more input, and there is none: the file was cut short.
                if produced == 0 && inputEnded && stream.pointee.avail_in == 0 {
                    problem = "the gzip data is cut short (a truncated file?): what follows is missing"
                }
            default:
                let reason = stream.pointee.msg.map { String(cString: $0) } ?? "status \(status)"
                problem = "the gzip data is corrupt (\(reason)): the rest of the file is skipped"
            }
            if produced > 0 || problem != nil { return produced }
        }
    }
}
