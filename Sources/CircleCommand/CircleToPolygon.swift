import CommandKit
import GeoCommandLine
import Geodesy
import GeodesyOptions
import GeoJSON
import Geometry
import Records

/// `geo circle-to-polygon`: GMSCircle as a GeoJSON polygon, exact on the ellipsoid.
public struct CircleToPolygon: StreamingCommand {
    public static let description = CommandDescription(
        name: "circle-to-polygon",
        summary: "GMSCircle as a polygon: every vertex at the radius on the ellipsoid",
        discussion: """
        Makes the polygon of a circle: all points at geodesic distance --radius from a centre, on \
        the ellipsoid (--ellps, default WGS84) or a sphere (--sphere; 6371009 is the Maps SDK's). \
        One circle from --center LAT,LNG --radius R, which reads no input; or one per Point record \
        on input, with --radius R or --radius-field NAME (a property holding metres). Properties \
        are kept; properties.radius_m and properties.center ([lng, lat]) are set.

        Vertices come from PROJ's geodesic direct problem at azimuths -360*i/N, so the exterior \
        ring runs counter-clockwise and is closed (RFC 7946); each vertex is at the radius to \
        within nanometres. --segments N gives N vertices (default 64); --tolerance M instead picks \
        the fewest vertices such that no edge strays more than M metres inside the true circle \
        (measured at the geodesic midpoint of every edge).

        A circle crossing the antimeridian becomes a MultiPolygon cut at +-180 where each \
        geodesic edge crosses it (not at a linearly interpolated latitude). A circle containing a \
        pole becomes one Polygon that runs along the circle and closes over the pole through \
        (+-180, +-90). A radius <= 0, or too large to be a circle (past the cut locus, pi*b, about \
        19,970 km on WGS84), and a circle containing both poles are bad records (usage errors with \
        --center). With --to polyline the uncut ring is written as an encoded path, which is what \
        a GMSPolygon takes.
        """,
        operands: "[FILE...]",
        options: [center, radius, radiusField, segments, tolerance] + GeodesyOptions.earthOptions + PathOutputFormat.options
            + [StreamOptions.digits] + StreamOptions.geoJSONFraming + StreamOptions.common,
        examples: [
            Example("geo circle-to-polygon --center 37.7749,-122.4194 --radius 5000",
                    "A 5 km circle around San Francisco as a 64-vertex Polygon Feature."),
            Example("geo circle-to-polygon --radius-field range_m --tolerance 1 examples/stations.ndjson",
                    "A coverage circle per station, within 1 m of the true circle."),
            Example("geo circle-to-polygon --center 89,0 --radius 500000 | ogrinfo -al /vsistdin/",
                    "A cap around the North Pole, read by GDAL."),
        ])

    public static let sampleArguments = [
        ["--radius", "100000", "--segments", "16"], ["--radius-field", "r", "--segments", "8", "--to", "polyline"],
        ["--radius", "5", "--tolerance", "1", "--sphere", "6371009"], ["--center", "1,2", "--radius", "5"],
    ]

    static let center = Option(custom: "center", valueName: "LAT,LNG", help: "One circle around this centre (latitude first, like CLLocationCoordinate2D); no input is read.") { text throws(UsageError) in
        try parseLatLng(text, option: "center")
    }
    static let radius = Option(number: "radius", valueName: "R", help: "The radius in metres.")
    static let radiusField = Option(text: "radius-field", valueName: "NAME", help: "Take each circle's radius from properties.NAME (metres).")
    static let segments = Option(integer: "segments", in: 3...RecordLimit.positions, help: "The number of vertices.")
        .defaulting(to: 64)
    static let tolerance = Option(number: "tolerance", valueName: "M", check: { $0 > 0 ? nil : "metres greater than 0" },
                                  help: "The fewest vertices such that no edge strays more than M metres from the circle.")

    public let stream: StreamConfiguration
    public let handler: CircleHandler
    let literalCenter: [UInt8]?

    public init(_ arguments: ParsedArguments) throws(UsageError) {
        let output = try PathOutputFormat(arguments)
        stream = try StreamOptions.configuration(arguments, jsonOutput: output.isGeoJSON)
        let earth = try GeodesyOptions.earth(arguments)
        if arguments.has(CircleToPolygon.segments) && arguments.has(CircleToPolygon.tolerance) {
            throw UsageError("--segments and --tolerance cannot be combined")
        }
        let radius: CircleHandler.Radius
        switch (arguments[CircleToPolygon.radius], arguments[CircleToPolygon.radiusField]) {
        case (let metres?, nil): radius = .fixed(metres)
        case (nil, let name?): radius = .field(name)
        case (nil, nil): throw UsageError("give --radius R or --radius-field NAME")
        case (_?, _?): throw UsageError("--radius and --radius-field cannot be combined")
        }
        let tolerance = arguments[CircleToPolygon.tolerance]
        handler = CircleHandler(earth: earth, radius: radius, segments: arguments[CircleToPolygon.segments],
                                tolerance: tolerance, output: output)
        guard let center = arguments[CircleToPolygon.center] else {
            literalCenter = nil
            return
        }
        guard arguments.operands.isEmpty else { throw UsageError("--center reads no input: drop \(arguments.operands[0])") }
        guard case .fixed(let metres) = radius else { throw UsageError("--center needs --radius R") }
        do {
            let circle = try GeodesicCircle(center: center, radius: metres, earth: earth)
            if let tolerance { _ = try handler.vertexCount(circle, tolerance: tolerance) }
        } catch {
            throw UsageError("\(error)")
        }
        // The one record --center stands for.
        literalCenter = Array("{\"type\":\"Point\",\"coordinates\":[\(number: center.longitude),\(number: center.latitude)]}".utf8)
    }

    public func run() -> ExitCode {
        let runner = StreamRunner(command: Self.description.name, options: stream, handler: handler)
        if let literalCenter { return runner.run(literal: literalCenter, source: "--center") }
        return runner.run()
    }
}

public struct CircleHandler: RecordHandler {
    /// The vertices --tolerance asks for, refused early when even the estimate is over the limit.
    func vertexCount(_ circle: GeodesicCircle, tolerance: Double) throws -> Int {
        try RecordLimit.check(circle.estimatedSegments(forTolerance: tolerance), "vertices", estimated: true,
                              advice: "use a larger --tolerance")
        return try circle.segments(forTolerance: tolerance, limit: RecordLimit.positions)
    }

    enum Radius: Sendable {
        case fixed(Double)
        case field(String)
    }

    let earth: Earth
    let radius: Radius
    let segments: Int
    let tolerance: Double?
    let output: PathOutputFormat

    public func handle(_ record: UnsafeBufferPointer<UInt8>, into out: RecordWriter) throws {
        try GeoJSONReader.readFeatures(record) { feature in
            guard case .point(let center) = feature.geometry else {
                throw BadRecord("a circle needs a Point centre, not \(feature.geometry.map { "a \($0.typeName)" } ?? "a null geometry")")
            }
            let metres: Double
            switch radius {
            case .fixed(let value): metres = value
            case .field(let name):
                guard let value = try feature.numberProperty(name, in: record) else {
                    throw BadRecord("properties.\(name) is missing or not a number")
                }
                metres = value
            }
            let circle = try GeodesicCircle(center: center, radius: metres, earth: earth)
            let ring = circle.ring(segments: try tolerance.map { try vertexCount(circle, tolerance: $0) } ?? segments)
            if case .polyline(let precision) = output {
                try out.writePolyline(ring, precision: precision)
                return
            }
            out.write(feature, from: record, geometry: .replaced(circle.geometry(of: ring)),
                      adding: [("radius_m", .number(metres)),
                               ("center", .array([.number(center.longitude), .number(center.latitude)]))])
        }
    }
}
