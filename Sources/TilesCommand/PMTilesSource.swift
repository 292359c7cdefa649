#if canImport(Glibc)
import Glibc
#endif
import Records

/// A PMTiles v3 archive read back (`PMTilesFormat`): the header, the root directory, the leaf
/// directories it points to, and each entry's tile (a run of tiles sharing one blob read once).
/// Directories gzipped or not, as the header says; tiles must be PNG, stored uncompressed.
final class PMTilesSource: TileSource {
    let path: String
    let declared: (zooms: ClosedRange<Int>, bounds: (west: Double, south: Double, east: Double, north: Double))?
    private let fd: Int32
    private let size: UInt64
    private let header: PMTilesFormat.ReadHeader
    /// Leaf directories point to leaf directories at most this deep (the reference writer makes
    /// one level): a deeper chain is a broken archive, perhaps a loop.
    static let deepest = 4

    /// Takes `fd`, open on the archive, and closes it when done.
    init(_ path: String, fd: Int32) throws(RunFailure) {
        self.path = path
        self.fd = fd
        var info = stat()
        size = fstat(fd, &info) == 0 ? UInt64(info.st_size) : 0
        var headerBytes = [UInt8](repeating: 0, count: PMTilesFormat.headerSize)
        let read = size >= UInt64(PMTilesFormat.headerSize) ? headerBytes.withUnsafeMutableBytes { readAll(fd, $0, at: 0) } : "it ended early"
        guard read == nil, let header = PMTilesFormat.readHeader(headerBytes) else {
            close(fd)
            throw TileSources.notAPart(path, "its header is not a PMTiles v3 header")
        }
        self.header = header
        declared = (header.zooms, header.bounds)
        let problem: String? = switch (header.internalCompression, header.tileCompression, header.tileType) {
        case (let compression, _, _) where compression > 2: "its directories are compressed by a method geo does not read (\(compression): brotli or zstd), only gzip or none"
        case (_, let compression, _) where compression > 1: "its tiles are compressed (method \(compression)), where PNG tiles are stored as they are"
        case (_, _, let type) where type != 2 && type != 0: "its tiles are not PNG (tile type \(type)), as geo tiles writes"
        default: nil
        }
        if let problem {
            close(fd)
            throw TileSources.notAPart(path, problem)
        }
    }

    deinit { close(fd) }

    func forEachTile(_ body: (TileAddress, [UInt8]) throws(RunFailure) -> Void) throws(RunFailure) {
        try walk(directory(at: header.root.offset, length: header.root.length, what: "root directory"), depth: 0, body)
    }

    private func walk(_ entries: [PMTilesFormat.Entry], depth: Int, _ body: (TileAddress, [UInt8]) throws(RunFailure) -> Void) throws(RunFailure) {
        for entry in entries {
            if entry.runLength == 0 {
                guard depth < PMTilesSource.deepest else { throw TileSources.notAPart(path, "its leaf directories nest deeper than \(PMTilesSource.deepest) levels") }
                let leaf = try directory(at: header.leaves.offset + entry.offset, length: UInt64(entry.length), what: "leaf directory")
                try walk(leaf, depth: depth + 1, body)
                continue
            }
            let bytes = try section(at: header.data.offset + entry.offset, length: UInt64(entry.length), what: "tile \(entry.tileID)")
            for id in entry.tileID..<(entry.tileID + UInt64(entry.runLength)) {
                guard let tile = PMTilesFormat.tile(id) else { throw TileSources.notAPart(path, "tile ID \(id) is beyond zoom 24") }
                try body(tile, bytes)
            }
        }
    }

    private func directory(at offset: UInt64, length: UInt64, what: String) throws(RunFailure) -> [PMTilesFormat.Entry] {
        var bytes = try section(at: offset, length: length, what: what)
        if header.internalCompression == 2 {
            guard let inflated = PMTilesFormat.gunzip(bytes) else { throw TileSources.notAPart(path, "its \(what) at byte \(offset) is not gzip data") }
            bytes = inflated
        }
        guard let entries = PMTilesFormat.entries(bytes) else { throw TileSources.notAPart(path, "its \(what) at byte \(offset) is not a directory") }
        return entries
    }

    /// `length` bytes at `offset`, checked to lie within the file.
    private func section(at offset: UInt64, length: UInt64, what: String) throws(RunFailure) -> [UInt8] {
        guard offset <= size, length <= size - offset, length < 1 << 31 else {
            throw TileSources.notAPart(path, "its \(what) (\(length) bytes at byte \(offset)) runs past the end of the file (\(size) bytes)")
        }
        var reason: String?
        let bytes = [UInt8](unsafeUninitializedCapacity: Int(length)) { buffer, initialized in
            reason = length == 0 ? nil : readAll(fd, UnsafeMutableRawBufferPointer(buffer), at: off_t(offset))
            initialized = Int(length)
        }
        if let reason { throw RunFailure("cannot read '\(path)': \(reason)", status: .ioError) }
        return bytes
    }
}
