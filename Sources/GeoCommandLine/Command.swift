/// Exit statuses (sysexits.h, SPEC §3).
public enum ExitCode {
    public static let success: Int32 = 0
    public static let usage: Int32 = 64
    public static let dataError: Int32 = 65
    public static let noInput: Int32 = 66
    public static let cannotCreate: Int32 = 73
    public static let ioError: Int32 = 74
    /// 128 + SIGPIPE: what a shell reports when a reader closed the pipe early.
    public static let brokenPipe: Int32 = 141
}

/// A built-in command: its description (the one source for help, man pages and completions)
/// and what it does with the arguments parsed against that description.
public protocol GeoCommand: Sendable {
    static var description: CommandDescription { get }
    /// Checks the parsed arguments together (ranges, conflicts); throws a usage error.
    init(_ arguments: ParsedArguments) throws(UsageError)
    /// Does the work and returns the exit status.
    func run() -> Int32
}
