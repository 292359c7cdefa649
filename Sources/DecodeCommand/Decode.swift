import CommandKit
import GeoCommandLine
import GeoJSON
import Geometry
import JSONBytes
import Polyline
import Records

/// `geo decode`: Google encoded polylines in, GeoJSON out.
public struct Decode: StreamingCommand {
    public static let description = CommandDescription(
        name: "decode",
        summary: "decode Google encoded polylines into GeoJSON",
        discussion: """
        Reads one encoded polyline per line, raw or as a JSON string literal, and writes a GeoJSON \
        Feature for each: a LineString for two or more points, a Point for one, a null geometry for \
        the empty polyline ("").

        Each coordinate is the decoded integer divided by 10^precision, so it prints exactly as the \
        decimal that was encoded (-126.453, never -126.45300000000002). A byte outside '?'..'~', a \
        value that runs off the end of the line, a latitude without a longitude, a value that \
        overflows 64 bits, and a decoded latitude outside [-90, 90] (often a wrong --precision) are \
        bad records, reported with the byte offset.

        With --field NAME the records are GeoJSON Features whose properties.NAME holds the polyline: \
        the Feature is kept and its geometry replaced by the decoded path. With --to text each \
        polyline becomes a line of space-separated "lat,lng" pairs instead.
        """,
        options: [PathInputFormat.precision, field, to, StreamOptions.digits] + StreamOptions.geoJSONFraming + StreamOptions.common,
        examples: [
            Example("echo '_p~iF~ps|U_ulLnnqC_mqNvxq`@' | geo decode",
                    "Prints a LineString Feature through (38.5,-120.2), (40.7,-120.95), (43.252,-126.453)."),
            Example("geo decode -p6 < osrm-routes.txt | geo length | jq .properties.length_m",
                    "Decodes polyline6 routes and measures them on the WGS84 ellipsoid."),
            Example("geo decode --field polyline trips.ndjson > trips.geojsonl",
                    "Replaces each trip's geometry by the path in its properties.polyline."),
        ])

    enum Output: String, CaseIterable, Sendable { case geojson, json, text }

    static let field = Option(text: "field", valueName: "NAME", help: "Read JSON objects (Features, or any object) and decode the polyline in properties.NAME, or in the member NAME of an object that is not a Feature.")
    static let to = Option(choice: "to", of: Output.self, help: "Output: GeoJSON Features (json is the same), or lines of \"lat,lng\" pairs.")
        .defaulting(to: .geojson)

    public let stream: StreamConfiguration
    public let handler: DecodeHandler

    public init(_ arguments: ParsedArguments) throws(UsageError) {
        let text = arguments[Decode.to] == .text
        stream = try StreamOptions.configuration(arguments, jsonOutput: !text)
        handler = DecodeHandler(precision: arguments[PathInputFormat.precision], field: arguments[Decode.field],
                                text: text, decimals: stream.decimals)
    }
}

public struct DecodeHandler: RecordHandler {
    /// Plain polyline lines, unless --field reads them from Features.
    public var readsJSON: Bool { field != nil }
    let precision: Int
    let field: String?
    let text: Bool
    let decimals: Int?

    public func handle(_ record: UnsafeBufferPointer<UInt8>, into output: RecordWriter) throws {
        guard let field else {
            let path = try PathInputFormat.path(ofPolylineRecord: record, precision: precision)
            if text { return writeText(path, to: output) }
            output.write(Feature(geometry: nil), from: record, geometry: .replaced(.path(path)))
            return
        }
        try GeoJSONReader.readFeatures(record) { feature in
            let path = try polyline(in: feature, named: field, record: record)
            if text { return writeText(path, to: output) }
            output.write(feature, from: record, geometry: .replaced(.path(path)))
        }
    }

    /// Finds properties.NAME and decodes it.
    func polyline(in feature: Feature, named name: String, record: UnsafeBufferPointer<UInt8>) throws -> Path {
        guard let properties = feature.propertiesBytes, record[properties.lowerBound] == UInt8(ascii: "{") else {
            throw BadRecord("no properties to find \"\(name)\" in")
        }
        var scanner = JSONScanner(record, position: properties.lowerBound)
        if try scanner.enter(UInt8(ascii: "{"), UInt8(ascii: "}")) {
            repeat {
                let key = try scanner.key()
                guard scanner.text(key) == name else { try scanner.skipValue(); continue }
                guard scanner.peek() == UInt8(ascii: "\"") else {
                    throw BadRecord("properties.\(name) is not a string")
                }
                let start = scanner.position
                try scanner.skipValue()
                return try PathInputFormat.path(ofPolylineRecord: UnsafeBufferPointer(rebasing: record[start..<scanner.position]),
                                          precision: precision)
            } while try scanner.next(UInt8(ascii: "}"))
        }
        throw BadRecord("properties.\(name) is missing")
    }

    /// `lat,lng lat,lng ...`
    func writeText(_ path: Path, to output: RecordWriter) {
        output.beginRecord()
        for (index, position) in path.enumerated() {
            if index > 0 { output.buffer.append(UInt8(ascii: " ")) }
            output.buffer.appendNumber(position.latitude, decimals: decimals)
            output.buffer.append(UInt8(ascii: ","))
            output.buffer.appendNumber(position.longitude, decimals: decimals)
        }
        output.endRecord()
    }
}
