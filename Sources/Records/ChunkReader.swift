#if canImport(Glibc)
import Glibc
#endif
import JSONBytes

/// A run of whole records from one input, with where it starts (for error messages).
/// Sendable by hand: filled by the reader before it is handed on, then only read.
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
    /// Records found in a document that spans lines, in order; nil: records are delimited.
    let spans: [RecordSpan]?
    /// Owns `bytes` when the chunk was built in a buffer (documents).
    private let storage: ByteBuffer?

    init(bytes: UnsafeMutablePointer<UInt8>, count: Int, source: String, firstLine: Int, delimiter: UInt8, startsFile: Bool) {
        self.bytes = bytes
        self.count = count
        self.source = source
        self.firstLine = firstLine
        self.delimiter = delimiter
        self.startsFile = startsFile
        spans = nil
        storage = nil
    }

    /// The records of a document, copied one after another into `storage`.
    init(storage: ByteBuffer, spans: [RecordSpan], source: String) {
        bytes = storage.base
        count = storage.count
        self.source = source
        firstLine = spans.first?.line ?? 1
        delimiter = UInt8(ascii: "\n")
        startsFile = false
        self.spans = spans
        self.storage = storage
    }

    deinit { if storage == nil { bytes.deallocate() } }

    var buffer: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: bytes, count: count) }
}

/// One record of a document chunk: where its bytes are in the chunk, the line where it starts,
/// its index in a FeatureCollection, or what is wrong with it when it cannot be a record.
struct RecordSpan {
    var range: Range<Int>
    var line: Int
    var feature: Int?
    var problem: String?
    /// The name in its FeatureCollection's `crs` member.
    var crs: String?
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
    /// The input being read, nil between inputs.
    private var input: InputSource?
    private var source = ""
    private var line = 1
    private var delimiter: UInt8?
    /// Records are JSON texts (GeoJSON, or `decode --field`): a text that spans lines makes its
    /// file a document, read by `DocumentSplitter`.
    private let readsJSON: Bool
    private var document: DocumentState?
    private var startsFile = false
    private var leftover: [UInt8] = []
    /// Bytes read from the inputs before the current one.
    private var bytesBefore = 0
    /// Bytes read from the inputs themselves (compressed ones for gzip), for progress.
    var bytesRead: Int { bytesBefore + (input?.consumed ?? 0) }

    private var literal: (bytes: [UInt8], source: String)?
    /// An input in memory instead of files (tests and fuzzing), read as a file would be.
    private var memory: [UInt8]?

    init(paths: [String], readsJSON: Bool, chunkSize: Int = ChunkReader.firstChunkSize) {
        self.paths = paths.reversed()
        self.readsJSON = readsJSON
        self.chunkSize = chunkSize
    }

    var readsFiles: Bool { literal == nil }

    /// Reads `bytes` as if they were a file named `<memory>`.
    convenience init(memory bytes: [UInt8], readsJSON: Bool) {
        self.init(paths: ["<memory>"], readsJSON: readsJSON)
        memory = bytes
    }

    /// Output per chunk that keeps memory flat: commands that write much more than they read
    /// (a Point becomes a 64-vertex circle) get smaller input chunks. Up to 2N + 2 chunks are in
    /// flight, each output buffer up to twice this while it grows: at 2 MB, commands that expand
    /// their input 25x peaked 12-20 MB higher than at 512 KB, which costs no measurable time.
    static let outputPerChunk = 512 * 1024

    /// One record given on the command line (`--center`) instead of files.
    init(literal bytes: [UInt8], source: String) {
        paths = []
        readsJSON = false
        chunkSize = ChunkReader.defaultChunkSize
        literal = (bytes + [UInt8(ascii: "\n")], source)
    }

    static func displayName(_ path: String) -> String { path == "-" ? "<stdin>" : path }

    /// Opens `path` for reading, or says why it cannot be (InputFiles: a FIFO or a pipe checked
    /// before the run is read from the descriptor held then).
    static func open(_ path: String) throws(RunFailure) -> Int32 { try InputFiles.open(path) }

    /// The next chunk, or nil when every input is read.
    func next() throws(RunFailure) -> Chunk? {
        if let (bytes, source) = literal {
            literal = nil
            let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: bytes.count)
            buffer.initialize(from: bytes, count: bytes.count)
            return Chunk(bytes: buffer, count: bytes.count, source: source, firstLine: 1,
                         delimiter: UInt8(ascii: "\n"), startsFile: true)
        }
        while true {
            if input == nil {
                guard let path = paths.popLast() else { return nil }
                source = ChunkReader.displayName(path)
                let origin: InputSource.Origin = if let memory { .memory(memory) } else { .descriptor(try ChunkReader.open(path)) }
                let opened = InputSource(origin, name: source)
                input = opened
                line = 1
                delimiter = nil
                document = nil
                startsFile = true
                if case .other(let message) = try opened.recognise(path: path) {
                    endInput()
                    return ChunkReader.problem(message, line: 1, source: source)
                }
            }
            if let chunk = try readChunk() { return chunk }
            // The input has ended, maybe where its gzip data went wrong: say so once.
            let problem = input!.problem
            let problemLine = document?.splitter.line ?? line
            endInput()
            if let problem { return ChunkReader.problem(problem, line: problemLine, source: source) }
        }
    }

    private func endInput() {
        bytesBefore += input!.consumed
        input = nil
        leftover.removeAll(keepingCapacity: true)
    }

    /// A chunk of one record that cannot be read, with what is wrong: an input in another format,
    /// gzip data that is corrupt.
    private static func problem(_ message: String, line: Int, source: String) -> Chunk {
        Chunk(storage: ByteBuffer(capacity: 0), spans: [RecordSpan(range: 0..<0, line: line, problem: message)], source: source)
    }

    /// Reads until the buffer holds at least one delimiter (or the file ends); nil at end of file.
    private func readChunk() throws(RunFailure) -> Chunk? {
        if document != nil { return try readDocumentChunk() }
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
            let got: Int
            do { got = try input!.read(buffer + count, capacity - count) } catch {
                buffer.deallocate()
                throw error
            }
            if got == 0 {
                atEnd = true
                // gzip data that went wrong ends the text there, and the record it cut is dropped
                // (the message about the data says what happened to it).
                if input!.problem != nil {
                    count = delimiter.flatMap { lastIndex(of: $0, in: buffer, count) }.map { $0 + 1 } ?? 0
                }
            }
            count += got
            if delimiter == nil {
                guard let detected = detectFraming(buffer, count, atEnd: atEnd) else { continue }
                guard let detected else {
                    // A document: what was read so far is its beginning.
                    document = DocumentState(UnsafeBufferPointer(start: buffer, count: count), atEnd: atEnd)
                    buffer.deallocate()
                    return try readDocumentChunk()
                }
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

    /// How the file is framed, from its first bytes: RS if the first significant byte (after a
    /// BOM and white space) is RS; `.some(nil)` for a document, when the records are JSON and the
    /// first text does not end on its line; else lines. nil: more bytes are needed to tell.
    private func detectFraming(_ buffer: UnsafeMutablePointer<UInt8>, _ count: Int, atEnd: Bool) -> UInt8?? {
        var index = 0
        if count >= 3 && buffer[0] == 0xEF && buffer[1] == 0xBB && buffer[2] == 0xBF { index = 3 }
        while index < count {
            switch buffer[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            case recordSeparator: return .some(recordSeparator)
            case UInt8(ascii: "{") where readsJSON, UInt8(ascii: "[") where readsJSON:
                guard let newline = memchr(buffer + index, 0x0A, count - index) else {
                    return atEnd ? .some(UInt8(ascii: "\n")) : nil
                }
                let lineEnd = buffer.distance(to: newline.assumingMemoryBound(to: UInt8.self))
                var endsOnLine = false
                var splitter = DocumentSplitter()
                splitter.scan(UnsafeBufferPointer(start: buffer + index, count: lineEnd - index)) { _ in endsOnLine = true }
                return endsOnLine ? .some(UInt8(ascii: "\n")) : .some(nil)
            default: return .some(UInt8(ascii: "\n"))
            }
        }
        return atEnd ? .some(UInt8(ascii: "\n")) : nil
    }

    /// A document being split into records: the bytes from the oldest one still open.
    private final class DocumentState {
        var splitter = DocumentSplitter()
        var store: [UInt8]
        /// The splitter offset of `store[0]`, and how much of `store` has been scanned.
        var storeBase = 0
        var scanned = 0
        var atEnd: Bool

        init(_ start: UnsafeBufferPointer<UInt8>, atEnd: Bool) {
            var bytes = Array(start)
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
            store = bytes
            self.atEnd = atEnd
        }
    }

    /// Reads and splits the document until a chunk's worth of records is found or it ends; nil
    /// when it has ended and every record has been returned.
    private func readDocumentChunk() throws(RunFailure) -> Chunk? {
        let output = ByteBuffer(capacity: chunkSize + 4096)
        var spans: [RecordSpan] = []
        while output.count < chunkSize {
            let state = document!
            if state.scanned == state.store.count {
                if state.atEnd {
                    // A document cut short by bad gzip data is told by that problem alone.
                    if input!.problem == nil {
                        state.store.withUnsafeBufferPointer { all in
                            state.splitter.finish { add($0, all, base: state.storeBase, to: output, &spans) }
                        }
                    }
                    break
                }
                let old = state.store.count
                state.store.append(contentsOf: repeatElement(0, count: chunkSize))
                let got = try state.store.withUnsafeMutableBufferPointer { buffer throws(RunFailure) in
                    try input!.read(buffer.baseAddress! + old, chunkSize)
                }
                state.store.removeLast(chunkSize - got)
                if got == 0 { state.atEnd = true }
            }
            state.store.withUnsafeBufferPointer { all in
                let base = state.storeBase
                state.splitter.scan(UnsafeBufferPointer(rebasing: all[state.scanned...])) { add($0, all, base: base, to: output, &spans) }
            }
            state.scanned = state.store.count
            // Keep only what an open record still needs.
            let keep = (state.splitter.keepFrom ?? state.splitter.offset) - state.storeBase
            if keep == state.store.count {
                state.store.removeAll(keepingCapacity: state.store.capacity <= 4 * chunkSize)
            } else if keep > 0 {
                state.store.removeFirst(keep)
            }
            state.storeBase += keep
            state.scanned -= keep
        }
        return spans.isEmpty ? nil : Chunk(storage: output, spans: spans, source: source)
    }
}

/// Copies a record the splitter found into a chunk being built.
private func add(_ event: DocumentSplitter.Event, _ store: UnsafeBufferPointer<UInt8>, base: Int,
                 to output: ByteBuffer, _ spans: inout [RecordSpan]) {
    let start = output.count
    switch event {
    case .record(let range, let line, let feature, let crs):
        output.append(store, (range.lowerBound - base)..<(range.upperBound - base))
        spans.append(RecordSpan(range: start..<output.count, line: line, feature: feature, crs: crs))
    case .problem(let range, let line, let feature, let message):
        output.append(store, (range.lowerBound - base)..<(range.upperBound - base))
        spans.append(RecordSpan(range: start..<output.count, line: line, feature: feature, problem: message))
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

    /// Takes in a chunk's last part (the parts before it have no input bytes).
    mutating func record(_ result: ChunkResult) {
        guard result.bytes > 0 else { return }
        ratio = max(Double(result.outputBefore + result.output.count) / Double(result.bytes), ratio * 0.9)
    }

    var chunkSize: Int {
        guard ratio > 0 else { return ChunkReader.defaultChunkSize }
        return Int(min(Double(ChunkReader.defaultChunkSize), max(4096, Double(ChunkReader.outputPerChunk) / ratio)))
    }
}
