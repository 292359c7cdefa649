import CommandKit
import GeoCommandLine
import Geodesy
import GeodesyOptions
import GeoJSON
import Geometry
import Records

/// `geo simplify`: fewer vertices, the same shape within a distance on the ground.
public struct Simplify: StreamingCommand {
    public static let description = CommandDescription(
        name: "simplify",
        summary: "fewer vertices, the same shape within a distance on the ground",
        discussion: """
        Removes vertices from every path of each record (what mapshaper's -simplify, shapely's \
        simplify and android-maps-utils' PolyUtil.simplify do), measuring on the ellipsoid. Give \
        exactly one amount:

        --tolerance D (metres). With --method dp (the default, Douglas-Peucker), a vertex goes \
        when the path without it stays within D of it: the geodesic distance from the vertex to \
        the nearest point of the edge that replaces it, that edge running by --kind. With \
        --method visvalingam or weighted (Visvalingam-Whyatt), a vertex goes while the area of \
        its effective triangle (with its remaining neighbours, on the ellipsoid) is below D \
        squared; weighted multiplies that area by mapshaper's weight 1 - 0.7 cos(angle), so that \
        spikes go sooner and right angles later.

        --keep P% keeps that share of each record's removable vertices, the most important first \
        by the method's ranking. --max-points N leaves each path at most N positions, the most \
        important. --max-chars N makes each record's encoded polyline (its paths' polylines \
        together, at --to-precision, default 5) at most N characters, the budget of a Maps \
        Static API URL, with the fewest removals in the method's order; a record that cannot \
        fit is a bad record.

        Always kept: a path's ends, a ring's first position and its closure; a LineString keeps \
        at least 2 positions and a ring 4. Points and MultiPoints pass unchanged. Every part of a \
        Multi* geometry and every ring is simplified on its own. Polygons keep their topology as \
        JTS's TopologyPreservingSimplifier does, judged in Web Mercator: a vertex whose removal \
        would make a ring cross itself or another ring of its polygon, fold back, or leave a \
        hole outside its shell is kept.

        With --sphere R, --method dp is PolyUtil.simplify itself (its spherical distance to a \
        line, on radius R): --sphere 6371009 gives the Maps utility library's results.

        Accuracy: Douglas-Peucker distances are exact on the ellipsoid (PROJ's geodesics, the \
        nearest point on each edge to 1 mm); a cheap bound on the conformal sphere picks which vertices need \
        them and never changes the result. Removed vertices therefore lie within D of the \
        simplified path (dp). Output positions are input positions, copied exactly.
        """,
        options: [tolerance, keep, maxPoints, maxChars, method] + GeodesyOptions.options + PathInputFormat.options
            + PathOutputFormat.options + [StreamOptions.digits] + StreamOptions.geoJSONFraming + StreamOptions.common,
        examples: [
            Example("geo simplify --tolerance 10 examples/routes.ndjson",
                    "Each route within 10 metres of itself, Douglas-Peucker on WGS84."),
            Example("geo simplify --max-chars 1800 --to polyline examples/routes.ndjson",
                    "Routes as polylines short enough for a Maps Static API URL."),
            Example("geo simplify --method weighted --keep 10% examples/parks.geojson",
                    "A tenth of each park's removable vertices, by mapshaper's weighted Visvalingam."),
            Example("geo decode examples/routes.polyline | geo simplify --sphere 6371009 --tolerance 5",
                    "What PolyUtil.simplify(path, 5) returns."),
        ])

    public static let sampleArguments = [
        ["--tolerance", "100"], ["--tolerance", "50", "--sphere", "6371009", "--to", "polyline"],
        ["--keep", "50%", "--method", "visvalingam", "--kind", "rhumb"], ["--max-points", "3", "--method", "weighted", "--kind", "projected"],
        ["--max-chars", "30", "--to-precision", "6", "--from", "latlng", "--digits", "3"],
    ]

    enum Method: String, CaseIterable, Sendable { case dp, visvalingam, weighted }

    enum Amount: Sendable, Equatable {
        case tolerance(Double)
        case keep(Double)
        case maxPoints(Int)
        case maxChars(Int, precision: Int)
    }

    static let tolerance = Option(number: "tolerance", valueName: "D", check: { $0 > 0 ? nil : "a distance in metres greater than 0" },
                                  help: "Remove vertices while the shape stays within D metres (dp), or triangles below D² m² (visvalingam, weighted).")
    static let keep = Option(custom: "keep", valueName: "P%", help: "Keep P percent of each record's removable vertices, the most important.") { text throws(UsageError) in
        let digits = text.hasSuffix("%") ? String(text.dropLast()) : text
        guard digits.allSatisfy({ $0.isNumber || $0 == "." }), let percent = Double(digits), (0...100).contains(percent) else {
            throw UsageError("option '--keep' takes a percentage from 0% to 100%, not '\(text)'")
        }
        return percent / 100
    }
    static let maxPoints = Option(integer: "max-points", in: 2...RecordLimit.positions, help: "Leave each path at most N positions (a ring keeps 4).")
    static let maxChars = Option(integer: "max-chars", in: 1...Int(Int32.max), help: "Make each record's encoded polyline at most N characters (at --to-precision).")
    static let method = Option(choice: "method", of: Method.self, help: "dp (Douglas-Peucker), visvalingam (Visvalingam-Whyatt), or weighted (mapshaper's weighted Visvalingam).")
        .defaulting(to: .dp)

    public let stream: StreamConfiguration
    public let handler: SimplifyHandler

    public init(_ arguments: ParsedArguments) throws(UsageError) {
        let amount = try arguments.exactlyOne(of: [
            (Simplify.tolerance, arguments[Simplify.tolerance].map(Amount.tolerance)),
            (Simplify.keep, arguments[Simplify.keep].map(Amount.keep)),
            (Simplify.maxPoints, arguments[Simplify.maxPoints].map(Amount.maxPoints)),
            (Simplify.maxChars, arguments[Simplify.maxChars].map { Amount.maxChars($0, precision: arguments[PathOutputFormat.toPrecision]) }),
        ])
        // --to-precision also sets the precision --max-chars counts at, GeoJSON output or not.
        let format: PathOutputFormat
        if case .maxChars = amount, arguments[PathOutputFormat.to] == .geojson {
            format = .geoJSON
        } else {
            format = try PathOutputFormat(arguments)
        }
        let model = try GeodesyOptions.model(arguments)
        let method = arguments[Simplify.method]
        stream = try StreamOptions.configuration(arguments, jsonOutput: format.isGeoJSON)
        handler = SimplifyHandler(input: try PathInputFormat(arguments), output: format, simplifier:
            Simplifier(model: model, method: method, amount: amount,
                       distance: model.earth.isSphere && model.kind == .geodesic ? .polyUtil(radius: model.earth.a) : .edge(model),
                       bound: ConformalBound(model: model)))
    }
}

public struct SimplifyHandler: PathHandler {
    public let input: PathInputFormat
    let output: PathOutputFormat
    let simplifier: Simplifier

    public func handle(_ record: UnsafeBufferPointer<UInt8>, into out: RecordWriter) throws {
        try input.readFeatures(record) { feature in
            try out.write(feature, from: record, replacing: try simplifier.simplify(feature.geometry), as: output)
        }
    }
}

/// One path to simplify.
struct Part {
    let positions: Path
    let isRing: Bool

    /// The positions that always stay: the ends; a closed ring keeps four (three and its
    /// closure), one left open three.
    var minimum: Int {
        let least = !isRing ? 2 : positions.first == positions.last ? 4 : 3
        return min(positions.count, least)
    }
}
