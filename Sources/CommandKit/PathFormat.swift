import GeoCommandLine

/// The one vocabulary of `--from` and `--to`: GeoJSON records, encoded polylines a line, or
/// `LAT,LNG LAT,LNG ...` paths a line. Each option offers the subset its command reads or
/// writes (`Use`), and every old word is in one table (`oldWords`).
public enum PathFormat: String, Sendable {
    case geojson, polyline, latlng

    /// Where a format option is used, which decides the words it offers.
    public enum Use: Sendable {
        /// `--from` of the commands that read paths (PathInputFormat).
        case input
        /// `--to` of the commands that compute geometries (PathOutputFormat).
        case geometryOutput
        /// `geo decode --to`: decoded polylines as Features or as text paths.
        case decodeOutput
        /// `geo encode --to`: polylines, alone or in their Feature.
        case encodeOutput

        /// The words offered, in the order help lists them; the first is the default.
        public var formats: [PathFormat] {
            switch self {
            case .input: [.geojson, .polyline, .latlng]
            case .geometryOutput: [.geojson, .polyline]
            case .decodeOutput: [.geojson, .latlng]
            case .encodeOutput: [.polyline, .geojson]
            }
        }
    }

    /// Old words, read but never shown, so that scripts written before this vocabulary run as
    /// before; each use reads only those it took. `text` meant a command's plain-text lines:
    /// latlng paths for `--from` and decode, polylines for encode.
    static let oldWords: [Use: [String: PathFormat]] = [
        .input: ["text": .latlng],
        .decodeOutput: ["json": .geojson, "text": .latlng],
        .encodeOutput: ["json": .geojson, "text": .polyline],
    ]

    /// The option `--NAME` for `use`: its formats, its old words, its first format the default.
    public static func option(_ long: String, for use: Use, help: String) -> DefaultedOption<PathFormat> {
        Option(choice: long, among: use.formats, aliases: oldWords[use] ?? [:], help: help)
            .defaulting(to: use.formats[0])
    }
}
