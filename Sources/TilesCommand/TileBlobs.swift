#if canImport(Glibc)
import Glibc
#endif
import Records

/// Tiles' bytes kept in a temporary file until they are put in order (a PMTiles archive's tile
/// data, a merge's output), each where `keep` says; a tile met lately with the same bytes is
/// kept once. Not thread-safe: its owner locks.
final class TileBlobs {
    private let fd: Int32
    private(set) var size: UInt64 = 0
    private var recent = RecentBlobs()

    init() throws(RunFailure) {
        fd = try temporaryFile(purpose: "keep the tiles")
    }

    deinit { close(fd) }

    /// Where the bytes are kept: appended, or where a recent tile with the same bytes was.
    func keep(_ png: [UInt8], hash: UInt64) throws(RunFailure) -> UInt64 {
        if let known = recent.offset(of: png, hash: hash) { return known }
        let offset = size
        try writeTemporary(fd, png, what: "keep the tiles")
        size += UInt64(png.count)
        recent.remember(png, hash: hash, at: offset)
        return offset
    }

    func read(at offset: UInt64, length: Int) throws(RunFailure) -> [UInt8] {
        var reason: String?
        let bytes = [UInt8](unsafeUninitializedCapacity: length) { buffer, initialized in
            reason = readAll(fd, UnsafeMutableRawBufferPointer(buffer), at: off_t(offset))
            initialized = length
        }
        if let reason { throw RunFailure(temporaryFileFailure("read the tiles back", reason), status: .ioError) }
        return bytes
    }
}

/// The small blobs met lately, by hash, with their bytes: the tiles repeated thousands of times
/// (an empty tile, the inside of a filled polygon, open sea) are written once to the blob file
/// and compared in memory. Bounded: emptied when full; `finish` finds every other duplicate.
struct RecentBlobs {
    static let most = 4096
    static let largest = 2048
    private var blobs: [UInt64: (bytes: [UInt8], offset: UInt64)] = [:]

    func offset(of bytes: [UInt8], hash: UInt64) -> UInt64? {
        guard let known = blobs[hash], known.bytes == bytes else { return nil }
        return known.offset
    }

    mutating func remember(_ bytes: [UInt8], hash: UInt64, at offset: UInt64) {
        guard bytes.count <= RecentBlobs.largest else { return }
        if blobs.count >= RecentBlobs.most { blobs.removeAll(keepingCapacity: true) }
        // A copy of just the bytes: the encoder's array keeps the capacity of its largest tile,
        // and 4,096 of those held a zoom 0-10 pyramid's run at 215 MB.
        blobs[hash] = (bytes.withUnsafeBufferPointer { Array($0) }, offset)
    }
}
