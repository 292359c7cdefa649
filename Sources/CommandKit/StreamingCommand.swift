import GeoCommandLine
import Records

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
