#if canImport(Glibc)
import Glibc
#endif

/// A write(2) failure other than a closed pipe (which ends the process quietly).
struct WriteFailure: Error {
    var errno: Int32
    var reason: String { String(cString: strerror(errno)) }
}

/// Writes all of `bytes` to `fd`, retrying short writes and EINTR.
func writeAll(_ fd: Int32, _ bytes: UnsafeBufferPointer<UInt8>) throws(WriteFailure) {
    guard var pointer = bytes.baseAddress else { return }
    var remaining = bytes.count
    while remaining > 0 {
        let written = write(fd, pointer, remaining)
        if written < 0 {
            if errno == EINTR { continue }
            throw WriteFailure(errno: errno)
        }
        pointer += written
        remaining -= written
    }
}

/// Diagnostics go straight to standard error, unbuffered, failures ignored.
public func printError(_ text: String) {
    var text = text
    text.withUTF8 { try? writeAll(2, $0) }
}

func systemReason(_ code: Int32 = errno) -> String { String(cString: strerror(code)) }
