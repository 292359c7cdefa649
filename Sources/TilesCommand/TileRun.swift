#if canImport(Glibc)
import Glibc
#endif
import Geodesy
import MapDrawing
import Records

/// One run of `geo tiles`: prepare every record through the streaming engine (which reports bad
/// records) and partition it by tile on disk, sort the partition, then draw the tiles on --jobs
/// threads into the store.
final class TileRun {
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
        let existed = try checkExistingOutput()
        try InputFiles.check(stream.inputs)
        // Read here, before pass 1, so that a bad --stamp fails the run before any work.
        let stamps = try settings.drawing.loadStamps()
        let start = ProgressLine.now()

        // Pass 1: prepare and partition.
        let partition = try TilePartition()
        let fillsExtent = settings.empty && settings.box == nil && settings.subtree == nil
        let partitioner = Partitioner(partition: partition, selection: selection, drawing: settings.drawing, tracksInkedTiles: fillsExtent)
        let frame: Frame
        do { frame = Frame(projection: try Projection(crs: "EPSG:3857"), centre: nil) } catch {
            throw RunFailure("cannot make Web Mercator: \(error.message)", status: ExitCode(69))  // EX_UNAVAILABLE: PROJ is broken
        }
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
        let store: TileStore = switch settings.kind {
        case .directory: try DirectoryStore(root: settings.output, page: settings.html)
        case .mbtiles: try MBTilesStore(path: settings.output)
        case .pmtiles: try PMTilesStore(path: settings.output)
        }
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
        let metadata = TileMetadata(name: TileRun.baseName(settings.output), zooms: settings.zooms,
                                    bounds: partitioner.bounds(box: settings.box, subtree: settings.subtree), tileSize: 256 * settings.scale)
        do { try store.finish(metadata) } catch {
            store.discard()
            throw error
        }
        if stream.progress {
            let zooms = settings.zooms.count == 1 ? "zoom \(settings.zooms.lowerBound)" : "zooms \(settings.zooms.lowerBound)-\(settings.zooms.upperBound)"
            let size = written.bytes >= 1_000_000 ? "\(oneDecimal(Double(written.bytes) / 1e6)) MB" : "\(oneDecimal(Double(written.bytes) / 1e3)) kB"
            printError("geo tiles: wrote \(count: written.tiles) tile\(written.tiles == 1 ? "" : "s") (\(size)) at \(zooms) to \(settings.output) "
                       + "in \(oneDecimal(ProgressLine.now() - start)) s\n")
        }
        return status
    }

    /// Refuses an OUT that this run may not replace, before anything is read: without --force
    /// anything but an empty folder; even with it, a folder holding a file geo would not have
    /// written (replacing the pyramid removes it), or a file of the other kind. Whether OUT exists.
    func checkExistingOutput() throws(RunFailure) -> Bool {
        var info = stat()
        guard stat(settings.output, &info) == 0 else { return false }
        let isDirectory = (info.st_mode & S_IFMT) == S_IFDIR
        let wantsFile = settings.kind != .directory
        if wantsFile && (info.st_mode & S_IFMT) != S_IFREG && !isDirectory {
            throw RunFailure("cannot write '\(settings.output)': \(settings.kind.named) is written whole and renamed into place, "
                             + "and must be a regular file (not a device or FIFO)", status: .cannotCreate)
        }
        if wantsFile == isDirectory {
            throw RunFailure("'\(settings.output)' is \(isDirectory ? "a directory" : "not a directory"): "
                             + settings.kind.named + " cannot replace it", status: .cannotCreate)
        }
        if isDirectory, let foreign = DirectoryStore.foreignFile(in: settings.output) {
            guard settings.force else {
                throw RunFailure("'\(settings.output)' exists and is not empty: give another OUT, or --force to replace a pyramid geo wrote", status: .cannotCreate)
            }
            throw RunFailure("'\(settings.output)' holds '\(foreign)', which geo tiles did not write: replacing the pyramid would remove it, "
                             + "so geo leaves it be (even with --force); give another OUT or move it", status: .cannotCreate)
        }
        if isDirectory && DirectoryStore.isEmpty(settings.output) { return true }
        if !settings.force {
            throw RunFailure("'\(settings.output)' exists: give --force to replace it (it is replaced whole when the run ends)", status: .cannotCreate)
        }
        return true
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
