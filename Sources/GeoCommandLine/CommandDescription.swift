/// One declarative description per command: the single source that parsing, `--help`, man pages
/// and shell completions are all generated from (swift-argument-parser's model, in miniature).
public struct CommandDescription: Sendable {
    public var name: String
    /// One line, lower case, no full stop: shown by `geo commands` and in man page NAME sections.
    public var summary: String
    /// Paragraphs explaining what the command does and how exactly.
    public var discussion: String
    /// What follows the options in the synopsis, e.g. `[FILE...]`.
    public var operands: String
    public var options: [OptionSpec]
    public var examples: [Example]
    /// The man page's EXIT STATUS, for a command whose statuses mean more than the streaming
    /// commands' shared ones (nil: those).
    public var exitStatus: String?

    public init(name: String, summary: String, discussion: String, operands: String = "[FILE...]",
                options: [any OptionDeclaration], examples: [Example] = [], exitStatus: String? = nil) {
        self.exitStatus = exitStatus
        self.name = name
        self.summary = summary
        self.discussion = discussion
        self.operands = operands
        self.options = options.map(\.spec)
        self.examples = examples
    }

    /// Exit status 69, which any command may end with, for every man page's EXIT STATUS (the
    /// commands with statuses of their own included): a C library geo loads on first use is missing.
    public static let missingLibraryStatus = """
        69: a library geo loads when it first needs it is missing: PROJ (libproj25) for the \
        commands that measure, project or walk edges, cairo (libcairo2) for render and tiles, \
        SQLite (libsqlite3-0) for tiles' MBTiles files, zlib (zlib1g) for PNG pictures; encode and \
        decode need none of them.
        """

    public func option(named long: String) -> OptionSpec? { options.first { $0.long == long } }

    /// The option a name given on the command line means: its own, or an old spelling of it.
    func option(given name: String) -> OptionSpec? { options.first { $0.long == name || $0.hiddenLongs.contains(name) } }
    func option(givenShort letter: Character) -> OptionSpec? { options.first { $0.short == letter || $0.hiddenShort == letter } }
}

/// What an option's value may be: drives validation, help text and completion.
public enum OptionValue: Equatable, Sendable {
    /// A flag: no value.
    case none
    case integer(ClosedRange<Int>)
    case number
    /// One of a fixed set of words.
    case choice(Choices)
    case file
    case text
}

/// The words a choice takes, listed when help, a man page or a completion asks: `--ellps`'s
/// come from PROJ, and reading them when every command's description is made loaded PROJ (and
/// the forty libraries it links, 9 ms) for commands that never use it.
public struct Choices: Equatable, Sendable {
    private let list: @Sendable () -> [String]
    public var words: [String] { list() }

    public init(_ words: [String]) { list = { words } }
    /// Words worked out when first asked for (a `static let`, read in `list`, is worked out once).
    public init(later list: @escaping @Sendable () -> [String]) { self.list = list }

    public static func == (a: Choices, b: Choices) -> Bool { a.words == b.words }
}

/// What help, man pages, completions and the parser know of one option; made by the typed
/// declarations (`Option`, `Flag`), never by hand.
public struct OptionSpec: Sendable {
    public var long: String
    public var short: Character?
    public var value: OptionValue
    /// The value's placeholder in help: `N`, `FILE`, `NAME`.
    public var valueName: String
    public var defaultValue: String?
    public var repeatable: Bool
    /// Words that completions offer for a free-text value, which still takes any text:
    /// `--style` suggests the named colours but also takes `#RRGGBB` and `gradient(FROM,TO)`.
    public var suggestions: [String] = []
    /// For a file: the extensions completions offer (with directories), the formats geo writes
    /// (`render -o`: png, pdf, svg); empty, any file.
    public var fileExtensions: [String] = []
    public var help: String
    /// Old spellings still read, for scripts written before a rename, and never shown (help,
    /// man pages and completions read `long` and `short` only).
    public var hiddenLongs: [String] = []
    public var hiddenShort: Character?
    /// Checks a value given on the command line and turns it into the declaration's type.
    var parse: @Sendable (String) throws(UsageError) -> any Sendable = { $0 }

    init(_ long: String, short: Character? = nil, value: OptionValue = .none, valueName: String? = nil, help: String) {
        self.long = long
        self.short = short
        self.value = value
        self.valueName = valueName ?? OptionSpec.placeholder(for: value)
        self.defaultValue = nil
        self.repeatable = false
        self.help = help
    }

    public var takesValue: Bool { value != .none }

    static func placeholder(for value: OptionValue) -> String {
        switch value {
        case .none: ""
        case .integer: "N"
        case .number: "X"
        case .choice(let choices): choices.words.joined(separator: "|")
        case .file: "FILE"
        case .text: "TEXT"
        }
    }
}

public struct Example: Sendable {
    public var command: String
    public var explanation: String
    public init(_ command: String, _ explanation: String) {
        self.command = command
        self.explanation = explanation
    }
}
