import GeoCommandLine

/// What the `geo` overview page says besides its commands: the parts of docs/records.md every
/// command shares. With the commands' own descriptions, the single source of help, man pages
/// and completions.
public struct ProgramDescription: Sendable {
    public var name: String
    public var version: String
    /// The date man pages carry (fixed per release so that regenerating them is reproducible).
    public var date: String
    public var summary: String
    public var discussion: String
    public var commands: [CommandDescription]
    /// Titled sections of the overview page (records, exit status, environment, ...).
    public var sections: [(title: String, body: String)]
    public var examples: [Example]

    public init(name: String, version: String, date: String, summary: String, discussion: String,
                commands: [CommandDescription], sections: [(title: String, body: String)], examples: [Example]) {
        self.name = name
        self.version = version
        self.date = date
        self.summary = summary
        self.discussion = discussion
        self.commands = commands
        self.sections = sections
        self.examples = examples
    }
}
