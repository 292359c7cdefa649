#if canImport(Glibc)
import Glibc
#endif
import Records
import Threads

/// A PMTiles v3 archive (`PMTilesFormat`), clustered and deduplicated, at flat memory whatever
/// the number of tiles. Tiles arrive from the drawing threads in no fixed order, so:
/// 1. each tile's PNG is appended to a temporary blob file (unless a small recent blob has the
///    same bytes: then it points there), with a 32-byte `BlobRecord` (tile ID, hash, where,
///    length) for the external sorter;
/// 2. `finish` sorts the records by hash to find identical blobs (equal hash and length, bytes
///    compared), each class led by its first tile on the Hilbert curve; sorted by leader, each
///    class's blob is copied once into the tile data, in leader order, which is TileID order
///    (clustered: a later duplicate points back at an earlier offset); sorted by tile ID, the
///    entries are merged into runs (consecutive tiles with the same blob) and written as
///    directories, in leaves when the root would not fit in the first 16 KiB;
/// 3. header, root, metadata, leaves and data go into a file beside OUT, renamed into place.
/// Sendable by hand: `put`'s state is touched only with `lock` held; `finish` and `discard`
/// run after the drawing threads have ended.
final class PMTilesStore: TileStore, @unchecked Sendable {
    private let output: WholeFileOutput
    private let blobs: TileBlobs
    /// Records sorted in memory at a time by each of the three sorters, which live at once at the
    /// end: 8 MB runs keep them to some 24 MB.
    static let runLength = (8 << 20) / MemoryLayout<BlobRecord>.stride
    private let records = ExternalSorter<BlobRecord>(purpose: "sort the tiles", runLength: PMTilesStore.runLength) { a, b in
        (a.key, a.length, a.tile) < (b.key, b.length, b.tile)
    }
    private let lock = Monitor()

    init(path: String) throws(RunFailure) {
        output = try WholeFileOutput(path)
        guard output.temporaryPath != nil else {
            output.discard()
            throw RunFailure("cannot write '\(path)': a PMTiles archive is written whole and renamed into place, "
                             + "so it must be a regular file (not a device or FIFO)", status: .cannotCreate)
        }
        do { blobs = try TileBlobs() } catch {
            output.discard()
            throw error
        }
    }

    func put(_ tile: TileAddress, png: [UInt8]) throws(RunFailure) {
        let hash = TileBytes.hash(png)
        let id = PMTilesFormat.tileID(tile)
        lock.lock()
        defer { lock.unlock() }
        let offset = try blobs.keep(png, hash: hash)
        try records.add(BlobRecord(tile: id, key: hash, offset: offset, length: UInt32(png.count)))
    }

    func finish(_ metadata: TileMetadata) throws(RunFailure) {
        do {
            let data = try temporaryFile(purpose: "order the tiles")
            defer { close(data) }
            let placed = try placeBlobs(into: data)
            let entries = try runEntries(placed.byTile)
            defer { close(entries.fd) }
            let leaves = try temporaryFile(purpose: "write the leaf directories")
            defer { close(leaves) }
            let (root, leavesSize) = try directories(entries, leaves: leaves)
            let json = try PMTilesFormat.gzip(Array(metadata.json.utf8))
            let summary = PMTilesFormat.Summary(addressedTiles: UInt64(records.count), tileEntries: UInt64(entries.count),
                                                tileContents: placed.contents, zooms: metadata.zooms, bounds: metadata.bounds,
                                                center: metadata.center)
            let header = PMTilesFormat.header(root: root.count, metadata: json.count, leaves: Int(leavesSize), data: placed.size, summary)
            try write(header + root + json)
            try copy(leaves, size: leavesSize)
            try copy(data, size: placed.size)
            try output.commit()
        } catch {
            output.discard()
            throw error
        }
    }

    func discard() { output.discard() }

    // MARK: Finishing

    /// Classes of identical blobs, each copied once into `data` in the order of its first tile;
    /// returns every tile's record pointing into `data`, to be sorted by tile ID, the size of the
    /// data and how many blobs it holds.
    private func placeBlobs(into data: Int32) throws(RunFailure) -> (byTile: ExternalSorter<BlobRecord>, size: UInt64, contents: UInt64) {
        // By hash: a class's members are together, its leader (the least tile ID) first.
        let byLeader = ExternalSorter<BlobRecord>(purpose: "sort the tiles", runLength: PMTilesStore.runLength) { a, b in (a.key, a.tile) < (b.key, b.tile) }
        var group: (hash: UInt64, length: UInt32)?
        var classes: [(leader: UInt64, offset: UInt64, bytes: [UInt8])] = []
        try records.forEachSorted { record throws(RunFailure) in
            if group == nil || group! != (record.key, record.length) {
                group = (record.key, record.length)
                classes.removeAll()
            }
            var leader = classes.first { $0.offset == record.offset }?.leader
            if leader == nil {
                let bytes = try blobs.read(at: record.offset, length: Int(record.length))
                leader = classes.first { $0.bytes == bytes }?.leader
                if leader == nil {
                    classes.append((record.tile, record.offset, bytes))
                    leader = record.tile
                }
            }
            let offset = classes.first { $0.leader == leader }!.offset
            try byLeader.add(BlobRecord(tile: record.tile, key: leader!, offset: offset, length: record.length))
        }
        // By leader: each class's blob is copied when its leader comes, in TileID order.
        let byTile = ExternalSorter<BlobRecord>(purpose: "sort the tiles", runLength: PMTilesStore.runLength) { a, b in a.tile < b.tile }
        var dataSize: UInt64 = 0, placed: UInt64 = 0, contents: UInt64 = 0
        var buffer: [UInt8] = []
        try byLeader.forEachSorted { record throws(RunFailure) in
            if record.tile == record.key {
                let bytes = try blobs.read(at: record.offset, length: Int(record.length))
                buffer += bytes
                if buffer.count >= 1 << 20 {
                    try writeTemporary(data, buffer, what: "order the tiles")
                    buffer.removeAll(keepingCapacity: true)
                }
                placed = dataSize
                dataSize += UInt64(record.length)
                contents += 1
                if HeldSignals.interrupted { throw RunFailure("interrupted", status: .ioError) }
            }
            try byTile.add(BlobRecord(tile: record.tile, key: 0, offset: placed, length: record.length))
        }
        try writeTemporary(data, buffer, what: "order the tiles")
        return (byTile, dataSize, contents)
    }

    /// The entries, consecutive tiles with the same blob merged into one run, in a temporary
    /// file, and how many.
    private func runEntries(_ sorted: ExternalSorter<BlobRecord>) throws(RunFailure) -> (fd: Int32, count: Int) {
        let fd = try temporaryFile(purpose: "write the directories")
        var pending: [PMTilesFormat.Entry] = []
        var count = 0
        var last: PMTilesFormat.Entry?
        func flush() throws(RunFailure) {
            try writeTemporary(fd, pending, what: "write the directories")
            pending.removeAll(keepingCapacity: true)
        }
        do {
            try sorted.forEachSorted { record throws(RunFailure) in
                if var run = last, run.tileID + UInt64(run.runLength) == record.tile, run.offset == record.offset, run.runLength < UInt32.max {
                    run.runLength += 1
                    last = run
                    return
                }
                if let run = last {
                    pending.append(run)
                    count += 1
                    if pending.count >= 1 << 16 { try flush() }
                }
                last = PMTilesFormat.Entry(tileID: record.tile, offset: record.offset, length: record.length, runLength: 1)
            }
            if let run = last {
                pending.append(run)
                count += 1
            }
            try flush()
        } catch {
            close(fd)
            throw error
        }
        return (fd, count)
    }

    /// The root directory's bytes; the leaf directories, if any, written to `leaves`, and their
    /// size. All the entries in the root when it fits; else leaves of 4,096 entries (as the
    /// reference writer starts), doubled until the root of leaves fits.
    private func directories(_ entries: (fd: Int32, count: Int), leaves: Int32) throws(RunFailure) -> (root: [UInt8], leavesSize: UInt64) {
        if entries.count <= 1 << 16 {
            let all = try readEntries(entries.fd, from: 0, count: entries.count)
            let root = try PMTilesFormat.directory(all[...])
            if root.count <= PMTilesFormat.rootMost { return (root, 0) }
        }
        var leafSize = 4096
        while true {
            if ftruncate(leaves, 0) != 0 || lseek(leaves, 0, SEEK_SET) != 0 {
                throw RunFailure(temporaryFileFailure("write the leaf directories", systemReason()), status: .ioError)
            }
            var rootEntries: [PMTilesFormat.Entry] = []
            var size: UInt64 = 0
            var first = 0
            while first < entries.count {
                let leaf = try readEntries(entries.fd, from: first, count: min(leafSize, entries.count - first))
                let bytes = try PMTilesFormat.directory(leaf[...])
                try writeTemporary(leaves, bytes, what: "write the leaf directories")
                rootEntries.append(PMTilesFormat.Entry(tileID: leaf[0].tileID, offset: size, length: UInt32(bytes.count), runLength: 0))
                size += UInt64(bytes.count)
                first += leaf.count
            }
            let root = try PMTilesFormat.directory(rootEntries[...])
            if root.count <= PMTilesFormat.rootMost { return (root, size) }
            leafSize *= 2
        }
    }

    private func readEntries(_ fd: Int32, from start: Int, count: Int) throws(RunFailure) -> [PMTilesFormat.Entry] {
        var reason: String?
        let stride = MemoryLayout<PMTilesFormat.Entry>.stride
        let entries = [PMTilesFormat.Entry](unsafeUninitializedCapacity: count) { buffer, initialized in
            reason = readAll(fd, UnsafeMutableRawBufferPointer(buffer), at: off_t(start * stride))
            initialized = count
        }
        if let reason { throw RunFailure(temporaryFileFailure("write the directories", reason), status: .ioError) }
        return entries
    }

    private func write(_ bytes: [UInt8]) throws(RunFailure) {
        if let reason = bytes.withUnsafeBytes({ writeAll(output.fd, $0) }) {
            throw RunFailure("cannot write '\(output.path ?? "")': \(reason)", status: .ioError)
        }
    }

    /// Appends the first `size` bytes of a temporary file to the archive, a megabyte at a time.
    private func copy(_ fd: Int32, size: UInt64) throws(RunFailure) {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var done: UInt64 = 0
        while done < size {
            if HeldSignals.interrupted { throw RunFailure("interrupted", status: .ioError) }
            let count = Int(min(UInt64(buffer.count), size - done))
            if let reason = buffer.withUnsafeMutableBytes({ readAll(fd, UnsafeMutableRawBufferPointer(rebasing: $0[0..<count]), at: off_t(done)) }) {
                throw RunFailure(temporaryFileFailure("copy the tiles", reason), status: .ioError)
            }
            try write(Array(buffer[0..<count]))
            done += UInt64(count)
        }
    }
}

/// One tile on its way into the archive: its PMTiles tile ID, a key the sort is by (the blob's
/// hash, then its class's leader), where its bytes are and how many. 32 bytes.
struct BlobRecord {
    var tile: UInt64
    var key: UInt64
    var offset: UInt64
    var length: UInt32
    var padding: UInt32 = 0
}
