import CommandKit
import GeoCommandLine
import Geodesy
import GeodesyOptions
import GeoJSON
import Geometry
import JSONBytes
import Records
import Styles

/// `geo spans`: GMSStyleSpans and GMSPolyline.spans, on the ellipsoid, and pieces to draw.
public struct Spans: StreamingCommand {
    public static let description = CommandDescription(
        name: "spans",
        summary: "style spans along each path (GMSStyleSpans), or the styled pieces to draw",
        discussion: """
        Computes the Maps SDK's style spans for each record's path (a LineString) and adds them as \
        properties.spans: [{"style": S, "segments": X}, ...], segments being fractional counts of \
        the path's segments that sum to its segment count.

        Pattern mode (GMSStyleSpans, GMSStyleSpansOffset): repeatable --style and --length. \
        Element k of the pattern has length lengths[k mod nL] and style styles[k mod nS]: the two \
        lists wrap independently. --offset X skips X metres of pattern first (negative and large \
        offsets wrap). Lengths are measured by --kind on the ellipsoid (Web Mercator metres with \
        projected); --sphere 6371009 reproduces the SDK's own figures.

        Explicit mode (GMSPolyline.spans): repeatable --span STYLE[:SEGMENTS]. SEGMENTS defaults \
        to 1, may be fractional and must be > 0; spans run end to end from the first vertex, the \
        last one covers the rest of the line, and spans past the end are ignored.

        A style is a colour, by name (UIKit's black, blue, brown, clear, cyan, darkGray, gray, \
        green, lightGray, magenta, orange, purple, red, white, yellow, and common CSS names, any \
        case, grey or gray), #RGB, #RRGGBB, #RRGGBBAA, CSS's rgb(R,G,B) with 0-255 channels, or \
        rgba(R,G,B,A): UIColor's four 0-1 floats, or CSS's 0-255 channels and 0-1 alpha when a \
        channel is above 1; gradient(FROM,TO); or a stamp, \
        sprite(NAME) or texture(NAME) (GMSSpriteStyle, GMSTextureStyle), passed through for geo \
        render, which draws the image registered as NAME with --stamp. Draw a sprite's image \
        pointing up: geo render centres it on the line every image-height, turned so that its \
        top points along the line towards its end. A texture is scaled so that its width is the \
        stroke's, its top towards the line's end: give the pieces a width (--split --width 12), \
        as at render's default of 2 px it shows as little more than a line.

        With --split each record becomes one LineString Feature per span instead, cut at the \
        span's fractional positions along the edges by --kind (a geodesic cut point is on the \
        geodesic), with properties span (the index), style, and simplestyle's stroke (and \
        stroke-opacity below full alpha, and stroke-width with --width), so that geojson.io and \
        QGIS draw the line as the SDK would. A gradient span is cut at every vertex too, each \
        piece carrying the interpolated colours at its ends as stroke and stroke-end. A path with \
        no spans (one point, or no length) is written whole with an empty properties.spans.

        A MultiLineString (a GPX track, whose parts are its segments) is one path per part, as \
        the SDK draws one GMSPolyline per part: spans restart at each part's start, the pattern \
        from its beginning. properties.spans is then a list of lists, one per part in order; \
        with --split each piece also carries properties.part, the index of its part from 0.
        """,
        options: [style, length, offset, span, split, width] + GeodesyOptions.options + PathInputFormat.options
            + [StreamOptions.digits] + StreamOptions.geoJSONFraming + StreamOptions.common,
        examples: [
            Example("geo spans --style white --style black --length 100000 --length 50000 --sphere 6371009 examples/routes.ndjson",
                    "Alternating white and black every 100 km and 50 km, as GMSStyleSpans computes it."),
            Example("geo decode examples/routes.polyline | geo spans --span red:2 --span 'gradient(green,blue)' --split --width 4 > styled.geojsonl",
                    "Red for two segments, then a green-to-blue gradient, as pieces geojson.io draws."),
            Example("geo spans --style 'texture(rail)' --style 'sprite(arrow)' --length 500 --split --width 12 examples/routes.ndjson | geo render --stamp rail=examples/rail.png --stamp arrow=examples/arrow.png --bbox -0.2,51.45,0,51.55 -o line.png",
                    "Rails and arrows every 500 m, 12 px wide, drawn by geo render in London (arrow.png pointing up)."),
        ])

    public static let sampleArguments = [
        ["--style", "red", "--style", "gradient(red,blue)", "--length", "300000", "--offset", "-7", "--split", "--width", "3"],
        ["--span", "red:0.5", "--span", "blue", "--kind", "rhumb"],
    ]

    /// A style as given and as parsed.
    typealias NamedStyle = (name: String, style: Style)

    static let style = Option(custom: "style", valueName: "STYLE", suggestions: ["gradient(", "sprite(", "texture("] + namedColours.keys.sorted(),
                              help: "A pattern style: a colour, gradient(FROM,TO), sprite(NAME) or texture(NAME).", parse: parseStyle).repeatable()
    static let length = Option(number: "length", valueName: "L", check: { $0 >= 0 ? nil : "a length that is not negative" },
                               help: "A pattern length in metres.").repeatable()
    static let offset = Option(number: "offset", valueName: "X", help: "Skip X metres of pattern first (GMSStyleSpansOffset).")
        .defaulting(to: 0)
    static let span = Option(custom: "span", valueName: "STYLE[:SEGMENTS]",
                             help: "An explicit span (GMSStyleSpan) covering SEGMENTS path segments (default 1).", parse: parseSpan).repeatable()
    static let split = Flag("split", help: "Output one LineString Feature per span piece, with simplestyle stroke properties.")
    static let width = Option(number: "width", valueName: "W", check: { $0 >= 0 ? nil : "a stroke width that is not negative" },
                              help: "With --split: stroke-width of every piece.")

    @Sendable static func parseStyle(_ text: String) throws(UsageError) -> NamedStyle {
        guard let style = Style(text) else {
            let meant = ArgumentParser.suggestion(for: text.trimmingSpaces().lowercased(), among: namedColours.keys.sorted(), prefix: "")
            throw UsageError("'\(text)' is not a style: use a colour (\(Colour.forms)), gradient(FROM,TO), sprite(NAME) or texture(NAME) (NAME: letters, digits, _ and -)\(meant)")
        }
        return (text, style)
    }

    /// `STYLE[:SEGMENTS]`: the style may itself hold a colon-free gradient(...); SEGMENTS follows
    /// the last colon.
    @Sendable static func parseSpan(_ text: String) throws(UsageError) -> (name: String, style: Style, segments: Double) {
        var name = text
        var segments = 1.0
        if let colon = text.lastIndex(of: ":"), !text[colon...].contains(")") {
            name = String(text[..<colon])
            guard let count = Double(text[text.index(after: colon)...]), count.isFinite, count > 0 else {
                throw UsageError("--span \(text): SEGMENTS must be a number greater than 0")
            }
            segments = count
        }
        let (_, style) = try parseStyle(name)
        return (name, style, segments)
    }

    public let stream: StreamConfiguration
    public let handler: SpansHandler

    public init(_ arguments: ParsedArguments) throws(UsageError) {
        stream = try StreamOptions.configuration(arguments, jsonOutput: true)
        let request: SpanRequest
        let explicit = arguments.all(Spans.span)
        if !explicit.isEmpty {
            if arguments.has(Spans.style) || arguments.has(Spans.length) || arguments.has(Spans.offset) {
                throw UsageError("--span cannot be combined with --style, --length or --offset")
            }
            request = .explicit(explicit)
        } else {
            let styles = arguments.all(Spans.style), lengths = arguments.all(Spans.length)
            guard !styles.isEmpty, !lengths.isEmpty else {
                throw UsageError("give --style and --length (a pattern), or --span (explicit spans)")
            }
            // Zero-length elements are the SDK's too, but a pattern of no length covers nothing.
            guard lengths.contains(where: { $0 > 0 }) else {
                throw UsageError("--length: the pattern has no length; give a length greater than 0")
            }
            request = .pattern(styles: styles, lengths: lengths, offset: arguments[Spans.offset])
        }
        if arguments.has(Spans.width) && !arguments[Spans.split] { throw UsageError("--width goes with --split") }
        handler = SpansHandler(input: try PathInputFormat(arguments), model: try GeodesyOptions.model(arguments), request: request,
                               split: arguments[Spans.split], width: arguments[Spans.width])
    }
}

public struct SpansHandler: PathHandler {
    public let input: PathInputFormat
    let model: EdgeModel
    let request: SpanRequest
    let split: Bool
    let width: Double?

    public func handle(_ record: UnsafeBufferPointer<UInt8>, into output: RecordWriter) throws {
        try input.readFeatures(record) { feature, isLast in
            // A MultiLineString (a GPX track) is one path per part, as the SDK draws one
            // GMSPolyline per part: spans restart at each part's start.
            let multiPart: [Path]? = if case .multiLineString(let paths) = feature.geometry { paths } else { nil }
            let paths = try multiPart ?? [Geometry.singlePath(of: feature.geometry, along: "for spans to run along")]
            var cumulatives: [[Double]] = []
            for path in paths {
                try model.validate(path)
                cumulatives.append(model.cumulativeLengths(of: path))
            }
            try RecordLimit.check(cumulatives.reduce(0) { $0 + request.maximumSpans(total: $1.last ?? 0) }, "spans", estimated: true,
                                  advice: "use a longer --length for this path")
            let resolved = cumulatives.map { request.resolve(cumulative: $0) }, styles = request.styles
            guard split, resolved.contains(where: { !$0.isEmpty }) else {
                // Without --split, or with no spans to draw (a path of no length): the record
                // itself, saying so, rather than nothing; a MultiLineString gets a list per part.
                // The list is written as JSON text span by span: as one JSONValue tree, the
                // 27,000 spans of a long path under a short pattern took ~8 MB while it existed
                // (bench/README.md, Memory).
                let list = ByteBuffer(capacity: resolved.reduce(2) { $0 + $1.count * 48 + 3 })
                if multiPart != nil { list.append(UInt8(ascii: "[")) }
                for (part, spans) in resolved.enumerated() {
                    if part > 0 { list.append(UInt8(ascii: ",")) }
                    list.append(UInt8(ascii: "["))
                    for (index, span) in spans.enumerated() {
                        if index > 0 { list.append(UInt8(ascii: ",")) }
                        output.geoJSON.write(.object([("style", .string(styles[span.styleIndex].name)), ("segments", .number(span.segments))]), to: list)
                    }
                    list.append(UInt8(ascii: "]"))
                }
                if multiPart != nil { list.append(UInt8(ascii: "]")) }
                output.write(feature, from: record, adding: [("spans", .raw(list.string))])
                return
            }
            try RecordLimit.check(Double(zip(resolved, paths).reduce(0) { $0 + positionCount($1.0, styles: styles, path: $1.1) }),
                                  "points in its pieces", advice: "use longer spans for this path")
            // Nothing below throws: the pieces (megabytes for a long path under a short
            // pattern) may be written out as they come rather than held until the record ends.
            if isLast { output.commit() }
            for (part, path) in paths.enumerated() {
                var start = 0.0
                for (index, span) in resolved[part].enumerated() {
                    let end = index == resolved[part].count - 1 ? Double(path.count - 1) : start + span.segments
                    let (name, style) = styles[span.styleIndex]
                    for piece in pieces(of: style, from: start, to: end, path: path, cumulative: cumulatives[part]) {
                        // A stamp's stroke is its style, for geo render (simplestyle readers skip it).
                        var added: [(String, JSONValue)] = multiPart == nil ? [] : [("part", .number(Double(part)))]
                        added += [("span", .number(Double(index))), ("style", .string(name)), ("stroke", .string(piece.colour?.hex ?? name))]
                        if let colour = piece.colour, colour.alpha < 255 { added.append(("stroke-opacity", .number(colour.opacity))) }
                        if let endColour = piece.endColour { added.append(("stroke-end", .string(endColour.hex))) }
                        if let width { added.append(("stroke-width", .number(width))) }
                        output.write(feature, from: record, geometry: .replaced(.lineString(piece.path)), adding: added)
                    }
                    start = end
                }
            }
        }
    }

    /// How many positions the pieces of `spans` hold: each piece's ends and the path's vertices
    /// inside it (every vertex ends a piece of a gradient), counted before any piece is built.
    func positionCount(_ spans: [ResolvedSpan], styles: [(name: String, style: Style)], path: Path) -> Int {
        var count = 0
        var start = 0.0
        for (index, span) in spans.enumerated() {
            let end = index == spans.count - 1 ? Double(path.count - 1) : start + span.segments
            let inside = max(0, Int(end.rounded(.up)) - Int(start.rounded(.down)) - 1)
            if case .gradient = styles[span.styleIndex].style { count += 2 * (inside + 1) } else { count += inside + 2 }
            start = end
        }
        return count
    }

    struct Piece {
        var path: Path
        /// nil for a stamp.
        var colour: Colour?
        var endColour: Colour?
    }

    /// The span's stretch of the path, [start, end] in fractional segment indices: one piece, or
    /// for a gradient one piece per edge, its colours interpolated by length along the span.
    func pieces(of style: Style, from start: Double, to end: Double, path: Path, cumulative: [Double]) -> [Piece] {
        var points: [(position: Position, distance: Double)] = [point(at: start, path: path, cumulative: cumulative)]
        var vertex = Int(start.rounded(.down)) + 1
        while Double(vertex) < end {
            points.append((path[vertex], cumulative[vertex]))
            vertex += 1
        }
        if end > start { points.append(point(at: end, path: path, cumulative: cumulative)) }
        switch style {
        case .solid(let colour):
            return [Piece(path: points.map(\.position), colour: colour)]
        case .sprite, .texture:
            return [Piece(path: points.map(\.position), colour: nil)]
        case .gradient(let from, let to):
            let first = points.first!.distance, length = points.last!.distance - first
            func colour(_ distance: Double) -> Colour { from.mixed(with: to, length > 0 ? (distance - first) / length : 0) }
            guard points.count > 1 else { return [Piece(path: [points[0].position], colour: from, endColour: to)] }
            return (1..<points.count).map { index in
                Piece(path: [points[index - 1].position, points[index].position],
                      colour: colour(points[index - 1].distance), endColour: colour(points[index].distance))
            }
        }
    }

    /// The position at a fractional segment index, cut on the edge by --kind, and its distance.
    func point(at index: Double, path: Path, cumulative: [Double]) -> (position: Position, distance: Double) {
        let edge = min(Int(index.rounded(.down)), path.count - 2)
        guard edge >= 0 else { return (path[0], 0) }
        let fraction = index - Double(edge)
        if fraction == 0 { return (path[edge], cumulative[edge]) }
        if fraction == 1 { return (path[edge + 1], cumulative[edge + 1]) }
        let walk = model.edge(path[edge], path[edge + 1])
        let along = fraction * walk.length
        return (walk.position(atDistance: along), cumulative[edge] + along)
    }
}
