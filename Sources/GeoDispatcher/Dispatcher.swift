#if canImport(Glibc)
import Glibc
#endif
import AreaCommand
import BboxCommand
import CircleCommand
import DecodeCommand
import Documentation
import Geodesy
import EncodeCommand
import InterpolateCommand
import LengthCommand
import SimplifyCommand
import LocateCommand
import OffsetCommand
import CommandKit
import GeoCommandLine
import HeadingCommand
import Records
import RenderCommand
import TilesCommand
import SpansCommand

/// The `geo` dispatcher: built-in commands by name, then external `geo-NAME` plugins (git's model).
/// It only routes; every command's behaviour lives in its own module.
public enum Dispatcher {
    public static let version = "0.3.0"

    /// Every built-in, in the order `geo commands` and help list them: the one list of them.
    /// Everything else (help, man pages, completions, the tests, the fuzz harnesses) reads it,
    /// the end-to-end tests through `geo --list-cmds=builtins`.
    public static let builtins: [any GeoCommand.Type] = [Encode.self, Decode.self, Length.self, Interpolate.self, CircleToPolygon.self, Spans.self, Area.self, Locate.self, Heading.self, Offset.self, Bbox.self, Simplify.self, Render.self, Tiles.self]

    public static func builtin(named name: String) -> (any GeoCommand.Type)? {
        builtins.first { $0.description.name == name }
    }

    /// Runs `geo ARGS...` (without the program name) and returns the exit status.
    public static func main(_ arguments: [String]) -> ExitCode {
        guard let first = arguments.first else {
            printError(overview())
            return ExitCode.usage
        }
        let rest = Array(arguments.dropFirst())
        switch first {
        case "--help", "-h":
            // geo --help COMMAND is geo help COMMAND.
            guard let command = rest.first, !command.hasPrefix("-") else { return printOutput(overview()) }
            return dispatch("help", [command])
        case "--version":
            return printOutput(versionLine)
        case "--":
            // What follows is the command, even if it starts with a dash.
            guard let command = rest.first else {
                printError(overview())
                return ExitCode.usage
            }
            return dispatch(command, Array(rest.dropFirst()))
        case "--list-cmds=builtins", "--list-cmds=samples":
            // Hidden, as git's --list-cmds is: how the end-to-end tests learn the built-ins, and
            // the arguments to run each with (one line per list: the name, then the arguments,
            // separated by tabs).
            guard arguments.count == 1 else {
                printError("geo: \(first) takes nothing after it\n")
                return ExitCode.usage
            }
            let lists = first == "--list-cmds=builtins" ? builtins.map { [$0.description.name] }
                : builtins.flatMap { command in command.sampleArguments.map { [command.description.name] + $0 } }
            return printOutput(lists.map { $0.joined(separator: "\t") + "\n" }.joined())
        case "--generate-manual", "--generate-completions":
            // Hidden: what the SwiftPM plugins run to regenerate man/ and completions/.
            guard arguments.count == 2 else {
                printError("geo: \(first) needs a directory\n")
                return ExitCode.usage
            }
            let files = first == "--generate-manual" ? ManPage.pages(for: program) : Completions.scripts(for: program)
            return writeFiles(files, into: arguments[1])
        default:
            break
        }
        if first.hasPrefix("-") {
            printError("geo: unknown option '\(first)'" + ArgumentParser.suggestion(for: first.trimmed(["-"]), among: ["help", "version"], prefix: "--")
                       + "\nUsage: geo [--version] [--help] <command> [<args>...]\nSee 'geo --help'.\n")
            return ExitCode.usage
        }
        return dispatch(first, rest)
    }

    /// `geo --version` and `geo COMMAND --version`: geo's version and the PROJ it runs on.
    static var versionLine: String { "geo \(version) (PROJ \(Earth.projVersion))\n" }

    /// Runs the command `name`: one of the dispatcher's own, a built-in, or a plugin.
    static func dispatch(_ name: String, _ arguments: [String]) -> ExitCode {
        switch name {
        case "help":
            guard let command = arguments.first else { return printOutput(overview()) }
            if command == "--help" || command == "-h" { return printOutput(helpUsage) }  // geo help help
            return dispatch(command, ["--help"])
        case "commands":
            Plugins.warnAboutUnusable(builtins: builtins.map { $0.description.name })
            return printOutput(commandList())
        case "completion":
            return completion(arguments)
        default:
            break
        }
        if let command = builtin(named: name) {
            return run(command, arguments)
        }
        if let plugin = Plugins.find(name) {
            if arguments == ["--help"] || arguments == ["-h"], Plugins.hasManPage(name) {
                return Plugins.openManPage(name)
            }
            return Plugins.exec(plugin, arguments: arguments)
        }
        if let path = Plugins.findNotExecutable(name) {
            // As a shell does with a file on PATH it may not execute.
            printError("geo: cannot run plugin '\(path)': it is not executable (chmod +x it to use it as 'geo \(name)')\n")
            return Plugins.cannotExecute
        }
        let names = builtins.map { $0.description.name } + ["help", "commands", "completion"] + Plugins.all().map(\.name)
        printError("geo: '\(name)' is not a geo command" + didYouMean(name, among: names)
                   + "\nUsage: geo [--version] [--help] <command> [<args>...]\nSee 'geo --help' and 'geo commands'.\n")
        return ExitCode.usage
    }

    static let helpUsage = """
        geo help [COMMAND]

        Describes COMMAND: what it does, its options, examples and exit status, as
        geo COMMAND --help and man geo-COMMAND do (for a plugin, its man page geo-NAME when
        one is installed). Without COMMAND, the overview of geo; geo commands lists them.

        """

    static let completionUsage = "geo completion " + Completions.shells.joined(separator: "|")

    /// `geo completion SHELL`: the completion script on standard output.
    static func completion(_ arguments: [String]) -> ExitCode {
        if arguments == ["--help"] || arguments == ["-h"] {
            return printOutput("""
                \(completionUsage)

                Prints the completion script for the shell. Installed with geo, the scripts load by
                themselves; with a bare binary, load them in the shell's start-up file:


                """ + Completions.loading("geo").map { "  " + $0 + "\n" }.joined())
        }
        guard arguments.count == 1, let script = Completions.script(arguments[0], for: program) else {
            let problem = arguments.isEmpty ? "name a shell" : arguments.count > 1 ? "name one shell" : "no completion for '\(arguments[0])'"
            printError("geo completion: \(problem): \(Completions.shells.joined(separator: ", "))\nUsage: \(completionUsage)\n"
                       + "See 'geo help completion'.\n")
            return ExitCode.usage
        }
        return printOutput(script)
    }

    /// "; did you mean 'a'?" naming every name `word` is closest to: those it begins (`lengt`),
    /// or those nearest by edit distance if near enough; all of them when several are as near.
    static func didYouMean(_ word: String, among names: [String]) -> String {
        guard word.count > 1 else { return "" }
        let lower = word.lowercased()
        var seen = Set<String>()
        let scored = names.filter { seen.insert($0).inserted }.map { name in
            let distance = ArgumentParser.editDistance(lower, name.lowercased())
            return (name: name, distance: word.count >= 3 && name.lowercased().hasPrefix(lower) ? min(distance, 1) : distance)
        }
        guard let best = scored.map(\.distance).min(), best <= max(1, min(3, word.count / 3)) else { return "" }
        let close = scored.filter { $0.distance == best }.map { "'\($0.name)'" }
        let listed = close.count == 1 ? close[0] : close.dropLast().joined(separator: ", ") + " or " + close.last!
        return "; did you mean \(listed)?"
    }

    static func run(_ command: any GeoCommand.Type, _ arguments: [String]) -> ExitCode {
        let description = command.description
        do {
            let parsed = try ArgumentParser.parse(arguments, for: description)
            if parsed.helpRequested { return printOutput(HelpText.render(description)) }
            if parsed.versionRequested { return printOutput(versionLine) }
            return try command.init(parsed).run()
        } catch {
            printError(HelpText.usageError(error, command: description))
            return ExitCode.usage
        }
    }

    /// The built-ins that are filters, records in and records out (the others draw).
    static var filters: [any GeoCommand.Type] { builtins.filter(isFilter) }

    static func isFilter(_ command: any GeoCommand.Type) -> Bool { command is any StreamingCommand.Type }

    /// Commands' names as prose lists them: "a, b and c". The man page's listings come from
    /// `builtins` this way, so that a new command cannot be left out of them.
    static func listed(_ commands: [any GeoCommand.Type]) -> String {
        let names = commands.map { $0.description.name }
        guard let last = names.last else { return "" }
        return names.count == 1 ? last : names.dropLast().joined(separator: ", ") + " and " + last
    }

    /// The program as its man pages and completions describe it.
    public static var program: ProgramDescription {
        ProgramDescription(
            name: "geo", version: version, date: "December 2, 2026",
            summary: "the geometry of map SDK shapes for shell pipelines",
            discussion: """
            geo brings the geometry behind the Google Maps SDK's shapes to shell pipelines: encoded \
            paths, geodesic lengths and areas, points along paths, circles, style spans, headings, \
            offsets, bounding boxes, where points lie on paths and in polygons, fewer vertices within a \
            distance, pictures and map tiles, computed exactly on the WGS84 ellipsoid with PROJ, or on \
            the SDK's own sphere with --sphere 6371009. Its commands: \(listed(builtins)).

            Of these, \(listed(filters)) are filters: newline-delimited GeoJSON (or encoded polylines) \
            in, one record per line out, streaming, so that geo decode | geo length | jq works on inputs \
            of any size; \(listed(builtins.filter { !isFilter($0) })) read the same records and draw \
            them, as one picture or as a pyramid of map tiles.

            geo --help COMMAND is geo help COMMAND, and -- may come before the command (geo -- length \
            FILE). geo --version prints the version of geo and of the PROJ library it runs on, as in \
            geo 0.3.0 (PROJ 9.1.1).
            """,
            commands: builtins.map { $0.description },
            sections: [
                ("Records", """
                Every streaming command reads the files named as operands (- or none: standard input) \
                and writes one record per line to standard output (or -o FILE; -o - is standard \
                output). Each record is a GeoJSON Feature, whose properties, id, bbox and other members \
                are copied unchanged; a bare geometry, which becomes a Feature; or a FeatureCollection, \
                taken as its features in order. CRLF line ends, a byte order mark, RS-prefixed lines \
                and RFC 8142 sequences are read too. With --from polyline, path-consuming commands read \
                one encoded polyline per line instead, and with --from latlng one path per line as \
                LAT,LNG LAT,LNG ... (what geo decode --to latlng writes). These three words, geojson, \
                polyline and latlng, name the formats of every --from and --to; -p (--precision) is \
                always the precision of polylines read, --to-precision of polylines written.

                Positions are [longitude, latitude] (RFC 7946); command-line coordinates are LAT,LNG. \
                Numbers are printed in the shortest form that reads back to the same double, never in \
                exponent notation; --digits N rounds them. --rs writes RFC 8142 sequences and \
                --collection one FeatureCollection. Output comes in input order, also with --jobs N.

                A bad record is reported on standard error as geo COMMAND: FILE:LINE: problem, and \
                skipped; the others still come out. The first problem of a kind comes with a hint \
                (polylines given as GeoJSON, a gzip file, ...); after 100 messages of one kind the rest \
                are counted, and the run ends with how many records were rejected. --strict stops at \
                the first one; --rejects FILE keeps each bad record with its source, line and error, \
                its input as a JSON string or, when it is not UTF-8, in base64 (input_base64). A \
                record that would make more than 1,000,000 positions (a tiny --every or --length) is \
                a bad record. -o and --rejects may not name an input: geo streams, and would empty it \
                before reading it.

                A progress line appears on standard error only when it is a terminal that standard \
                output is not writing to, once a run has lasted a second; it shows a percentage and \
                the time left when the inputs are files, and is erased at the end. --progress forces \
                it (plain lines when standard error is not a terminal), --quiet or GEO_PROGRESS=0 \
                turns it off.
                """),
                ("How to read a GeoJSON file", """
                geo reads the GeoJSON files other tools write, as they are. Newline-delimited GeoJSON \
                (GeoJSONSeq, ogr2ogr -f GeoJSONSeq, geo's own output) is read line by line. A file \
                whose first JSON text does not end on its line is read as a document: the \
                pretty-printed FeatureCollection that ogr2ogr -f GeoJSON, QGIS, geojson.io and geo \
                --collection write is streamed feature by feature, in constant memory however large; \
                a single Feature or geometry spread over lines is one record; several such texts one \
                after another (jq '.features[]') are read in turn. This is decided for each input file \
                from its first text. Messages then name the line where the feature starts and the \
                feature (features[12]), and --rejects keeps that feature's text. A bad feature of a \
                collection, in a document or on one line, rejects only itself: the other features come \
                out in order. A document cut short is reported where its last feature starts.
                """),
                ("Plugins", """
                geo NAME, where NAME is not a built-in command, runs the first executable geo-NAME \
                found in GEO_EXEC_PATH, then in libexec/geo beside the geo binary, then on PATH, with \
                the arguments unchanged, the standard streams inherited, GEO set to the path of geo, \
                and its exit status passed on. A built-in always wins over a plugin of the same name; \
                geo commands lists plugins with their paths and warns about shadowed or non-executable \
                ones. geo NAME --help opens the plugin's man page geo-NAME when one is installed.

                A plugin that is found but cannot be run is reported with its path and the reason, \
                and geo exits as a shell would: 126 when geo-NAME is not executable (and no \
                executable geo-NAME comes later in the search) or its #! interpreter cannot be \
                executed, 127 when that interpreter does not exist.
                """),
                ("Environment", """
                GEO_EXEC_PATH: directories, separated by colons, searched first for plugins. \
                GEO: set for plugins to the path of the geo that started them. GEO_PROGRESS=0: no \
                progress line, for every geo in a pipeline (--progress still forces it).
                """),
                ("Exit status", ManPage.exitStatus + "\n\ngeo NAME, for a plugin, exits with the plugin's status; "
                    + "126 or 127 when the plugin cannot be run (see PLUGINS)."),
            ],
            examples: [
                Example("geo decode examples/routes.polyline | geo length | jq .properties.length_m", "The length of every route on WGS84."),
                Example("geo circle-to-polygon --center 37.7749,-122.4194 --radius 5000", "A 5 km circle around San Francisco."),
                Example("geo commands", "The built-in commands and the plugins on this machine."),
            ])
    }

    /// Writes generated files into `directory`; 73 when one cannot be written.
    static func writeFiles(_ files: [(String, String)], into directory: String) -> ExitCode {
        for (name, contents) in files {
            let path = directory + "/" + name
            guard let file = fopen(path, "w") else {
                printError("geo: cannot create '\(path)': \(String(cString: strerror(errno)))\n")
                return ExitCode.cannotCreate
            }
            let written = fputs(contents, file)
            if written < 0 || fclose(file) != 0 {
                printError("geo: cannot write '\(path)': \(String(cString: strerror(errno)))\n")
                return ExitCode.ioError
            }
        }
        return ExitCode.success
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
        'geo completion bash|zsh|fish' prints a completion script; 'geo --version' the versions of
        geo and of PROJ.

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

