import PackagePlugin

/// `swift package --allow-writing-to-package-directory generate-manual`: rebuilds man/man1 from
/// the command descriptions, by running the built geo (like swift-argument-parser's plugin).
@main
struct GenerateManual: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        try regenerate(context, flag: "--generate-manual", into: "man/man1")
    }
}
