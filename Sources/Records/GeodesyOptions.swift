import GeoCommandLine
import Geodesy

/// `--kind`, `--ellps`, `--sphere` (SPEC §4): shared by length, interpolate, circle-to-polygon
/// and spans.
public enum GeodesyOptions {
    public static let options: [OptionSpec] = [
        OptionSpec("kind", value: .choice(EdgeKind.allCases.map(\.rawValue)), default: "geodesic",
                   help: "How edges run and are measured: geodesic (shortest path on the ellipsoid), rhumb (constant bearing), or projected (straight in Web Mercator, lengths in Web Mercator metres)."),
    ] + earthOptions

    /// `--ellps` and `--sphere`: the figure of the Earth.
    public static let earthOptions: [OptionSpec] = [
        OptionSpec("ellps", value: .choice(Earth.ellipsoidNames), valueName: "NAME", default: "WGS84",
                   help: "The ellipsoid, by PROJ's name (WGS84, GRS80, intl, clrk66, ...: 'proj -le' lists them)."),
        OptionSpec("sphere", value: .number, valueName: "R",
                   help: "A sphere of radius R metres instead of an ellipsoid; 6371009 reproduces the Maps SDK's figures."),
    ]

    /// The edge model the arguments ask for.
    public static func model(_ arguments: ParsedArguments) throws(UsageError) -> EdgeModel {
        let kind = EdgeKind(rawValue: arguments.value("kind") ?? "geodesic") ?? .geodesic
        if let radius = arguments.number("sphere") {
            if arguments.has("ellps") { throw UsageError("--sphere and --ellps cannot be combined") }
            guard radius > 0 else { throw UsageError("--sphere takes a radius in metres greater than 0, not '\(arguments.value("sphere")!)'") }
            return EdgeModel(earth: .sphere(radius: radius), kind: kind)
        }
        let name = arguments.value("ellps") ?? "WGS84"
        do {
            return EdgeModel(earth: try Earth(ellipsoid: name), kind: kind)
        } catch {
            throw UsageError("\(error)")
        }
    }
}
