#if canImport(Glibc)
import Glibc
#endif
import CommandKit
import Drawing
import GeoCommandLine
import Geodesy
import MapDrawing
import GeodesyOptions
import GeoJSON
import Geometry
import Records
import Styles

/// `geo render`: records drawn as a picture (SVG, PNG or PDF), the way the Maps SDK draws its
/// shapes, offline.
public struct Render: GeoCommand {
    public static let description = CommandDescription(
        name: "render",
        summary: "draw the records as a picture (SVG, PNG or PDF), the way the Maps SDK draws its shapes",
        discussion: """
        Reads every record, then writes one picture: -o FILE ending in .svg, .png or .pdf (or \
        --format); without -o, SVG on standard output (PNG and PDF go to a terminal only with -o \
        -). A file is written to a temporary file beside it and renamed into place, so that it is \
        never left half written; an existing file keeps its permissions, and a symbolic link \
        stays a link (its target is replaced). A device, a FIFO or /dev/fd/N (-o /dev/null, -o \
        >(...)) is written directly, never replaced; so is such a name without an extension, as \
        SVG. An input that is not a regular file (standard input, <(...), a FIFO) is kept in a \
        temporary file when the view is fitted, since it is read twice. A picture that shows no \
        shape (no records, every shape outside --bbox) is still written, and a line on standard \
        error says why.

        The view is --size pixels (default 1024x768). By default it fits every shape, --padding \
        pixels from the edges; --bbox W,S,E,N (degrees) shows that region instead, its projected \
        extent fitted inside --size keeping the projection's aspect, centred. --projection takes \
        any CRS PROJ knows (default EPSG:3857, Web Mercator as map SDKs draw; '+proj=ortho \
        +lat_0=40 +lon_0=-30' draws a globe centred anywhere, its far side cut away at the \
        horizon). In Web Mercator, and any projection whose y runs to infinity at the poles, \
        latitudes are held to its area of use, ±85.0511° (where the Web Mercator world is \
        square), for fitting, --bbox and drawing, as web maps do: Antarctica's -90° is drawn at \
        the map's bottom edge, and the world is a square, not a strip. When the \
        shapes cross the antimeridian the view does too: Tokyo to San Francisco is drawn across \
        the Pacific.

        Edges are straight in the projection, as the SDK draws a polyline with geodesic = NO. A \
        record whose properties.geodesic is true, or every record with --geodesic, has each edge \
        drawn as its geodesic (rhumb line with --kind rhumb), densified until no drawn point is \
        more than 0.25 px off the curve.

        Styles come from properties, with the Maps SDK's names or simplestyle's: stroke or \
        strokeColor, stroke-width or strokeWidth (pixels), stroke-opacity, fill or fillColor, \
        fill-opacity, z-index or zIndex (drawing order; ties keep input order), marker-color and \
        marker-size (small, medium, large) for points. Defaults are simplestyle's: #555555, width \
        2, fill opacity 0.6 (for a fill colour without its own alpha). Colours are geo spans': \
        names, #RRGGBB, #RRGGBBAA, rgba(R,G,B,A) with 0-1 floats. properties.spans, as geo spans \
        writes it, is drawn as GMSPolyline.spans: colours, gradient(A,B) ramped by length along \
        the span, and stamps; on a MultiLineString (a GPX track), a list per part runs along \
        each part from its own start, as geo spans writes it; a geo spans --split piece's stroke and stroke-end are drawn as a \
        gradient. --stamp NAME=IMAGE.png registers an image for the styles sprite(NAME) (the \
        image repeated along the line at its own size, turned with it) and texture(NAME) (tiled \
        along the stroke, scaled to its width); a record can only name registered stamps.

        Polygons are filled with their holes open whatever way the rings wind, the rings \
        stroked over the fill; a MultiPolygon cut at ±180 (geo circle-to-polygon) is filled as \
        one shape, with no seam and no stroke along the cut. Points are drawn as markers.

        Memory stays flat: without --bbox the input is read twice (the first time to fit the \
        view; standard input is kept in a temporary file meanwhile), and records with a z-index \
        other than 0 wait in temporary files, one per z-index, to be drawn in order. A bad \
        record is reported and left out (exit 65); the picture is still written.
        """,
        options: [format, size, bbox, padding, projection] + DrawingOptions.options(background: background) + PathInputFormat.options
            + stream.declarations,
        examples: [
            Example("geo decode examples/routes.polyline | geo spans --style red --style blue --length 1000 | geo render -o routes.png",
                    "A route in red and blue every kilometre, as a PNG."),
            Example("geo render --projection '+proj=ortho +lat_0=30 +lon_0=150' --geodesic --graticule 15 -o flights.pdf examples/flights.ndjson",
                    "Flights as geodesics on a globe, with meridians and parallels every 15 degrees."),
            Example("geo spans --style 'texture(rail)' --length 500 examples/routes.ndjson | geo render --stamp rail=examples/rail.png --bbox -0.2,51.45,0,51.55 -o line.svg",
                    "A line drawn with a tiled image, in a fixed view of London."),
        ],
        exitStatus: """
        0: every record was drawn. 64: wrong options or operands (a --size over 64 million \
        pixels, an unknown --projection, ...); nothing was read or written. 65: some records were \
        bad (each reported on standard error as geo render: FILE:LINE: problem, then a count: an \
        unknown colour or stamp, a style that is not a number, ...); the picture is still written \
        from the others, but when every record was bad an existing FILE is left as it was (and \
        no new one is made). 66: an input file or a --stamp image cannot be opened. \
        \(CommandDescription.missingLibraryStatus) 73: the picture's \
        file cannot be created. 74: a read or a write failed part way (a full disk, say). The \
        picture is written to a temporary file beside FILE and renamed into place: after a \
        failure, or a signal, no partial file is left behind, and an existing FILE is untouched.
        """)

    static let output = Option(file: "output", short: "o", extensions: ImageFormat.allCases.map(\.rawValue), help: "Write the picture to FILE (its extension gives the format) instead of SVG on standard output; - is standard output (PNG and PDF go to a terminal only this way).")
    /// The options every command that reads records shares, with this command's own -o.
    static let stream = StreamOptions.drawing(output: output)
    static let format = Option(choice: "format", of: ImageFormat.self, help: "The picture's format, whatever -o's extension is.")
    static let size = Option(custom: "size", valueName: "WxH", help: "The picture's size in pixels (at most 16384 each way and 64 million in all).", parse: parseSize)
        .defaulting(to: (1024, 768), shown: "1024x768")
    static let bbox = Option(custom: "bbox", valueName: "W,S,E,N", help: "Show this region (degrees; W > E spans the antimeridian) instead of fitting the shapes.", parse: DrawingOptions.parseRegion)
    static let padding = Option(number: "padding", valueName: "PX", check: { $0 >= 0 ? nil : "pixels, 0 or more" },
                                help: "Room left around the shapes when the view fits them.").defaulting(to: 16)
    static let projection = Option(text: "projection", valueName: "CRS", suggestions: ["EPSG:3857", "EPSG:4326", "+proj=ortho +lat_0=0 +lon_0=0"],
                                   help: "Any CRS PROJ knows: EPSG:CODE, a PROJ string, WKT.").defaulting(to: "EPSG:3857")
    static let background = DrawingOptions.whiteBackground

    @Sendable static func parseSize(_ text: String) throws(UsageError) -> (Int, Int) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]), width > 0, height > 0 else {
            throw UsageError("--size takes WxH in pixels (like 1024x768), not '\(text)'")
        }
        guard width <= 16384, height <= 16384, width * height <= 64_000_000 else {
            throw UsageError("--size \(text) is too large: at most 16384 pixels each way and 64 million in all")
        }
        return (width, height)
    }

    /// `-o /dev/null`, a FIFO, `>(…)`: a name without an extension that is no file, where the
    /// picture is SVG as on standard output.
    static func isDevice(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) != S_IFREG && (info.st_mode & S_IFMT) != S_IFDIR
    }

    let settings: RenderSettings

    public init(_ arguments: ParsedArguments) throws(UsageError) {
        var settings = RenderSettings()
        settings.stream = try Render.stream.configuration(arguments, jsonOutput: false)
        settings.outputAsked = arguments[Render.output] == "-"
        if let format = arguments[Render.format] {
            settings.format = format
        } else if let output = settings.stream.output {
            let lower = output.lowercased()
            if let format = ImageFormat.allCases.first(where: { lower.hasSuffix(".\($0.rawValue)") }) {
                settings.format = format
            } else if !Render.isDevice(output) {
                throw UsageError("-o \(output): name a .svg, .png or .pdf file, or give --format")
            }
        }
        (settings.width, settings.height) = arguments[Render.size]
        settings.box = arguments[Render.bbox]
        settings.padding = arguments[Render.padding]
        if arguments.has(Render.padding) && settings.box != nil { throw UsageError("--padding applies to the fit without --bbox") }
        if settings.box == nil && 2 * settings.padding >= Double(min(settings.width, settings.height)) {
            throw UsageError("--padding \(number: settings.padding) leaves no room in a \(settings.width)x\(settings.height) picture")
        }
        do { settings.projection = try Projection(crs: arguments[Render.projection]) } catch {
            throw UsageError("--projection: \(error.message)")
        }
        settings.drawing = try DrawingSettings(arguments, background: Render.background)
        settings.input = try PathInputFormat(arguments)
        self.settings = settings
    }

    public func run() -> ExitCode {
        do {
            return try PictureRenderer(settings).run()
        } catch {
            printError("geo render: \(error.message)\n")
            return error.status
        }
    }
}

/// Everything the options say, checked. Sendable by hand: built before any thread starts and
/// only read after.
struct RenderSettings: @unchecked Sendable {
    /// Inputs, -o, --rejects, --jobs, --strict, progress: the options every command shares.
    var stream = StreamConfiguration()
    /// `-o -`: the picture goes to standard output even when that is a terminal.
    var outputAsked = false
    var format = ImageFormat.svg
    var width = 1024, height = 768
    var box: (west: Double, south: Double, east: Double, north: Double)?
    var padding = 16.0
    var projection: Projection!
    /// --geodesic, --kind, --stamp, --graticule, --background, --antialias: the options render
    /// shares with tiles.
    var drawing = DrawingSettings()
    var input = PathInputFormat.geoJSON
}
