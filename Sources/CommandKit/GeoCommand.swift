import GeoCommandLine
import Records

/// A built-in command: its description (the one source for help, man pages and completions)
/// and what it does with the arguments parsed against that description. Adding one is the
/// checklist in docs/ARCHITECTURE.md.
public protocol GeoCommand: Sendable {
    static var description: CommandDescription { get }
    /// Checks the parsed arguments together (ranges, conflicts); throws a usage error.
    init(_ arguments: ParsedArguments) throws(UsageError)
    /// Does the work and returns the exit status.
    func run() -> ExitCode
}
