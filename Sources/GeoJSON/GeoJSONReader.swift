import Geometry
import JSONBytes

/// Reads one record (one JSON text) as GeoJSON: a Feature, a bare geometry, or a
/// FeatureCollection (its features, in order). A single pass over the bytes: `coordinates` are
/// read by their nesting depth before the geometry's `type` is known, so member order is free.
public enum GeoJSONReader {
    /// Calls `body` with each Feature of the record, in order.
    public static func readFeatures(_ bytes: UnsafeBufferPointer<UInt8>,
                                    _ body: (Feature) throws -> Void) throws {
        try readFeatures(bytes) { feature, _ in try body(feature) }
    }

    /// Calls `body` with each Feature of the record, in order, and whether it is the record's
    /// last (the whole record is read before the first call).
    public static func readFeatures(_ bytes: UnsafeBufferPointer<UInt8>,
                                    _ body: (Feature, _ isLast: Bool) throws -> Void) throws {
        var scanner = JSONScanner(bytes)
        guard scanner.peek() == UInt8(ascii: "{") else {
            guard let first = scanner.peek() else { throw JSONError("empty record", at: 0) }
            if !"[\"-0123456789tfn".utf8.contains(first) {
                let shown = first >= 0x20 && first < 0x7F ? "'\(Character(Unicode.Scalar(first)))'" : "byte 0x\(String(first, radix: 16, uppercase: true))"
                throw BadRecord("not JSON: a GeoJSON record starts with '{', this one with \(shown)")
            }
            try scanner.skipValue()
            throw BadRecord("expected a GeoJSON object, found a JSON \(scanner.kindName(at: 0))")
        }
        let start = scanner.position
        let object = try readObject(&scanner, depth: 0, keepMembers: true)
        let end = scanner.position
        try scanner.expectEnd()
        switch object.type {
        case .feature:
            try body(try object.feature(), true)
        case .featureCollection:
            guard let features = object.features else { throw BadRecord("FeatureCollection without \"features\"") }
            for (index, feature) in features.enumerated() { try body(feature, index == features.count - 1) }
        default:
            // A bare geometry: its own bytes (bbox, altitudes, foreign members) pass through.
            var feature = Feature(geometry: try object.geometry())
            feature.geometryBytes = start..<end
            try body(feature, true)
        }
    }

    /// Reads a geometry object or `null` at the scanner (a Feature's `geometry` member).
    static func readGeometry(_ scanner: inout JSONScanner, depth: Int) throws -> Geometry? {
        if scanner.null() { return nil }
        guard scanner.peek() == UInt8(ascii: "{") else {
            let start = scanner.position
            try scanner.skipValue()
            throw BadRecord("\"geometry\" must be an object or null, not a JSON \(scanner.kindName(at: start))")
        }
        let object = try readObject(&scanner, depth: depth, keepMembers: false)
        return try object.geometry()
    }

    /// The "type" names geo reads; anything else is an unknown type.
    enum TypeName: String, CaseIterable {
        case feature = "Feature", featureCollection = "FeatureCollection"
        case point = "Point", multiPoint = "MultiPoint", lineString = "LineString"
        case multiLineString = "MultiLineString", polygon = "Polygon", multiPolygon = "MultiPolygon"
        case geometryCollection = "GeometryCollection"
    }

    /// Everything geo interprets in a GeoJSON object of any type.
    struct Object {
        var type: TypeName?
        var unknownType: String?
        var coordinates: Coordinates?
        var geometries: [Geometry]?
        var featureGeometry: Geometry??
        var geometryBytes: Range<Int>?
        var propertiesBytes: Range<Int>?
        var features: [Feature]?
        var members: [Feature.Member] = []

        func feature() throws -> Feature {
            guard let featureGeometry else { throw BadRecord("Feature without a \"geometry\" member") }
            return Feature(members: members, geometry: featureGeometry, geometryBytes: geometryBytes, propertiesBytes: propertiesBytes)
        }

        func geometry() throws -> Geometry {
            if let unknownType {
                // "Linestring", "linestring": type names are case-sensitive (RFC 7946).
                let meant = TypeName.allCases.first { $0.rawValue.lowercased() == unknownType.lowercased() }
                throw BadRecord("unknown GeoJSON type \"\(unknownType)\"" + (meant.map { "; did you mean \"\($0.rawValue)\"?" } ?? ""))
            }
            guard let type else { throw BadRecord("object without a \"type\" member") }
            if type == .geometryCollection {
                guard let geometries else { throw BadRecord("GeometryCollection without \"geometries\"") }
                return .geometryCollection(geometries)
            }
            guard let coordinates else {
                if type == .feature || type == .featureCollection {
                    throw BadRecord("expected a geometry, found a \(type == .feature ? "Feature" : "FeatureCollection")")
                }
                throw BadRecord("geometry without \"coordinates\"")
            }
            switch (type, coordinates) {
            case (.point, .position(let p)): return .point(p)
            case (.multiPoint, .paths(let paths)): return .multiPoint(paths)
            case (.multiPoint, .empty): return .multiPoint([])
            case (.lineString, .paths(let path)): return .lineString(path)
            case (.lineString, .empty): return .lineString([])
            case (.multiLineString, .pathLists(let lists)): return .multiLineString(lists)
            case (.multiLineString, .empty): return .multiLineString([])
            case (.polygon, .pathLists(let rings)): return .polygon(rings)
            case (.polygon, .empty): return .polygon([])
            case (.multiPolygon, .polygonLists(let polygons)): return .multiPolygon(polygons)
            case (.multiPolygon, .empty): return .multiPolygon([])
            default: throw BadRecord("\"coordinates\" of a \(type.rawValue) must be \(type.expectedCoordinates)")
            }
        }
    }

    /// `coordinates` by nesting depth: a position, a list of positions, of lists, of lists of lists.
    enum Coordinates {
        case empty
        case position(Position)
        case paths(Path)
        case pathLists([Path])
        case polygonLists([[Path]])
    }

    static func readObject(_ scanner: inout JSONScanner, depth: Int, keepMembers: Bool) throws -> Object {
        guard depth < 64 else { throw JSONError("GeoJSON nested deeper than 64 levels", at: scanner.position) }
        var object = Object()
        guard try scanner.enter(UInt8(ascii: "{"), UInt8(ascii: "}")) else { return object }
        // A Feature has three members, often a few more: one allocation, not one per doubling.
        if keepMembers { object.members.reserveCapacity(6) }
        var seen: UInt8 = 0
        func once(_ bit: UInt8, _ name: String) throws {
            if seen & bit != 0 { throw BadRecord("duplicate member \"\(name)\"") }
            seen |= bit
        }
        repeat {
            scanner.skipWhitespace()
            let keyStart = scanner.position
            let key = try scanner.key()
            let keyRange = keyStart..<(key.content.upperBound + 1)
            _ = scanner.peek()
            let valueStart = scanner.position
            var role = Feature.Role.other
            if scanner.token(key, is: "type") {
                try once(1, "type")
                role = .type
                guard scanner.peek() == UInt8(ascii: "\"") else {
                    try scanner.skipValue()
                    throw BadRecord("\"type\" must be a string")
                }
                let name = try scanner.string()
                object.type = TypeName.allCases.first { scanner.token(name, is: $0.name) }
                if object.type == nil { object.unknownType = scanner.text(name) }
            } else if scanner.token(key, is: "coordinates") {
                try once(2, "coordinates")
                object.coordinates = try readCoordinates(&scanner)
            } else if scanner.token(key, is: "geometry") {
                try once(4, "geometry")
                role = .geometry
                object.featureGeometry = .some(try readGeometry(&scanner, depth: depth + 1))
                object.geometryBytes = valueStart..<scanner.position
            } else if scanner.token(key, is: "properties") {
                try once(8, "properties")
                role = .properties
                let kind = scanner.peek()
                try scanner.skipValue(depth: depth + 1)
                guard kind == UInt8(ascii: "{") || scanner.isNull(valueStart..<scanner.position) else {
                    throw BadRecord("\"properties\" must be an object or null")
                }
                object.propertiesBytes = valueStart..<scanner.position
            } else if scanner.token(key, is: "features") {
                try once(16, "features")
                var features: [Feature] = []
                if try scanner.enter(UInt8(ascii: "["), UInt8(ascii: "]")) {
                    repeat {
                        guard scanner.peek() == UInt8(ascii: "{") else { throw BadRecord("a FeatureCollection's features must be Feature objects") }
                        let element = try readObject(&scanner, depth: depth + 1, keepMembers: true)
                        guard element.type == .feature else { throw BadRecord("a FeatureCollection's features must be Feature objects") }
                        features.append(try element.feature())
                    } while try scanner.next(UInt8(ascii: "]"))
                }
                object.features = features
            } else if scanner.token(key, is: "geometries") {
                try once(32, "geometries")
                var geometries: [Geometry] = []
                if try scanner.enter(UInt8(ascii: "["), UInt8(ascii: "]")) {
                    repeat {
                        guard let geometry = try readGeometry(&scanner, depth: depth + 1) else {
                            throw BadRecord("a GeometryCollection's geometries must not be null")
                        }
                        geometries.append(geometry)
                    } while try scanner.next(UInt8(ascii: "]"))
                }
                object.geometries = geometries
            } else {
                try scanner.skipValue(depth: depth + 1)
            }
            if keepMembers {
                object.members.append(Feature.Member(role: role, key: keyRange, value: valueStart..<scanner.position))
            }
        } while try scanner.next(UInt8(ascii: "}"))
        return object
    }

    /// Reads `coordinates`, finding its depth from the run of `[` before the first number.
    static func readCoordinates(_ scanner: inout JSONScanner) throws -> Coordinates {
        var probe = scanner
        var depth = 0
        while probe.peek() == UInt8(ascii: "[") { depth += 1; probe.position += 1 }
        switch depth {
        case 0:
            if scanner.null() { throw BadRecord("\"coordinates\" is null") }
            throw BadRecord("\"coordinates\" must be an array")
        case 1:
            if probe.peek() == UInt8(ascii: "]") { try scanner.skipValue(); return .empty }
            return .position(try readPosition(&scanner))
        case 2:
            if probe.peek() == UInt8(ascii: "]") && depth == 2 {
                // `[[]]`: a list holding an empty list; only lists of lists may hold one.
                return .pathLists(try readList(&scanner) { try readPath(&$0) })
            }
            return .paths(try readPath(&scanner))
        case 3:
            return .pathLists(try readList(&scanner) { try readPath(&$0) })
        case 4:
            return .polygonLists(try readList(&scanner) { try readList(&$0) { try readPath(&$0) } })
        default:
            throw BadRecord("\"coordinates\" nested \(depth) deep; GeoJSON has at most 4")
        }
    }

    @inline(__always)
    static func readList<T>(_ scanner: inout JSONScanner, _ element: (inout JSONScanner) throws -> T) throws -> [T] {
        var list: [T] = []
        guard try scanner.enter(UInt8(ascii: "["), UInt8(ascii: "]")) else { return list }
        repeat { list.append(try element(&scanner)) } while try scanner.next(UInt8(ascii: "]"))
        return list
    }

    @inline(__always)
    static func readPath(_ scanner: inout JSONScanner) throws -> Path {
        var path: Path = []
        guard try scanner.enter(UInt8(ascii: "["), UInt8(ascii: "]")) else { return path }
        path.reserveCapacity(16)
        repeat {
            let start = scanner.position
            if let (longitude, latitude) = scanner.compactPair() {
                // The fast reader has read the position whole: a latitude out of range is told
                // here, in the user's terms (not as the JSON error a second read would meet).
                guard latitude >= -90 && latitude <= 90 else { throw latitudeOutOfRange(scanner, start) }
                path.append(Position(longitude: longitude, latitude: latitude))
            } else {
                path.append(try readPosition(&scanner))
            }
        } while try scanner.nextElement(UInt8(ascii: "]"))
        return path
    }

    /// `[lon, lat, ...]`: a finite longitude, a latitude in [-90, 90], any further numbers ignored.
    @inline(__always)
    static func readPosition(_ scanner: inout JSONScanner) throws -> Position {
        let start = scanner.position
        guard try scanner.enter(UInt8(ascii: "["), UInt8(ascii: "]")) else {
            throw BadRecord("empty position [] (a position needs a longitude and a latitude)")
        }
        guard scanner.peek() != UInt8(ascii: "[") else { throw BadRecord("positions are nested unevenly in \"coordinates\"") }
        let longitude = try scanner.number()
        guard try scanner.next(UInt8(ascii: "]")) else {
            throw BadRecord("position with one number (a position needs a longitude and a latitude)")
        }
        let latitude = try scanner.number()
        while try scanner.next(UInt8(ascii: "]")) { _ = try scanner.number() }
        guard longitude.isFinite, latitude.isFinite else {
            throw BadRecord("position \(scanner.excerpt(start..<scanner.position)) is not finite")
        }
        guard latitude >= -90 && latitude <= 90 else { throw latitudeOutOfRange(scanner, start) }
        return Position(longitude: longitude, latitude: latitude)
    }

    /// The position that ends at the scanner and starts at `start` has a latitude out of range.
    static func latitudeOutOfRange(_ scanner: JSONScanner, _ start: Int) -> BadRecord {
        BadRecord("latitude \(scanner.excerpt(start..<scanner.position)) is outside [-90, 90] (positions are [longitude, latitude])")
    }
}

extension GeoJSONReader.TypeName {
    /// The name as static text, compared with the bytes of a record without making a String of
    /// them (a String switch had been a cost of every record).
    var name: StaticString {
        switch self {
        case .feature: "Feature"
        case .featureCollection: "FeatureCollection"
        case .point: "Point"
        case .multiPoint: "MultiPoint"
        case .lineString: "LineString"
        case .multiLineString: "MultiLineString"
        case .polygon: "Polygon"
        case .multiPolygon: "MultiPolygon"
        case .geometryCollection: "GeometryCollection"
        }
    }

    var expectedCoordinates: String {
        switch self {
        case .point: "a position [lon, lat]"
        case .multiPoint, .lineString: "an array of positions"
        case .multiLineString, .polygon: "an array of arrays of positions"
        case .multiPolygon: "an array of polygons (arrays of arrays of positions)"
        default: "absent"
        }
    }
}

extension JSONScanner {
    /// "object", "array", "string", ... for the value starting at `offset`.
    func kindName(at offset: Int) -> String {
        var probe = JSONScanner(bytes, position: offset)
        switch probe.peek() {
        case UInt8(ascii: "{"): return "object"
        case UInt8(ascii: "["): return "array"
        case UInt8(ascii: "\""): return "string"
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return "boolean"
        case UInt8(ascii: "n"): return "null"
        default: return "number"
        }
    }

    func isNull(_ range: Range<Int>) -> Bool {
        range.count == 4 && bytes[range.lowerBound] == UInt8(ascii: "n")
    }

    /// The raw text of a range for error messages, on one line and shortened if long.
    func excerpt(_ range: Range<Int>) -> String {
        MessageText.excerpt(UnsafeBufferPointer(rebasing: bytes[range]))
    }
}
