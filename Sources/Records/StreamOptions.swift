import GeoCommandLine
import JSONBytes

/// The options every streaming command shares (SPEC §2, §3), declared once and composed into each
/// command's description.
public struct StreamOptions: Sendable {
    public var inputs: [String]
    public var output: String?
    public var strict: Bool
    public var rejects: String?
    public var jobs: Int
    public var framing: Framing
    public var decimals: Int?
    public var progress: Bool

    public enum Framing: Sendable, Equatable {
        case lines, recordSeparators, collection
    }

    /// Reading, error handling, parallelism and progress: every streaming command.
    public static let common: [OptionSpec] = [
        OptionSpec("output", short: "o", value: .file, help: "Write to FILE instead of standard output (- is standard output). FILE may not be one of the inputs: geo streams, and would empty it before reading it."),
        OptionSpec("strict", help: "Stop at the first bad record (exit 65) instead of reporting it and going on."),
        OptionSpec("rejects", value: .file, help: "Also write each bad record to FILE as {\"source\",\"line\",\"error\",\"input\"} so nothing is lost (no file is left when no record is bad; - is standard output, with -o FILE). In FILE, %p stands for the process id and %h for the host name (one file per worker under GNU parallel or Spark), %% for %."),
        OptionSpec("jobs", short: "j", value: .integer(1...1024), default: "all cores", help: "Process records on N threads; output stays in input order."),
        OptionSpec("quiet", short: "q", help: "Never show the progress line."),
        OptionSpec("progress", help: "Show the progress line on standard error even when it is not a terminal."),
    ]

    /// Framing of GeoJSON output.
    public static let geoJSONFraming: [OptionSpec] = [
        OptionSpec("rs", help: "Write RFC 8142 GeoJSON text sequences: an RS byte (0x1E) before each record."),
        OptionSpec("collection", help: "Wrap the output in one FeatureCollection (a single JSON document)."),
    ]

    /// For commands that print coordinates they compute or decode.
    public static let digits = OptionSpec("digits", value: .integer(0...17), help: "Round output coordinates to N decimals (half away from zero); default: the shortest digits that read back exactly.")

    /// Parses the shared options. `jsonOutput` says whether the command writes GeoJSON this time
    /// (a text-mode output takes no `--rs` or `--collection`).
    public init(_ arguments: ParsedArguments, jsonOutput: Bool) throws(UsageError) {
        inputs = arguments.operands.isEmpty ? ["-"] : arguments.operands
        // `-o -` is standard output, not a file named "-" (as for inputs).
        output = arguments.value("output").flatMap { $0 == "-" ? nil : $0 }
        strict = arguments.has("strict")
        rejects = try arguments.value("rejects").map(StreamOptions.expandTemplate)
        if rejects == "-" && output == nil {
            throw UsageError("--rejects - writes bad records to standard output, where the output goes too: give -o FILE")
        }
        jobs = arguments.integer("jobs") ?? availableCores()
        decimals = arguments.integer("digits")
        let rs = arguments.has("rs"), collection = arguments.has("collection")
        if rs && collection { throw UsageError("--rs and --collection cannot be combined") }
        if !jsonOutput && (rs || collection) {
            throw UsageError("--\(rs ? "rs" : "collection") applies to GeoJSON output only")
        }
        framing = rs ? .recordSeparators : collection ? .collection : .lines
        if arguments.has("quiet") { progress = false }
        else if arguments.has("progress") { progress = true }
        else { progress = isatty(2) != 0 }
        if let output, rejects == output { throw UsageError("--rejects and --output name the same file") }
    }
}

#if canImport(Glibc)
import Glibc
#endif

extension StreamOptions {
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
    max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
}
