import Foundation
import PackagePlugin

/// What both plugins do: run the built geo with a hidden flag that writes generated files into a
/// folder of the package. Plugins cannot depend on a shared module, so this file is linked into
/// each plugin's folder (as swift-argument-parser does).
func regenerate(_ context: PluginContext, flag: String, into folder: String) throws {
    let tool = try context.tool(named: "geo").url
    let directory = context.package.directoryURL.appending(path: folder)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let process = try Process.run(tool, arguments: [flag, directory.path])
    process.waitUntilExit()
    if process.terminationStatus != 0 { throw GenerationFailed(flag: flag, status: process.terminationStatus) }
    print("wrote \(directory.path)")
}

struct GenerationFailed: Error, CustomStringConvertible {
    var flag: String
    var status: Int32
    var description: String { "geo \(flag) exited with \(status)" }
}
