import Foundation
import PackagePlugin

/// `swift package --allow-writing-to-package-directory generate-manual`: rebuilds man/man1 from
/// the command descriptions, by running the built geo (like swift-argument-parser's plugin).
@main
struct GenerateManual: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        let tool = try context.tool(named: "geo").url
        let directory = context.package.directoryURL.appending(path: "man/man1")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let process = try Process.run(tool, arguments: ["--generate-manual", directory.path])
        process.waitUntilExit()
        if process.terminationStatus != 0 { throw GenerationFailed(status: process.terminationStatus) }
        print("wrote \(directory.path)")
    }
}

struct GenerationFailed: Error, CustomStringConvertible {
    var status: Int32
    var description: String { "geo --generate-manual exited with \(status)" }
}
