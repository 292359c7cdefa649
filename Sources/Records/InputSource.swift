#if canImport(Glibc)
import Glibc
#endif

/// The bytes of one input as the reader sees them: the file's own, or for gzip what they
/// decompress to. Its first bytes are read ahead to tell what the input is (`InputFormat`) and
/// are then handed out first, so the reader never knows the difference.
final class InputSource {
    /// A descriptor (closed with the source), or bytes in memory (tests and fuzzing).
    enum Origin {
        case descriptor(Int32)
        case memory([UInt8])
    }

    private let origin: Origin
    private var memoryPosition = 0
    /// The input's name in messages.
    private let name: String
    /// Bytes read to recognise the format, not yet handed out.
    private var ahead: [UInt8] = []
    private var gzip: GzipDecoder?
    /// Bytes read from the input itself (compressed ones for gzip): what progress counts.
    private(set) var consumed = 0

    init(_ origin: Origin, name: String) {
        self.origin = origin
        self.name = name
    }

    deinit {
        if case .descriptor(let fd) = origin, fd > 0 { close(fd) }
    }

    /// What is wrong with a gzip input's data, once its reading has stopped there.
    var problem: String? { gzip?.problem }

    /// Reads the input's first bytes and tells its format (`path`: as named on the command line),
    /// setting up decompression for gzip. As few reads as it takes: one, unless its bytes could
    /// still begin a magic number, so a record that arrives alone on a pipe is not held back.
    func recognise(path: String) throws(RunFailure) -> InputFormat {
        let size = ChunkReader.firstChunkSize
        var format: InputFormat?
        while format == nil {
            let old = ahead.count
            ahead.append(contentsOf: repeatElement(0, count: size))
            let got = try ahead.withUnsafeMutableBufferPointer { buffer throws(RunFailure) in try readRaw(buffer.baseAddress! + old, size) }
            ahead.removeLast(size - got)
            format = ahead.withUnsafeBufferPointer { InputFormat.recognise($0, atEnd: got == 0, path: path) }
        }
        if format == .gzip {
            let compressed = ahead
            ahead = []
            gzip = GzipDecoder(first: compressed) { [unowned self] buffer, count throws(RunFailure) in try readRaw(buffer, count) }
        }
        return format!
    }

    /// Fills `destination` with up to `count` bytes of the input's text; 0 at its end.
    func read(_ destination: UnsafeMutablePointer<UInt8>, _ count: Int) throws(RunFailure) -> Int {
        if !ahead.isEmpty {
            let taken = min(count, ahead.count)
            ahead.withUnsafeBufferPointer { destination.update(from: $0.baseAddress!, count: taken) }
            ahead.removeFirst(taken)
            return taken
        }
        if let gzip { return try gzip.read(destination, count) }
        return try readRaw(destination, count)
    }

    /// read(2) on the input itself, again when interrupted.
    private func readRaw(_ destination: UnsafeMutablePointer<UInt8>, _ count: Int) throws(RunFailure) -> Int {
        switch origin {
        case .memory(let bytes):
            let taken = min(count, bytes.count - memoryPosition)
            bytes.withUnsafeBufferPointer { destination.update(from: $0.baseAddress! + memoryPosition, count: taken) }
            memoryPosition += taken
            consumed += taken
            return taken
        case .descriptor(let fd):
            while true {
                let got = Glibc.read(fd, destination, count)
                if got >= 0 {
                    consumed += got
                    return got
                }
                if errno != EINTR { throw RunFailure("error reading '\(name)': \(systemReason())", status: .ioError) }
            }
        }
    }
}
