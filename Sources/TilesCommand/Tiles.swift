#if canImport(Glibc)
import Glibc
#endif
import CommandKit
import GeoCommandLine
import MapDrawing
import Records

/// `geo tiles`: the records drawn as a pyramid of Web Mercator map tiles, for a tile overlay
/// (GMSURLTileLayer, TileOverlay, Leaflet, MapLibre) instead of one shape object per record.
public struct Tiles: GeoCommand {
    public static let description = CommandDescription(
        name: "tiles",
        summary: "draw the records as Web Mercator map tiles (a directory of PNGs, an MBTiles or a PMTiles file), for a tile overlay",
        discussion: """
        Draws the records as render draws them, cut into the XYZ tiles of Google's and \
        OpenStreetMap's scheme: zoom z has 2^z x 2^z tiles of 256 pixels, tile 0/0/0 is the \
        world, x runs east from -180 degrees and y south from 85.0511 degrees (Web Mercator's \
        area of use; latitudes beyond are drawn at the edge). -o OUT is a directory, written as \
        OUT/{z}/{x}/{y}.png; or, when it ends in .mbtiles, an MBTiles 1.3 file (SQLite; a tiles \
        view with rows in TMS order, row 0 at the south, over map and images tables that keep \
        identical tiles once, as mbutil and tippecanoe do); or, when it ends in .pmtiles, a \
        PMTiles v3 archive (one file served from any static host by HTTP range requests: PNG \
        tiles, gzipped directories, clustered, identical tiles stored once). Both files carry \
        metadata name, format png, type overlay, minzoom, maxzoom, bounds and center. An app \
        shows the tiles as one overlay: GMSURLTileLayer with https://HOST/OUT/{z}/{x}/{y}.png, \
        Android's UrlTileProvider, a raster source in Leaflet, MapLibre or OpenLayers (a \
        PMTiles source for the archive).

        The drawing is render's: styles from properties (stroke, stroke-width, fill, z-index, \
        spans, gradients, stamps, markers), holes, --geodesic, --kind, --stamp, --graticule. \
        Widths are in screen pixels, as GMSPolyline.strokeWidth: the same at every zoom. A \
        tile is the picture geo render --projection EPSG:3857 --bbox <its bounds> --size \
        256x256 --background none draws, except that shapes just outside it whose strokes, caps \
        or markers reach into it are drawn too: lines run across tile edges with no seam, and a \
        marker on a tile corner is whole in the four tiles. --scale 2 or 3 makes tiles of 512 \
        or 768 pixels with every width and marker scaled to match (high-density screens; \
        GMSTileLayer.tileSize 512). The background is none (transparent, an overlay) unless \
        --background says otherwise. A feature's minzoom and maxzoom properties (or tippecanoe's \
        "tippecanoe": {"minzoom": ..., "maxzoom": ...} member) limit the zooms it is drawn at.

        The bounds and center in the metadata say where the ink is: the band of meridians the \
        shapes cover, across the antimeridian when that is narrower (as render fits its view), \
        or --bbox's or --tile's region; the center's zoom is the deepest within --zoom at which \
        the bounds fit a 1024x768 view, and the --html page opens there.

        Only tiles with ink are written (--empty also writes a transparent PNG for every tile \
        without ink within the extent: the rectangle of tiles with ink at each zoom, or --bbox's \
        or --tile's region, never the whole world by default; a run that would write more than \
        --max-tiles is refused with the count before any tile is drawn). A tile in one colour (each alpha one colour: lines of one colour \
        over the transparent background, however they overlap) is an 8-bit palette PNG with \
        an alpha for each entry, as OpenStreetMap's tiles are; a tile of blended colours is \
        8-bit RGBA. Both hold the drawn pixels exactly. --bbox W,S,E,N limits the pyramid to the tiles that meet that region \
        (W > E spans the antimeridian); --tile Z/X/Y to that tile's subtree within --zoom, so \
        that independent runs (GNU parallel, Spark) each make one subtree and their \
        directories merge by copying. --html also writes OUT/index.html, a page that shows the \
        tiles with pan and zoom and needs nothing from the network.

        Beyond one machine (a pyramid whose input no single machine should read whole), two \
        modes are the building blocks a distributed engine arranges (distributed/ in the \
        sources holds the Spark job and the GNU parallel recipe). --partition Z draws nothing: \
        it is a streaming filter that writes each record once for every subtree of zoom Z it \
        draws into, its strokes, caps and markers included, as Z/X/Y<TAB>record lines (Hadoop \
        streaming's key, tab, value) on standard output or -o FILE, in input order; a record \
        that --zoom, or its own maxzoom, leaves out of every zoom from Z down is not written. \
        geo tiles --tile Z/X/Y --zoom Z-Z1 -o PART fed only the records of that key (the key \
        cut off) draws that subtree exactly as a whole run does, tile for tile. --merge -o OUT \
        PART... joins such parts, and a run of the zooms above Z, into one OUT of OUT's kind: \
        each PART a tile directory, an MBTiles file or a PMTiles archive (told apart by their \
        contents), in any mix; a tile that two parts hold must have the same bytes in both, \
        else the merge is refused naming both parts and the tile. The metadata's zooms span \
        the parts', its bounds are the smallest band holding every part's (a directory's: its \
        tiles'), and the center follows from them as in a drawing run.

        Memory stays flat: the input is read once, each record prepared (styles read, every \
        vertex projected) on --jobs threads and kept in a temporary file, with an entry for \
        every tile it touches; the entries are sorted on disk by tile, and the tiles drawn on \
        --jobs threads, each from the records that touch it, in z-index and input order. On a \
        terminal, a progress line counts the tiles drawn of the tiles to draw, with the time \
        left, and one line at the end says how many were written, their size, and how long it \
        took.

        OUT is built beside its name (a hidden .OUT.geo-XXXXXX) and put in its place whole when \
        the run ends (an MBTiles or PMTiles file likewise, beside it, renamed): a tile server or an \
        app syncing the folder sees the old pyramid or the new \
        one, never a mix. An existing OUT is refused unless --force (an empty folder is used as \
        if new); with --force the result is exactly what a fresh run writes, no tile or page of \
        the earlier run left behind. A folder holding anything geo tiles would not have written \
        (files other than {z}/{x}/{y}.png and index.html) is refused even with --force, naming \
        the file. A run that fails, is interrupted, writes no tile, or whose every record was \
        bad leaves OUT as it was (or makes none).
        """,
        options: [zoom, scale, bbox, tile, empty, maxTiles, force, html, partition, merge] + DrawingOptions.options(background: background) + PathInputFormat.options
            + stream.declarations,
        examples: [
            Example("geo tiles --zoom 0-10 -o tiles examples/routes.ndjson",
                    "Every route as tiles tiles/{z}/{x}/{y}.png, zooms 0 to 10."),
            Example("geo decode examples/routes.polyline | geo tiles --zoom 0-10 --scale 2 -o routes.mbtiles",
                    "Decoded polylines as retina tiles in one MBTiles file."),
            Example("geo tiles --zoom 0-12 -o routes.pmtiles examples/routes.ndjson",
                    "One PMTiles archive to put on any static host (MapLibre's and Leaflet's PMTiles sources read it)."),
            Example("geo tiles --zoom 4-10 --bbox -10,35,30,60 --html -o europe examples/routes.ndjson",
                    "Europe's tiles, with a page to look at them: open europe/index.html."),
            Example("parallel geo tiles --zoom 3-10 --tile 3/{} -o part-{#} examples/routes.ndjson ::: 4/2 4/3 5/2",
                    "One subtree per job; copying the part directories into one makes the pyramid."),
            Example("geo tiles --partition 3 examples/routes.ndjson | cut -f1 | sort | uniq -c",
                    "How many records each subtree of zoom 3 draws: a record is written once for every subtree it reaches."),
            Example("geo tiles --partition 3 examples/routes.ndjson | sed -n 's|^3/4/2\\t||p' | geo tiles --tile 3/4/2 --zoom 3-10 -o part.mbtiles",
                    "Subtree 3/4/2 drawn from its own records only: the tiles a whole run draws under 3/4/2."),
            Example("geo tiles --merge -o all.pmtiles part.mbtiles tiles",
                    "Parts of any kind joined into one archive: a tile that two parts hold must be the same in both, as here."),
        ],
        exitStatus: """
        0: every record was drawn. 64: wrong options or operands (a --zoom outside 0-24, a \
        --tile outside --zoom, -o missing), or a run above --max-tiles; nothing is written. 65: \
        some records were bad (each reported on standard error as geo tiles: FILE:LINE: problem, \
        then a count); the tiles are still drawn from the others (--partition: the others \
        written), and when every record was bad OUT is left as it was; with --merge, a part is \
        not a pyramid geo can read (a broken archive, tiles that are not PNG) or two parts hold \
        a tile with different bytes, and nothing is written. 66: an input file, a part or a \
        --stamp image cannot be opened. \
        \(CommandDescription.missingLibraryStatus) 73: OUT exists and --force was not given, or \
        holds files geo tiles did not write, or cannot be created; nothing is written. 74: a read \
        or a write failed part way. The pyramid, or the MBTiles or PMTiles file, is built beside OUT and put \
        in place when the run ends: after a failure, or a signal (the run then ends by it), OUT is \
        as it was and nothing half written is left.
        """)

    /// Each writes into a folder this process makes under $TMPDIR (or /tmp) when they are first
    /// read, over what its last run left (--force): the hostile corpus and the fuzzer run them
    /// again and again, and two runs at once (two users, tests in parallel) never share one.
    public static let sampleArguments: [[String]] = {
        var template = Array("\(temporaryDirectory)/geo-tiles-sample-XXXXXX".utf8CString)
        let folder = mkdtemp(&template).map { String(cString: $0) } ?? "\(temporaryDirectory)/geo-tiles-sample"
        return [["--zoom", "0-2", "--force", "-o", folder + "/tiles"],
                ["--zoom", "1", "--scale", "2", "--empty", "--force", "-o", folder + "/tiles.mbtiles"],
                ["--zoom", "0-1", "--empty", "--force", "-o", folder + "/tiles.pmtiles"]]
    }()

    static let output = Option(file: "output", short: "o", extensions: ["mbtiles", "pmtiles"], help: "The pyramid: a directory (OUT/{z}/{x}/{y}.png), an MBTiles file when OUT ends in .mbtiles, a PMTiles archive when it ends in .pmtiles. Required.")
    /// The options every command that reads records shares, with this command's own -o.
    static let stream = StreamOptions.drawing(output: output)
    static let zoom = Option(custom: "zoom", valueName: "Z|Z0-Z1", help: "The zoom level, or the range of zoom levels, to draw (0 to 24). Required.", parse: parseZoom)
    static let scale = Option(integer: "scale", in: 1...3, help: "Tiles of 256 x N pixels, every width and marker scaled by N (2: retina tiles).").defaulting(to: 1)
    static let bbox = Option(custom: "bbox", valueName: "W,S,E,N", help: "Only the tiles that meet this region (degrees; W > E spans the antimeridian).", parse: DrawingOptions.parseRegion)
    static let tile = Option(custom: "tile", valueName: "Z/X/Y", help: "Only the tiles of this tile's subtree (itself and the tiles under it, within --zoom).", parse: parseTile)
    static let empty = Flag("empty", help: "Also write a transparent PNG for every tile without ink within the extent: the data's (every zoom's rectangle of tiles with ink), or --bbox's or --tile's.")
    static let maxTiles = Option(integer: "max-tiles", in: 1...Int(Int32.max), help: "Refuse a run that would write more than N tiles, before any is drawn.")
        .defaulting(to: 10_000_000)
    static let force = Flag("force", help: "Replace an existing OUT that geo wrote, whole when the run ends: the result is what a fresh run writes.")
    static let html = Flag("html", help: "Also write OUT/index.html, a page that shows the tiles with pan and zoom, needing nothing from the network (directory output only).")
    static let background = DrawingOptions.clearBackground
    static let partition = Option(integer: "partition", in: 0...24, valueName: "Z", help: "Draw nothing: write each record once for every subtree of zoom Z it draws into, as Z/X/Y<TAB>record lines (standard output, or -o FILE), for a distributed engine to group by key; each key's records then make that subtree with --tile.")
    static let merge = Flag("merge", help: "Draw nothing: join the pyramids named as operands (tile directories, MBTiles and PMTiles files, in any mix) into OUT, refusing a tile two parts hold with different bytes.")

    @Sendable static func parseZoom(_ text: String) throws(UsageError) -> ClosedRange<Int> {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
        guard (1...2).contains(parts.count), let low = parts[0], let high = parts.last!, (0...24).contains(low), (0...24).contains(high) else {
            throw UsageError("--zoom takes a level from 0 to 24, or a range like 0-12, not '\(text)'")
        }
        guard low <= high else { throw UsageError("--zoom \(text): the first level is above the last") }
        return low...high
    }

    @Sendable static func parseTile(_ text: String) throws(UsageError) -> TileAddress {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false).map { Int($0) }
        guard parts.count == 3, let z = parts[0], let x = parts[1], let y = parts[2], (0...24).contains(z) else {
            throw UsageError("--tile takes Z/X/Y (like 3/4/2), not '\(text)'")
        }
        guard (0..<(1 << z)).contains(x), (0..<(1 << z)).contains(y) else {
            throw UsageError("--tile \(text): at zoom \(z), x and y run from 0 to \((1 << z) - 1)")
        }
        return TileAddress(z: z, x: x, y: y)
    }

    let settings: TileSettings

    public init(_ arguments: ParsedArguments) throws(UsageError) {
        var settings = TileSettings()
        settings.stream = try Tiles.stream.configuration(arguments, jsonOutput: false)
        if let split = arguments[Tiles.partition] {
            guard !arguments[Tiles.merge] else { throw UsageError("--partition and --merge cannot be combined") }
            try Tiles.refuse([Tiles.empty, Tiles.maxTiles, Tiles.force, Tiles.html], in: arguments, because: "--partition writes records, not tiles")
            settings.mode = .partition(split)
            // Standard output unless -o FILE: records, one stream.
            settings.output = settings.stream.output ?? ""
        } else {
            guard let output = settings.stream.output else {
                throw UsageError(arguments[Tiles.output] == "-"
                    ? "-o -: tiles are many files, not one stream: OUT is a directory, a .mbtiles or a .pmtiles file"
                    : "-o OUT is required: the directory, .mbtiles or .pmtiles file to write the tiles to")
            }
            settings.output = output
        }
        settings.kind = TileOutputKind(settings.output)
        settings.force = arguments[Tiles.force]
        settings.html = arguments[Tiles.html]
        if settings.html && settings.kind != .directory {
            throw UsageError("--html writes OUT/index.html beside the tiles: it needs a directory, not \(settings.kind.named)")
        }
        if arguments[Tiles.merge] {
            try Tiles.refuse([Tiles.zoom, Tiles.scale, Tiles.bbox, Tiles.tile, Tiles.empty, Tiles.maxTiles, StreamOptions.strict, StreamOptions.rejects]
                             + DrawingOptions.options(background: Tiles.background) + PathInputFormat.options,
                             in: arguments, because: "--merge copies tiles and draws none")
            guard !arguments.operands.isEmpty else { throw UsageError("--merge needs the parts to join: geo tiles --merge -o OUT PART...") }
            if let dash = arguments.operands.first(where: { $0 == "-" }) {
                throw UsageError("--merge reads parts by name: '\(dash)' (standard input) is not a directory, MBTiles or PMTiles file")
            }
            settings.mode = .merge
            self.settings = settings
            return
        }
        let zooms = arguments[Tiles.zoom]
        settings.scale = arguments[Tiles.scale]
        settings.box = arguments[Tiles.bbox]
        settings.subtree = arguments[Tiles.tile]
        if case .partition(let split) = settings.mode {
            // The zooms the subtrees will be drawn at: from the split down, to --zoom's last.
            if let zooms, !zooms.contains(split) {
                throw UsageError("--partition \(split) is outside --zoom \(zooms.lowerBound)-\(zooms.upperBound): the subtrees of zoom \(split) draw zooms \(split) and below")
            }
            settings.zooms = split...(zooms?.upperBound ?? 24)
            if let subtree = settings.subtree, subtree.z > split {
                throw UsageError("--tile \(subtree.name) is below --partition's zoom, \(split): give a tile of zoom \(split) or above")
            }
        } else {
            guard let zooms else { throw UsageError("--zoom is required: a level from 0 to 24, or a range like 0-12") }
            settings.zooms = zooms
            if let subtree = settings.subtree, subtree.z > zooms.upperBound {
                throw UsageError("--tile \(subtree.name) is below --zoom's last level, \(zooms.upperBound): its subtree has no tile to draw")
            }
        }
        settings.empty = arguments[Tiles.empty]
        settings.maxTiles = arguments[Tiles.maxTiles]
        settings.drawing = try DrawingSettings(arguments, background: Tiles.background)
        settings.input = try PathInputFormat(arguments)
        self.settings = settings
    }

    /// A usage error for the first of `options` given, which the mode has no use for.
    static func refuse(_ options: [any OptionDeclaration], in arguments: ParsedArguments, because reason: String) throws(UsageError) {
        if let given = options.first(where: { arguments.has($0) }) {
            throw UsageError("\(reason): --\(given.spec.long) does not apply")
        }
    }

    public func run() -> ExitCode {
        do {
            switch settings.mode {
            case .draw: return try PyramidBuilder(settings).run()
            case .partition(let split): return try SubtreeKeyRun(settings, split: split).run()
            case .merge: return try TileMerge(settings).run()
            }
        } catch {
            printError("geo tiles: \(error.message)\n")
            return error.status
        }
    }
}

/// Everything the options say, checked. Sendable by hand: built before any thread starts and
/// only read after.
struct TileSettings: @unchecked Sendable {
    var mode = TileMode.draw
    /// Inputs, --rejects, --jobs, --strict, progress: the options every command shares.
    var stream = StreamConfiguration()
    var output = ""
    var kind = TileOutputKind.directory
    var zooms = 0...0
    var scale = 1
    var box: (west: Double, south: Double, east: Double, north: Double)?
    var subtree: TileAddress?
    var empty = false
    var maxTiles = 10_000_000
    var force = false
    var html = false
    /// The options tiles shares with render.
    var drawing = DrawingSettings()
    var input = PathInputFormat.geoJSON
}

/// What a run of geo tiles does: draw the pyramid; key records by subtree (--partition Z); or
/// join pyramids (--merge).
enum TileMode {
    case draw, partition(Int), merge
}

/// What -o names: a folder of PNGs, or one file of a tile archive format, by its extension.
enum TileOutputKind {
    case directory, mbtiles, pmtiles

    init(_ output: String) {
        let name = output.lowercased()
        self = name.hasSuffix(".mbtiles") ? .mbtiles : name.hasSuffix(".pmtiles") ? .pmtiles : .directory
    }

    /// As a message names it: "an MBTiles file".
    var named: String {
        switch self {
        case .directory: "a tile directory"
        case .mbtiles: "an MBTiles file"
        case .pmtiles: "a PMTiles archive"
        }
    }

    var fileExtension: String? {
        switch self {
        case .directory: nil
        case .mbtiles: ".mbtiles"
        case .pmtiles: ".pmtiles"
        }
    }
}
