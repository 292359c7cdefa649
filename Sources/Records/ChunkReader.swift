#if canImport(Glibc)
import Glibc
#endif

/// A run of whole records from one input, with where it starts (for error messages).
final class Chunk: @unchecked Sendable {
    let bytes: UnsafeMutablePointer<UInt8>
    let count: Int
    let source: String
    /// The 1-based line number of the chunk's first byte.
    let firstLine: Int
    /// `\n` for NDJSON, RS (0x1E) for RFC 8142 / RFC 7464 sequences (texts may span lines).
    let delimiter: UInt8
    /// The chunk opens its file: a UTF-8 byte order mark there is skipped.
    let startsFile: Bool

    init(bytes: UnsafeMutablePointer<UInt8>, count: Int, source: String, firstLine: Int, delimiter: UInt8, startsFile: Bool) {
        self.bytes = bytes
        self.count = count
        self.source = source
        self.firstLine = firstLine
        self.delimiter = delimiter
        self.startsFile = startsFile
    }

    deinit { bytes.deallocate() }

    var buffer: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: bytes, count: count) }
}

/// Why input stopped: a file that cannot be opened (exit 66) or a failed read (exit 74).
struct InputFailure: Error {
    var message: String
    var status: Int32
}

let recordSeparator: UInt8 = 0x1E

/// Cuts the input files, one after another, into chunks that end on a record boundary. A chunk is
/// what one read(2) brought (so records flow as soon as they arrive on a pipe), grown only when a
/// single record is longer than that.
final class ChunkReader {
    static let defaultChunkSize = 256 * 1024
    /// The first chunks are small, until the output/input ratio is known.
    static let firstChunkSize = 16 * 1024
    /// How much one read asks for; see `adapt(to:)`.
    var chunkSize: Int

    private var paths: [String]
    private var fd: Int32 = -1
    private var source = ""
    private var line = 1
    private var delimiter: UInt8?
    private var startsFile = false
    private var leftover: [UInt8] = []
    private(set) var bytesRead = 0

    private var literal: (bytes: [UInt8], source: String)?

    init(paths: [String], chunkSize: Int = ChunkReader.firstChunkSize) {
        self.paths = paths.reversed()
        self.chunkSize = chunkSize
    }

    var readsFiles: Bool { literal == nil }

    /// Output per chunk that keeps memory flat: commands that write much more than they read
    /// (a Point becomes a 64-vertex circle) get smaller input chunks.
    static let outputPerChunk = 2 * 1024 * 1024

    /// One record given on the command line (`--center`) instead of files.
    init(literal bytes: [UInt8], source: String) {
        paths = []
        chunkSize = ChunkReader.defaultChunkSize
        literal = (bytes + [UInt8(ascii: "\n")], source)
    }

    static func displayName(_ path: String) -> String { path == "-" ? "<stdin>" : path }

    /// Opens `path` for reading, or says why it cannot be (a directory counts as unreadable).
    static func open(_ path: String) throws(InputFailure) -> Int32 {
        if path == "-" { return 0 }
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw InputFailure(message: "cannot open '\(path)': \(systemReason())", status: 66) }
        var info = stat()
        if fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR {
            close(fd)
            throw InputFailure(message: "cannot read '\(path)': \(systemReason(EISDIR))", status: 66)
        }
        return fd
    }

    /// The next chunk, or nil when every input is read.
    func next() throws(InputFailure) -> Chunk? {
        if let (bytes, source) = literal {
            literal = nil
            let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: bytes.count)
            buffer.initialize(from: bytes, count: bytes.count)
            return Chunk(bytes: buffer, count: bytes.count, source: source, firstLine: 1,
                         delimiter: UInt8(ascii: "\n"), startsFile: true)
        }
        while true {
            if fd < 0 {
                guard let path = paths.popLast() else { return nil }
                fd = try ChunkReader.open(path)
                source = ChunkReader.displayName(path)
                line = 1
                delimiter = nil
                startsFile = true
            }
            if let chunk = try readChunk() { return chunk }
            if fd > 0 { close(fd) }
            fd = -1
        }
    }

    /// Reads until the buffer holds at least one delimiter (or the file ends); nil at end of file.
    private func readChunk() throws(InputFailure) -> Chunk? {
        var capacity = max(chunkSize, leftover.count * 2)
        var buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        var count = leftover.count
        leftover.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress!, count: $0.count) }
        leftover.removeAll(keepingCapacity: true)
        var searchedUpTo = 0
        var atEnd = false
        while true {
            if count == capacity {
                let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity * 2)
                bigger.update(from: buffer, count: count)
                buffer.deallocate()
                buffer = bigger
                capacity *= 2
            }
            let got = read(fd, buffer + count, capacity - count)
            if got < 0 {
                if errno == EINTR { continue }
                let reason = systemReason()
                buffer.deallocate()
                throw InputFailure(message: "error reading '\(source)': \(reason)", status: 74)
            }
            if got == 0 { atEnd = true }
            count += got
            bytesRead += got
            if delimiter == nil {
                guard let detected = detectDelimiter(buffer, count, atEnd: atEnd) else { continue }
                delimiter = detected
            }
            if atEnd { break }
            // A record boundary in what was just read ends the chunk.
            if memchr(buffer + searchedUpTo, Int32(delimiter!), count - searchedUpTo) != nil { break }
            searchedUpTo = count
        }
        if count == 0 {
            buffer.deallocate()
            return nil
        }
        var end = count
        if !atEnd, let last = lastIndex(of: delimiter!, in: buffer, count) {
            end = last + 1
            leftover.append(contentsOf: UnsafeBufferPointer(start: buffer + end, count: count - end))
        }
        let chunk = Chunk(bytes: buffer, count: end, source: source, firstLine: line,
                          delimiter: delimiter ?? UInt8(ascii: "\n"), startsFile: startsFile)
        line += countNewlines(buffer, end)
        startsFile = false
        return chunk
    }

    /// RS framing if the first significant byte (after a BOM and white space) is RS; else lines.
    private func detectDelimiter(_ buffer: UnsafeMutablePointer<UInt8>, _ count: Int, atEnd: Bool) -> UInt8? {
        var index = 0
        if count >= 3 && buffer[0] == 0xEF && buffer[1] == 0xBB && buffer[2] == 0xBF { index = 3 }
        while index < count {
            switch buffer[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            case recordSeparator: return recordSeparator
            default: return UInt8(ascii: "\n")
            }
        }
        return atEnd ? UInt8(ascii: "\n") : nil
    }
}

func countNewlines(_ start: UnsafePointer<UInt8>, _ count: Int) -> Int {
    var lines = 0
    var cursor = start
    let end = start + count
    while cursor < end, let found = memchr(cursor, 0x0A, end - cursor) {
        lines += 1
        cursor = UnsafePointer(found.assumingMemoryBound(to: UInt8.self)) + 1
    }
    return lines
}

func countNewlines(_ start: UnsafeMutablePointer<UInt8>, _ count: Int) -> Int {
    countNewlines(UnsafePointer(start), count)
}

/// memrchr, which Glibc's Swift overlay does not export.
func lastIndex(of byte: UInt8, in start: UnsafeMutablePointer<UInt8>, _ count: Int) -> Int? {
    var index = count - 1
    while index >= 0 {
        if start[index] == byte { return index }
        index -= 1
    }
    return nil
}

/// How many bytes of output a byte of input makes, leaning to the highest recent ratio, and the
/// input chunk size that keeps each chunk's output near `ChunkReader.outputPerChunk`. Output per
/// record varies a lot (a long path under a short spans pattern writes thousands of spans), and
/// sizing by the last chunk alone let a heavy stretch overshoot memory.
struct OutputRatio {
    private var ratio = 0.0

    mutating func record(_ result: ChunkResult) {
        guard result.bytes > 0 else { return }
        ratio = max(Double(result.output.count) / Double(result.bytes), ratio * 0.9)
    }

    var chunkSize: Int {
        guard ratio > 0 else { return ChunkReader.defaultChunkSize }
        return Int(min(Double(ChunkReader.defaultChunkSize), max(4096, Double(ChunkReader.outputPerChunk) / ratio)))
    }
}
