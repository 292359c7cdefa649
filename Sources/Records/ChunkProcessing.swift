#if canImport(Glibc)
import Glibc
#endif
import JSONBytes
import Geometry

/// A record that could not be processed: reported on stderr and, with `--rejects`, kept whole.
struct RecordFailure {
    var line: Int
    var message: String
    var input: [UInt8]
    /// What the user probably meant (shown with the first failure that has it).
    var hint: String?
}

/// The outcome of one chunk, or of a part of it: its output bytes and its bad records, both in
/// input order. A chunk whose output grows large hands out what it has written in parts as it
/// goes (`takePart`); the result `process` returns is then its last part.
/// Sendable by hand: one thread at a time owns it, the worker that fills it, then the writer it
/// is handed to through OrderedPipeline, under its monitor (which orders the memory between them).
final class ChunkResult: @unchecked Sendable {
    let source: String
    let output: ByteBuffer
    var failures: [RecordFailure] = []
    var records = 0
    /// The chunk's input bytes (0 on the parts handed out before its last).
    var bytes = 0
    /// The chunk's output handed out in earlier parts.
    var outputBefore = 0

    /// How much output a chunk holds before it offers it as a part: what a chunk aims at.
    static let partSize = ChunkReader.outputPerChunk
    /// The first part is larger: chunks sized to aim at `partSize` often end a little over it,
    /// and cutting those in two cost decode -j2 a tenth more CPU (page faults in fresh storage).
    static let firstPartSize = partSize * 3 / 2

    init(source: String, output: ByteBuffer) {
        self.source = source
        self.output = output
    }

    /// What the chunk has written and failed so far, handed out as a part to be written before
    /// the rest; the chunk goes on in fresh storage. That storage is as large as glibc's mmap
    /// threshold (MallocTuning), so each part is mapped on its own and unmapped once written:
    /// from a worker's arena, the parts a worker had held ahead stayed resident after they were
    /// written, and spans --split at 5 km on 5,000 corpus paths peaked 2 MB higher with -j2.
    func takePart() -> ChunkResult {
        let part = ChunkResult(source: source, output: output.takeBytes(leaving: ChunkResult.partSize * 2))
        part.failures = failures
        part.records = records
        failures = []
        records = 0
        outputBefore += part.output.count
        return part
    }
}

/// Takes a chunk's output before the chunk is done: called with the chunk's result when its
/// output has reached the size asked for, at a point where all of it may be written (after a
/// record, or within a record that committed, after one of its output records). It may take a
/// part (`takePart`), wait, or leave the output where it is; it returns the output size at which
/// to be called next, or nil to be called no more for this chunk.
typealias PartSink = (ChunkResult) -> Int?

/// When a chunk's output may leave before the chunk is done (RecordWriter.commit).
final class OutputFlow {
    let result: ChunkResult
    private let sink: PartSink?
    private var threshold: Int
    /// The record being handled can no longer fail: its output may leave before it ends.
    var committed = false
    /// False while a collection is retried feature by feature: the output of features that
    /// succeed may still be taken back.
    var mayCommit = true

    init(result: ChunkResult, sink: PartSink?) {
        self.result = result
        self.sink = sink
        threshold = sink == nil ? .max : ChunkResult.firstPartSize
    }

    /// Offers the output to the sink once it has reached the size the sink asked for.
    @inline(__always)
    func mayHandOut() {
        if result.output.count >= threshold { threshold = sink?(result) ?? .max }
    }
}

/// Runs a handler over every record of a chunk. Records are the delimited pieces with white space
/// trimmed; blank ones are skipped; a leading RS (RFC 8142) and a BOM at the start of a file are
/// tolerated; CRLF line ends are fine since CR is white space.
struct ChunkProcessor: Sendable {
    let handler: any RecordHandler
    let framing: OutputFraming
    let decimals: Int?
    let strict: Bool

    /// Processes a chunk, handing its output to `sink` in parts as it grows (after whole
    /// records, or within a record that committed), and returns the last part.
    func process(_ chunk: Chunk, handingOut sink: PartSink? = nil) -> ChunkResult {
        let result = ChunkResult(source: chunk.source, output: ByteBuffer(capacity: chunk.count * 2 + 256))
        result.bytes = chunk.count
        let flow = OutputFlow(result: result, sink: sink)
        let output = RecordWriter(buffer: result.output, framing: framing, decimals: decimals, flow: flow)
        chunk.forEachRecord { record, line, feature, problem, crs in
            result.records += 1
            if let problem {
                result.failures.append(RecordFailure(line: line, message: RecordFailure.naming(feature, problem), input: Array(record)))
            } else {
                handle(record, line: line, feature: feature, crs: crs, output, result)
            }
            flow.committed = false
            let stop = strict && !result.failures.isEmpty
            if !stop { flow.mayHandOut() }
            return !stop
        }
        return result
    }

    /// Runs the handler over one record; a failure takes back its partial output. A bad
    /// FeatureCollection on one line is tried again feature by feature, so that one bad feature
    /// rejects only itself.
    private func handle(_ record: UnsafeBufferPointer<UInt8>, line: Int, feature: Int?, crs: String?,
                        _ output: RecordWriter, _ result: ChunkResult) {
        let mark = result.output.count
        do {
            try handler.handle(record, into: output)
        } catch {
            // What a committed record wrote may have been written out already.
            precondition(!output.flow.committed, "a record handler threw after RecordWriter.commit()")
            result.output.truncate(to: mark)
            if feature == nil && handler.readsJSON && record.first == UInt8(ascii: "{")
                && handleFeatures(of: record, line: line, output, result) { return }
            result.failures.append(RecordFailure(line: line, message: RecordFailure.naming(feature, "\(error)"), input: Array(record),
                                                 hint: crs.flatMap(RecordHints.hint(forCRS:)) ?? (error as? BadRecord)?.hint ?? handler.hint(for: record)))
        }
    }

    /// Handles each feature of a FeatureCollection record on its own. False, with nothing
    /// written, when the record is not a collection or every feature is fine alone (the problem
    /// is then the collection's, and the whole record is bad).
    private func handleFeatures(of record: UnsafeBufferPointer<UInt8>, line: Int,
                                _ output: RecordWriter, _ result: ChunkResult) -> Bool {
        var spans: [RecordSpan] = []
        var splitter = DocumentSplitter()
        splitter.scan(record) { event in
            if case .record(let range, let featureLine, let feature?, let crs) = event {
                spans.append(RecordSpan(range: range, line: line + featureLine - 1, feature: feature, crs: crs))
            }
        }
        guard !spans.isEmpty else { return false }
        let mark = result.output.count, failuresBefore = result.failures.count
        output.flow.mayCommit = false
        defer { output.flow.mayCommit = true }
        for span in spans {
            handle(UnsafeBufferPointer(rebasing: record[span.range]), line: span.line, feature: span.feature, crs: span.crs, output, result)
            if strict && result.failures.count > failuresBefore { break }
        }
        if result.failures.count == failuresBefore {
            result.output.truncate(to: mark)
            return false
        }
        // Its features were the records: "1 of 3 records rejected", not "1 of 1".
        result.records += spans.count - 1
        return true
    }
}

extension RecordFailure {
    /// `features[3]: problem` for a feature of a collection. Every record's message, on standard
    /// error and in the rejects, is made here, so this is where it is made one line.
    static func naming(_ feature: Int?, _ message: String) -> String {
        let message = MessageText.oneLine(message)
        return feature.map { "features[\($0)]: \(message)" } ?? message
    }
}

extension Chunk {
    /// Calls `body` with each record of the chunk, in order: its bytes (framing and white space
    /// trimmed; blank records skipped), the line it starts on, its index in a FeatureCollection
    /// document, what is wrong with it when it cannot be a record, and the name in its
    /// collection's `crs` member. `body` returns false to stop.
    func forEachRecord(_ body: (UnsafeBufferPointer<UInt8>, Int, Int?, String?, String?) -> Bool) {
        let base = UnsafePointer(bytes)
        if let spans {
            for span in spans {
                let record = UnsafeBufferPointer(start: base + span.range.lowerBound, count: span.range.count)
                guard body(record, span.line, span.feature, span.problem, span.crs) else { return }
            }
            return
        }
        var line = firstLine
        var position = 0
        while position < count {
            let end: Int
            if let found = memchr(base + position, Int32(delimiter), count - position) {
                end = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            } else {
                end = count
            }
            var start = position
            var stop = end
            let recordLine = line
            line += delimiter == UInt8(ascii: "\n") ? 1 : countNewlines(base + start, end - start)
            position = end + 1
            if start == 0 && startsFile && stop - start >= 3
                && base[0] == 0xEF && base[1] == 0xBB && base[2] == 0xBF { start += 3 }
            while start < stop && isFraming(base[start]) { start += 1 }
            while stop > start && isFraming(base[stop - 1]) { stop -= 1 }
            if start == stop { continue }
            guard body(UnsafeBufferPointer(start: base + start, count: stop - start), recordLine, nil, nil, nil) else { return }
        }
    }
}

/// White space and the RFC 8142 record separator around a record.
@inline(__always) private func isFraming(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 || byte == recordSeparator
}

/// Runs `handler` over `bytes` as one whole input, in memory, as the streaming runner would (the
/// same reader, framing, documents and error capture): for fuzzing and tests of record handlers.
public func processInMemory(_ bytes: [UInt8], with handler: any RecordHandler,
                            framing: OutputFraming = .lines) -> (output: [UInt8], failures: [(line: Int, message: String)]) {
    let reader = ChunkReader(memory: bytes, readsJSON: handler.readsJSON)
    let processor = ChunkProcessor(handler: handler, framing: framing, decimals: nil, strict: false)
    var output: [UInt8] = []
    var failures: [(line: Int, message: String)] = []
    while let chunk = try? reader.next() {
        let result = processor.process(chunk)
        output += result.output.bytes
        failures += result.failures.map { ($0.line, $0.message) }
    }
    return (output, failures)
}
