#if canImport(Glibc)
import Glibc
#endif
import JSONBytes

/// The writing end of a run: writes the chunks' results in order (framed), reports their bad
/// records and keeps them in the rejects file, draws progress, and decides the exit status.
/// Every write is checked; a full disk is exit 74, never silent loss.
final class ResultWriter {
    let command: String
    let options: StreamConfiguration
    private let fd: Int32
    private let outputName: String
    private var rejectsFD: Int32 = -1
    /// The rejects file is one this run created (not one the user had): the only kind geo may
    /// remove again when no record was bad.
    private var rejectsCreated = false
    private let rejects = ByteBuffer(capacity: 4096)
    private var wroteRecord = false
    private var report: FailureReport
    private var records = 0
    private var progress: ProgressLine?
    /// A write failed: nothing more can be written (not even the framing's end).
    private(set) var broken = false

    init(command: String, options: StreamConfiguration) throws(RunFailure) {
        self.command = command
        self.options = options
        report = FailureReport(command: command)
        if options.consumer != nil {
            fd = -1
            outputName = "the consumer"
        } else if let path = options.output {
            fd = ResultWriter.create(path).fd
            guard fd >= 0 else { throw RunFailure("cannot create '\(path)': \(systemReason())", status: .cannotCreate) }
            outputName = path
        } else {
            fd = 1
            outputName = "standard output"
        }
        if let path = options.rejects {
            if path == "-" {
                rejectsFD = 1
            } else {
                (rejectsFD, rejectsCreated) = ResultWriter.create(path)
            }
            guard rejectsFD >= 0 else { throw RunFailure("cannot create '\(path)': \(systemReason())", status: .cannotCreate) }
        }
        if options.progress {
            progress = ProgressLine(command: command, redraw: isatty(2) != 0, totalBytes: ProgressLine.totalSize(of: options.inputs))
        }
    }

    /// Opens the output's framing.
    func start() throws(RunFailure) {
        if options.framing == .collection { try write("{\"type\":\"FeatureCollection\",\"features\":[\n") }
    }

    /// Opens FILE for writing through whatever it is (SPEC section 3): a link's target, a device
    /// or a FIFO as it is, an existing file emptied in place (its mode kept); `created` says the
    /// name did not exist before.
    static func create(_ path: String) -> (fd: Int32, created: Bool) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        if fd >= 0 || errno != EEXIST { return (fd, fd >= 0) }
        return (open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666), false)
    }

    /// Writes one chunk's output and reports its bad records; false: stop now (`--strict`).
    func consume(_ result: ChunkResult, bytesRead: Int) throws(RunFailure) -> Bool {
        var output = result.output.bytes
        if options.framing == .collection && !wroteRecord && output.count > 0 {
            output = UnsafeBufferPointer(rebasing: output.dropFirst())  // the first record's comma
        }
        if output.count > 0 {
            wroteRecord = true
            try write(output)
        }
        records += result.records
        for failure in result.failures {
            let text = report.lines(for: failure, source: result.source)
            if !text.isEmpty {
                progress?.clear()
                printError(text)
            }
            if rejectsFD >= 0 { try reject(failure, source: result.source) }
            if options.strict { return false }
        }
        progress?.update(records: result.records, bytes: bytesRead)
        return true
    }

    private func reject(_ failure: RecordFailure, source: String) throws(RunFailure) {
        rejects.removeAll()
        rejects.append("{\"source\":")
        rejects.appendJSONString(source)
        rejects.append(",\"line\":")
        rejects.appendInteger(failure.line)
        rejects.append(",\"error\":")
        rejects.appendJSONString(failure.message)
        failure.input.withUnsafeBufferPointer { input in
            // A JSON string cannot hold bytes that are not UTF-8: those are kept in base64.
            if RecordHints.isUTF8(input) {
                rejects.append(",\"input\":")
                rejects.appendJSONString(input)
            } else {
                rejects.append(",\"input_base64\":\"")
                rejects.append(base64(input))
                rejects.append("\"")
            }
        }
        rejects.append("}\n")
        do { try writeAll(rejectsFD, rejects.bytes) } catch {
            broken = true
            throw RunFailure("cannot write '\(options.rejects!)': \(error.reason)", status: .ioError)
        }
    }

    /// Erases the progress line so that a message starts on a clean line.
    func clearProgress() { progress?.clear() }

    /// Closes the framing, flushes, checks, and returns the run's exit status.
    func finish() throws(RunFailure) -> ExitCode {
        progress?.finish()
        printError(report.summary(records: records))
        if options.framing == .collection { try write(wroteRecord ? "\n]}\n" : "]}\n") }
        if fd != 1 && fd >= 0 && close(fd) != 0 {
            broken = true
            throw RunFailure("cannot write \(outputName): \(systemReason())", status: .ioError)
        }
        if rejectsFD > 1 {
            var written = stat(), named = stat()
            let same = fstat(rejectsFD, &written) == 0 && lstat(options.rejects!, &named) == 0
                && written.st_dev == named.st_dev && written.st_ino == named.st_ino && (named.st_mode & S_IFMT) == S_IFREG
            if close(rejectsFD) != 0 {
                throw RunFailure("cannot write '\(options.rejects!)': \(systemReason())", status: .ioError)
            }
            // No bad record, no rejects file: parallel workers leave none behind for nothing. Only
            // a regular file this run made is removed: never a file, link or device the user had.
            if report.total == 0 && rejectsCreated && same { unlink(options.rejects!) }
        }
        return report.total > 0 ? .dataError : .success
    }

    private func write(_ text: StaticString) throws(RunFailure) {
        try write(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Writes whole records. A signal that would end geo waits until the write is done (see
    /// SignalGuard), and a write that fails part way (a full disk) is cut back to the last whole
    /// record, so an output file never ends in half a record.
    private func write(_ bytes: UnsafeBufferPointer<UInt8>) throws(RunFailure) {
        if let consumer = options.consumer {
            consumer(bytes)
            return
        }
        let start = lseek(fd, 0, SEEK_CUR)  // -1 for pipes and terminals: nothing to cut back
        SignalGuard.startWriting()
        defer { SignalGuard.finishedWriting() }
        do { try writeAll(fd, bytes) } catch {
            // A reader that went away (`| head -1`) is not an error: stop quietly (docs/records.md, exit status).
            if error.errno == EPIPE { exit(ExitCode.brokenPipe.rawValue) }
            if start >= 0, let lastWhole = lastIndex(of: UInt8(ascii: "\n"), in: UnsafeMutablePointer(mutating: bytes.baseAddress!), error.written) {
                _ = ftruncate(fd, start + off_t(lastWhole + 1))
            } else if start >= 0 {
                _ = ftruncate(fd, start)
            }
            broken = true
            throw RunFailure("cannot write \(outputName): \(error.reason)", status: .ioError)
        }
    }
}

/// RFC 4648 base64 with padding.
func base64(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    var out: [UInt8] = []
    out.reserveCapacity((bytes.count + 2) / 3 * 4)
    var index = 0
    while index < bytes.count {
        let b0 = UInt32(bytes[index])
        let b1 = index + 1 < bytes.count ? UInt32(bytes[index + 1]) : 0
        let b2 = index + 2 < bytes.count ? UInt32(bytes[index + 2]) : 0
        let triple = b0 << 16 | b1 << 8 | b2
        out.append(alphabet[Int(triple >> 18 & 63)])
        out.append(alphabet[Int(triple >> 12 & 63)])
        out.append(index + 1 < bytes.count ? alphabet[Int(triple >> 6 & 63)] : UInt8(ascii: "="))
        out.append(index + 2 < bytes.count ? alphabet[Int(triple & 63)] : UInt8(ascii: "="))
        index += 3
    }
    return String(decoding: out, as: UTF8.self)
}
