#if canImport(Glibc)
import Glibc
#endif
import CommandKit
import GeoCommandLine
import Geodesy
import GeodesyOptions
import GeoJSON
import Geometry
import Records

/// `geo interpolate`: points along a path (GMSGeometryInterpolate), or the path densified.
public struct Interpolate: StreamingCommand {
    public static let description = CommandDescription(
        name: "interpolate",
        summary: "points along each path, or the path densified, by --kind",
        discussion: """
        Walks each record's path (a LineString; a Point is a path of one point), every edge \
        following --kind, and replaces its geometry. A MultiLineString (a GPX track, whose parts \
        are its segments) is one path per part, each walked on its own from its own start, and \
        carries one result per part, in order: a MultiPoint of one point per part, with lists of \
        fractions and distances, for --fraction and --distance; a GeometryCollection of one \
        MultiPoint per part for --every and --count. A part with no length to walk (empty, or \
        one position: a GPX track's empty segment) gives no points, as the SDK draws nothing \
        for it: its place holds an empty MultiPoint (in a GeometryCollection) and null in the \
        lists. Give exactly one of:

        --fraction F (0 to 1) or --distance D (metres from the start; negative counts back from \
        the end): one Point, with properties.fraction and properties.distance_m saying where it \
        is. For a two-point path --fraction is GMSGeometryInterpolate, on the ellipsoid. A \
        distance beyond either end of the path is a bad record.

        --every D: a MultiPoint with points at 0, D, 2D, ... and the end. --count N: N points \
        evenly spaced by length, both ends included.

        --densify D: the path as a LineString with its own vertices kept and points inserted so \
        that no edge is longer than D metres, each edge cut into equal parts along its own kind: \
        what drawing a geodesic or rhumb polyline on a Mercator map needs. Densify also works on \
        every ring and part of Polygons and Multi* geometries (a ring left unclosed in the input \
        comes out closed, its closing edge densified too).

        Distances are metres on the ellipsoid (Web Mercator metres with --kind projected). Points \
        are on their edge to PROJ's accuracy (geod_inverseline + geod_position for geodesics), \
        with longitudes in [-180, 180]; the path's own vertices are copied exactly.
        """,
        options: [fraction, distance, every, count, densify] + GeodesyOptions.options + PathInputFormat.options
            + PathOutputFormat.options + [StreamOptions.digits] + StreamOptions.geoJSONFraming + StreamOptions.common,
        examples: [
            Example("echo '{\"type\":\"LineString\",\"coordinates\":[[-122.4194,37.7749],[-74.006,40.7128]]}' | geo interpolate --fraction 0.5",
                    "The geodesic midpoint of San Francisco and New York on WGS84."),
            Example("geo interpolate --every 1000 --from polyline examples/routes.polyline",
                    "A point every kilometre along each route, and its end."),
            Example("geo interpolate --densify 50000 examples/flights.ndjson > flights-drawable.ndjson",
                    "Geodesic flight paths that draw as curves on a Web Mercator map."),
        ])

    public static let sampleArguments = [
        ["--fraction", "0.3", "--kind", "rhumb"], ["--distance", "-1000"], ["--count", "7", "--kind", "projected"],
        ["--densify", "500000", "--digits", "2"], ["--every", "100000", "--to", "polyline", "--to-precision", "6"],
    ]

    enum Mode: Sendable, Equatable {
        case fraction(Double)
        case distance(Double)
        case every(Double)
        case count(Int)
        case densify(Double)
    }

    static let fraction = Option(number: "fraction", valueName: "F", check: { (0...1).contains($0) ? nil : "a number from 0 to 1" },
                                 help: "One point at this fraction (0 to 1) of the path's length.")
    static let distance = Option(number: "distance", valueName: "D", help: "One point D metres from the start (negative: from the end).")
    static let every = Option(number: "every", valueName: "D", check: positive, help: "Points every D metres, the end included (a MultiPoint).")
    static let count = Option(integer: "count", in: 2...RecordLimit.positions, help: "N points evenly spaced by length, both ends included (a MultiPoint).")
    static let densify = Option(number: "densify", valueName: "D", check: positive, help: "The path with points inserted so that no edge is longer than D metres.")
    static let positive: @Sendable (Double) -> String? = { $0 > 0 ? nil : "a distance in metres greater than 0" }

    public let stream: StreamConfiguration
    public let handler: InterpolateHandler

    public init(_ arguments: ParsedArguments) throws(UsageError) {
        let mode = try arguments.exactlyOne(of: [
            (Interpolate.fraction, arguments[Interpolate.fraction].map(Mode.fraction)),
            (Interpolate.distance, arguments[Interpolate.distance].map(Mode.distance)),
            (Interpolate.every, arguments[Interpolate.every].map(Mode.every)),
            (Interpolate.count, arguments[Interpolate.count].map(Mode.count)),
            (Interpolate.densify, arguments[Interpolate.densify].map(Mode.densify)),
        ])
        let format = try PathOutputFormat(arguments)
        stream = try StreamOptions.configuration(arguments, jsonOutput: format.isGeoJSON)
        handler = InterpolateHandler(input: try PathInputFormat(arguments), output: format,
                                     model: try GeodesyOptions.model(arguments), mode: mode)
    }
}

public struct InterpolateHandler: PathHandler {
    public let input: PathInputFormat
    let output: PathOutputFormat
    let model: EdgeModel
    let mode: Interpolate.Mode

    public func handle(_ record: UnsafeBufferPointer<UInt8>, into out: RecordWriter) throws {
        try input.readFeatures(record) { feature in
            switch mode {
            case .densify(let step):
                var budget = PositionBudget()
                let geometry = try densified(feature.geometry, step, &budget)
                try RecordLimit.check(Double(budget.total), "points",
                                      advice: "use --densify \(plainDecimal(minimumStep(budget.length))) or more for this record")
                try out.write(feature, from: record, replacing: geometry, as: output)
            case .fraction, .distance, .every, .count:
                // A MultiLineString (a GPX track) is one path per part, each walked on its own.
                guard case .multiLineString(let parts) = feature.geometry else {
                    let path = try singlePath(feature.geometry)
                    let total = model.length(of: path)
                    try checkLimit([total])
                    let result = try pointResult(along: path, total: total)
                    let added: [(String, JSONValue)] = result.at.map { [("fraction", .number($0.fraction)), ("distance_m", .number($0.distance))] } ?? []
                    try out.write(feature, from: record, replacing: result.geometry, adding: added, as: output)
                    return
                }
                var added: [(String, JSONValue)] = []
                let geometry = try perPart(parts, added: &added)
                try out.write(feature, from: record, replacing: geometry, adding: added, as: output)
            }
        }
    }

    /// One result per part of a MultiLineString, in order: a Point each (a MultiPoint, with
    /// lists of fractions and distances) for --fraction and --distance, or a MultiPoint each (a
    /// GeometryCollection) for --every and --count. An empty part, or one of a single position
    /// (a GPX track's empty segment), has no points, as a GMSPath with no length draws nothing:
    /// its place holds an empty MultiPoint (and null in the lists), and the record stays good.
    func perPart(_ parts: [Path], added: inout [(String, JSONValue)]) throws -> Geometry {
        for part in parts { try model.validate(part) }
        let walked = parts.map { $0.count > 1 ? $0 : nil }
        let totals = walked.map { $0.map { model.length(of: $0) } ?? 0 }
        try checkLimit(zip(walked, totals).compactMap { $0.0 == nil ? nil : $0.1 })
        let results = try walked.indices.map { index in
            guard let path = walked[index] else { return nil as (geometry: Geometry, at: (fraction: Double, distance: Double)?)? }
            do { return try pointResult(along: path, total: totals[index]) } catch let error as BadRecord {
                throw BadRecord("part \(index) of the MultiLineString: \(error.message)")
            }
        }
        let empty = Geometry.multiPoint([])
        switch mode {
        case .fraction, .distance:
            func list(_ value: (_ fraction: Double, _ distance: Double) -> Double) -> JSONValue {
                .array(results.map { result in result?.at.map { .number(value($0.fraction, $0.distance)) } ?? .null })
            }
            added = [("fraction", list { fraction, _ in fraction }), ("distance_m", list { _, distance in distance })]
            let points: Path = results.compactMap { if case .point(let point)? = $0?.geometry { point } else { nil } }
            return points.count == parts.count ? .multiPoint(points) : .geometryCollection(results.map { $0?.geometry ?? empty })
        default:
            return .geometryCollection(results.map { $0?.geometry ?? empty })
        }
    }

    /// What a point mode makes of one path: a Point and where it is along the path (--fraction,
    /// --distance), or a MultiPoint (--every, --count).
    func pointResult(along path: Path, total: Double) throws -> (geometry: Geometry, at: (fraction: Double, distance: Double)?) {
        switch mode {
        case .fraction, .distance:
            let distance = try target(total: total)
            var fraction = total > 0 ? distance / total : 0
            if case .fraction(let requested) = mode { fraction = requested }
            return (.point(positions(along: path, at: [distance], total: total)[0]), (fraction, distance))
        case .every(let step):
            var distances: [Double] = []
            var k = 0.0
            while k * step < total { distances.append(k * step); k += 1 }
            distances.append(total)
            return (.multiPoint(positions(along: path, at: distances, total: total)), nil)
        case .count(let count):
            let distances = (0..<count).map { $0 == count - 1 ? total : total * Double($0) / Double(count - 1) }
            return (.multiPoint(positions(along: path, at: distances, total: total)), nil)
        case .densify: preconditionFailure("not a point mode")
        }
    }

    /// The points --every or --count make on paths of these lengths, against the record limit.
    func checkLimit(_ totals: [Double]) throws {
        switch mode {
        case .every(let step):
            try RecordLimit.check(totals.reduce(0) { $0 + ($1 / step).rounded(.down) + 2 }, "points",
                                  advice: "use --every \(plainDecimal(minimumStep(totals.reduce(0, +)))) or more for this path")
        case .count(let count):
            try RecordLimit.check(Double(count) * Double(totals.count), "points", advice: "use a smaller --count for this record")
        default: break
        }
    }

    /// The path a point mode walks: a LineString, or a Point as a path of one point.
    func singlePath(_ geometry: Geometry?) throws -> Path {
        try checked(try Geometry.singlePath(of: geometry, along: "to interpolate along (--densify takes any geometry)"))
    }

    /// The path, if it has a point to interpolate and valid positions.
    func checked(_ path: Path) throws -> Path {
        guard !path.isEmpty else { throw BadRecord("an empty LineString has no point to interpolate") }
        try model.validate(path)
        return path
    }

    /// The distance from the start that --fraction or --distance asks for.
    func target(total: Double) throws -> Double {
        switch mode {
        case .fraction(let fraction): return fraction == 1 ? total : fraction * total
        case .distance(let distance):
            let fromStart = distance < 0 ? total + distance : distance
            guard fromStart >= 0 && fromStart <= total else {
                throw BadRecord("distance \(number: distance) m is beyond the path, which is \(number: total) m long")
            }
            return fromStart
        default: preconditionFailure("not a single-point mode")
        }
    }

    /// The positions at increasing `distances` from the start, walking each edge once.
    func positions(along path: Path, at distances: [Double], total: Double) -> [Position] {
        var result: [Position] = []
        result.reserveCapacity(distances.count)
        var index = 0
        var edgeStart = 0.0
        var edge = path.count > 1 ? model.edge(path[0], path[1]) : nil
        for distance in distances {
            // The ends are the path's own vertices, exactly (summed edge lengths may differ from
            // the compensated total in the last bit).
            if distance >= total, let last = path.last {
                result.append(Position(longitude: normalizedLongitude(last.longitude), latitude: last.latitude))
                continue
            }
            while let current = edge, distance > edgeStart + current.length, index + 2 < path.count {
                edgeStart += current.length
                index += 1
                edge = model.edge(path[index], path[index + 1])
            }
            if let edge {
                result.append(edge.position(atDistance: distance - edgeStart))
            } else {
                result.append(Position(longitude: normalizedLongitude(path[0].longitude), latitude: path[0].latitude))
            }
        }
        return result
    }

    /// The smallest step that keeps a record of this length within the limit, rounded up to
    /// three significant digits for a message.
    func minimumStep(_ length: Double) -> Double {
        let step = length / Double(RecordLimit.positions - 2)
        guard step > 0 else { return 0 }
        // Integer over a power of ten: the division rounds to the decimal itself.
        let digits = 2 - Int(log10(step).rounded(.down))
        let scale = pow(10, Double(abs(digits)))
        return digits >= 0 ? (step * scale).rounded(.up) / scale : (step / scale).rounded(.up) * scale
    }

    func densified(_ geometry: Geometry?, _ step: Double, _ budget: inout PositionBudget) throws -> Geometry? {
        switch geometry {
        case nil: return nil
        case .point, .multiPoint: return geometry
        case .lineString(let path): return .lineString(try densified(path, step, &budget))
        case .multiLineString(let paths): return .multiLineString(try paths.map { try densified($0, step, &budget) })
        case .polygon(let rings): return .polygon(try rings.map { try densified(closed($0), step, &budget) })
        case .multiPolygon(let polygons): return .multiPolygon(try polygons.map { try $0.map { try densified(closed($0), step, &budget) } })
        case .geometryCollection(let members): return .geometryCollection(try members.map { try densified($0, step, &budget)! })
        }
    }

    /// A ring with its closing edge made explicit, so that densifying reaches it too.
    func closed(_ ring: Path) -> Path {
        guard let first = ring.first, ring.count > 1, ring.last != first else { return ring }
        return ring + [first]
    }

    /// Every edge longer than `step` cut into the fewest equal parts no longer than `step`. Once
    /// the record is over the limit, paths are only measured (for the message), not built.
    func densified(_ path: Path, _ step: Double, _ budget: inout PositionBudget) throws -> Path {
        try model.validate(path)
        guard path.count > 1 else { budget.total += path.count; return path }
        let edges = (1..<path.count).map { model.edge(path[$0 - 1], path[$0]) }
        let parts = edges.map { max(1, ($0.length / step).rounded(.up)) }
        budget.total += 1 + Int(min(parts.reduce(0, +), 1e15))
        budget.length += edges.reduce(0) { $0 + $1.length }
        guard budget.total <= RecordLimit.positions else { return [] }
        var result: Path = [path[0]]
        result.reserveCapacity(1 + Int(parts.reduce(0, +)))
        for (index, edge) in edges.enumerated() {
            let count = Int(parts[index])
            for k in 1..<count { result.append(edge.position(atDistance: edge.length * Double(k) / parts[index])) }
            result.append(path[index + 1])
        }
        return result
    }
}

/// What a record's densified paths add up to, checked against `RecordLimit` for the whole record.
struct PositionBudget {
    var total = 0
    var length = 0.0
}
