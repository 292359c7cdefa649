#if canImport(Glibc)
import Glibc
#endif
import Drawing
import MapDrawing
import Records
import Threads

/// Pass 2: the sorted entries cut into tiles, drawn on --jobs threads, each tile from the
/// features that touch it, in z-index and input order, and kept when it shows ink. Sendable by
/// hand: its `let`s are only read, and its `var`s are touched only with `monitor` locked (or
/// before the threads start, or after they have all ended).
final class TileDrawing: @unchecked Sendable {
    let settings: TileSettings
    /// The --stamp images, loaded once for the run; each thread's painter copies them.
    let stamps: [(String, Stamp)]
    let selection: TileSelection
    let entries: SortedEntries
    let store: TileStore
    private let monitor = Monitor()
    /// A tile to draw: its first entry and how many.
    typealias Job = (tile: TileAddress, first: Int, count: Int)
    /// Tiles waiting for a thread, in batches: a tile of countries wholly inside a fill is
    /// known in microseconds, and handing tiles over one by one cost more in wake-ups (a fifth
    /// of a run) than drawing them.
    private var queue: [[Job]] = []
    /// Tiles (or entries) a batch holds at most.
    static let batchTiles = 32, batchEntries = 4096
    private var queueStart = 0
    private var closed = false
    private var running = 0
    private var failure: RunFailure?
    private var drawn = 0
    private var written = 0
    private var writtenBytes = 0

    let projections: ProjectionPool

    init(settings: TileSettings, stamps: [(String, Stamp)], selection: TileSelection, entries: SortedEntries, store: TileStore,
         projections: ProjectionPool) {
        self.settings = settings
        self.stamps = stamps
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
            var batch: [Job] = [], entriesInBatch = 0
            func enqueue(_ job: Job) throws(RunFailure) {
                batch.append(job)
                entriesInBatch += job.count
                guard batch.count >= TileDrawing.batchTiles || entriesInBatch >= TileDrawing.batchEntries else { return }
                try self.enqueue(batch)
                batch = []
                entriesInBatch = 0
            }
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
            if !batch.isEmpty { try self.enqueue(batch) }
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

    private func enqueue(_ job: [Job]) throws(RunFailure) {
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

    /// A drawing thread: its own projection, copies of the stamps and buffers; tiles from the queue until it
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
        let painterSetup = TilePainter(settings: settings, stamps: stamps, projection: projection)
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
            let batch = queue[queueStart]
            queueStart += 1
            monitor.broadcast()
            monitor.unlock()
            do throws(RunFailure) {
                var done = (drawn: 0, written: 0, bytes: 0)
                for job in batch {
                    // A signal stops the run between tiles, not only between batches.
                    if HeldSignals.interrupted { throw RunFailure("interrupted", status: .ioError) }
                    let png = try painterSetup.draw(job.tile, first: job.first, count: job.count, from: entries, keepBlank: settings.empty)
                    if let png { try store.put(job.tile, png: png) }
                    done.drawn += 1
                    if let png {
                        done.written += 1
                        done.bytes += png.count
                    }
                }
                monitor.lock()
                defer { monitor.unlock() }
                drawn += done.drawn
                written += done.written
                writtenBytes += done.bytes
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
