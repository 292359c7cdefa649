import PackagePlugin

/// `swift package --allow-writing-to-package-directory generate-completions`: rebuilds the bash,
/// zsh and fish scripts in completions/ from the command descriptions, by running the built geo.
@main
struct GenerateCompletions: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        try regenerate(context, flag: "--generate-completions", into: "completions")
    }
}
