#if canImport(Glibc)
import Glibc
#endif
import Geodesy
import MapDrawing
import Records

/// What `geo tiles` does to build a pyramid: prepare every record through the streaming engine (which reports bad
/// records) and partition it by tile on disk, sort the partition, then draw the tiles on --jobs
/// threads into the store.
final class PyramidBuilder {
    let settings: TileSettings
    let selection: TileSelection

    init(_ settings: TileSettings) {
        self.settings = settings
        selection = TileSelection(zooms: settings.zooms, box: settings.box, subtree: settings.subtree)
    }

    func run() throws(RunFailure) -> ExitCode {
        let stream = settings.stream
        if let collision = OverwriteGuard.collision(inputs: stream.inputs, output: settings.output, rejects: stream.rejects) {
            throw RunFailure("\(collision)\nSee 'geo tiles --help'.", status: .usage)
        }
        let existed = try settings.checkExistingOutput()
        try InputFiles.check(stream.inputs)
        // Read here, before pass 1, so that a bad --stamp fails the run before any work.
        let stamps = try settings.drawing.loadStamps()
        let start = ProgressLine.now()

        // Pass 1: prepare and partition.
        let partition = try TilePartition()
        let fillsExtent = settings.empty && settings.box == nil && settings.subtree == nil
        let partitioner = Partitioner(partition: partition, selection: selection, drawing: settings.drawing, tracksInkedTiles: fillsExtent)
        let frame = try TileSpace.webMercatorFrame()
        // Every thread's projection, pass 1's and then the drawing threads', is a copy of the frame's.
        let projections = ProjectionPool(copying: frame.projection)
        let handler = CoveringHandler(preparing: PreparingHandler(input: settings.input, stamps: settings.drawing.stampNames, frame: frame,
                                                                  projections: projections),
                                      selection: selection, drawing: settings.drawing)
        var preparing = stream
        preparing.consumer = { bytes in partitioner.consume(bytes) }
        let status = StreamRunner(command: "tiles", options: preparing, handler: handler).run()
        guard status == .success || status == .dataError else { return status }
        if let failure = partitioner.failure { throw failure }
        let output = "'\(settings.output)' \(existed ? "left as it was" : "not written")"
        if status == .dataError && partitioner.features == 0 {
            // Nothing could be used: an existing pyramid stays rather than become an empty one.
            printError("geo tiles: every record was bad; \(output)\n")
            return status
        }
        let sorted = try partition.sorted()
        // --empty fills the extent of the data (every zoom's rectangle of tiles with ink), or
        // --bbox's or --tile's when given: never the whole world by default.
        let drawn = fillsExtent ? selection.limited(to: partitioner.inkedTiles) : selection
        let total = settings.empty ? drawn.count : sorted.tiles
        guard total <= settings.maxTiles else {
            throw RunFailure("the run would write \(count: total) tiles, more than --max-tiles \(count: settings.maxTiles): "
                             + "narrow --zoom, --bbox or --tile, or raise --max-tiles\nSee 'geo tiles --help'.", status: .usage)
        }

        // Pass 2: draw, into an output built beside OUT and put in its place whole at the end.
        // SIGINT and SIGTERM are held meanwhile: the run stops between tiles, removes what it
        // built, then ends by the signal.
        HeldSignals.hold()
        defer { HeldSignals.release() }
        let store = try settings.makeStore()
        let drawing = TileDrawing(settings: settings, stamps: stamps, selection: drawn, entries: sorted, store: store,
                                  projections: projections)
        let written: (tiles: Int, bytes: Int)
        do {
            written = try drawing.run(total: total, progress: stream.progress)
        } catch {
            store.discard()
            throw error
        }
        guard written.tiles > 0 else {
            store.discard()
            warnBlank(records: partitioner.features, output: output)
            return status
        }
        let metadata = TileMetadata(name: PyramidBuilder.baseName(settings.output), zooms: settings.zooms,
                                    bounds: partitioner.bounds(box: settings.box, subtree: settings.subtree), tileSize: 256 * settings.scale)
        do { try store.finish(metadata) } catch {
            store.discard()
            throw error
        }
        if stream.progress { settings.reportWritten(written, zooms: settings.zooms, since: start) }
        return status
    }

    /// A run that makes no tile says so (exit 0), never silently, and leaves OUT as it was.
    func warnBlank(records: Int, output: String) {
        let outside = settings.box != nil ? "meets --bbox (W,S,E,N: longitude first)" : settings.subtree != nil ? "meets --tile's subtree" : nil
        printError("geo tiles: no tile was written (\(output)): "
                   + blankReason(records: records, allBad: false, outside: outside, otherwise: "puts ink on a tile") + "\n")
    }

    static func baseName(_ path: String) -> String {
        var name = path.hasSuffix("/") ? String(path.dropLast()) : path
        if let slash = name.lastIndex(of: "/") { name = String(name[name.index(after: slash)...]) }
        if let suffix = TileOutputKind(name).fileExtension { name = String(name.dropLast(suffix.count)) }
        return name.isEmpty ? "tiles" : name
    }
}
