import CommandKit
import GeoCommandLine
import GeoJSON
import Geometry
import JSONBytes
import Polyline
import Records

/// `geo encode`: GeoJSON paths in, Google encoded polylines out.
public struct Encode: StreamingCommand {
    public static let description = CommandDescription(
        name: "encode",
        summary: "encode GeoJSON paths as Google encoded polylines",
        discussion: """
        Reads GeoJSON records (Features, bare geometries, or one-line FeatureCollections) and writes \
        each path as an encoded polyline (Google's Encoded Polyline Algorithm Format, what GMSPath \
        encodedPath holds).

        Each coordinate is multiplied by 10^precision and rounded half away from zero on its \
        absolute value; the deltas between rounded values are encoded with 64-bit integers, so \
        precision 6 and 7 and long paths cannot overflow.

        With --to polyline (the default) each record becomes one line: a Point, MultiPoint or \
        LineString encodes its positions, a Polygon its outer ring (a Polygon with holes, a \
        multi-part geometry or a GeometryCollection is a bad record: use --to geojson), and a null \
        geometry or an empty path the empty polyline, written "" (a JSON string, which geo decode \
        reads back as a null geometry; a blank line would be skipped). With --to geojson each record is written back \
        as a Feature with properties.polyline; a Polygon adds properties.holes (an array, like \
        GMSPolygon's holes), and MultiLineString and MultiPolygon give arrays of polylines; a \
        GeometryCollection gives an array of its members' values (and of their holes, null for a \
        member without).
        """,
        options: [precision, to] + StreamOptions.geoJSONFraming + StreamOptions.common,
        examples: [
            Example("echo '{\"type\":\"LineString\",\"coordinates\":[[-120.2,38.5],[-120.95,40.7],[-126.453,43.252]]}' | geo encode",
                    "Prints _p~iF~ps|U_ulLnnqC_mqNvxq`@, the polyline of the three points."),
            Example("geo encode --to-precision 6 examples/routes.ndjson > routes.polyline6", "Encodes at precision 6 for OSRM or Valhalla."),
            Example("geo encode --to geojson examples/parks.geojson | jq -r '.properties.holes[]?'",
                    "Keeps each Feature and lists the holes of its polygons."),
        ])

    public static let sampleArguments = [[], ["--to", "geojson", "--to-precision", "7", "--rs"], ["--to", "json", "-p", "6"]]

    /// The precision of the polylines encode writes, `--to-precision` as for every command that
    /// writes polylines (`--precision` and `-p`, its old names, are the precision of polylines
    /// read everywhere else).
    static let precision = Option(integer: "to-precision", in: Polyline.precisions, help: "Decimal digits of the polylines written: 5 for Google, 6 for OSRM/Valhalla polyline6.")
        .hiddenAliases("precision", short: "p").defaulting(to: 5)
    static let to = PathFormat.option("to", for: .encodeOutput,
                                      help: "Output: one polyline per line, or the Feature with properties.polyline.")

    public let stream: StreamConfiguration
    public let handler: EncodeHandler

    public init(_ arguments: ParsedArguments) throws(UsageError) {
        let json = arguments[Encode.to] == .geojson
        stream = try StreamOptions.configuration(arguments, jsonOutput: json)
        handler = EncodeHandler(precision: arguments[Encode.precision], json: json)
    }
}

public struct EncodeHandler: RecordHandler {
    let precision: Int
    let json: Bool

    public func handle(_ record: UnsafeBufferPointer<UInt8>, into output: RecordWriter) throws {
        try GeoJSONReader.readFeatures(record) { feature in
            if json {
                output.write(feature, from: record, adding: try properties(of: feature.geometry))
            } else {
                try output.writePolyline(try singlePath(of: feature.geometry), precision: precision)
            }
        }
    }

    /// The one path a text-mode record encodes.
    func singlePath(of geometry: Geometry?) throws(BadRecord) -> Path {
        do { return try Geometry.singlePath(of: geometry) } catch {
            throw BadRecord("\(error.message): use --to geojson to keep every path")
        }
    }

    /// properties.polyline (and holes) for --to geojson.
    func properties(of geometry: Geometry?) throws -> [(String, JSONValue)] {
        switch geometry {
        case nil: return [("polyline", .string(""))]
        case .point(let position): return [("polyline", try text([position]))]
        case .multiPoint(let path), .lineString(let path): return [("polyline", try text(path))]
        case .polygon(let rings):
            return [("polyline", try text(rings.first ?? [])), ("holes", .array(try rings.dropFirst().map(text)))]
        case .multiLineString(let lines):
            return [("polyline", .array(try lines.map(text)))]
        case .multiPolygon(let polygons):
            return [("polyline", .array(try polygons.map { try text($0.first ?? []) })),
                    ("holes", .array(try polygons.map { .array(try $0.dropFirst().map(text)) }))]
        case .geometryCollection(let members):
            // One entry per member, in order, as the member alone has it (what geo interpolate
            // writes for a GPX track's parts), and holes only where a member has some.
            let each = try members.map(properties(of:))
            var result: [(String, JSONValue)] = [("polyline", .array(each.map { $0[0].1 }))]
            if each.contains(where: { $0.count > 1 }) { result.append(("holes", .array(each.map { $0.count > 1 ? $0[1].1 : .null }))) }
            return result
        }
    }

    func text(_ path: Path) throws -> JSONValue {
        let buffer = ByteBuffer(capacity: path.count * 8 + 16)
        try appendPolyline(path, precision: precision, to: buffer)
        return .string(buffer.string)
    }
}
