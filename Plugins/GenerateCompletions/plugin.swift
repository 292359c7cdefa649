import Foundation
import PackagePlugin

/// `swift package --allow-writing-to-package-directory generate-completions`: rebuilds the bash,
/// zsh and fish scripts in completions/ from the command descriptions, by running the built geo.
/// (Plugins cannot share code, so this mirrors GenerateManual.)
@main
struct GenerateCompletions: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        let tool = try context.tool(named: "geo").url
        let directory = context.package.directoryURL.appending(path: "completions")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let process = try Process.run(tool, arguments: ["--generate-completions", directory.path])
        process.waitUntilExit()
        if process.terminationStatus != 0 { throw GenerationFailed(status: process.terminationStatus) }
        print("wrote \(directory.path)")
    }
}

struct GenerationFailed: Error, CustomStringConvertible {
    var status: Int32
    var description: String { "geo --generate-completions exited with \(status)" }
}
