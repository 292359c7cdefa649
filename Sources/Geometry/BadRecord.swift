/// A record geo cannot use: reported as `geo CMD: FILE:LINE: message` (the engine adds where),
/// the record skipped, exit 65 at the end. Every reader and computation below the command line
/// throws this, or a leaf module's own error with a byte offset (JSONError, PolylineError).
public struct BadRecord: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    /// What the user probably meant, when the code that found the problem can tell (a polyline
    /// of another precision): shown once, on a line of its own after the first such report.
    public var hint: String?
    public init(_ message: String, hint: String? = nil) {
        self.message = message
        self.hint = hint
    }
    public var description: String { message }
}
