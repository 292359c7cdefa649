#if canImport(Glibc)
import Glibc
#endif
import GeoCommandLine
import Records

/// The options every command that reads records shares (docs/records.md): reading, bad records,
/// parallelism and progress, as one value that owns its declarations and reads them back
/// checked, as swift-argument-parser's option groups do. A command takes a group whole (its
/// `declarations`), so `configuration` never reads an option the command did not declare:
/// `filters` for the streaming commands, `drawing(output:)` for render and tiles, which name
/// their own `-o` and whose threads do not keep an output order.
public struct StreamOptions: Sendable {
    public let output: Option<String>
    public let jobs: DefaultedOption<Int>
    /// Whether the commands write GeoJSON records (and so take `--rs`, `--collection`).
    let framed: Bool

    public static let strict = Flag("strict", help: "Stop at the first bad record (exit 65) instead of reporting it and going on.")
    public static let rejects = Option(file: "rejects", help: "Also write each bad record to FILE as {\"source\",\"line\",\"error\",\"input\"} so nothing is lost (no file is left when no record is bad; - is standard output, with -o FILE). In FILE, %p stands for the process id and %h for the host name (one file per worker under GNU parallel or Spark), %% for %.")
    public static let quiet = Flag("quiet", short: "q", help: "Never show the progress line (GEO_PROGRESS=0 does the same for every geo in a pipeline).")
    public static let progress = Flag("progress", help: "Show the progress line on standard error even when it is not a terminal (then as plain lines, one a second). By itself, it shows only on a terminal that standard output is not writing to, once a run has lasted a second, and is erased at the end.")
    public static let rs = Flag("rs", help: "Write RFC 8142 GeoJSON text sequences: an RS byte (0x1E) before each record.")
    public static let collection = Flag("collection", help: "Wrap the output in one FeatureCollection (a single JSON document).")
    /// For commands that print coordinates they compute or decode.
    public static let digits = Option(integer: "digits", in: 0...17, help: "Round output coordinates to N decimals (half away from zero); default: the shortest digits that read back exactly.")
    /// What `--jobs`' default counts, as help shows it.
    static let usableCores = "the usable cores: CPU affinity, cgroup quota"

    /// The streaming commands': records out in input order, on standard output or `-o FILE`.
    public static let filters = StreamOptions(
        output: Option(file: "output", short: "o", help: "Write to FILE instead of standard output (- is standard output). FILE may not be one of the inputs: geo streams, and would empty it before reading it."),
        jobs: Option(integer: "jobs", short: "j", in: 1...1024, help: "Process records on N threads; output stays in input order.")
            .defaulting(to: availableCores(), shown: usableCores),
        framed: true)

    /// render's and tiles': `output` is the command's own `-o` (a picture, a pyramid).
    public static func drawing(output: Option<String>) -> StreamOptions {
        StreamOptions(output: output,
                      jobs: Option(integer: "jobs", short: "j", in: 1...1024, help: "Prepare and draw records on N threads (the picture is the same whatever N).")
                          .defaulting(to: availableCores(), shown: usableCores),
                      framed: false)
    }

    /// Every option of the group, for the command's description.
    public var declarations: [any OptionDeclaration] {
        [output, StreamOptions.strict, StreamOptions.rejects, jobs, StreamOptions.quiet, StreamOptions.progress]
    }

    /// The streaming commands' options: reading, error handling, parallelism and progress.
    public static var common: [any OptionDeclaration] { filters.declarations }
    /// Framing of GeoJSON output.
    public static let geoJSONFraming: [any OptionDeclaration] = [rs, collection]

    /// The streaming commands' configuration (`filters.configuration`).
    public static func configuration(_ arguments: ParsedArguments, jsonOutput: Bool) throws(UsageError) -> StreamConfiguration {
        try filters.configuration(arguments, jsonOutput: jsonOutput)
    }

    /// Reads the group into one checked value: every command that streams records, or draws
    /// them, goes through here, so `--rejects` templates and the conflicts between options mean
    /// the same everywhere. `jsonOutput` says whether the command writes GeoJSON this time (a
    /// text-mode output takes no `--rs` or `--collection`).
    public func configuration(_ arguments: ParsedArguments, jsonOutput: Bool) throws(UsageError) -> StreamConfiguration {
        func given(_ flag: Flag) -> Bool { arguments.declares(flag) && arguments[flag] }
        var stream = StreamConfiguration()
        stream.inputs = arguments.operands.isEmpty ? ["-"] : arguments.operands
        // `-o -` is standard output, not a file named "-" (as for inputs).
        stream.output = arguments[output].flatMap { $0 == "-" ? nil : $0 }
        stream.strict = arguments[StreamOptions.strict]
        stream.rejects = try arguments[StreamOptions.rejects].map(StreamOptions.expandTemplate)
        if stream.rejects == "-" && stream.output == nil {
            throw UsageError("--rejects - writes bad records to standard output, where the output goes too: give -o FILE")
        }
        if let output = stream.output, stream.rejects == output { throw UsageError("--rejects and --output name the same file") }
        stream.jobs = arguments[jobs]
        stream.decimals = arguments.declares(StreamOptions.digits) ? arguments[StreamOptions.digits] : nil
        let rs = given(StreamOptions.rs), collection = given(StreamOptions.collection)
        if rs && collection { throw UsageError("--rs and --collection cannot be combined") }
        if !(framed && jsonOutput) && (rs || collection) {
            throw UsageError("--\(rs ? "rs" : "collection") applies to GeoJSON output only")
        }
        stream.framing = rs ? .recordSeparators : collection ? .collection : .lines
        let quiet = arguments[StreamOptions.quiet], progress = arguments[StreamOptions.progress]
        if quiet && progress { throw UsageError("--quiet and --progress cannot be combined") }
        // With -o (tiles always has one), the progress line may show on a terminal whatever
        // standard output is.
        stream.progress = quiet ? false : progress ? true : ProgressLine.wanted(writingStandardOutput: stream.output == nil)
        return stream
    }

    /// `rejects-%h-%p.ndjson` → `rejects-node7-4242.ndjson`: a file per worker process.
    static func expandTemplate(_ template: String) throws(UsageError) -> String {
        var result = ""
        var characters = template.makeIterator()
        while let character = characters.next() {
            guard character == "%" else { result.append(character); continue }
            switch characters.next() {
            case "p": result += String(getpid())
            case "h": result += hostName()
            case "%": result += "%"
            case let other:
                throw UsageError("'%\(other.map(String.init) ?? "")' in '\(template)': use %p (process id), %h (host name) or %%")
            }
        }
        return result
    }

    static func hostName() -> String {
        var name = [CChar](repeating: 0, count: 256)
        guard gethostname(&name, name.count - 1) == 0 else { return "localhost" }
        return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

func availableCores() -> Int {
    AvailableCores.count()
}
