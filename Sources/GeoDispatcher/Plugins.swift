#if canImport(Glibc)
import Glibc
#endif
import Foundation

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
        let environment = ProcessInfo.processInfo.environment
        if let exec = environment["GEO_EXEC_PATH"] { directories += exec.split(separator: ":").map(String.init) }
        let binary = URL(fileURLWithPath: executablePath())
        directories.append(binary.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("libexec/geo").path)
        if let path = environment["PATH"] { directories += path.split(separator: ":").map(String.init) }
        return directories
    }

    static func executablePath() -> String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    static func find(_ name: String) -> Plugin? {
        guard !name.contains("/") else { return nil }
        for directory in searchPath() {
            let path = directory + "/geo-" + name
            if access(path, X_OK) == 0 && !isDirectory(path) { return Plugin(name: name, path: path) }
        }
        return nil
    }

    /// Every executable plugin, the first of each name.
    static func all() -> [Plugin] {
        var seen = Set<String>()
        var plugins: [Plugin] = []
        for directory in searchPath() {
            guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { continue }
            for entry in entries.sorted() where entry.hasPrefix("geo-") && entry.count > 4 {
                let path = directory + "/" + entry
                let name = String(entry.dropFirst(4))
                guard access(path, X_OK) == 0, !isDirectory(path), seen.insert(name).inserted else { continue }
                plugins.append(Plugin(name: name, path: path))
            }
        }
        return plugins
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Replaces this process with the plugin (as cargo and kubectl do): standard streams, exit
    /// status and signals are the plugin's own. `GEO` tells it where the dispatcher is.
    static func exec(_ plugin: Plugin, arguments: [String]) -> Int32 {
        setenv("GEO", executablePath(), 1)
        signal(SIGPIPE, SIG_DFL)
        let argv = ([plugin.path] + arguments).map { strdup($0) } + [nil]
        execv(plugin.path, argv)
        let reason = String(cString: strerror(errno))
        FileHandle.standardError.write("geo: cannot run '\(plugin.path)': \(reason)\n".data(using: .utf8)!)
        return 126
    }
}
