#if canImport(Glibc)
import Glibc
#endif
import Records
import CMalloc

/// One feature in one tile: which tile, the drawing order within it (z-index, then input order,
/// which is the feature's place in the spool), where the prepared feature is, and whether the
/// tile is wholly inside its fill (`TileCover.interiorTiles`).
struct TileEntry: Comparable {
    var tile: UInt64
    var zIndex: Double
    var offset: UInt64
    var size: UInt32
    /// 1 when the tile is wholly inside the feature's fill, else 0 (a whole word: the entry's
    /// size is the same either way, 32 bytes).
    var interior: UInt32 = 0

    static func < (a: TileEntry, b: TileEntry) -> Bool {
        if a.tile != b.tile { return a.tile < b.tile }
        if a.zIndex != b.zIndex { return a.zIndex < b.zIndex }
        return a.offset < b.offset
    }
}

/// The input partitioned by tile on disk, as tippecanoe does: every prepared feature once in a
/// spool file, and an entry per tile it touches, sorted by tile in runs of bounded size and
/// merged (memory holds one run, never the input or the pyramid).
final class TilePartition {
    /// Entries sorted in memory at a time: 32 MB.
    static let runLength = 1 << 20

    private let spool: Int32
    private(set) var spoolSize: UInt64 = 0
    /// Features not yet written to the spool: written a megabyte at a time, not one by one.
    private var unwritten: [UInt8] = []
    static let spoolBlock = 1 << 20
    private let entries: ExternalSorter<TileEntry>

    /// `runLength`: entries sorted in memory at a time (smaller in tests, to merge runs).
    init(runLength: Int = TilePartition.runLength) throws(RunFailure) {
        entries = ExternalSorter(purpose: "sort the tiles", runLength: runLength, sortRun: TilePartition.sort, by: <)
        spool = try temporaryFile(purpose: "keep the prepared records")
    }

    deinit {
        close(spool)
    }

    /// Keeps a prepared feature; returns where it is.
    func keep(_ feature: UnsafeBufferPointer<UInt8>) throws(RunFailure) -> UInt64 {
        let offset = spoolSize
        if unwritten.count + feature.count > TilePartition.spoolBlock { try writeSpool() }
        if feature.count >= TilePartition.spoolBlock {
            try writeTemporary(spool, UnsafeRawBufferPointer(feature), what: "keep the prepared records")
        } else {
            unwritten.append(contentsOf: feature)
        }
        spoolSize += UInt64(feature.count)
        return offset
    }

    private func writeSpool() throws(RunFailure) {
        try writeTemporary(spool, unwritten, what: "keep the prepared records")
        unwritten.removeAll(keepingCapacity: true)
    }

    func add(_ entry: TileEntry) throws(RunFailure) {
        try entries.add(entry)
    }

    /// Sorts a run of entries as `sort()` does (by tile, z-index, then spool offset). They are
    /// added in spool order, so when every entry has the same z-index a stable sort by tile alone
    /// gives that order: a radix sort, a byte of the tile key at a time, the bytes that differ
    /// only (zooms 0-8: four of eight). 210,000 Europe entries: 20 ms in `sort()`, on one thread
    /// while the other waits. Its scratch copy is held to `radixMost` entries (8 MB), so that a
    /// large input's runs of 32 MB take no more memory than they did: any longer run, and any
    /// other, is sorted by `sort()`.
    static let radixMost = 1 << 18

    static func sort(_ entries: inout [TileEntry]) {
        guard let first = entries.first, entries.count <= radixMost else { return entries.sort() }
        var differing: UInt64 = 0, inSpoolOrder = true
        var previous = first.offset
        for entry in entries {
            differing |= entry.tile ^ first.tile
            if entry.offset < previous || entry.zIndex != first.zIndex { inSpoolOrder = false; break }
            previous = entry.offset
        }
        guard inSpoolOrder else { return entries.sort() }
        var spare = entries
        var counts = [Int](repeating: 0, count: 257)
        for shift in stride(from: 0, to: 64, by: 8) where (differing >> UInt64(shift)) & 0xFF != 0 {
            entries.withUnsafeBufferPointer { from in
                spare.withUnsafeMutableBufferPointer { to in
                    counts.withUnsafeMutableBufferPointer { start in
                        for index in start.indices { start[index] = 0 }
                        for entry in from { start[Int((entry.tile >> UInt64(shift)) & 0xFF) + 1] += 1 }
                        for digit in 1..<257 { start[digit] += start[digit - 1] }
                        for entry in from {
                            let digit = Int((entry.tile >> UInt64(shift)) & 0xFF)
                            to[start[digit]] = entry
                            start[digit] += 1
                        }
                    }
                }
            }
            swap(&entries, &spare)
        }
    }

    /// Every entry in order: the one run in memory, or the runs merged into one file; the spool
    /// is mapped if it is `mappingUpTo` bytes or fewer (SortedEntries.mapping).
    func sorted(mappingUpTo mappedMost: Int = SortedEntries.mappedMost) throws(RunFailure) -> SortedEntries {
        try writeSpool()
        unwritten = []
        if let sorted = entries.sortedInMemory() {
            var tiles = 0
            for index in sorted.indices where index == 0 || sorted[index].tile != sorted[index - 1].tile { tiles += 1 }
            return SortedEntries(memory: sorted, tiles: tiles, spool: spool, mappingUpTo: mappedMost)
        }
        let merged = try temporaryFile(purpose: "sort the tiles")
        var output: [TileEntry] = []
        output.reserveCapacity(1 << 14)
        var total = 0, tiles = 0
        var lastTile: UInt64?
        try entries.forEachSorted { entry throws(RunFailure) in
            output.append(entry)
            total += 1
            if entry.tile != lastTile { tiles += 1; lastTile = entry.tile }
            if output.count == 1 << 14 {
                try writeTemporary(merged, output, what: "sort the tiles")
                output.removeAll(keepingCapacity: true)
            }
        }
        try writeTemporary(merged, output, what: "sort the tiles")
        return SortedEntries(file: merged, count: total, tiles: tiles, spool: spool, mappingUpTo: mappedMost)
    }
}

/// The sorted entries, shared by the drawing threads, and the spool the features are read from.
/// Sendable by hand: nothing in it changes after init, the files are read with pread, which
/// moves no shared offset, and the spool's mapping is only read.
final class SortedEntries: @unchecked Sendable {
    private let memory: [TileEntry]
    private let file: Int32
    let count: Int
    /// How many tiles the entries name.
    let tiles: Int
    let spool: Int32
    /// A spool of up to `mappedMost` bytes mapped read-only (else, or where it cannot be mapped,
    /// features are read with pread): a tile of a deep zoom gathers a few dozen features from
    /// all over the spool, a call each with pread (5 % of a run), none from the mapping. A
    /// larger spool is not mapped: the pages read stay counted as the process's memory while
    /// mapped, and memory must not grow with the input. (A disk error under a mapped page would
    /// end geo with SIGBUS rather than a message; a spool this small was just written and is
    /// almost surely still in the page cache.)
    private let mapping: UnsafeRawBufferPointer?
    static let mappedMost = 64 << 20

    init(memory: [TileEntry], tiles: Int, spool: Int32, mappingUpTo mappedMost: Int) {
        self.memory = memory
        file = -1
        count = memory.count
        self.tiles = tiles
        self.spool = spool
        mapping = SortedEntries.map(spool, upTo: mappedMost)
    }

    init(file: Int32, count: Int, tiles: Int, spool: Int32, mappingUpTo mappedMost: Int) {
        memory = []
        self.file = file
        self.count = count
        self.tiles = tiles
        self.spool = spool
        mapping = SortedEntries.map(spool, upTo: mappedMost)
    }

    /// Whether features are read from a mapping of the spool.
    var isMapped: Bool { mapping != nil }

    deinit {
        if file >= 0 { close(file) }
        if let mapping { munmap(UnsafeMutableRawPointer(mutating: mapping.baseAddress), mapping.count) }
    }

    private static func map(_ fd: Int32, upTo mappedMost: Int) -> UnsafeRawBufferPointer? {
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_size > 0, info.st_size <= mappedMost,
              let address = mmap(nil, Int(info.st_size), PROT_READ, MAP_SHARED, fd, 0), address != MAP_FAILED else { return nil }
        return UnsafeRawBufferPointer(start: address, count: Int(info.st_size))
    }

    func entries(from start: Int, count: Int) throws(RunFailure) -> [TileEntry] {
        if file < 0 { return Array(memory[start..<(start + count)]) }
        return try readEntries(file, at: start, count: count)
    }

    /// Neighbouring features are read from the spool together: a span of up to `readSpan`
    /// bytes whose gaps are at most `readGap` (reading a page more costs less than a call).
    static let readSpan = 1 << 20
    static let readGap = 4096

    /// Hands the prepared features of `entries` to `body`, in the entries' order: from the
    /// mapping, or read from the spool into `buffer` (neighbours in one read).
    func forEachFeature(_ entries: [TileEntry], buffer: inout [UInt8], _ body: (UnsafeBufferPointer<UInt8>) -> Void) throws(RunFailure) {
        if let mapping {
            let bytes = mapping.assumingMemoryBound(to: UInt8.self)
            for index in entries.indices {
                // The next feature lies anywhere in the spool: its first read would wait on memory
                // (4 % of a run) unless asked for while this one is drawn.
                if index + 1 < entries.count { geo_prefetch(bytes.baseAddress! + Int(entries[index + 1].offset), Int(entries[index + 1].size)) }
                let entry = entries[index]
                body(UnsafeBufferPointer(rebasing: bytes[Int(entry.offset)..<Int(entry.offset) + Int(entry.size)]))
            }
            return
        }
        var first = 0
        while first < entries.count {
            let start = entries[first].offset
            var end = start + UInt64(entries[first].size), next = first + 1
            while next < entries.count {
                let entry = entries[next]
                guard entry.offset >= end, entry.offset - end <= UInt64(SortedEntries.readGap),
                      entry.offset + UInt64(entry.size) - start <= UInt64(SortedEntries.readSpan) else { break }
                end = entry.offset + UInt64(entry.size)
                next += 1
            }
            let size = Int(end - start)
            if buffer.count < size { buffer = [UInt8](repeating: 0, count: max(size, SortedEntries.readSpan)) }
            if let reason = buffer.withUnsafeMutableBytes({ readAll(spool, UnsafeMutableRawBufferPointer(rebasing: $0[0..<size]), at: off_t(start)) }) {
                throw RunFailure(temporaryFileFailure("read the prepared records back", reason), status: .ioError)
            }
            buffer.withUnsafeBufferPointer { bytes in
                for entry in entries[first..<next] {
                    let at = Int(entry.offset - start)
                    body(UnsafeBufferPointer(rebasing: bytes[at..<at + Int(entry.size)]))
                }
            }
            first = next
        }
    }
}

private func readEntries(_ fd: Int32, at index: Int, count: Int) throws(RunFailure) -> [TileEntry] {
    var entries = [TileEntry](repeating: TileEntry(tile: 0, zIndex: 0, offset: 0, size: 0), count: count)
    if let reason = entries.withUnsafeMutableBytes({ readAll(fd, $0, at: off_t(index * MemoryLayout<TileEntry>.stride)) }) {
        throw RunFailure(temporaryFileFailure("read the sorted tiles", reason), status: .ioError)
    }
    return entries
}

/// Reads all of `bytes` at `offset`; the reason it cannot, if it cannot.
func readAll(_ fd: Int32, _ bytes: UnsafeMutableRawBufferPointer, at offset: off_t) -> String? {
    var got = 0
    while got < bytes.count {
        let n = pread(fd, bytes.baseAddress! + got, bytes.count - got, offset + off_t(got))
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { return n == 0 ? "it ended early" : systemReason() }
        got += n
    }
    return nil
}

/// Writes all of `bytes`; the reason it cannot, if it cannot.
func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> String? {
    var written = 0
    while written < bytes.count {
        let n = write(fd, bytes.baseAddress! + written, bytes.count - written)
        if n < 0 {
            if errno == EINTR { continue }
            return systemReason()
        }
        written += n
    }
    return nil
}

