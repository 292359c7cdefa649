#if canImport(Glibc)
import Glibc
#endif
import Records

/// External commands: an executable `geo-NAME` in `$GEO_EXEC_PATH`, then `libexec/geo/` beside the
/// installed binary, then `PATH` (git's and kubectl's convention).
enum Plugins {
    struct Plugin {
        var name: String
        var path: String
    }

    /// The directories searched, in order.
    static func searchPath() -> [String] {
        var directories: [String] = []
        if let exec = getenv("GEO_EXEC_PATH") { directories += String(cString: exec).split(separator: ":").map(String.init) }
        // <prefix>/bin/geo → <prefix>/libexec/geo
        var binary = executablePath().split(separator: "/", omittingEmptySubsequences: false)
        if binary.count >= 2 {
            binary.removeLast(2)
            directories.append((binary + ["libexec", "geo"]).joined(separator: "/"))
        }
        if let path = getenv("PATH") { directories += String(cString: path).split(separator: ":").map(String.init) }
        return directories
    }

    /// This binary's own path, links resolved.
    static func executablePath() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, Int(PATH_MAX))
        guard length > 0 else { return CommandLine.arguments[0] }
        return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func find(_ name: String) -> Plugin? {
        guard !name.contains("/") else { return nil }
        for directory in searchPath() {
            let path = directory + "/geo-" + name
            if isExecutableFile(path) { return Plugin(name: name, path: path) }
        }
        return nil
    }

    /// The first geo-NAME file in the search path that is not executable, when no executable one
    /// is found: a shell says "Permission denied" (126) for such a file rather than "not found".
    static func findNotExecutable(_ name: String) -> String? {
        guard !name.contains("/") else { return nil }
        return searchPath().map { $0 + "/geo-" + name }.first { access($0, F_OK) == 0 && !isDirectory($0) }
    }

    /// Every executable plugin, the first of each name.
    static func all() -> [Plugin] {
        var seen = Set<String>()
        var plugins: [Plugin] = []
        for directory in searchPath() {
            for entry in entries(of: directory) where entry.hasPrefix("geo-") && entry.count > 4 {
                let path = directory + "/" + entry
                let name = String(entry.dropFirst(4))
                guard isExecutableFile(path), seen.insert(name).inserted else { continue }
                plugins.append(Plugin(name: name, path: path))
            }
        }
        return plugins
    }

    static func entries(of directory: String) -> [String] {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var names: [String] = []
        let nameOffset = MemoryLayout<dirent>.offset(of: \.d_name)!
        while let entry = readdir(stream) {
            // Read d_name in place: a dirent is only as long as its name, so copying the whole
            // 256-byte field (as `entry.pointee.d_name` would) reads past it (found by ASan).
            let name = UnsafeRawPointer(entry).advanced(by: nameOffset).assumingMemoryBound(to: CChar.self)
            names.append(String(cString: name))
        }
        return names.sorted()
    }

    /// `geo commands` warns about geo-NAME files that will never run: not executable, shadowed
    /// by a built-in, or shadowed by an earlier plugin of the same name.
    static func warnAboutUnusable(builtins: [String]) {
        var first: [String: String] = [:]
        for directory in searchPath() {
            for entry in entries(of: directory) where entry.hasPrefix("geo-") && entry.count > 4 {
                let path = directory + "/" + entry
                let name = String(entry.dropFirst(4))
                guard !isDirectory(path) else { continue }
                guard isExecutableFile(path) else {
                    printError("geo: warning: \(path) is not executable, so 'geo \(name)' will not run it\n")
                    continue
                }
                if builtins.contains(name) {
                    printError("geo: warning: \(path) is shadowed by the built-in command '\(name)'\n")
                } else if let earlier = first[name] {
                    if earlier != path { printError("geo: warning: \(path) is shadowed by \(earlier)\n") }
                } else {
                    first[name] = path
                }
            }
        }
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Whether `man` finds a page geo-NAME (man -w prints its path, or fails).
    static func hasManPage(_ name: String) -> Bool {
        run(["man", "-w", "geo-\(name)"], quiet: true) == .success
    }

    /// Replaces this process with `man geo-NAME`.
    static func openManPage(_ name: String) -> ExitCode {
        let words: [String] = ["man", "geo-\(name)"]
        let argv = words.map { strdup($0) } + [nil]
        execvp("man", argv)
        printError("geo: cannot run man: \(String(cString: strerror(errno)))\n")
        return cannotExecute
    }

    /// Runs a program and waits for it; its output goes nowhere when `quiet`.
    static func run(_ arguments: [String], quiet: Bool) -> ExitCode {
        var pid = pid_t()
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if quiet {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        guard posix_spawnp(&pid, arguments[0], &actions, nil, argv, environ) == 0 else { return notFound }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return ExitCode((status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F))
    }

    static func isExecutableFile(_ path: String) -> Bool {
        access(path, X_OK) == 0 && !isDirectory(path)
    }

    /// Exit statuses for a plugin that cannot run, as shells use them: found but not executable,
    /// and a file that running it needs (its #! interpreter) does not exist.
    static let cannotExecute = ExitCode(126)
    static let notFound = ExitCode(127)

    /// Replaces this process with the plugin (as cargo and kubectl do): standard streams, exit
    /// status and signals are the plugin's own. `GEO` tells it where the dispatcher is.
    static func exec(_ plugin: Plugin, arguments: [String]) -> ExitCode {
        setenv("GEO", executablePath(), 1)
        signal(SIGPIPE, SIG_DFL)
        let argv = ([plugin.path] + arguments).map { strdup($0) } + [nil]
        execv(plugin.path, argv)
        let error = errno
        let (problem, status) = execProblem(plugin.path, error)
        printError("geo: cannot run plugin '\(plugin.path)': \(problem)\n")
        return status
    }

    /// Why execv failed on `path`, in words that name the culprit, and the status a shell gives.
    static func execProblem(_ path: String, _ error: Int32) -> (String, ExitCode) {
        let reason = String(cString: strerror(error))
        let interpreter = self.interpreter(of: path)
        switch error {
        case ENOENT:
            if let interpreter, interpreter.utf8.last == UInt8(ascii: "\r") {
                return ("its #! line ends with a carriage return (DOS line ends), so it names no interpreter that exists", notFound)
            }
            if let interpreter { return ("its interpreter \(interpreter) (from its #! line) does not exist", notFound) }
            return ("a file it needs to start (its dynamic loader?) does not exist (\(reason))", notFound)
        case EACCES:
            if let interpreter { return ("its interpreter \(interpreter) (from its #! line) cannot be executed (\(reason))", cannotExecute) }
            return ("it cannot be executed (\(reason))", cannotExecute)
        case ENOEXEC:
            if let interpreter { return ("its interpreter \(interpreter) (from its #! line) is not a program this machine can run", cannotExecute) }
            return ("it is neither a program for this machine nor a script starting with #! (\(reason))", cannotExecute)
        default:
            return (reason, cannotExecute)
        }
    }

    /// The program a script's `#!` line names (a carriage return kept: the kernel keeps it too),
    /// or nil when the file does not start with `#!`.
    static func interpreter(of path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 256)
        guard fgets(&line, Int32(line.count), file) != nil else { return nil }
        let bytes = line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        guard bytes.starts(with: [UInt8(ascii: "#"), UInt8(ascii: "!")]) else { return nil }
        let separators: [UInt8] = [UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n")]
        let name = bytes.dropFirst(2).drop { separators.contains($0) }.prefix { !separators.contains($0) }
        return String(decoding: name, as: UTF8.self)
    }
}
