#if canImport(Glibc)
import Glibc
#endif
import Geodesy
import Geometry
import MapDrawing
import Records

/// `geo tiles --merge -o OUT PART...`: pyramids (subtrees drawn apart, the zooms above them)
/// joined into one OUT of OUT's kind, at flat memory whatever their number of tiles:
/// 1. every part is read tile by tile; each tile's bytes go to a temporary blob file (a recent
///    tile with the same bytes is kept once), with a 32-byte record (tile, hash, where, part);
/// 2. the records sorted by tile (then part), each tile is put in the store once, from the first
///    part that holds it; another part holding it must hold the same bytes, else nothing is
///    written and the message names both parts and the tile.
/// The store deduplicates as a drawing run's does, and is built beside OUT and put in place whole.
final class TileMerge {
    let settings: TileSettings

    init(_ settings: TileSettings) {
        self.settings = settings
    }

    func run() throws(RunFailure) -> ExitCode {
        let parts = settings.stream.inputs
        if let part = parts.first(where: { TileMerge.samePlace($0, settings.output) }) {
            throw RunFailure("'\(part)' is a part and -o OUT both: the merge builds OUT beside it and would replace it"
                             + "\nSee 'geo tiles --help'.", status: .usage)
        }
        let existed = try settings.checkExistingOutput()
        var sources: [TileSource] = []
        for part in parts { sources.append(try TileSources.open(part)) }
        let start = ProgressLine.now()
        // SIGINT and SIGTERM are held: the merge stops between tiles, removes what it built,
        // then ends by the signal.
        HeldSignals.hold()
        defer { HeldSignals.release() }

        // 1. Every part's tiles, kept in the blob file and listed.
        let blobs = try TileBlobs()
        let records = ExternalSorter<MergeRecord>(purpose: "sort the tiles", runLength: PMTilesStore.runLength) { a, b in
            (a.tile, a.part) < (b.tile, b.part)
        }
        var extent = PyramidExtent()
        var size: (pixels: Int, part: Int)?
        for (index, source) in sources.enumerated() {
            try source.forEachTile { tile, png throws(RunFailure) in
                if HeldSignals.interrupted { throw RunFailure("interrupted", status: .ioError) }
                guard let pixels = TileMerge.pngWidth(png) else {
                    throw TileSources.notAPart(source.path, "tile \(tile.name) is not a PNG")
                }
                if let size, size.pixels != pixels {
                    throw TileSources.notAPart(source.path, "its tile \(tile.name) is \(pixels) pixels wide, '\(parts[size.part])' has tiles of \(size.pixels): "
                                               + "the parts of one pyramid are drawn at one --scale")
                }
                size = (pixels, index)
                let hash = TileBytes.hash(png)
                let offset = try blobs.keep(png, hash: hash)
                try records.add(MergeRecord(tile: tile.key, hash: hash, offset: offset, length: UInt32(png.count), part: UInt32(index)))
                extent.note(tile)
            }
            extent.endPart(declared: source.declared)
        }
        guard let size, let zooms = extent.zooms else {
            printError("geo tiles: no tile was written ('\(settings.output)' \(existed ? "left as it was" : "not written")): the parts hold no tile\n")
            return .success
        }

        // 2. Each tile once, in tile order, into the store.
        let store = try settings.makeStore()
        var written = (tiles: 0, bytes: 0)
        let progress = settings.stream.progress ? ProgressLine(command: "tiles", counting: "tiles", of: records.count) : nil
        do {
            var kept: MergeRecord?
            var seen = 0
            try records.forEachSorted { record throws(RunFailure) in
                seen += 1
                if HeldSignals.interrupted { throw RunFailure("interrupted", status: .ioError) }
                if let first = kept, first.tile == record.tile {
                    try agree(first, record, parts: parts, blobs: blobs)
                    return
                }
                kept = record
                let png = try blobs.read(at: record.offset, length: Int(record.length))
                try store.put(TileAddress(key: record.tile), png: png)
                written.tiles += 1
                written.bytes += png.count
                progress?.update(done: seen)
            }
            try store.finish(TileMetadata(name: PyramidBuilder.baseName(settings.output), zooms: zooms, bounds: extent.bounds, tileSize: size.pixels))
        } catch {
            store.discard()
            progress?.finish()
            throw error
        }
        progress?.finish()
        if settings.stream.progress { settings.reportWritten(written, zooms: zooms, since: start) }
        return .success
    }

    /// Two parts (or one, twice) hold the same tile: fine when the bytes are the same.
    private func agree(_ first: MergeRecord, _ other: MergeRecord, parts: [String], blobs: TileBlobs) throws(RunFailure) {
        if first.hash == other.hash && first.length == other.length {
            if first.offset == other.offset { return }
            let a = try blobs.read(at: first.offset, length: Int(first.length)), b = try blobs.read(at: other.offset, length: Int(other.length))
            if a == b { return }
        }
        let tile = TileAddress(key: first.tile).name
        let (one, two) = (parts[Int(first.part)], parts[Int(other.part)])
        throw RunFailure(one == two
            ? "'\(one)' holds tile \(tile) twice, with different bytes: nothing written"
            : "'\(one)' and '\(two)' both hold tile \(tile), with different bytes: parts of one pyramid may overlap only where they agree; nothing written",
            status: .dataError)
    }

    /// A PNG's width, from its IHDR chunk; nil when the bytes are not a PNG.
    static func pngWidth(_ png: [UInt8]) -> Int? {
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard png.count >= 24, png[0..<8].elementsEqual(signature), png[12..<16].elementsEqual("IHDR".utf8) else { return nil }
        return png[16..<20].reduce(0) { $0 << 8 | Int($1) }
    }

    /// Whether two names reach one file or folder (OUT named again as a part, by any path).
    static func samePlace(_ a: String, _ b: String) -> Bool {
        var first = stat(), second = stat()
        guard stat(a, &first) == 0, stat(b, &second) == 0 else { return false }
        return first.st_dev == second.st_dev && first.st_ino == second.st_ino
    }
}

/// One tile of one part on its way into the merge: its key (TileAddress.key), its bytes' hash,
/// where they are in the blob file and how many, and which part holds it. 32 bytes.
struct MergeRecord {
    var tile: UInt64
    var hash: UInt64
    var offset: UInt64
    var length: UInt32
    var part: UInt32
}

/// What the merged pyramid's metadata says: the zooms from the first to the last of the parts',
/// and the smallest band of meridians and parallels holding every part's bounds. A part says
/// its own in its metadata (MBTiles, PMTiles); a directory, by its tiles: its zooms, and the
/// bounds of its tiles at its deepest zoom.
struct PyramidExtent {
    private var cover = LongitudeCover()
    private(set) var zooms: ClosedRange<Int>?
    /// The part being read: its zooms and its deepest zoom's rectangle of tiles.
    private var partZooms: ClosedRange<Int>?
    private var deepest: (z: Int, columns: ClosedRange<Int>, rows: ClosedRange<Int>)?

    mutating func note(_ tile: TileAddress) {
        partZooms = partZooms.map { min($0.lowerBound, tile.z)...max($0.upperBound, tile.z) } ?? tile.z...tile.z
        if let rectangle = deepest, rectangle.z == tile.z {
            deepest = (tile.z, min(rectangle.columns.lowerBound, tile.x)...max(rectangle.columns.upperBound, tile.x),
                       min(rectangle.rows.lowerBound, tile.y)...max(rectangle.rows.upperBound, tile.y))
        } else if deepest == nil || deepest!.z < tile.z {
            deepest = (tile.z, tile.x...tile.x, tile.y...tile.y)
        }
    }

    /// The part read to its end: its zooms and bounds, as declared or from its tiles, join the rest.
    mutating func endPart(declared: (zooms: ClosedRange<Int>, bounds: (west: Double, south: Double, east: Double, north: Double))?) {
        defer { (partZooms, deepest) = (nil, nil) }
        guard let partZooms, let deepest else { return }
        let own = declared ?? (partZooms, TileSpace.degrees(columns: deepest.columns, rows: deepest.rows, zoom: deepest.z))
        zooms = zooms.map { min($0.lowerBound, own.zooms.lowerBound)...max($0.upperBound, own.zooms.upperBound) } ?? own.zooms
        let (west, south, east, north) = own.bounds
        // The band from west eastwards to east, in pieces under 180 degrees (an edge is taken the
        // short way).
        let width = east >= west ? east - west : east + 360 - west
        let pieces = max(1, Int((width / 90).rounded(.up)))
        for piece in 0..<pieces {
            let a = west + width * Double(piece) / Double(pieces), b = west + width * Double(piece + 1) / Double(pieces)
            cover.addEdge(Position(longitude: a, latitude: south), Position(longitude: b, latitude: north), latitudes: south...north)
        }
        cover.add(Position(longitude: west, latitude: south))
        cover.add(Position(longitude: east, latitude: north))
    }

    /// W, S, E, N (W > E across ±180).
    var bounds: (west: Double, south: Double, east: Double, north: Double) {
        let band = cover.band ?? (west: -180, east: 180)
        return (band.west, cover.latitudes.south, band.east, cover.latitudes.north)
    }
}
