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
    /// Argument lists, each of which runs the command on GeoJSON records from standard input
    /// (no other file), between them reading every option group it has. The tests that treat
    /// every built-in alike run it with each: the hostile corpus, the fuzz harnesses, the check
    /// that it reads only options it declares (`geo --list-cmds=samples` prints them).
    static var sampleArguments: [[String]] { get }
}

extension GeoCommand {
    /// A command that runs on its input with no arguments needs no samples of its own.
    public static var sampleArguments: [[String]] { [[]] }
}
