import CommandKit
import GeoCommandLine
import Geodesy
import GeodesyOptions
import GeoJSON
import Geometry
import Records

/// `geo heading`: GMSGeometryHeading of every segment, on the ellipsoid, by --kind.
public struct Heading: StreamingCommand {
    public static let description = CommandDescription(
        name: "heading",
        summary: "add the heading of each segment, geodesic, rhumb or projected",
        discussion: """
        Adds properties.headings: for each segment of the record's path, the heading at its start \
        in degrees clockwise from north, in [0, 360) (GMSGeometryHeading), each edge following \
        --kind: the geodesic's azimuth on the ellipsoid, the rhumb line's constant course, or the \
        grid bearing in Web Mercator. With --final, properties.final_headings also gives the \
        heading on arrival at each segment's end (for rhumb and projected edges, the same). A \
        segment of length 0 (a repeated position, or two longitudes of one pole) has the heading \
        null. A LineString gets one list; a MultiLineString one list per part, a Polygon one per \
        ring (its closing segment included when the ring is not closed), a MultiPolygon one list \
        of rings per polygon, a GeometryCollection one entry per member; a Point, a MultiPoint \
        and a null geometry have no segments (an empty list). The geometry and every other \
        member are copied unchanged.

        Accuracy: geodesic headings are PROJ's geod_inverse azimuths (Karney's algorithm), within \
        1e-9 degrees of GeographicLib (on a segment of a few metres the rounding of its short \
        sides grows to 3e-8 degrees, under a nanometre across it); rhumb courses agree with GeographicLib's RhumbSolve to \
        1e-9 degrees. With --sphere 6371009 the results are SphericalUtil.computeHeading's \
        (android-maps-utils), as a compass heading (its -90 is 270 here).
        """,
        options: [final] + GeodesyOptions.options + PathInputFormat.options + StreamOptions.geoJSONFraming + StreamOptions.common,
        examples: [
            Example("geo heading examples/routes.ndjson | jq -c .properties.headings",
                    "The geodesic heading of each segment of each route on WGS84."),
            Example("geo heading --kind rhumb --final --from polyline examples/routes.polyline",
                    "Rhumb-line courses (constant along each segment), first and last."),
            Example("geo heading --sphere 6371009 examples/flights.ndjson",
                    "Headings as the Maps SDK computes them (spherical)."),
        ])

    public static let sampleArguments = [["--final"], ["--kind", "rhumb", "--sphere", "6371009"], ["--kind", "projected", "--from", "polyline", "-p6"]]

    static let final = Flag("final", help: "Also add properties.final_headings, the heading on arrival at each segment's end.")

    public let stream: StreamConfiguration
    public let handler: HeadingHandler

    public init(_ arguments: ParsedArguments) throws(UsageError) {
        stream = try StreamOptions.configuration(arguments, jsonOutput: true)
        handler = HeadingHandler(input: try PathInputFormat(arguments), model: try GeodesyOptions.model(arguments),
                                 final: arguments[Heading.final])
    }
}

public struct HeadingHandler: PathHandler {
    public let input: PathInputFormat
    let model: EdgeModel
    let final: Bool

    public func handle(_ record: UnsafeBufferPointer<UInt8>, into output: RecordWriter) throws {
        try input.readFeatures(record) { feature in
            let (initial, arrival) = try headings(of: feature.geometry)
            var added: [(String, JSONValue)] = [("headings", initial)]
            if final { added.append(("final_headings", arrival)) }
            output.write(feature, from: record, adding: added)
        }
    }

    /// The initial and final headings, shaped like the segments: one list per path.
    func headings(of geometry: Geometry?) throws -> (JSONValue, JSONValue) {
        func lists(_ parts: [(JSONValue, JSONValue)]) -> (JSONValue, JSONValue) {
            (.array(parts.map(\.0)), .array(parts.map(\.1)))
        }
        switch geometry {
        case nil, .point, .multiPoint:
            if case .point(let position) = geometry { try model.validate([position]) }
            if case .multiPoint(let points) = geometry { try model.validate(points) }
            return (.array([]), .array([]))
        case .lineString(let path): return try headings(of: path, closed: false)
        case .multiLineString(let paths): return lists(try paths.map { try headings(of: $0, closed: false) })
        case .polygon(let rings): return lists(try rings.map { try headings(of: $0, closed: true) })
        case .multiPolygon(let polygons): return lists(try polygons.map { try headings(of: .polygon($0)) })
        case .geometryCollection(let members): return lists(try members.map { try headings(of: $0) })
        }
    }

    /// One path's headings, segment by segment; a ring's closing segment when it is not closed.
    /// The arrival list stays empty without --final.
    func headings(of path: Path, closed: Bool) throws -> (JSONValue, JSONValue) {
        try model.validate(path)
        var initial: [JSONValue] = [], arrival: [JSONValue] = []
        func add(_ a: Position, _ b: Position) {
            let pair = model.headings(from: a, to: b)
            initial.append(pair.map { .number($0.initial) } ?? .null)
            if final { arrival.append(pair.map { .number($0.final) } ?? .null) }
        }
        for index in path.indices.dropFirst() { add(path[index - 1], path[index]) }
        if closed, path.count > 1, let first = path.first, let last = path.last, first != last { add(last, first) }
        return (.array(initial), .array(arrival))
    }
}
