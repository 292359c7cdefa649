#if canImport(Glibc)
import Glibc
#endif
import CommandKit
import GeoCommandLine
import Geodesy
import GeodesyOptions
import GeoJSON
import Geometry
import JSONBytes
import Records

/// `geo bbox`: the RFC 7946 bbox of each record (GMSCoordinateBounds), or of all of them.
public struct Bbox: StreamingCommand {
    public static let description = CommandDescription(
        name: "bbox",
        summary: "add the bounding box of each record, the smallest across the antimeridian",
        discussion: """
        Adds the RFC 7946 bbox member [W, S, E, N] to each record (replacing one it has): the \
        GMSCoordinateBounds of its positions, longitudes in [-180, 180]. The smallest box is \
        chosen, so a shape across the antimeridian has W > E (RFC 7946, section 5.2: Fiji is \
        [177.3, -18.3, -179.8, -16.0], not the whole world). A polygon containing a pole reaches \
        it: S = -90 or N = 90, with W = -180 and E = 180. With --geodesic the box holds every \
        edge, each following --kind, not only the vertices (a geodesic between two points at 60N \
        bulges north of both). A record with no position (a null geometry, empty coordinates) \
        gets no bbox. Everything else is copied unchanged.

        With --all, the records are not written: instead one Feature at the end, whose geometry \
        is the box of every record (a Polygon; two, cut at the antimeridian as RFC 7946 asks, \
        when the box crosses it) with its bbox member. The boxes of the records are combined as \
        longitude arcs, so the result is the smallest box that holds them all.

        Accuracy: vertices are copied exactly. Geodesic edges reach their vertex latitude by \
        Clairaut's relation (Karney 2013), exact to 1e-14 degrees; rhumb and projected edges are \
        monotonic in latitude and longitude, so their ends bound them.
        """,
        options: [geodesic, all] + GeodesyOptions.options + PathInputFormat.options + StreamOptions.geoJSONFraming + StreamOptions.common,
        examples: [
            Example("geo bbox examples/routes.ndjson | jq -c .bbox",
                    "The box of each route, [W, S, E, N]."),
            Example("geo bbox --geodesic examples/flights.ndjson | jq -c .bbox",
                    "Boxes that hold the flights' geodesic arcs, which bulge poleward of their ends."),
            Example("geo bbox --all examples/stations.ndjson examples/sightings.ndjson",
                    "One Feature: the box of every station and sighting together."),
        ])

    public static let sampleArguments = [[], ["--geodesic", "--kind", "rhumb"], ["--all", "--geodesic"], ["--from", "polyline", "--kind", "projected", "--geodesic"]]

    static let geodesic = Flag("geodesic", help: "Make the box hold every edge, each following --kind, not only the vertices.")
    static let all = Flag("all", help: "Write one Feature at the end instead: the box of every record, as a Polygon with its bbox.")

    public let stream: StreamConfiguration
    public let handler: BboxHandler
    let combined: Bool

    public init(_ arguments: ParsedArguments) throws(UsageError) {
        stream = try StreamOptions.configuration(arguments, jsonOutput: true)
        combined = arguments[Bbox.all]
        handler = BboxHandler(input: try PathInputFormat(arguments), model: try GeodesyOptions.model(arguments),
                              edges: arguments[Bbox.geodesic], writesBoxes: combined)
    }

    public var handlerWritesOutput: Bool { !combined }

    public func run() -> ExitCode {
        guard combined else { return StreamRunner(command: Self.description.name, options: stream, handler: handler).run() }
        // Pass 1: every record's box, handed in input order to the one thread that runs the
        // stream, which keeps their union. Rejects, progress and the checks of -o happen here.
        let union = BoxUnion()
        var collecting = stream
        collecting.consumer = { bytes in union.add(boxesIn: bytes) }
        let status = StreamRunner(command: Self.description.name, options: collecting, handler: handler).run()
        guard status == .success || status == .dataError && !stream.strict else { return status }
        // Pass 2: the one Feature, written with the run's output options.
        let box = union.box
        var writing = stream
        writing.inputs = []
        writing.rejects = nil
        writing.progress = false
        let literal = Array((box.map(BoxUnion.geometry) ?? "null").utf8)
        let written = StreamRunner(command: Self.description.name, options: writing, handler: BoxWriter(box: box))
            .run(literal: literal, source: "--all")
        return written == .success ? status : written
    }
}

/// A box: the latitudes it spans and the longitudes, an arc east from `west` to `east`.
public struct Box: Sendable, Equatable {
    var longitudes: LongitudeSpan
    /// The arc's eastern end as the data has it (west + width would round: 139.7798 + 97.8412
    /// is not -122.379 in binary).
    var east: Double
    var south: Double
    var north: Double

    /// [W, S, E, N] as RFC 7946 writes it.
    var member: JSONValue {
        .array([.number(longitudes.west), .number(south), .number(east), .number(north)])
    }
}

public struct BboxHandler: PathHandler {
    public let input: PathInputFormat
    let model: EdgeModel
    /// --geodesic: bound the edges, not only the vertices.
    let edges: Bool
    /// --all: write each box as four raw doubles for the union, not the Feature.
    let writesBoxes: Bool

    public func handle(_ record: UnsafeBufferPointer<UInt8>, into output: RecordWriter) throws {
        try input.readFeatures(record) { feature in
            let box = try self.box(of: feature.geometry)
            if writesBoxes {
                guard let box else { return }
                for value in [box.longitudes.west, box.longitudes.width, box.south, box.north] {
                    withUnsafeBytes(of: value) { output.buffer.append($0.bindMemory(to: UInt8.self)) }
                }
                output.endRecord()
                return
            }
            writeFeature(feature, from: record, box: box, into: output)
        }
    }


    /// The record's smallest box, nil when it has no position.
    func box(of geometry: Geometry?) throws -> Box? {
        var extent = Extent()
        try add(geometry, to: &extent)
        return extent.box
    }

    func add(_ geometry: Geometry?, to extent: inout Extent) throws {
        switch geometry {
        case nil: return
        case .point(let position): try addPath([position], closed: false, to: &extent)
        case .multiPoint(let points): for point in points { try addPath([point], closed: false, to: &extent) }
        case .lineString(let path): try addPath(path, closed: false, to: &extent)
        case .multiLineString(let paths): for path in paths { try addPath(path, closed: false, to: &extent) }
        case .polygon(let rings): try addPolygon(rings, to: &extent)
        case .multiPolygon(let polygons): for rings in polygons { try addPolygon(rings, to: &extent) }
        case .geometryCollection(let members): for member in members { try add(member, to: &extent) }
        }
    }

    func addPolygon(_ rings: [Path], to extent: inout Extent) throws {
        for ring in rings { try addPath(ring, closed: true, to: &extent) }
        // A polygon holding a pole reaches it, and every longitude with it. Web Mercator has no
        // poles: a projected polygon holds none.
        guard model.kind != .projected, let outer = rings.first, outer.count >= 3 else { return }
        for pole in [90.0, -90.0] where model.contains(polygon: rings, Position(longitude: 0, latitude: pole)) {
            extent.add(latitude: pole)
            extent.spans.append(.all)
        }
    }

    /// A path's positions, or with --geodesic its edges (a ring's closing edge too).
    func addPath(_ path: Path, closed: Bool, to extent: inout Extent) throws {
        try model.validate(path)
        guard edges, path.count > 1 else {
            for position in path {
                extent.add(latitude: position.latitude)
                extent.spans.append(LongitudeSpan(west: position.longitude, width: 0))
            }
            return
        }
        func addEdge(_ a: Position, _ b: Position) {
            let latitudes = model.latitudeRange(ofEdgeFrom: a, to: b)
            extent.add(latitude: latitudes.lowerBound)
            extent.add(latitude: latitudes.upperBound)
            extent.spans.append(model.longitudeSpan(ofEdgeFrom: a, to: b))
        }
        for index in path.indices.dropFirst() { addEdge(path[index - 1], path[index]) }
        if closed, let first = path.first, let last = path.last, first != last { addEdge(last, first) }
    }

}

/// The Feature with its `bbox` member set (an old one dropped), or unchanged without a box.
func writeFeature(_ feature: Feature, from record: UnsafeBufferPointer<UInt8>, box: Box?, into output: RecordWriter) {
    var feature = feature
    feature.members.removeAll { member in
        member.role == .other && member.key.count == 6 && record[member.key].elementsEqual("\"bbox\"".utf8)
    }
    output.beginRecord()
    output.geoJSON.write(feature, from: record, to: output.buffer)
    if let box {
        // The writer closed the object: reopen it for one more member.
        output.buffer.count -= 1
        output.buffer.append(",\"bbox\":")
        output.geoJSON.write(box.member, to: output.buffer)
        output.buffer.append(UInt8(ascii: "}"))
    }
    output.endRecord()
}

/// The latitudes and longitude arcs a record covers, on the way to its box.
struct Extent {
    var south = Double.infinity
    var north = -Double.infinity
    var spans: [LongitudeSpan] = []

    mutating func add(latitude: Double) {
        south = min(south, latitude)
        north = max(north, latitude)
    }

    var box: Box? {
        smallestArc(covering: spans).map { Box(longitudes: $0.span, east: $0.east, south: south, north: north) }
    }
}

/// The shortest arc of longitudes that holds every span: the circle minus the widest gap between
/// them (nil for no span), with its eastern end as given (the end of the span before the gap).
/// On a tie the gap across ±180 is preferred, so a box crosses the antimeridian only when that
/// makes it smaller.
func smallestArc(covering spans: [LongitudeSpan]) -> (span: LongitudeSpan, east: Double)? {
    guard !spans.isEmpty else { return nil }
    let all = (span: LongitudeSpan.all, east: 180.0)
    if spans.contains(where: \.isAll) { return all }
    let sorted = spans.sorted { $0.west < $1.west }
    // Walk east from the westernmost start; `reach` is how far east the spans so far cover.
    var reach = sorted[0].west + sorted[0].width
    var widestGap = 0.0, gapStart = reach, gapEnd = sorted[0].west
    for span in sorted.dropFirst() {
        if span.west - reach > widestGap { (widestGap, gapStart, gapEnd) = (span.west - reach, reach, span.west) }
        reach = max(reach, span.west + span.width)
    }
    // The gap that wraps round from the last reach to the first start.
    let wrapGap = sorted[0].west + 360 - reach
    if wrapGap <= 0 { return all }
    if wrapGap >= widestGap {
        return (LongitudeSpan(west: sorted[0].west, width: reach - sorted[0].west), normalizedLongitude(reach))
    }
    return (LongitudeSpan(west: gapEnd, width: 360 - widestGap), normalizedLongitude(gapStart))
}

/// The union of the records' boxes for --all, fed in input order by the engine's consumer (a
/// class, for that closure to hold; used on the one thread that runs the stream). The smallest
/// arc of a union is not that of a union of smaller arcs, so the arcs are kept, merged where
/// they overlap whenever their number has doubled: memory follows the number of separate pieces
/// of longitude, not of records.
final class BoxUnion: @unchecked Sendable {
    var spans: [LongitudeSpan] = []
    var south = Double.infinity
    var north = -Double.infinity
    private var compacted = 4096

    /// 4 doubles and the record's newline.
    static let stride = 4 * MemoryLayout<Double>.size + 1

    func add(boxesIn bytes: UnsafeBufferPointer<UInt8>) {
        let raw = UnsafeRawBufferPointer(bytes)
        var offset = 0
        while offset + BoxUnion.stride <= raw.count {
            func value(_ index: Int) -> Double { raw.loadUnaligned(fromByteOffset: offset + 8 * index, as: Double.self) }
            spans.append(LongitudeSpan(west: value(0), width: value(1)))
            south = min(south, value(2))
            north = max(north, value(3))
            offset += BoxUnion.stride
        }
        if spans.count > 2 * compacted {
            spans = disjointPieces(of: spans)
            compacted = max(4096, spans.count)
        }
    }

    var box: Box? {
        smallestArc(covering: spans).map { Box(longitudes: $0.span, east: $0.east, south: south, north: north) }
    }

    /// The box as GeoJSON: a Polygon, or a MultiPolygon of two cut at ±180 when it crosses it.
    static func geometry(_ box: Box) -> String {
        func ring(_ west: Double, _ east: Double) -> String {
            let (s, n) = (box.south, box.north)
            return "[[[\(number: west),\(number: s)],[\(number: east),\(number: s)],[\(number: east),\(number: n)],[\(number: west),\(number: n)],[\(number: west),\(number: s)]]]"
        }
        let west = box.longitudes.west
        guard box.longitudes.crossesAntimeridian else {
            return "{\"type\":\"Polygon\",\"coordinates\":\(ring(west, box.longitudes.isAll ? 180 : box.east))}"
        }
        return "{\"type\":\"MultiPolygon\",\"coordinates\":[\(ring(west, 180)),\(ring(-180, box.east))]}"
    }
}

/// Arcs merged where they overlap (the same union, fewer pieces).
func disjointPieces(of spans: [LongitudeSpan]) -> [LongitudeSpan] {
    var pieces: [LongitudeSpan] = []
    for span in spans.sorted(by: { $0.west < $1.west }) {
        if let last = pieces.last, span.west <= last.west + last.width {
            pieces[pieces.count - 1] = LongitudeSpan(west: last.west, width: max(last.width, span.west + span.width - last.west))
        } else {
            pieces.append(span)
        }
    }
    return pieces
}

/// Pass 2 of --all: the one Feature, its geometry the box, with its bbox member.
struct BoxWriter: RecordHandler {
    let box: Box?

    func handle(_ record: UnsafeBufferPointer<UInt8>, into output: RecordWriter) throws {
        try GeoJSONReader.readFeatures(record) { feature in writeFeature(feature, from: record, box: box, into: output) }
    }
}
