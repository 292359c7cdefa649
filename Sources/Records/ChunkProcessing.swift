#if canImport(Glibc)
import Glibc
#endif
import JSONBytes

/// A record that could not be processed: reported on stderr and, with `--rejects`, kept whole.
struct RecordFailure {
    var line: Int
    var message: String
    var input: [UInt8]
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
    let framing: StreamOptions.Framing
    let decimals: Int?
    let strict: Bool

    func process(_ chunk: Chunk) -> ChunkResult {
        let result = ChunkResult(source: chunk.source, output: ByteBuffer(capacity: chunk.count * 2 + 256))
        result.bytes = chunk.count
        let output = RecordOutput(buffer: result.output, framing: framing, decimals: decimals)
        let base = UnsafePointer(chunk.bytes)
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
            let mark = result.output.count
            do {
                try handler.handle(record, into: output)
            } catch {
                result.output.truncate(to: mark)
                result.failures.append(RecordFailure(line: recordLine, message: "\(error)", input: Array(record)))
                if strict { break }
            }
        }
        return result
    }
}

/// White space and the RFC 8142 record separator around a record.
@inline(__always) private func isFraming(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 || byte == recordSeparator
}

/// Runs `handler` over `bytes` as one whole input, in memory, as the streaming runner would (the
/// same framing, trimming and error capture): for fuzzing and tests of record handlers.
public func processInMemory(_ bytes: [UInt8], with handler: any RecordHandler,
                            framing: StreamOptions.Framing = .lines) -> (output: [UInt8], failures: [(line: Int, message: String)]) {
    let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: max(bytes.count, 1))
    buffer.initialize(from: bytes, count: bytes.count)
    let delimiter = bytes.first { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 } == recordSeparator
        ? recordSeparator : UInt8(ascii: "\n")
    let chunk = Chunk(bytes: buffer, count: bytes.count, source: "<memory>", firstLine: 1, delimiter: delimiter, startsFile: true)
    let result = ChunkProcessor(handler: handler, framing: framing, decimals: nil, strict: false).process(chunk)
    return (Array(result.output.bytes), result.failures.map { ($0.line, $0.message) })
}
