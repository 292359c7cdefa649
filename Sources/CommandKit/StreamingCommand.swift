import GeoCommandLine
import Records

/// A command that streams records: its stream configuration and its record handler are all
/// that running it needs.
public protocol StreamingCommand: GeoCommand {
    associatedtype Handler: RecordHandler
    var stream: StreamConfiguration { get }
    var handler: Handler { get }
    /// Whether what the handler writes is what the command writes (so true for a filter; false
    /// when `run` gathers it first, as `bbox --all` gathers raw boxes into one Feature).
    var handlerWritesOutput: Bool { get }
}

extension StreamingCommand {
    public var handlerWritesOutput: Bool { true }

    public func run() -> ExitCode {
        StreamRunner(command: Self.description.name, options: stream, handler: handler).run()
    }
}
