import CommandKit
import GeoCommandLine
import Geodesy
import GeodesyOptions
import GeoJSON
import Geometry
import JSONBytes
import Records

/// `geo locate`: GMSGeometryIsLocationOnPath, GMSGeometryContainsLocation and the nearest point
/// on a path, on the ellipsoid, for one point against many shapes or many points against the
/// shapes of a file.
public struct Locate: StreamingCommand {
    public static let description = CommandDescription(
        name: "locate",
        summary: "where points lie relative to paths and polygons: distance, nearest point, on path, inside",
        discussion: """
        With --point LAT,LNG the input records are shapes, and each gets properties.locate: \
        {"distance_m": D, "along_m": S, "point": [lng, lat], "edge": I, "on_path": B, "inside": B} \
        for that point. D is the shortest distance from the point to the shape's lines (its paths, \
        or a polygon's rings), point the nearest position on them, edge the 0-based index of its \
        edge counting through every part and ring, S the distance along its part (LineString or \
        ring) from the part's start to point, as length --cumulative counts; on_path says whether \
        D <= --tolerance (default 0.1 m, the Maps SDK's), and inside, for polygons only, whether \
        the point is inside (holes excluded, the boundary inside). A Point shape is a path of one \
        position.

        With --shapes FILE the input records are Points (anything else is a bad record) and FILE \
        holds the shapes, read once (newline-delimited or one GeoJSON document) and indexed. Each \
        Point gets properties.locate, a list of matches nearest first, each {"shape": K, "id": ID, \
        ...the fields above}, K the 0-based record number in FILE and ID its Feature id (left out \
        when it has none). By default the nearest shape only; --within D lists every shape within \
        D metres, --limit N keeps the N nearest (without --within: the N nearest, however far). A \
        polygon containing the point counts as distance 0 for choosing and ordering (its \
        distance_m stays the distance to its rings); ties keep the order of FILE. No shape: []. \
        A bad record in FILE stops the run (65) before any input is read: a half-loaded index \
        would miss matches silently.

        --join NAME[,NAME...] copies those properties of the matched shape into each match, as \
        its own properties object beside shape and id: {"shape": K, "properties": {"name": \
        "France"}, ...}, so that points get their country's name without a join by record number \
        (--join '*': all of the shape's properties). A shape without one of the names gives its \
        matches no such member; a shape without properties gives {}. The properties are kept \
        once per shape, only the named ones.

        Edges follow --kind, and distance_m is the geodesic distance on the ellipsoid to the \
        nearest position on them whatever their kind (with --kind projected everything is planar, \
        in Web Mercator metres). The nearest point on a geodesic edge solves the interception \
        problem exactly (Karney 2013; Baselga and Martinez-Llario 2018): distances agree with a \
        brute-force minimisation to well under a millimetre. The index never misses a shape: \
        every piece of a shape sits in a box that holds all its points, and a box's distance \
        never exceeds that of anything in it (docs/area-and-locate.md).
        """,
        options: [point, shapes, within, limit, join, tolerance] + GeodesyOptions.options + PathInputFormat.options
            + [StreamOptions.digits] + StreamOptions.geoJSONFraming + StreamOptions.common,
        examples: [
            Example("geo locate --point 51.5074,-0.1278 examples/routes.ndjson | jq .properties.locate.distance_m",
                    "How far each route passes from Trafalgar Square, on WGS84."),
            Example("geo locate --shapes examples/parks.geojson --within 500 examples/sightings.ndjson",
                    "Every park within 500 m of each sighting; parks containing it first."),
            Example("geo locate --shapes examples/routes.ndjson --limit 3 --kind rhumb examples/sightings.ndjson",
                    "The three routes nearest each sighting, their edges rhumb lines."),
            Example("geo locate --shapes examples/parks.geojson --join name examples/sightings.ndjson | jq -r '.properties.locate[0].properties.name'",
                    "The name of the park nearest each sighting (or holding it)."),
        ])

    public static let sampleArguments = [["--point", "20.5,10.5"], ["--point", "1,2", "--from", "text", "--tolerance", "1", "--kind", "projected"]]

    static let point = Option(custom: "point", valueName: "LAT,LNG", help: "Locate this point (latitude first) against each input shape.") { text throws(UsageError) in
        try parseLatLng(text, option: "point")
    }
    static let shapes = Option(file: "shapes", help: "Locate each input Point against the shapes in FILE (loaded once, indexed).")
    static let within = Option(number: "within", valueName: "D", check: { $0 >= 0 ? nil : "a distance in metres, 0 or more" },
                               help: "With --shapes: every shape within D metres (nearest first).")
    static let limit = Option(integer: "limit", in: 1...1_000_000, help: "With --shapes: at most N shapes per point (without --within, the N nearest).")
    static let join = Option(custom: "join", valueName: "NAME[,NAME...]",
                             help: "With --shapes: copy these properties of each matched shape into its match, as its properties object ('*': all of them).",
                             parse: JoinedProperties.parse)
    static let tolerance = Option(number: "tolerance", valueName: "M", check: { $0 >= 0 ? nil : "metres, 0 or more" },
                                  help: "on_path is true within M metres of the lines (GMSGeometryIsLocationOnPath's tolerance).")
        .defaulting(to: 0.1)

    public let stream: StreamConfiguration
    public let handler: LocateHandler

    public init(_ arguments: ParsedArguments) throws(UsageError) {
        stream = try StreamOptions.configuration(arguments, jsonOutput: true)
        let model = try GeodesyOptions.model(arguments)
        let input = try PathInputFormat(arguments)
        let mode: LocateHandler.Mode
        switch (arguments[Locate.point], arguments[Locate.shapes]) {
        case (let point?, nil):
            if arguments.has(Locate.within) || arguments.has(Locate.limit) || arguments.has(Locate.join) {
                throw UsageError("--within, --limit and --join go with --shapes (with --point each input shape gets one answer)")
            }
            do { try model.validate([point]) } catch { throw UsageError("--point: \(error.message)") }
            mode = .point(point)
        case (nil, let file?):
            guard input == .geoJSON else { throw UsageError("with --shapes the input records are GeoJSON Points: drop --from") }
            mode = .shapes(file, within: arguments[Locate.within], limit: arguments[Locate.limit], join: arguments[Locate.join])
        case (nil, nil): throw UsageError("give --point LAT,LNG (the input is shapes) or --shapes FILE (the input is Points)")
        case (_?, _?): throw UsageError("--point and --shapes cannot be combined")
        }
        handler = LocateHandler(input: input, model: model, mode: mode, tolerance: arguments[Locate.tolerance])
    }

    public func run() -> ExitCode {
        var handler = self.handler
        if case .shapes(let file, _, _, let join) = handler.mode {
            do {
                handler.index = try LocateHandler.load(file, join: join, model: handler.model)
            } catch let failure as RunFailure {
                printError("geo locate: \(failure.message)\n")
                return failure.status
            } catch {
                printError("geo locate: \(error)\n")
                return .dataError
            }
        }
        return StreamRunner(command: Self.description.name, options: stream, handler: handler).run()
    }
}

public struct LocateHandler: PathHandler {
    enum Mode: Sendable {
        case point(Position)
        case shapes(String, within: Double?, limit: Int?, join: JoinedProperties.Selection?)
    }

    public let input: PathInputFormat
    let model: EdgeModel
    let mode: Mode
    let tolerance: Double
    /// The shapes of --shapes FILE, loaded by `run` before any input is read.
    var index: ShapeIndex?

    init(input: PathInputFormat, model: EdgeModel, mode: Mode, tolerance: Double) {
        self.input = input
        self.model = model
        self.mode = mode
        self.tolerance = tolerance
    }

    var locator: Locator { Locator(model: model, space: SearchSpace(model: model)) }

    public func handle(_ record: UnsafeBufferPointer<UInt8>, into output: RecordWriter) throws {
        try input.readFeatures(record) { feature in
            switch mode {
            case .point(let point):
                let shape = try LocatedShape(feature.geometry, model: model)
                guard let location = locator.locate(point, in: shape) else {
                    throw BadRecord("a \(feature.geometry.map(\.typeName) ?? "null geometry") without positions has nothing to locate against")
                }
                output.write(feature, from: record, adding: [("locate", .object(fields(location)))])
            case .shapes(_, let within, let limit, _):
                guard case .point(let point) = feature.geometry else {
                    throw BadRecord("with --shapes each input record is a Point, not \(feature.geometry.map { "a \($0.typeName)" } ?? "a null geometry")")
                }
                try model.validate([point])
                let matches = index!.search(point, within: within, limit: limit, locator: locator)
                let list: [JSONValue] = matches.map { match in
                    var members: [(String, JSONValue)] = [("shape", .number(Double(match.shape)))]
                    if let id = index!.ids[match.shape] { members.append(("id", .raw(String(decoding: id, as: UTF8.self)))) }
                    if let joined = index!.joined { members.append(("properties", .raw(joined.object(ofShape: match.shape)))) }
                    return .object(members + fields(match.location))
                }
                output.write(feature, from: record, adding: [("locate", .array(list))])
            }
        }
    }

    func fields(_ location: Location) -> [(String, JSONValue)] {
        var fields: [(String, JSONValue)] = [
            ("distance_m", .number(location.distance)), ("along_m", .number(location.along)),
            ("point", .array([.coordinate(location.point.longitude), .coordinate(location.point.latitude)])),
            ("edge", .number(Double(location.edge))), ("on_path", .bool(location.distance <= tolerance)),
        ]
        if let inside = location.inside { fields.append(("inside", .bool(inside))) }
        return fields
    }

    /// Reads FILE's shapes: any bad record stops the run (a half-loaded index would miss).
    static func load(_ file: String, join: JoinedProperties.Selection?, model: EdgeModel) throws -> ShapeIndex {
        var shapes: [LocatedShape] = []
        var ids: [[UInt8]?] = []
        var joined = join.map(JoinedProperties.init)
        let source = file == "-" ? "<stdin>" : file
        do {
            try forEachRecord(in: file, readsJSON: true) { record in
                try GeoJSONReader.readFeatures(record) { read in
                    shapes.append(try LocatedShape(read.geometry, model: model))
                    ids.append(read.members.first { record[$0.key].elementsEqual("\"id\"".utf8) }
                               .map { Array(record[$0.value]) })
                    try joined?.add(read.propertiesBytes, of: record)
                }
            }
        } catch let bad as LocatedBadRecord {
            throw RunFailure("\(source):\(bad.line): \(bad.message) (the shapes must all load: nothing was located)", status: .dataError)
        }
        return ShapeIndex(shapes: shapes, ids: ids, joined: joined, model: model)
    }
}
