import GeoCommandLine
import GeoJSON
import JSONBytes
import Polyline

/// How path-consuming commands read their records: GeoJSON (default) or, with `--from polyline`,
/// one encoded polyline per line (raw or as a JSON string literal).
public enum PathInput: Sendable {
    case geoJSON
    case polyline(precision: Int)

    public static let options: [OptionSpec] = [
        OptionSpec("from", value: .choice(["geojson", "polyline"]), default: "geojson",
                   help: "Input format: GeoJSON records, or one encoded polyline per line (raw or a JSON string)."),
        OptionSpec("precision", short: "p", value: .integer(Polyline.precisions), default: "5",
                   help: "Decimal digits of the encoded polylines read with --from polyline (6 for OSRM/Valhalla)."),
    ]

    public init(_ arguments: ParsedArguments) {
        let precision = arguments.integer("precision") ?? 5
        self = arguments.value("from") == "polyline" ? .polyline(precision: precision) : .geoJSON
    }

    /// The records are GeoJSON texts (not polyline lines).
    public var readsJSON: Bool {
        if case .geoJSON = self { return true }
        return false
    }

    /// Calls `body` with each Feature in the record.
    @inline(__always)
    public func readFeatures(_ record: UnsafeBufferPointer<UInt8>, _ body: (Feature) throws -> Void) throws {
        switch self {
        case .geoJSON:
            try GeoJSONReader.readFeatures(record, body)
        case .polyline(let precision):
            try body(Feature(geometry: try PathInput.geometry(ofPolylineRecord: record, precision: precision)))
        }
    }

    /// A polyline line as a geometry: null for the empty path, a Point for one point, else a
    /// LineString.
    public static func geometry(ofPolylineRecord record: UnsafeBufferPointer<UInt8>, precision: Int) throws -> Geometry? {
        let path = try self.path(ofPolylineRecord: record, precision: precision)
        switch path.count {
        case 0: return nil
        case 1: return .point(path[0])
        default: return .lineString(path)
        }
    }

    /// Decodes a raw polyline, or a JSON string literal holding one.
    public static func path(ofPolylineRecord record: UnsafeBufferPointer<UInt8>, precision: Int) throws -> Path {
        if record.first == UInt8(ascii: "\"") {
            var scanner = JSONScanner(record)
            let token = try scanner.string()
            try scanner.expectEnd()
            if !token.hasEscapes {
                return try decodePath(UnsafeBufferPointer(rebasing: record[token.content]), precision: precision)
            }
            var text = scanner.text(token)
            return try text.withUTF8 { try decodePath($0, precision: precision) }
        }
        return try decodePath(record, precision: precision)
    }

    /// Decodes polyline bytes to positions, each coordinate `integer / 10^precision`.
    @inline(__always)
    public static func decodePath(_ text: UnsafeBufferPointer<UInt8>, precision: Int) throws -> Path {
        var path = Path()
        path.reserveCapacity(text.count / 4)
        let factor = Polyline.scale(precision)
        var outOfRange: Int64?
        try Polyline.decode(text) { latitude, longitude in
            if latitude.magnitude > 90 * UInt64(factor) && outOfRange == nil { outOfRange = latitude }
            path.append(Position(longitude: Double(longitude) / factor, latitude: Double(latitude) / factor))
        }
        if let outOfRange {
            throw PathInputError("decoded latitude \(Double(outOfRange) / factor) is outside [-90, 90] (is --precision \(precision) right?)")
        }
        return path
    }
}

/// A record whose polyline decodes but is not a path on the Earth.
public struct PathInputError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
