#if canImport(Glibc)
import Glibc
#endif
import CircleCommand
import DecodeCommand
import EncodeCommand
import InterpolateCommand
import LengthCommand
import GeoCommandLine
import Records
import SpansCommand

/// The `geo` dispatcher: built-in commands by name, then external `geo-NAME` plugins (git's model).
/// It only routes; every command's behaviour lives in its own module.
public enum Dispatcher {
    public static let version = "0.1.0"

    /// Every built-in, in the order `geo commands` and help list them.
    public static let builtins: [any GeoCommand.Type] = [Encode.self, Decode.self, Length.self, Interpolate.self, CircleToPolygon.self, Spans.self]

    public static func builtin(named name: String) -> (any GeoCommand.Type)? {
        builtins.first { $0.description.name == name }
    }

    /// Runs `geo ARGS...` (without the program name) and returns the exit status.
    public static func main(_ arguments: [String]) -> Int32 {
        guard let first = arguments.first else {
            printError(overview())
            return ExitCode.usage
        }
        switch first {
        case "--help", "-h":
            return printOutput(overview())
        case "--version":
            return printOutput("geo \(version)\n")
        case "help":
            guard arguments.count > 1 else { return printOutput(overview()) }
            return main([arguments[1], "--help"])
        case "commands":
            return printOutput(commandList())
        default:
            break
        }
        if let command = builtin(named: first) {
            return run(command, Array(arguments.dropFirst()))
        }
        if first.hasPrefix("-") {
            printError("geo: unknown option '\(first)'" + ArgumentParser.suggestion(for: first.trimmingDashes, among: ["help", "version"], prefix: "--")
                       + "\nUsage: geo [--version] [--help] <command> [<args>...]\nSee 'geo --help'.\n")
            return ExitCode.usage
        }
        if let plugin = Plugins.find(first) {
            return Plugins.exec(plugin, arguments: Array(arguments.dropFirst()))
        }
        let names = builtins.map { $0.description.name } + ["help", "commands"] + Plugins.all().map(\.name)
        printError("geo: '\(first)' is not a geo command" + ArgumentParser.suggestion(for: first, among: names, prefix: "")
                   + "\nUsage: geo [--version] [--help] <command> [<args>...]\nSee 'geo --help' and 'geo commands'.\n")
        return ExitCode.usage
    }

    static func run(_ command: any GeoCommand.Type, _ arguments: [String]) -> Int32 {
        let description = command.description
        do {
            let parsed = try ArgumentParser.parse(arguments, for: description)
            if parsed.helpRequested { return printOutput(HelpText.render(description)) }
            if parsed.versionRequested { return printOutput("geo \(version)\n") }
            return try command.init(parsed).run()
        } catch {
            printError(HelpText.usageError(error, command: description))
            return ExitCode.usage
        }
    }

    static func overview() -> String {
        var text = """
        geo - the geometry of map SDK shapes for shell pipelines

        USAGE: geo [--version] [--help] <command> [<args>...]

        Newline-delimited GeoJSON in, newline-delimited GeoJSON out.

        COMMANDS:

        """
        let width = (builtins.map { $0.description.name.count }.max() ?? 0) + 2
        for command in builtins {
            text += "  " + command.description.name.padded(to: width) + command.description.summary + "\n"
        }
        text += """

        'geo help <command>' or 'geo <command> --help' describes a command; 'geo commands' also
        lists plugins: any executable geo-NAME on GEO_EXEC_PATH, in libexec/geo beside geo, or on PATH.

        """
        return text
    }

    /// `geo commands`: built-ins, then plugins with their paths.
    static func commandList() -> String {
        var text = ""
        for command in builtins {
            text += command.description.name + "\t" + command.description.summary + "\n"
        }
        for plugin in Plugins.all() where builtin(named: plugin.name) == nil {
            text += plugin.name + "\tplugin: " + plugin.path + "\n"
        }
        return text
    }
}

extension String {
    var trimmingDashes: String { String(drop { $0 == "-" }) }

    func padded(to width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
