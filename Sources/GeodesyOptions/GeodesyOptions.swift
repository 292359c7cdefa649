import GeoCommandLine
import Geodesy
import Geometry
import Records

/// `--kind`, `--ellps`, `--sphere` (docs/algorithms.md): the edge model of every command that
/// measures or walks edges.
public enum GeodesyOptions {
    public static let kind = Option(choice: "kind", of: EdgeKind.self, help: "How edges run and are measured: geodesic (shortest path on the ellipsoid), rhumb (constant bearing), or projected (straight in Web Mercator, lengths in Web Mercator metres).")
        .defaulting(to: .geodesic)
    public static let ellps = Option(custom: "ellps", value: .choice(Choices(later: { Earth.ellipsoidNames })), valueName: "NAME", help: "The ellipsoid, by PROJ's name (WGS84, GRS80, intl, clrk66, ...: 'proj -le' lists them).") { name throws(UsageError) in
        // PROJ's names are case-sensitive: --ellps wgs84 is told WGS84.
        do { return try Earth(ellipsoid: name) } catch {
            throw UsageError("\(error)" + ArgumentParser.suggestion(for: name, among: Earth.ellipsoidNames, prefix: ""))
        }
    }.defaulting(to: .wgs84, shown: "WGS84")
    public static let sphere = Option(number: "sphere", valueName: "R", check: { $0 > 0 ? nil : "a radius in metres greater than 0" },
                                      help: "A sphere of radius R metres instead of an ellipsoid; 6371009 reproduces the Maps SDK's figures.")

    /// Every geodesy option.
    public static let options: [any OptionDeclaration] = [kind] + earthOptions
    /// `--ellps` and `--sphere`: the figure of the Earth alone (circles have no edge kind).
    public static let earthOptions: [any OptionDeclaration] = [ellps, sphere]

    /// The figure of the Earth the arguments ask for.
    public static func earth(_ arguments: ParsedArguments) throws(UsageError) -> Earth {
        guard let radius = arguments[sphere] else { return arguments[ellps] }
        if arguments.has(ellps) { throw UsageError("--sphere and --ellps cannot be combined") }
        // 6371 is the Earth's radius in kilometres: a sphere that small is a slip, not a choice.
        if radius < 100_000 {
            printError("geo: warning: --sphere \(number: radius) is a radius in metres, not the Earth's; did you mean \(number: radius * 1000)?\n")
        }
        return .sphere(radius: radius)
    }

    /// The edge model the arguments ask for.
    public static func model(_ arguments: ParsedArguments) throws(UsageError) -> EdgeModel {
        EdgeModel(earth: try earth(arguments), kind: arguments[kind])
    }
}
