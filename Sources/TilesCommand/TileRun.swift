#if canImport(Glibc)
import Glibc
#endif
import CommandKit
import Drawing
import Geodesy
import Geometry
import MapDrawing
import Records
import Styles

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
        _ = try settings.drawing.loadStamps()
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
        let handler = PreparingHandler(input: settings.input, stamps: settings.drawing.stampNames, frame: frame, projections: projections)
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
        let store: TileStore = settings.mbtiles ? try MBTilesStore(path: settings.output) : try DirectoryStore(root: settings.output, page: settings.html)
        let drawing = TileDrawing(settings: settings, selection: drawn, entries: sorted, store: store, projections: projections)
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
                                    bounds: partitioner.bounds(clampedTo: settings.box), tileSize: 256 * settings.scale)
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
        if settings.mbtiles && (info.st_mode & S_IFMT) != S_IFREG && !isDirectory {
            throw RunFailure("cannot write '\(settings.output)': an MBTiles file is a database, and must be a regular file (not a device or FIFO)", status: .cannotCreate)
        }
        if settings.mbtiles == isDirectory {
            throw RunFailure("'\(settings.output)' is \(isDirectory ? "a directory" : "not a directory"): "
                             + (settings.mbtiles ? "an MBTiles file" : "a tile directory") + " cannot replace it", status: .cannotCreate)
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
        if name.lowercased().hasSuffix(".mbtiles") { name = String(name.dropLast(8)) }
        return name.isEmpty ? "tiles" : name
    }
}

/// The consumer of pass 1, on the engine's output thread: each prepared feature goes to the
/// spool, with an entry for every tile it touches at every zoom. Sendable by hand: only the
/// output thread touches it until the engine has joined its threads; the run reads it after.
final class Partitioner: @unchecked Sendable {
    let partition: TilePartition
    let selection: TileSelection
    let drawing: DrawingSettings
    private(set) var failure: RunFailure?
    private(set) var features = 0
    /// Per zoom, the rectangle of tiles with entries (columns, rows): --empty's extent.
    private(set) var inkedTiles: [(columns: ClosedRange<Int>, rows: ClosedRange<Int>)?] = Array(repeating: nil, count: 25)
    /// The extent of every position, for the metadata and the page.
    private var west = Double.infinity, east = -Double.infinity, south = Double.infinity, north = -Double.infinity
    private let styles: StyleCache

    /// Whether `inkedTiles` is kept (only --empty without --bbox or --tile needs it).
    let tracksInkedTiles: Bool

    init(partition: TilePartition, selection: TileSelection, drawing: DrawingSettings, tracksInkedTiles: Bool) {
        self.tracksInkedTiles = tracksInkedTiles
        self.partition = partition
        self.selection = selection
        self.drawing = drawing
        styles = StyleCache(stamps: drawing.stampNames)
    }

    func consume(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard failure == nil else { return }
        DisplayList.forEachFeature(bytes) { whole, properties, encoded in
            guard failure == nil else { return }
            features += 1
            let shape = encoded.shape
            // The workers read this style already: it cannot fail here.
            let style = styles.style(properties)
            extend(shape)
            do throws(RunFailure) {
                let offset = try partition.keep(whole)
                let curved = drawing.allCurved || style.geodesic
                for zoom in selection.zooms {
                    var cover = TileCover(zoom: zoom, selection: selection, model: drawing.model)
                    cover.add(shape, style: style, curved: curved)
                    for tile in cover.tiles {
                        try partition.add(TileEntry(tile: tile, zIndex: style.zIndex, offset: offset, size: UInt32(whole.count)))
                    }
                    if tracksInkedTiles { noteInked(cover.tiles, zoom: zoom) }
                }
            } catch {
                failure = error
            }
        }
    }

    private func noteInked(_ tiles: [UInt64], zoom: Int) {
        for key in tiles {
            let tile = TileAddress(key: key)
            if let (columns, rows) = inkedTiles[zoom] {
                inkedTiles[zoom] = (min(columns.lowerBound, tile.x)...max(columns.upperBound, tile.x), min(rows.lowerBound, tile.y)...max(rows.upperBound, tile.y))
            } else {
                inkedTiles[zoom] = (tile.x...tile.x, tile.y...tile.y)
            }
        }
    }

    private func extend(_ shape: Shape?) {
        func path(_ path: ProjectedPath) {
            for position in path.positions {
                west = min(west, position.longitude); east = max(east, position.longitude)
                south = min(south, position.latitude); north = max(north, position.latitude)
            }
        }
        switch shape {
        case nil: return
        case .points(let paths), .lines(let paths): paths.forEach(path)
        case .line(let line): path(line)
        case .polygons(let polygons): polygons.forEach { $0.forEach(path) }
        case .collection(let members): members.forEach(extend)
        }
    }

    /// W, S, E, N of what was drawn (within --bbox when given, and Web Mercator's ±85.0511°).
    func bounds(clampedTo box: (west: Double, south: Double, east: Double, north: Double)?) -> (west: Double, south: Double, east: Double, north: Double) {
        let limit = Frame.mercatorLimit
        guard west <= east else { return (-180, -limit, 180, limit) }
        var result = (west: max(-180, west), south: max(-limit, south), east: min(180, east), north: min(limit, north))
        if let box, box.west < box.east {
            result = (max(result.west, box.west), max(result.south, box.south), min(result.east, box.east), min(result.north, box.north))
        }
        return result
    }
}

/// Pass 2: the sorted entries cut into tiles, drawn on --jobs threads, each tile from the
/// features that touch it, in z-index and input order, and kept when it shows ink. Sendable by
/// hand: its `let`s are only read, and its `var`s are touched only with `monitor` locked (or
/// before the threads start, or after they have all ended).
final class TileDrawing: @unchecked Sendable {
    let settings: TileSettings
    let selection: TileSelection
    let entries: SortedEntries
    let store: TileStore
    private let monitor = Monitor()
    /// Tiles waiting for a thread: (tile, first entry, entry count).
    private var queue: [(tile: TileAddress, first: Int, count: Int)] = []
    private var queueStart = 0
    private var closed = false
    private var running = 0
    private var failure: RunFailure?
    private var drawn = 0
    private var written = 0
    private var writtenBytes = 0

    let projections: ProjectionPool

    init(settings: TileSettings, selection: TileSelection, entries: SortedEntries, store: TileStore, projections: ProjectionPool) {
        self.settings = settings
        self.selection = selection
        self.entries = entries
        self.store = store
        self.projections = projections
    }

    /// Draws every tile (`total` of them); returns how many were written, and their bytes.
    func run(total: Int, progress: Bool) throws(RunFailure) -> (tiles: Int, bytes: Int) {
        let jobs = max(1, settings.stream.jobs)
        running = jobs
        for _ in 0..<jobs { startThread { self.work() } }
        let progressLine = progress ? ProgressLine(command: "tiles", counting: "tiles", of: total) : nil
        do throws(RunFailure) {
            var next = 0
            var pending: [TileEntry] = []
            var pendingStart = 0
            // The next tile that has entries, read from the sorted entries in blocks.
            func nextGroup() throws(RunFailure) -> (tile: UInt64, first: Int, count: Int)? {
                guard next < entries.count else { return nil }
                let first = next
                var key: UInt64?
                while next < entries.count {
                    if next - pendingStart >= pending.count {
                        pendingStart = next
                        pending = try entries.entries(from: next, count: min(4096, entries.count - next))
                    }
                    let entry = pending[next - pendingStart]
                    if key == nil { key = entry.tile } else if entry.tile != key { break }
                    next += 1
                }
                return (key!, first, next - first)
            }
            var group = try nextGroup()
            if settings.empty {
                try selection.forEachTile { tile throws(RunFailure) in
                    if let current = group, current.tile == tile.key {
                        try enqueue((tile, current.first, current.count))
                        group = try nextGroup()
                    } else {
                        try enqueue((tile, 0, 0))
                    }
                    progressLine?.update(done: drawnCount)
                }
            } else {
                while let current = group {
                    try enqueue((TileAddress(key: current.tile), current.first, current.count))
                    progressLine?.update(done: drawnCount)
                    group = try nextGroup()
                }
            }
        } catch {
            monitor.lock()
            if failure == nil { failure = error }
            monitor.unlock()
        }
        monitor.lock()
        closed = true
        monitor.broadcast()
        while running > 0 { monitor.wait() }
        let failure = self.failure, written = (self.written, writtenBytes)
        monitor.unlock()
        progressLine?.update(done: written.0)
        progressLine?.finish()
        if let failure { throw failure }
        return written
    }

    private var drawnCount: Int {
        monitor.lock()
        defer { monitor.unlock() }
        return drawn
    }

    private func enqueue(_ job: (tile: TileAddress, first: Int, count: Int)) throws(RunFailure) {
        monitor.lock()
        defer { monitor.unlock() }
        while queue.count - queueStart >= 64 && failure == nil { monitor.wait() }
        if failure == nil && HeldSignals.interrupted { failure = RunFailure("interrupted", status: .ioError) }
        if let failure { throw failure }
        if queueStart > 1024 {
            queue.removeFirst(queueStart)
            queueStart = 0
        }
        queue.append(job)
        monitor.broadcast()
    }

    /// A drawing thread: its own projection, stamps and buffers; tiles from the queue until it
    /// is closed and empty.
    private func work() {
        defer {
            monitor.lock()
            running -= 1
            monitor.broadcast()
            monitor.unlock()
        }
        let projection = projections.borrow()
        defer { projections.giveBack(projection) }
        let painterSetup: TilePainter
        do { painterSetup = try TilePainter(settings: settings, projection: projection) } catch {
            fail(error)
            return
        }
        while true {
            monitor.lock()
            while queue.count == queueStart && !closed && failure == nil { monitor.wait() }
            if failure == nil && HeldSignals.interrupted {
                // The run stops for a signal: every thread, and the one queueing, is told so.
                failure = RunFailure("interrupted", status: .ioError)
                monitor.broadcast()
            }
            if failure != nil || queue.count == queueStart {
                monitor.unlock()
                return
            }
            let job = queue[queueStart]
            queueStart += 1
            monitor.broadcast()
            monitor.unlock()
            do throws(RunFailure) {
                let png = try painterSetup.draw(job.tile, first: job.first, count: job.count, from: entries, keepBlank: settings.empty)
                if let png { try store.put(job.tile, png: png) }
                monitor.lock()
                defer { monitor.unlock() }
                drawn += 1
                if let png {
                    written += 1
                    writtenBytes += png.count
                }
            } catch {
                fail(error)
                return
            }
        }
    }

    private func fail(_ error: RunFailure) {
        monitor.lock()
        if failure == nil { failure = error }
        monitor.broadcast()
        monitor.unlock()
    }
}

/// What one drawing thread draws tiles with.
final class TilePainter {
    let settings: TileSettings
    let frame: Frame
    let stamps: [(String, Stamp)]
    let stampNames: Set<String>
    let size: Int
    /// The premultiplied pixel of a tile that shows only the background.
    let backgroundWord: UInt32
    private var buffer: [UInt8] = []
    /// The thread's one canvas, cleared for each tile.
    private let canvas: Canvas
    private let styles: StyleCache

    /// `projection`: Web Mercator, this thread's own.
    init(settings: TileSettings, projection: Projection) throws(RunFailure) {
        self.settings = settings
        frame = Frame(projection: projection, centre: nil)
        stamps = try settings.drawing.loadStamps()
        stampNames = settings.drawing.stampNames
        styles = StyleCache(stamps: stampNames)
        size = 256 * settings.scale
        let probe = Canvas(format: .png, width: 1, height: 1, fd: -1)
        if settings.drawing.background.alpha > 0 { probe.fillBackground(settings.drawing.background) }
        backgroundWord = probe.word(x: 0, y: 0) ?? 0
        canvas = Canvas(format: .png, width: size, height: size, fd: -1, antialiasing: settings.drawing.antialiasing, threads: 1,
                        compression: .fast, workspace: PNGWorkspace())
    }

    /// Entries read at a time: a tile of a low zoom can have one for every record of the input.
    static let block = 4096

    /// The tile's PNG, drawn from its `count` entries starting at `first`, or nil when it shows
    /// no ink (and blank tiles are not kept).
    func draw(_ tile: TileAddress, first: Int, count: Int, from source: SortedEntries, keepBlank: Bool) throws(RunFailure) -> [UInt8]? {
        let bounds = WebMercator.bounds(of: tile)
        let view = View(frame: frame, width: size, height: size, left: bounds.left, top: bounds.top, scale: Double(size) / bounds.size)
        canvas.reset()
        let painter = settings.drawing.painter(on: canvas, view: view, stamps: stamps, pixelRatio: Double(settings.scale))
        for start in stride(from: first, to: first + count, by: TilePainter.block) {
            try source.forEachFeature(try source.entries(from: start, count: min(TilePainter.block, first + count - start)), buffer: &buffer) { bytes in
                DisplayList.forEachFeature(bytes) { _, properties, shape in
                    painter.draw(shape, style: styles.style(properties))
                }
            }
        }
        guard keepBlank || !canvas.isUniform(backgroundWord) else { return nil }
        do { try canvas.finish() } catch {
            throw RunFailure("cannot encode tile \(tile.name): \(error.message)", status: .ioError)
        }
        return canvas.encoded
    }
}
