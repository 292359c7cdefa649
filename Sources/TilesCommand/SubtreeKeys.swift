#if canImport(Glibc)
import Glibc
#endif
import CommandKit
import Geodesy
import JSONBytes
import MapDrawing
import Records
import Threads

/// `geo tiles --partition Z`: a streaming filter that writes each record once for every subtree
/// of zoom Z it draws into, as `Z/X/Y<TAB>record` lines (Hadoop streaming's key and value), so
/// that a distributed engine can group the records by key and draw each subtree from its own
/// (`--tile Z/X/Y`) instead of every task reading the whole input.
struct SubtreeKeyRun {
    let settings: TileSettings
    let split: Int

    init(_ settings: TileSettings, split: Int) {
        self.settings = settings
        self.split = split
    }

    func run() throws(RunFailure) -> ExitCode {
        // Loaded only to fail as a drawing run does on a bad --stamp, before any record is read.
        _ = try settings.drawing.loadStamps()
        let frame = try TileSpace.webMercatorFrame()
        let preparing = PreparingHandler(input: settings.input, stamps: settings.drawing.stampNames, frame: frame,
                                         projections: ProjectionPool(copying: frame.projection))
        let handler = SubtreeKeyHandler(preparing: preparing, split: split, settings: settings)
        return StreamRunner(command: "tiles", options: settings.stream, handler: handler).run()
    }
}

/// Keys a record on a --jobs worker: it is prepared exactly as a drawing run's workers prepare it
/// (the same reading, style checks and projection, so a record bad here is bad there), and the
/// tiles of zoom Z that its cover meets, the cover the drawing run lists tiles by, are its keys.
///
/// Why the cover at zoom Z is enough for every deeper zoom: a width, a cap or a marker is the
/// same number of pixels at every zoom, so at zoom z > Z it reaches 2^(z-Z) times less far on
/// the ground; and a polygon's fill inside a tile under K either covers K's centre or crosses
/// K's edge, where its outline is. So whatever a record inks in a tile under K, its cover at Z
/// holds K.
final class SubtreeKeyHandler: PathHandler, @unchecked Sendable {
    let preparing: PreparingHandler
    let split: Int
    /// The tiles of zoom Z that may be keys: all, or --bbox's and --tile's.
    let selection: TileSelection
    /// The zooms the subtrees are drawn at: a feature drawn at none of them keys nothing.
    let zooms: ClosedRange<Int>
    let drawing: DrawingSettings
    private let styles: StyleCachePool

    var input: PathInputFormat { preparing.input }

    init(preparing: PreparingHandler, split: Int, settings: TileSettings) {
        self.preparing = preparing
        self.split = split
        selection = TileSelection(zooms: split...split, box: settings.box, subtree: settings.subtree)
        zooms = settings.zooms
        drawing = settings.drawing
        styles = StyleCachePool(stamps: settings.drawing.stampNames)
    }

    func handle(_ record: UnsafeBufferPointer<UInt8>, into output: RecordWriter) throws {
        // The prepared record goes where its output would (a bad record throws here, and the
        // engine reports it), is read back for its keys, and then gives way to the keyed lines.
        let buffer = output.buffer
        let start = buffer.count
        try preparing.handle(record, into: output)
        let keys = self.keys(UnsafeBufferPointer(start: buffer.base + start, count: buffer.count - start))
        buffer.truncate(to: start)
        for key in keys {
            output.beginRecord()
            buffer.append(TileAddress(key: key).name)
            buffer.append(UInt8(ascii: "\t"))
            SubtreeKeyHandler.appendOneLine(record, to: buffer)
            output.endRecord()
        }
    }

    /// The subtrees of the prepared features, in key order, each once.
    private func keys(_ prepared: UnsafeBufferPointer<UInt8>) -> [UInt64] {
        let cache = styles.borrow()
        defer { styles.giveBack(cache) }
        var keys: [UInt64] = []
        let cover = TileCover(zoom: split, selection: selection, model: drawing.model)
        DisplayList.forEachFeature(prepared) { _, properties, encoded in
            let style = cache.style(properties)
            guard style.zooms.overlaps(zooms) else { return }
            cover.restart(atZoom: split)
            cover.add(encoded.shape, style: style, curved: drawing.allCurved || style.geodesic)
            keys += cover.tiles
            cover.forEachInteriorRun { first, count in
                for step in 0..<count { keys.append(TileAddress.key(first.key, east: step)) }
            }
        }
        return keys.count > 1 ? Array(Set(keys)).sorted() : keys
    }

    /// The record on one line: a JSON text spread over lines (a feature of a pretty-printed
    /// FeatureCollection) reads the same with its line ends as spaces, which JSON takes as
    /// whitespace; line ends at its end (CRLF input) go.
    static func appendOneLine(_ record: UnsafeBufferPointer<UInt8>, to buffer: ByteBuffer) {
        let cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n")
        var end = record.count
        while end > 0 && (record[end - 1] == cr || record[end - 1] == lf) { end -= 1 }
        let start = buffer.count
        buffer.append(record, 0..<end)
        for index in start..<buffer.count where buffer.base[index] == cr || buffer.base[index] == lf {
            buffer.base[index] = UInt8(ascii: " ")
        }
    }
}

/// One style cache per worker at a time (a cache is not shared between threads), kept for the
/// next worker that asks. Sendable by hand: `free` is touched only with `lock` held.
final class StyleCachePool: @unchecked Sendable {
    let stamps: Set<String>
    private var free: [StyleCache] = []
    private let lock = Monitor()

    init(stamps: Set<String>) { self.stamps = stamps }

    func borrow() -> StyleCache {
        lock.lock()
        defer { lock.unlock() }
        return free.popLast() ?? StyleCache(stamps: stamps)
    }

    func giveBack(_ cache: StyleCache) {
        lock.lock()
        free.append(cache)
        lock.unlock()
    }
}
