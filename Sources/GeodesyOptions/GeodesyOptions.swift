import GeoCommandLine
import Geodesy

/// `--kind`, `--ellps`, `--sphere` (docs/algorithms.md): the edge model of every command that
/// measures or walks edges.
public enum GeodesyOptions {
    public static let kind = Option(choice: "kind", of: EdgeKind.self, help: "How edges run and are measured: geodesic (shortest path on the ellipsoid), rhumb (constant bearing), or projected (straight in Web Mercator, lengths in Web Mercator metres).")
        .defaulting(to: .geodesic)
    public static let ellps = Option(custom: "ellps", value: .choice(Earth.ellipsoidNames), valueName: "NAME", help: "The ellipsoid, by PROJ's name (WGS84, GRS80, intl, clrk66, ...: 'proj -le' lists them).") { name throws(UsageError) in
        do { return try Earth(ellipsoid: name) } catch { throw UsageError("\(error)") }
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
        return .sphere(radius: radius)
    }

    /// The edge model the arguments ask for.
    public static func model(_ arguments: ParsedArguments) throws(UsageError) -> EdgeModel {
        EdgeModel(earth: try earth(arguments), kind: arguments[kind])
    }
}
