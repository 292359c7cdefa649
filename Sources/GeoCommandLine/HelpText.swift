/// `--help` text and usage-error text, rendered from a CommandDescription.
public enum HelpText {
    public static let program = "geo"

    /// `geo encode [OPTIONS] [FILE...]`
    public static func usageLine(_ command: CommandDescription) -> String {
        "\(program) \(command.name) [OPTIONS] \(command.operands)".trimmed()
    }

    /// The left column of an option in help: `-p, --precision N`.
    public static func optionLabel(_ option: OptionSpec) -> String {
        var label = option.short.map { "-\($0), " } ?? "    "
        label += "--\(option.long)"
        if option.takesValue { label += " \(option.valueName)" }
        return label
    }

    /// The help column: the text, then the allowed values and default where they add something.
    public static func optionHelp(_ option: OptionSpec) -> String {
        var text = option.help
        if let value = option.defaultValue { text += " (default: \(value))" }
        if option.repeatable { text += " (repeatable)" }
        return text
    }

    public static func render(_ command: CommandDescription) -> String {
        var lines = ["\(program) \(command.name) - \(command.summary)", "", "USAGE: \(usageLine(command))", ""]
        lines += wrap(command.discussion, width: 78)
        lines += ["", "OPTIONS:"]
        let labels = command.options.map(optionLabel)
        let width = min(32, (labels.map(\.count).max() ?? 0) + 2)
        for (option, label) in zip(command.options, labels) {
            let help = wrap(optionHelp(option), width: 78 - width - 2)
            if label.count + 2 > width {
                lines.append("  \(label)")
                lines += help.map { String(repeating: " ", count: width + 2) + $0 }
            } else {
                lines.append("  " + label.padded(to: width) + (help.first ?? ""))
                lines += help.dropFirst().map { String(repeating: " ", count: width + 2) + $0 }
            }
        }
        lines.append("  " + "-h, --help".padded(to: width) + "Show this help and exit.")
        if !command.examples.isEmpty {
            lines += ["", "EXAMPLES:"]
            for example in command.examples {
                lines.append("  $ \(example.command)")
                lines += wrap(example.explanation, width: 74).map { "    " + $0 }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The three-part message for a usage error: the problem, the usage line, where help is.
    public static func usageError(_ error: UsageError, command: CommandDescription) -> String {
        "\(program) \(command.name): \(error.message)\nUsage: \(usageLine(command))\nSee '\(program) \(command.name) --help'.\n"
    }

    public static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            for word in paragraph.split(separator: " ") {
                if !line.isEmpty && line.count + 1 + word.count > width {
                    lines.append(line)
                    line = ""
                }
                line += line.isEmpty ? String(word) : " " + word
            }
            lines.append(line)
        }
        return lines
    }
}
