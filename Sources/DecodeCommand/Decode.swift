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
        the Feature is kept and its geometry replaced by the decoded path. With --to latlng each \
        polyline becomes a line of space-separated "lat,lng" pairs instead.
        """,
        options: [PathInputFormat.precision, field, to, StreamOptions.digits] + StreamOptions.geoJSONFraming + StreamOptions.common,
        examples: [
            Example("echo '_p~iF~ps|U_ulLnnqC_mqNvxq`@' | geo decode",
                    "Prints a LineString Feature through (38.5,-120.2), (40.7,-120.95), (43.252,-126.453)."),
            Example("geo decode -p6 < examples/routes.polyline6 | geo length | jq .properties.length_m",
                    "Decodes polyline6 routes and measures them on the WGS84 ellipsoid."),
            Example("geo decode --field polyline examples/trips.ndjson > trips.geojsonl",
                    "Replaces each trip's geometry by the path in its properties.polyline."),
        ])

    public static let sampleArguments = [[], ["--field", "p", "--to", "latlng"], ["--digits", "3", "--collection", "--to", "json"], ["--to", "text", "-p6"]]

    static let field = Option(text: "field", valueName: "NAME", help: "Read JSON objects (Features, or any object) and decode the polyline in properties.NAME, or in the member NAME of an object that is not a Feature.")
    static let to = PathFormat.option("to", for: .decodeOutput,
                                      help: "Output: GeoJSON Features, or lines of space-separated LAT,LNG pairs (what --from latlng reads).")

    public let stream: StreamConfiguration
    public let handler: DecodeHandler

    public init(_ arguments: ParsedArguments) throws(UsageError) {
        let text = arguments[Decode.to] == .latlng
        stream = try StreamOptions.configuration(arguments, jsonOutput: !text)
        handler = DecodeHandler(precision: arguments[PathInputFormat.precision], field: arguments[Decode.field],
                                text: text, decimals: stream.decimals)
    }
}

public struct DecodeHandler: RecordHandler {
    /// Plain polyline lines, unless --field reads them from Features.
    public var readsJSON: Bool { field != nil }

    public func hint(for record: UnsafeBufferPointer<UInt8>) -> String? {
        if field == nil && record.first == UInt8(ascii: "{") {
            return "decode reads one polyline per line; for polylines inside JSON objects use --field NAME"
        }
        if field != nil && record.first != UInt8(ascii: "{") && record.allSatisfy({ (63...126).contains($0) }) {
            return "is it a plain polyline? drop --field"
        }
        return RecordHints.hint(for: record, readsJSON: readsJSON, pathFormats: false)
    }
    let precision: Int
    let field: String?
    let text: Bool
    let decimals: Int?

    public func handle(_ record: UnsafeBufferPointer<UInt8>, into output: RecordWriter) throws {
        guard let field else {
            if text { return writeText(try PathInputFormat.path(ofPolylineRecord: record, precision: precision), to: output) }
            let path = try PathInputFormat.scaledPath(ofPolylineRecord: record, precision: precision)
            output.write(Feature(geometry: nil), from: record, geometry: .scaled(path))
            return
        }
        guard isGeoJSON(record) else {
            // A plain object (an OSRM route, a row from an API): the polyline is its member NAME,
            // and the object becomes the properties of a new Feature.
            var feature = Feature(geometry: nil)
            feature.propertiesBytes = 0..<record.count
            try write(feature, try geometry(in: 0..<record.count, named: field, record: record, within: "the object"), record, output)
            return
        }
        try GeoJSONReader.readFeatures(record) { feature in
            guard let properties = feature.propertiesBytes, record[properties.lowerBound] == UInt8(ascii: "{") else {
                throw BadRecord("no properties to find \"\(field)\" in")
            }
            try write(feature, try geometry(in: properties, named: field, record: record, within: "properties"), record, output)
        }
    }

    func write(_ feature: Feature, _ geometry: Geometry?, _ record: UnsafeBufferPointer<UInt8>, _ output: RecordWriter) throws {
        guard text else { return output.write(feature, from: record, geometry: .replaced(geometry)) }
        let path: Path
        do { path = try Geometry.singlePath(of: geometry) } catch { throw BadRecord("\(error.message): use GeoJSON output") }
        writeText(path, to: output)
    }

    /// Whether a JSON object is GeoJSON (it has a "type" member) rather than a plain object.
    func isGeoJSON(_ record: UnsafeBufferPointer<UInt8>) -> Bool {
        var scanner = JSONScanner(record)
        guard (try? scanner.enter(UInt8(ascii: "{"), UInt8(ascii: "}"))) == true else { return true }
        repeat {
            guard let key = try? scanner.key() else { return true }
            if scanner.token(key, is: "type") { return true }
            guard (try? scanner.skipValue()) != nil else { return true }
        } while (try? scanner.next(UInt8(ascii: "}"))) == true
        return false
    }

    /// The geometry that the object at `range` holds in its member NAME: a polyline string (a
    /// LineString, a Point, or null for ""), or an array of them (a MultiLineString); with a
    /// `holes` member beside it, as `geo encode --to geojson` writes them, a Polygon or MultiPolygon.
    func geometry(in range: Range<Int>, named name: String, record: UnsafeBufferPointer<UInt8>, within place: String) throws -> Geometry? {
        var scanner = JSONScanner(record, position: range.lowerBound)
        var paths: Range<Int>?, holes: Range<Int>?
        if try scanner.enter(UInt8(ascii: "{"), UInt8(ascii: "}")) {
            repeat {
                let key = try scanner.key()
                let keyName = scanner.text(key)
                _ = scanner.peek()
                let start = scanner.position
                try scanner.skipValue()
                if keyName == name { paths = start..<scanner.position } else if keyName == "holes" { holes = start..<scanner.position }
            } while try scanner.next(UInt8(ascii: "}"))
        }
        let member = place == "properties" ? "properties.\(name)" : "\"\(name)\""
        guard let paths else { throw BadRecord("\(member) is missing in \(place)") }
        let outer = try polylines(paths, record, member)
        guard let holes else {
            switch outer {
            case .one(let path): return .path(path)
            case .many(let lines): return .multiLineString(lines)
            }
        }
        switch (outer, try holeLists(holes, record)) {
        case (.one(let ring), .one(let rings)): return .polygon([ring] + rings)
        case (.many(let rings), .many(let ringLists)) where rings.count == ringLists.count:
            return .multiPolygon(zip(rings, ringLists).map { [$0] + $1 })
        case (.many(let rings), .one(let ringLists)) where rings.isEmpty && ringLists.isEmpty:
            return .multiPolygon([])
        default: throw BadRecord("\(member) and holes do not match (one polyline takes a list of holes, a list of polylines a list of lists)")
        }
    }

    enum Polylines { case one(Path), many([Path]) }
    enum Holes { case one([Path]), many([[Path]]) }

    /// A polyline string, or an array of them.
    func polylines(_ range: Range<Int>, _ record: UnsafeBufferPointer<UInt8>, _ member: String) throws -> Polylines {
        if record[range.lowerBound] == UInt8(ascii: "\"") { return .one(try path(range, record)) }
        guard record[range.lowerBound] == UInt8(ascii: "[") else { throw BadRecord("\(member) is neither a polyline string nor an array of them") }
        return .many(try elements(range, record).map { try path($0, record) })
    }

    /// `holes`: an array of polylines (a Polygon's) or of arrays of them (a MultiPolygon's).
    func holeLists(_ range: Range<Int>, _ record: UnsafeBufferPointer<UInt8>) throws -> Holes {
        guard record[range.lowerBound] == UInt8(ascii: "[") else { throw BadRecord("holes is not an array") }
        let items = try elements(range, record)
        if let first = items.first, record[first.lowerBound] == UInt8(ascii: "[") {
            return .many(try items.map { try elements($0, record).map { try path($0, record) } })
        }
        return .one(try items.map { try path($0, record) })
    }

    func elements(_ range: Range<Int>, _ record: UnsafeBufferPointer<UInt8>) throws -> [Range<Int>] {
        var scanner = JSONScanner(record, position: range.lowerBound)
        var items: [Range<Int>] = []
        if try scanner.enter(UInt8(ascii: "["), UInt8(ascii: "]")) {
            repeat {
                _ = scanner.peek()
                let start = scanner.position
                try scanner.skipValue()
                items.append(start..<scanner.position)
            } while try scanner.next(UInt8(ascii: "]"))
        }
        return items
    }

    func path(_ range: Range<Int>, _ record: UnsafeBufferPointer<UInt8>) throws -> Path {
        guard record[range.lowerBound] == UInt8(ascii: "\"") else { throw BadRecord("a polyline must be a JSON string") }
        return try PathInputFormat.path(ofPolylineRecord: UnsafeBufferPointer(rebasing: record[range]), precision: precision)
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
