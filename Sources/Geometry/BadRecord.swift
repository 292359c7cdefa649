/// A record geo cannot use: reported as `geo CMD: FILE:LINE: message` (the engine adds where),
/// the record skipped, exit 65 at the end. Every reader and computation below the command line
/// throws this, or a leaf module's own error with a byte offset (JSONError, PolylineError).
public struct BadRecord: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
