import XCTest
@testable import Records

/// Records as the chunk reader and processor cut them: line numbers, framing, blank lines.
final class FramingTests: XCTestCase {
    /// Echoes each record as `line<TAB>record`, and rejects records that say "bad".
    struct Echo: RecordHandler {
        struct Bad: Error, CustomStringConvertible { var description: String { "bad record" } }
        var readsJSON: Bool { false }
        func handle(_ record: UnsafeBufferPointer<UInt8>, into output: RecordWriter) throws {
            if String(decoding: record, as: UTF8.self) == "bad" { throw Bad() }
            output.beginRecord()
            output.buffer.append(record)
            output.endRecord()
        }
    }

    func records(_ bytes: [UInt8], chunkSize: Int = 7) throws -> (output: String, failures: [Int]) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("geo-framing-\(UUID()).txt").path
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reader = ChunkReader(paths: [path], readsJSON: false, chunkSize: chunkSize)
        let processor = ChunkProcessor(handler: Echo(), framing: .lines, decimals: nil, strict: false)
        var output = ""
        var failures: [Int] = []
        while let chunk = try reader.next() {
            let result = processor.process(chunk)
            output += result.output.string
            failures += result.failures.map(\.line)
        }
        return (output, failures)
    }

    func testLineNumbersSurviveChunkBoundariesBlankLinesAndCRLF() throws {
        let text = "a\r\n\r\nbad\n  \nbbbbbbbbbbbbbbbbbbbbbbbb\nbad\r\nc"
        for chunkSize in [1, 2, 3, 7, 64, 4096] {
            let (output, failures) = try records(Array(text.utf8), chunkSize: chunkSize)
            XCTAssertEqual(output, "a\nbbbbbbbbbbbbbbbbbbbbbbbb\nc\n", "chunk size \(chunkSize)")
            XCTAssertEqual(failures, [3, 6], "chunk size \(chunkSize)")
        }
    }

    func testBOMAndLeadingRecordSeparators() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("x\n\u{1E}y\n\u{1E}\u{1E}bad\n".utf8)
        let (output, failures) = try records(bytes)
        XCTAssertEqual(output, "x\ny\n")
        XCTAssertEqual(failures, [3])
    }

    func testRecordSeparatedTextsMaySpanLines() throws {
        let text = "\u{1E}{\n  \"a\": 1\n}\n\u{1E}bad\n\u{1E}[\n2]\n"
        for chunkSize in [1, 5, 4096] {
            let (output, failures) = try records(Array(text.utf8), chunkSize: chunkSize)
            XCTAssertEqual(output, "{\n  \"a\": 1\n}\n[\n2]\n")
            XCTAssertEqual(failures, [4])
        }
    }

    func testParallelPipelineKeepsInputOrder() throws {
        var text = ""
        for index in 0..<5000 { text += index % 97 == 0 ? "bad\n" : "record \(index)\n" }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("geo-order-\(UUID()).txt").path
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let processor = ChunkProcessor(handler: Echo(), framing: .lines, decimals: nil, strict: false)
        nonisolated(unsafe) var output = ""
        nonisolated(unsafe) var failures: [Int] = []
        nonisolated(unsafe) var inputFailed = false
        let pipeline = OrderedPipeline(reader: ChunkReader(paths: [path], readsJSON: false, chunkSize: 100), processor: processor, workers: 4) { item in
            guard case .result(let result, _) = item else { inputFailed = true; return false }
            output += result.output.string
            failures += result.failures.map(\.line)
            return true
        }
        pipeline.waitForEnd()
        XCTAssertFalse(inputFailed)
        XCTAssertEqual(output, try records(Array(text.utf8), chunkSize: 100).output)
        XCTAssertEqual(failures, Array(stride(from: 1, through: 5000, by: 97)))
    }

    /// Writes COUNT lines of 100-odd bytes for `many COUNT` (after committing), `late COUNT` (then
    /// fails) and `small COUNT`.
    struct Spill: RecordHandler {
        var readsJSON: Bool { false }
        func handle(_ record: UnsafeBufferPointer<UInt8>, into output: RecordWriter) throws {
            let words = String(decoding: record, as: UTF8.self).split(separator: " ")
            if words[0] == "many" { output.commit() }
            for index in 0..<Int(words[1])! {
                output.beginRecord()
                output.buffer.append("\(words[0]) \(index) " + String(repeating: "x", count: 100))
                output.endRecord()
            }
            if words[0] == "late" { throw Echo.Bad() }
        }
    }

    /// What the stream runner hands its consumer.
    final class Pieces: @unchecked Sendable {
        var bytes: [UInt8] = []
        var largest = 0
    }

    /// A record that writes megabytes leaves in parts as it writes them once it has committed,
    /// and a record that fails, however much it wrote, writes nothing; the output is the same
    /// for every --jobs.
    func testLargeOutputLeavesInPartsAndAFailedRecordWritesNothing() throws {
        var input: [String] = []
        for round in 0..<3 { input += ["small 3", "many 40000", "late 30000", "small \(round)", "many 25000", "many 1"] }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("geo-parts-\(UUID()).txt").path
        _ = FileManager.default.createFile(atPath: path, contents: Data(input.joined(separator: "\n").utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        var expected = ""
        for record in input where !record.hasPrefix("late") {
            let words = record.split(separator: " ")
            for index in 0..<Int(words[1])! { expected += "\(words[0]) \(index) " + String(repeating: "x", count: 100) + "\n" }
        }
        let line = 120
        for jobs in [1, 2, 3] {
            let pieces = Pieces()
            var options = StreamConfiguration()
            options.inputs = [path]
            options.jobs = jobs
            options.consumer = { bytes in
                pieces.bytes += bytes
                pieces.largest = max(pieces.largest, bytes.count)
            }
            XCTAssertEqual(StreamRunner(command: "spill", options: options, handler: Spill()).run(), .dataError)
            XCTAssertEqual(String(decoding: pieces.bytes, as: UTF8.self), expected, "--jobs \(jobs)")
            // Every worker hands its output over in parts, whether or not it is the one written.
            XCTAssertLessThanOrEqual(pieces.largest, ChunkResult.firstPartSize + line, "--jobs \(jobs)")
        }
    }

    func testEmptyInputAndNoFinalNewline() throws {
        XCTAssertEqual(try records([]).output, "")
        XCTAssertEqual(try records(Array("\n\n".utf8)).output, "")
        XCTAssertEqual(try records(Array("only".utf8)).output, "only\n")
    }
}
