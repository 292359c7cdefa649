/// What a streaming run reads and writes and how (docs/records.md);
/// filled in from the command line by CommandKit's `StreamOptions`.
public struct StreamConfiguration: Sendable {
    /// Input files; "-" is standard input.
    public var inputs: [String] = ["-"]
    /// nil: standard output.
    public var output: String? = nil
    /// Stop at the first bad record.
    public var strict = false
    /// Where bad records are kept; "-" is standard output (only when `output` is a file).
    public var rejects: String? = nil
    /// Worker threads; 1 processes on the reading thread.
    public var jobs = 1
    public var framing = OutputFraming.lines
    /// `--digits`: output coordinates rounded to this many decimals.
    public var decimals: Int? = nil
    /// Show the progress line.
    public var progress = false
    /// Instead of a file: the ordered output handed to this, chunk by chunk (or a chunk in parts,
    /// each whole output records, when its output grows large), on the thread that
    /// runs the stream (a command whose handlers prepare records that one thread must use in
    /// order: geo render draws them).
    public var consumer: (@Sendable (UnsafeBufferPointer<UInt8>) -> Void)? = nil

    public init() {}
}

/// How output records are framed: one per line, RFC 8142 sequences, or one FeatureCollection.
public enum OutputFraming: Sendable, Equatable {
    case lines, recordSeparators, collection
}
