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

/// A command that streams records: its stream configuration and its record handler are all
/// that running it needs.
public protocol StreamingCommand: GeoCommand {
    associatedtype Handler: RecordHandler
    var stream: StreamConfiguration { get }
    var handler: Handler { get }
}

extension StreamingCommand {
    public func run() -> ExitCode {
        StreamRunner(command: Self.description.name, options: stream, handler: handler).run()
    }
}
