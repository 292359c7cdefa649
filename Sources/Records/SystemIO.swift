#if canImport(Glibc)
import Glibc
#endif

/// A write(2) failure other than a closed pipe (which ends the process quietly), and how many
/// bytes had been written before it.
struct WriteFailure: Error {
    var errno: Int32
    var written = 0
    var reason: String { String(cString: strerror(errno)) }
}

/// Writes all of `bytes` to `fd`, retrying short writes and EINTR.
func writeAll(_ fd: Int32, _ bytes: UnsafeBufferPointer<UInt8>) throws(WriteFailure) {
    guard let start = bytes.baseAddress else { return }
    var written = 0
    while written < bytes.count {
        let count = write(fd, start + written, bytes.count - written)
        if count < 0 {
            if errno == EINTR { continue }
            throw WriteFailure(errno: errno, written: written)
        }
        written += count
    }
}

/// Diagnostics go straight to standard error, unbuffered, failures ignored.
public func printError(_ text: String) {
    var text = text
    text.withUTF8 { try? writeAll(2, $0) }
}

/// The system's words for an errno value (what strerror says).
public func systemReason(_ code: Int32 = errno) -> String { String(cString: strerror(code)) }

/// Writes text meant for standard output (help, version, listings) and says how that went:
/// 0, or 74 with a message when the write fails (`geo --help > /dev/full`).
public func printOutput(_ text: String) -> ExitCode {
    var text = text
    let failure: WriteFailure? = text.withUTF8 { bytes in
        do throws(WriteFailure) { try writeAll(1, bytes) } catch { return error }
        return nil
    }
    guard let failure else { return .success }
    if failure.errno == EPIPE { return .brokenPipe }
    printError("geo: cannot write standard output: \(failure.reason)\n")
    return .ioError
}
