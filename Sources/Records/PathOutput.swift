import GeoCommandLine
import GeoJSON
import JSONBytes
import Polyline

/// `--to polyline` (SPEC §2): commands that output geometries can write each record's path as
/// an encoded polyline line instead of a Feature.
public enum PathOutput: Sendable, Equatable {
    case geoJSON
    case polyline(precision: Int)

    public static let option = OptionSpec(
        "to", value: .choice(["geojson", "polyline"]), default: "geojson",
        help: "Output: GeoJSON Features, or each record's path as an encoded polyline line (at --precision).")

    public init(_ arguments: ParsedArguments) {
        self = arguments.value("to") == "polyline" ? .polyline(precision: arguments.integer("precision") ?? 5) : .geoJSON
    }

    public var isGeoJSON: Bool { self == .geoJSON }
}

/// Appends `path` as an encoded polyline.
@inline(__always)
public func appendPolyline(_ path: Path, precision: Int, to buffer: ByteBuffer) throws(PolylineError) {
    var encoder = PolylineEncoder(precision: precision)
    for position in path {
        try encoder.append(latitude: position.latitude, longitude: position.longitude) { buffer.append($0) }
    }
}

extension RecordOutput {
    /// One polyline line; the empty path is written `""`, since a blank line would be skipped
    /// when read back.
    public func writePolyline(_ path: Path, precision: Int) throws(PolylineError) {
        beginRecord()
        if path.isEmpty { buffer.append("\"\"") }
        try appendPolyline(path, precision: precision, to: buffer)
        endRecord()
    }

    /// Writes a computed geometry: the Feature with it, or its single path as a polyline.
    public func write(_ feature: Feature, from source: UnsafeBufferPointer<UInt8>, replacing geometry: Geometry?,
                      adding added: [(String, JSONValue)] = [], as format: PathOutput) throws {
        switch format {
        case .geoJSON:
            write(feature, from: source, geometry: .replaced(geometry), adding: added)
        case .polyline(let precision):
            switch geometry {
            case nil: try writePolyline([], precision: precision)
            case .point(let position): try writePolyline([position], precision: precision)
            case .multiPoint(let path), .lineString(let path): try writePolyline(path, precision: precision)
            case .some(let other):
                throw GeoJSONError("a \(other.typeName) has more than one path: use GeoJSON output")
            }
        }
    }
}
