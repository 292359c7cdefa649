import CommandKit
import GeoCommandLine
import Geodesy
import GeodesyOptions
import GeoJSON
import Geometry
import Records

/// `geo length`: the length of each path by --kind, GMSGeometryLength on the ellipsoid.
public struct Length: StreamingCommand {
    public static let description = CommandDescription(
        name: "length",
        summary: "add the length of each path, geodesic, rhumb or projected",
        discussion: """
        Adds properties.length_m (rename it with --field): the length of the record's path, each \
        edge following --kind, summed with compensation. A Polygon's length is its perimeter: \
        every ring, each closed. Multi-geometries and GeometryCollections sum their parts; a \
        Point, a MultiPoint and a null geometry have length 0. The geometry and every other \
        member are copied unchanged. With --cumulative, properties.cumulative_m also gives the \
        distance from the start at each vertex, shaped like the coordinates (one array per \
        LineString or ring, each starting at 0).

        Accuracy: geodesic lengths are PROJ's geod_inverse (Karney's algorithm), within 15 \
        nanometres per edge on WGS84. Rhumb lengths agree with GeographicLib's RhumbSolve within \
        1e-7 m per edge. Projected lengths are in Web Mercator metres (divide by pi*a for the \
        Maps SDK's GMSMapPoint units) and equal PROJ's EPSG:3857 coordinates; a latitude of \
        exactly 90 or -90 is a bad record there. With --sphere 6371009 the results are the Maps \
        SDK's own (San Francisco to New York: 4129091.998 m).
        """,
        options: [field, cumulative] + GeodesyOptions.options + PathInputFormat.options + StreamOptions.geoJSONFraming + StreamOptions.common,
        examples: [
            Example("geo decode examples/routes.polyline | geo length | jq .properties.length_m",
                    "Geodesic length of each route on WGS84, in metres."),
            Example("geo length --from polyline --sphere 6371009 examples/routes.polyline",
                    "Lengths as the Maps SDK computes them (GMSGeometryLength, spherical)."),
            Example("geo length --kind rhumb --cumulative examples/routes.ndjson",
                    "Rhumb-line lengths, with the distance travelled at each vertex."),
        ])

    public static let sampleArguments = [["--cumulative"], ["--kind", "rhumb", "--sphere", "6371009"], ["--kind", "projected", "--from", "polyline", "-p6"], ["--from", "latlng", "--field", "l"]]

    static let field = Option(text: "field", valueName: "NAME", help: "The property the length goes in.")
        .defaulting(to: "length_m")
    static let cumulative = Flag("cumulative", help: "Also add properties.cumulative_m, the distance from the start at each vertex.")

    public let stream: StreamConfiguration
    public let handler: LengthHandler

    public init(_ arguments: ParsedArguments) throws(UsageError) {
        stream = try StreamOptions.configuration(arguments, jsonOutput: true)
        let field = arguments[Length.field], cumulative = arguments[Length.cumulative]
        if cumulative && field == "cumulative_m" {
            throw UsageError("--field cumulative_m --cumulative would write properties.cumulative_m twice: pick another --field")
        }
        handler = LengthHandler(input: try PathInputFormat(arguments), model: try GeodesyOptions.model(arguments),
                                field: field, cumulative: cumulative)
    }
}

public struct LengthHandler: PathHandler {
    public let input: PathInputFormat
    let model: EdgeModel
    let field: String
    let cumulative: Bool

    public func handle(_ record: UnsafeBufferPointer<UInt8>, into output: RecordWriter) throws {
        try input.readFeatures(record) { feature in
            var added: [(String, JSONValue)] = [(field, .number(try length(of: feature.geometry)))]
            if cumulative { added.append(("cumulative_m", try cumulativeLengths(of: feature.geometry))) }
            output.write(feature, from: record, adding: added)
        }
    }

    func length(of geometry: Geometry?) throws -> Double {
        switch geometry {
        case nil:
            return 0
        case .point(let position):
            try model.validate([position])
            return 0
        case .multiPoint(let points):
            try model.validate(points)
            return 0
        case .lineString(let path):
            try model.validate(path)
            return model.length(of: path)
        case .multiLineString(let paths):
            return try sum(paths.map { path in try model.validate(path); return model.length(of: path) })
        case .polygon(let rings):
            return try sum(rings.map { ring in try model.validate(ring); return model.length(of: ring, closed: true) })
        case .multiPolygon(let polygons):
            return try sum(polygons.map { try length(of: .polygon($0)) })
        case .geometryCollection(let members):
            return try sum(members.map { try length(of: $0) })
        }
    }

    func sum(_ lengths: [Double]) -> Double {
        var total = CompensatedSum()
        for length in lengths { total.add(length) }
        return total.value
    }

    /// The distance from the start at each vertex, shaped like the coordinates.
    func cumulativeLengths(of geometry: Geometry?) throws -> JSONValue {
        func numbers(_ path: Path) throws -> JSONValue {
            try model.validate(path)
            return .array(model.cumulativeLengths(of: path).map { .number($0) })
        }
        switch geometry {
        case nil: return .array([])
        case .point: return .array([.number(0)])
        case .multiPoint(let points): return .array(points.map { _ in .number(0) })
        case .lineString(let path): return try numbers(path)
        case .multiLineString(let paths), .polygon(let paths): return .array(try paths.map(numbers))
        case .multiPolygon(let polygons): return .array(try polygons.map { .array(try $0.map(numbers)) })
        case .geometryCollection(let members): return .array(try members.map(cumulativeLengths))
        }
    }
}
