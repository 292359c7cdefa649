#if canImport(Glibc)
import Glibc
#endif
import GeoCommandLine
import JSONBytes

/// The writing end of a run: output in order, framing, error reports, rejects, progress, and the
/// exit status. Every write is checked; a full disk is exit 74, never silent loss.
final class OutputSink {
    let command: String
    let options: StreamOptions
    private let fd: Int32
    private let outputName: String
    private var rejectsFD: Int32 = -1
    private let rejects = ByteBuffer(capacity: 4096)
    private var wroteRecord = false
    private var failures = 0
    private var progress: ProgressLine?

    init(command: String, options: StreamOptions) throws(InputFailure) {
        self.command = command
        self.options = options
        if let path = options.output {
            fd = OutputSink.create(path)
            guard fd >= 0 else { throw InputFailure(message: "cannot create '\(path)': \(systemReason())", status: ExitCode.cannotCreate) }
            outputName = path
        } else {
            fd = 1
            outputName = "standard output"
        }
        if let path = options.rejects {
            rejectsFD = path == "-" ? 1 : OutputSink.create(path)
            guard rejectsFD >= 0 else { throw InputFailure(message: "cannot create '\(path)': \(systemReason())", status: ExitCode.cannotCreate) }
        }
        if options.progress { progress = ProgressLine(command: command, redraw: isatty(2) != 0) }
    }

    /// Opens the output's framing; a status means stop now.
    func start() -> Int32? {
        options.framing == .collection ? write("{\"type\":\"FeatureCollection\",\"features\":[\n") : nil
    }

    static func create(_ path: String) -> Int32 {
        open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
    }

    /// Writes one chunk's output and reports its bad records; a status means stop now.
    func consume(_ result: ChunkResult, bytesRead: Int) -> Int32? {
        var output = result.output.bytes
        if options.framing == .collection && !wroteRecord && output.count > 0 {
            output = UnsafeBufferPointer(rebasing: output.dropFirst())  // the first record's comma
        }
        if output.count > 0 {
            wroteRecord = true
            if let status = write(output) { return status }
        }
        for failure in result.failures {
            failures += 1
            progress?.clear()
            printError("geo \(command): \(result.source):\(failure.line): \(failure.message)\n")
            if rejectsFD >= 0, let status = reject(failure, source: result.source) { return status }
            if options.strict { return finish() }
        }
        progress?.update(records: result.records, bytes: bytesRead)
        return nil
    }

    private func reject(_ failure: RecordFailure, source: String) -> Int32? {
        rejects.removeAll()
        rejects.append("{\"source\":")
        rejects.appendJSONString(source)
        rejects.append(",\"line\":")
        rejects.appendInteger(failure.line)
        rejects.append(",\"error\":")
        rejects.appendJSONString(failure.message)
        rejects.append(",\"input\":")
        failure.input.withUnsafeBufferPointer { rejects.appendJSONString($0) }
        rejects.append("}\n")
        do { try writeAll(rejectsFD, rejects.bytes) } catch {
            printError("geo \(command): cannot write '\(options.rejects!)': \(error.reason)\n")
            return ExitCode.ioError
        }
        return nil
    }

    /// An input that failed mid-run: what was written stays written, then the input's status.
    func fail(_ error: InputFailure) -> Int32 {
        progress?.clear()
        printError("geo \(command): \(error.message)\n")
        _ = finish()
        return error.status
    }

    /// Closes the framing, flushes, checks, and returns the run's exit status.
    func finish() -> Int32 {
        progress?.finish()
        if options.framing == .collection {
            if let status = write(wroteRecord ? "\n]}\n" : "]}\n") { return status }
        }
        if fd != 1 && close(fd) != 0 {
            printError("geo \(command): cannot write \(outputName): \(systemReason())\n")
            return ExitCode.ioError
        }
        if rejectsFD > 1 {
            if close(rejectsFD) != 0 {
                printError("geo \(command): cannot write '\(options.rejects!)': \(systemReason())\n")
                return ExitCode.ioError
            }
            // No bad record, no rejects file: parallel workers leave none behind for nothing.
            if failures == 0 { unlink(options.rejects!) }
        }
        return failures > 0 ? ExitCode.dataError : ExitCode.success
    }

    private func write(_ text: StaticString) -> Int32? {
        write(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Writes whole records. A signal that would end geo waits until the write is done (see
    /// SignalGuard), and a write that fails part way (a full disk) is cut back to the last whole
    /// record, so an output file never ends in half a record.
    private func write(_ bytes: UnsafeBufferPointer<UInt8>) -> Int32? {
        let start = lseek(fd, 0, SEEK_CUR)  // -1 for pipes and terminals: nothing to cut back
        SignalGuard.writing = 1
        defer { SignalGuard.finishedWriting() }
        do { try writeAll(fd, bytes) } catch {
            // A reader that went away (`| head -1`) is not an error: stop quietly (SPEC §3).
            if error.errno == EPIPE { exit(ExitCode.brokenPipe) }
            if start >= 0, let lastWhole = lastIndex(of: UInt8(ascii: "\n"), in: UnsafeMutablePointer(mutating: bytes.baseAddress!), error.written) {
                _ = ftruncate(fd, start + off_t(lastWhole + 1))
            } else if start >= 0 {
                _ = ftruncate(fd, start)
            }
            progress?.clear()
            printError("geo \(command): cannot write \(outputName): \(error.reason)\n")
            return ExitCode.ioError
        }
        return nil
    }
}
