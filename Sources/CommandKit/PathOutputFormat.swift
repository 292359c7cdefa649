import GeoCommandLine
import GeoJSON
import Geometry
import JSONBytes
import Polyline
import Records

/// `--to polyline` (docs/records.md): commands that output geometries can write each record's
/// path as an encoded polyline line instead of a Feature, at `--to-precision` (which is apart
/// from `--precision`, the precision of polylines read). The words are PathFormat's, those of
/// `--from`.
public enum PathOutputFormat: Sendable, Equatable {
    case geoJSON
    case polyline(precision: Int)

    public static let to = PathFormat.option("to", for: .geometryOutput, help: "Output: GeoJSON Features, or each record's path as an encoded polyline line (at --to-precision).")
    public static let toPrecision = Option(integer: "to-precision", in: Polyline.precisions, help: "Decimal digits of the polylines written with --to polyline (6 for OSRM/Valhalla polyline6).")
        .defaulting(to: 5)
    public static let options: [any OptionDeclaration] = [to, toPrecision]

    public init(_ arguments: ParsedArguments) throws(UsageError) {
        switch arguments[PathOutputFormat.to] {
        case .geojson:
            guard !arguments.has(PathOutputFormat.toPrecision) else { throw UsageError("--to-precision goes with --to polyline") }
            self = .geoJSON
        case .polyline:
            self = .polyline(precision: arguments[PathOutputFormat.toPrecision])
        case .latlng:
            preconditionFailure("--to offers no latlng here (PathFormat.Use.geometryOutput)")
        }
    }

    public var isGeoJSON: Bool { self == .geoJSON }
}

/// Appends `path` as an encoded polyline.
@inline(__always)
public func appendPolyline(_ path: Path, precision: Int, to buffer: ByteBuffer) throws(PolylineError) {
    var encoder = PolylineEncoder(precision: precision)
    // One capacity check a batch of points, not one a point or a byte; batches keep the room
    // reserved small however long the path.
    let batch = 4096
    try path.withUnsafeBufferPointer { (points) throws(PolylineError) in
        var index = 0
        while index < path.count {
            let count = min(batch, path.count - index)
            let start = buffer.reserve(count * PolylineEncoder.maximumPointLength)
            buffer.count += try encoder.append(points: UnsafeRawPointer(points.baseAddress! + index), count: count,
                                               stride: MemoryLayout<Position>.stride,
                                               latitudeOffset: MemoryLayout<Position>.offset(of: \.latitude)!,
                                               longitudeOffset: MemoryLayout<Position>.offset(of: \.longitude)!, to: start)
            index += count
        }
    }
}

extension RecordWriter {
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
                      adding added: [(String, JSONValue)] = [], as format: PathOutputFormat) throws {
        switch format {
        case .geoJSON:
            write(feature, from: source, geometry: .replaced(geometry), adding: added)
        case .polyline(let precision):
            let path: Path
            do { path = try Geometry.singlePath(of: geometry) } catch {
                throw BadRecord("\(error.message): use GeoJSON output")
            }
            try writePolyline(path, precision: precision)
        }
    }
}
