#if canImport(Glibc)
import Glibc
#endif
import JSONBytes

/// A record that could not be processed: reported on stderr and, with `--rejects`, kept whole.
struct RecordFailure {
    var line: Int
    var message: String
    var input: [UInt8]
    /// What the user probably meant (shown with the first failure that has it).
    var hint: String?
}

/// The outcome of one chunk: its output bytes and its bad records, both in input order.
final class ChunkResult: @unchecked Sendable {
    let source: String
    let output: ByteBuffer
    var failures: [RecordFailure] = []
    var records = 0
    var bytes = 0

    init(source: String, output: ByteBuffer) {
        self.source = source
        self.output = output
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

    func process(_ chunk: Chunk) -> ChunkResult {
        let result = ChunkResult(source: chunk.source, output: ByteBuffer(capacity: chunk.count * 2 + 256))
        result.bytes = chunk.count
        let output = RecordWriter(buffer: result.output, framing: framing, decimals: decimals)
        let base = UnsafePointer(chunk.bytes)
        if let spans = chunk.spans {
            for span in spans {
                let record = UnsafeBufferPointer(start: base + span.range.lowerBound, count: span.range.count)
                result.records += 1
                if let problem = span.problem {
                    result.failures.append(RecordFailure(line: span.line, message: RecordFailure.naming(span.feature, problem), input: Array(record)))
                } else {
                    handle(record, line: span.line, feature: span.feature, output, result)
                }
                if strict && !result.failures.isEmpty { break }
            }
            return result
        }
        var line = chunk.firstLine
        var position = 0
        while position < chunk.count {
            let end: Int
            if let found = memchr(base + position, Int32(chunk.delimiter), chunk.count - position) {
                end = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            } else {
                end = chunk.count
            }
            var start = position
            var stop = end
            let recordLine = line
            if chunk.delimiter == UInt8(ascii: "\n") {
                line += 1
            } else {
                line += countNewlines(base + start, end - start)
            }
            position = end + 1
            if start == 0 && chunk.startsFile && stop - start >= 3
                && base[0] == 0xEF && base[1] == 0xBB && base[2] == 0xBF { start += 3 }
            while start < stop && isFraming(base[start]) { start += 1 }
            while stop > start && isFraming(base[stop - 1]) { stop -= 1 }
            if start == stop { continue }
            let record = UnsafeBufferPointer(start: base + start, count: stop - start)
            result.records += 1
            handle(record, line: recordLine, feature: nil, output, result)
            if strict && !result.failures.isEmpty { break }
        }
        return result
    }

    /// Runs the handler over one record; a failure takes back its partial output. A bad
    /// FeatureCollection on one line is tried again feature by feature, so that one bad feature
    /// rejects only itself.
    private func handle(_ record: UnsafeBufferPointer<UInt8>, line: Int, feature: Int?,
                        _ output: RecordWriter, _ result: ChunkResult) {
        let mark = result.output.count
        do {
            try handler.handle(record, into: output)
        } catch {
            result.output.truncate(to: mark)
            if feature == nil && handler.readsJSON && record.first == UInt8(ascii: "{")
                && handleFeatures(of: record, line: line, output, result) { return }
            result.failures.append(RecordFailure(line: line, message: RecordFailure.naming(feature, "\(error)"), input: Array(record),
                                                 hint: handler.hint(for: record)))
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
            if case .record(let range, let featureLine, let feature?) = event {
                spans.append(RecordSpan(range: range, line: line + featureLine - 1, feature: feature))
            }
        }
        guard !spans.isEmpty else { return false }
        let mark = result.output.count, failuresBefore = result.failures.count
        for span in spans {
            handle(UnsafeBufferPointer(rebasing: record[span.range]), line: span.line, feature: span.feature, output, result)
            if strict && result.failures.count > failuresBefore { break }
        }
        if result.failures.count == failuresBefore {
            result.output.truncate(to: mark)
            return false
        }
        return true
    }
}

extension RecordFailure {
    /// `features[3]: problem` for a feature of a collection.
    static func naming(_ feature: Int?, _ message: String) -> String {
        feature.map { "features[\($0)]: \(message)" } ?? message
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
