/// geo's exit statuses (sysexits.h; the table in docs/records.md). Every command returns one;
/// only `main` turns it into a number.
public struct ExitCode: Equatable, Sendable, CustomStringConvertible {
    public let rawValue: Int32
    public init(_ rawValue: Int32) { self.rawValue = rawValue }

    public static let success = ExitCode(0)
    /// Wrong flags or operands; nothing was read or written.
    public static let usage = ExitCode(64)
    /// Some records were bad (each reported); the others came out.
    public static let dataError = ExitCode(65)
    /// An input cannot be opened.
    public static let noInput = ExitCode(66)
    /// An output cannot be created.
    public static let cannotCreate = ExitCode(73)
    /// A read or a write failed part way (a full disk, an I/O error).
    public static let ioError = ExitCode(74)
    /// 128 + SIGPIPE: what a shell reports when a reader closed the pipe early.
    public static let brokenPipe = ExitCode(141)

    public var description: String { String(rawValue) }
}

/// Why a run stopped before its end: an input that cannot be opened or read, an output that
/// cannot be created or written. Thrown up to the runner, which reports it and exits with
/// `status`.
public struct RunFailure: Error, CustomStringConvertible {
    public var message: String
    public var status: ExitCode
    public init(_ message: String, status: ExitCode) {
        self.message = message
        self.status = status
    }
    public var description: String { message }
}
