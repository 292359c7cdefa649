import GeoCommandLine
import GeoJSON
import Geometry
import JSONBytes
import Polyline
import Records

/// How path-consuming commands read their records: GeoJSON (default); with `--from polyline`
/// one encoded polyline per line (raw or as a JSON string literal); with `--from latlng` one path
/// per line as `LAT,LNG LAT,LNG ...`, what `geo decode --to latlng` writes. The words are
/// PathFormat's, every command's for `--from` and `--to`.
public enum PathInputFormat: Sendable, Equatable {
    case geoJSON
    case polyline(precision: Int)
    case latLng

    public static let from = PathFormat.option("from", for: .input, help: "Input format: GeoJSON records, one encoded polyline per line (raw or a JSON string), or one path per line as LAT,LNG LAT,LNG ... (what geo decode --to latlng writes).")
    /// The precision of polylines read (decode's, and --from polyline's).
    public static let precision = Option(integer: "precision", short: "p", in: Polyline.precisions, help: "Decimal digits of the encoded polylines read (5 for Google, 6 for OSRM/Valhalla polyline6).")
        .defaulting(to: 5)
    public static let options: [any OptionDeclaration] = [from, precision]

    public init(_ arguments: ParsedArguments) throws(UsageError) {
        switch arguments[PathInputFormat.from] {
        case .geojson: self = .geoJSON
        case .polyline: self = .polyline(precision: arguments[PathInputFormat.precision])
        case .latlng: self = .latLng
        }
        if arguments.has(PathInputFormat.precision) && arguments[PathInputFormat.from] != .polyline {
            throw UsageError("--precision is the precision of the polylines read: it goes with --from polyline")
        }
    }

    /// The records are GeoJSON texts (not polyline or text lines).
    public var readsJSON: Bool { self == .geoJSON }

    /// What a failed record probably meant: polylines or text paths given as GeoJSON.
    public func hint(for record: UnsafeBufferPointer<UInt8>) -> String? {
        RecordHints.hint(for: record, readsJSON: readsJSON, pathFormats: true)
    }

    /// Calls `body` with each Feature in the record.
    @inline(__always)
    public func readFeatures(_ record: UnsafeBufferPointer<UInt8>, _ body: (Feature) throws -> Void) throws {
        try readFeatures(record) { feature, _ in try body(feature) }
    }

    /// Calls `body` with each Feature in the record, and whether it is the record's last.
    @inline(__always)
    public func readFeatures(_ record: UnsafeBufferPointer<UInt8>, _ body: (Feature, _ isLast: Bool) throws -> Void) throws {
        switch self {
        case .geoJSON:
            try GeoJSONReader.readFeatures(record, body)
        case .polyline(let precision):
            try body(Feature(geometry: .path(try PathInputFormat.path(ofPolylineRecord: record, precision: precision))), true)
        case .latLng:
            try body(Feature(geometry: .path(try PathInputFormat.path(ofTextRecord: record))), true)
        }
    }

    /// Decodes a raw polyline, or a JSON string literal holding one.
    public static func path(ofPolylineRecord record: UnsafeBufferPointer<UInt8>, precision: Int) throws -> Path {
        try withPolylineText(of: record, precision: precision) { text in
            var path = Path()
            path.reserveCapacity(text.count / 4)
            let factor = Polyline.scale(precision)
            try decode(text, precision: precision) { latitude, longitude in
                path.append(Position(longitude: Double(longitude) / factor, latitude: Double(latitude) / factor))
            }
            return path
        }
    }

    /// Decodes a raw polyline, or a JSON string literal holding one, keeping its exact integers:
    /// what `geo decode` prints with integer arithmetic alone.
    public static func scaledPath(ofPolylineRecord record: UnsafeBufferPointer<UInt8>, precision: Int) throws -> ScaledPath {
        try withPolylineText(of: record, precision: precision) { text in
            var path = ScaledPath(scale: precision)
            path.integers = try Array(unsafeUninitializedCapacity: Polyline.valueCountBound(text)) { buffer, count in
                count = try Polyline.decodeIntoPairs(text, buffer.baseAddress!)
            }
            let limit = 90 * Int64(Polyline.scale(precision))
            var index = 1
            while index < path.integers.count {
                if path.integers[index].magnitude > limit { throw latitudeOutOfRange(path.integers[index], precision: precision) }
                index += 2
            }
            return path
        }
    }

    /// Decodes the polyline text of a record (the record itself, or the content of its JSON
    /// string literal) with `body`; a polyline that fails gets a hint when it can tell what it
    /// probably was (`PolylineHints`): here, so that every command that reads polylines tells it.
    @inline(__always)
    static func withPolylineText<Result>(of record: UnsafeBufferPointer<UInt8>, precision: Int,
                                         _ body: (UnsafeBufferPointer<UInt8>) throws -> Result) throws -> Result {
        func decoding(_ text: UnsafeBufferPointer<UInt8>) throws -> Result {
            do {
                return try body(text)
            } catch {
                guard let hint = PolylineHints.hint(forFailed: text, precision: precision) else { throw error }
                throw BadRecord("\(error)", hint: hint)
            }
        }
        guard record.first == UInt8(ascii: "\"") else { return try decoding(record) }
        var scanner = JSONScanner(record)
        let token = try scanner.string()
        try scanner.expectEnd()
        if !token.hasEscapes { return try decoding(UnsafeBufferPointer(rebasing: record[token.content])) }
        var text = scanner.text(token)
        return try text.withUTF8 { try decoding($0) }
    }

    /// Decodes polyline bytes to integer pairs (latitude, longitude, each over 10^precision),
    /// rejecting a latitude outside [-90, 90], the usual sign of a wrong --precision.
    @inline(__always)
    static func decode(_ text: UnsafeBufferPointer<UInt8>, precision: Int, _ body: (Int64, Int64) -> Void) throws {
        let limit = 90 * UInt64(Polyline.scale(precision))
        var outOfRange: Int64?
        try Polyline.decode(text) { latitude, longitude in
            if latitude.magnitude > limit && outOfRange == nil { outOfRange = latitude }
            body(latitude, longitude)
        }
        if let outOfRange { throw latitudeOutOfRange(outOfRange, precision: precision) }
    }

    static func latitudeOutOfRange(_ latitude: Int64, precision: Int) -> BadRecord {
        BadRecord("decoded latitude \(number: Double(latitude) / Polyline.scale(precision)) is outside [-90, 90] (is --precision \(precision) right?)")
    }

    /// `51.5,-0.12 48.85,2.35`: pairs of latitude and longitude separated by white space.
    public static func path(ofTextRecord record: UnsafeBufferPointer<UInt8>) throws -> Path {
        var path = Path()
        var index = 0
        while index < record.count {
            while index < record.count && (record[index] == 0x20 || record[index] == 0x09) { index += 1 }
            guard index < record.count else { break }
            let start = index
            while index < record.count && record[index] != 0x20 && record[index] != 0x09 { index += 1 }
            let pair = UnsafeBufferPointer(rebasing: record[start..<index])
            guard let comma = pair.firstIndex(of: UInt8(ascii: ",")),
                  let latitude = plainNumber(UnsafeBufferPointer(rebasing: pair[..<comma])),
                  let longitude = plainNumber(UnsafeBufferPointer(rebasing: pair[(comma + 1)...])) else {
                throw BadRecord("'\(MessageText.excerpt(pair))' (position \(path.count + 1)) is not LAT,LNG: text paths are lines of LAT,LNG pairs separated by spaces")
            }
            guard (-90...90).contains(latitude) else {
                throw BadRecord("latitude \(number: latitude) (position \(path.count + 1)) is outside [-90, 90] (text paths are LAT,LNG)")
            }
            path.append(Position(longitude: longitude, latitude: latitude))
        }
        return path
    }

    /// A finite JSON number, the whole of `text`.
    static func plainNumber(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        var scanner = JSONScanner(text)
        guard let value = try? scanner.number(), (try? scanner.expectEnd()) != nil, value.isFinite else { return nil }
        return value
    }
}
