import CommandKit
import GeoCommandLine
import Geodesy
import GeodesyOptions
import GeoJSON
import Geometry
import Records

/// `geo offset`: GMSGeometryOffset of every position (and computeOffsetOrigin with --origin).
public struct Offset: StreamingCommand {
    public static let description = CommandDescription(
        name: "offset",
        summary: "move every position a distance at a heading (or find where it came from)",
        discussion: """
        Moves every position of each record --distance D metres at --heading H degrees clockwise \
        from north (GMSGeometryOffset): the direct geodesic problem on the ellipsoid, the rhumb \
        line with --kind rhumb, a straight line in Web Mercator with --kind projected (D in Web \
        Mercator metres). With --origin, each position instead becomes the point from which \
        travelling D at H arrives at it (android-maps-utils' computeOffsetOrigin). D and H are \
        numbers, or @NAME: the number in the record's properties.NAME (a record without it is a \
        bad record). A negative D moves the other way. The geometry keeps its type; output \
        longitudes are in [-180, 180]; every other member is copied unchanged.

        A rhumb line starting at a pole has no course, and one whose northward part runs past a \
        pole never gets there: both are bad records. With --origin, a position that no point \
        reaches by travelling D at H is a bad record (computeOffsetOrigin's null: 80N reached \
        heading due south after 5,000 km would have to come from beyond the pole).

        Accuracy: geodesic offsets are PROJ's geod_direct (Karney's algorithm), within 15 nm; \
        rhumb offsets agree with GeographicLib's RhumbSolve within 1e-7 m. On the ellipsoid, \
        --origin solves the direct problem backwards (the secant method on the azimuth of \
        arrival, else Newton's method on the origin): the direct problem from \
        the origin lands within 1 micrometre of the position (nanometres in practice); rhumb and \
        projected origins are the same line run backwards, exact. With --sphere 6371009 the \
        results are SphericalUtil.computeOffset's and computeOffsetOrigin's (android-maps-utils).
        """,
        options: [distance, heading, origin] + GeodesyOptions.options + PathInputFormat.options
            + PathOutputFormat.options + [StreamOptions.digits] + StreamOptions.geoJSONFraming + StreamOptions.common,
        examples: [
            Example("geo offset --distance 1000 --heading 90 examples/stations.ndjson",
                    "Every station moved 1 km due east, on the geodesic."),
            Example("geo offset --origin --distance 5000 --heading 45 --sphere 6371009 examples/stations.ndjson",
                    "Where each station would have been 5 km before, heading north-east (computeOffsetOrigin)."),
            Example("geo offset --kind rhumb --distance @range_m --heading 0 examples/stations.ndjson",
                    "Each station moved due north by its own range_m, on a rhumb line."),
        ])

    public static let sampleArguments = [
        ["--distance", "1000", "--heading", "90"], ["--distance", "5000", "--heading", "-45", "--origin", "--kind", "rhumb"],
        ["--distance", "20000", "--heading", "10", "--origin", "--sphere", "6371009", "--digits", "6"],
        ["--distance", "@d", "--heading", "@h", "--kind", "projected", "--to", "polyline", "--from", "polyline"],
    ]

    /// A number given on the command line, or the name of a property that holds one per record.
    public enum Amount: Sendable, Equatable {
        case value(Double)
        case property(String)

        static func parse(_ option: String) -> @Sendable (String) throws(UsageError) -> Amount {
            { text throws(UsageError) in
                if text.hasPrefix("@") {
                    guard text.count > 1 else { throw UsageError("option '--\(option)' takes a number or @NAME, not '@': name the property") }
                    return .property(String(text.dropFirst()))
                }
                guard text.allSatisfy({ $0.isNumber || "+-.eE".contains($0) }), let number = Double(text), number.isFinite else {
                    throw UsageError("option '--\(option)' takes a finite number or @NAME (a property), not '\(text)'")
                }
                return .value(number)
            }
        }

        /// The amount for one record.
        func value(in feature: Feature, from record: UnsafeBufferPointer<UInt8>) throws -> Double {
            switch self {
            case .value(let number): return number
            case .property(let name):
                guard let number = try feature.numberProperty(name, in: record), number.isFinite else {
                    throw BadRecord("properties.\(name) is missing or not a number")
                }
                return number
            }
        }
    }

    static let distance = Option(custom: "distance", valueName: "D", help: "Metres to travel (Web Mercator metres with --kind projected), or @NAME: properties.NAME of each record.",
                                 parse: Amount.parse("distance"))
    static let heading = Option(custom: "heading", valueName: "H", help: "Degrees clockwise from north, or @NAME: properties.NAME of each record.",
                                parse: Amount.parse("heading"))
    static let origin = Flag("origin", help: "Instead, each position becomes the point from which travelling D at H arrives at it (computeOffsetOrigin).")

    public let stream: StreamConfiguration
    public let handler: OffsetHandler

    public init(_ arguments: ParsedArguments) throws(UsageError) {
        guard let distance = arguments[Offset.distance], let heading = arguments[Offset.heading] else {
            throw UsageError("give both --distance D and --heading H")
        }
        let format = try PathOutputFormat(arguments)
        stream = try StreamOptions.configuration(arguments, jsonOutput: format.isGeoJSON)
        handler = OffsetHandler(input: try PathInputFormat(arguments), output: format, model: try GeodesyOptions.model(arguments),
                                distance: distance, heading: heading, origin: arguments[Offset.origin])
    }
}

public struct OffsetHandler: PathHandler {
    public let input: PathInputFormat
    let output: PathOutputFormat
    let model: EdgeModel
    let distance: Offset.Amount
    let heading: Offset.Amount
    let origin: Bool

    public func handle(_ record: UnsafeBufferPointer<UInt8>, into out: RecordWriter) throws {
        try input.readFeatures(record) { feature in
            let metres = try distance.value(in: feature, from: record)
            let degrees = try heading.value(in: feature, from: record)
            let moved = try feature.geometry.map { try move($0, metres, degrees) }
            try out.write(feature, from: record, replacing: moved, as: output)
        }
    }

    func move(_ geometry: Geometry, _ metres: Double, _ degrees: Double) throws -> Geometry {
        func path(_ positions: Path) throws -> Path {
            try model.validate(positions)
            return try positions.map { try move($0, metres, degrees) }
        }
        switch geometry {
        case .point(let position): return .point(try path([position])[0])
        case .multiPoint(let points): return .multiPoint(try path(points))
        case .lineString(let line): return .lineString(try path(line))
        case .multiLineString(let lines): return .multiLineString(try lines.map(path))
        case .polygon(let rings): return .polygon(try rings.map(path))
        case .multiPolygon(let polygons): return .multiPolygon(try polygons.map { try $0.map(path) })
        case .geometryCollection(let members): return .geometryCollection(try members.map { try move($0, metres, degrees) })
        }
    }

    func move(_ position: Position, _ metres: Double, _ degrees: Double) throws -> Position {
        guard origin else { return try model.offset(position, distance: metres, heading: degrees) }
        guard let found = try model.offsetOrigin(of: position, distance: metres, heading: degrees) else {
            throw BadRecord("no position reaches [\(number: position.longitude), \(number: position.latitude)] travelling \(number: metres) m at heading \(number: degrees)")
        }
        return found
    }
}
