import CZlib
import Records
import SystemLibraries

/// The bytes of a PMTiles v3 archive (protomaps/PMTiles, spec/v3/spec.md): tile IDs on the
/// Hilbert curve, directory entries and their serialization, the 127-byte header. Pure: the
/// store (`PMTilesStore`) decides what goes where.
enum PMTilesFormat {
    /// The header, then the root directory, must fit in the first 16,384 bytes: a client reads
    /// them in one request.
    static let headerSize = 127
    static let rootMost = 16_384 - headerSize

    /// The tile's place on the Hilbert curves of every zoom in turn: the tiles of zooms below z
    /// first ((4^z − 1) / 3 of them), then the tile's distance along zoom z's curve.
    static func tileID(_ tile: TileAddress) -> UInt64 {
        var x = UInt64(tile.x), y = UInt64(tile.y)
        var id = ((UInt64(1) << (2 * UInt64(tile.z))) - 1) / 3
        var level = tile.z - 1
        while level >= 0 {
            let s = UInt64(1) << UInt64(level)
            let rx: UInt64 = x & s != 0 ? 1 : 0, ry: UInt64 = y & s != 0 ? 1 : 0
            id += ((3 * rx) ^ ry) << (2 * UInt64(level))
            // Rotate the quadrant so that the curve within it runs the standard way.
            if ry == 0 {
                if rx == 1 {
                    x = s - 1 - (x & (s - 1))
                    y = s - 1 - (y & (s - 1))
                }
                swap(&x, &y)
            }
            x &= s - 1
            y &= s - 1
            level -= 1
        }
        return id
    }

    /// The tile at a place on the curves: `tileID`'s inverse.
    static func tile(_ id: UInt64) -> TileAddress? {
        var z = 0, first: UInt64 = 0
        while true {
            guard z <= 24 else { return nil }
            let count = UInt64(1) << (2 * UInt64(z))
            if id - first < count { break }
            first += count
            z += 1
        }
        var position = id - first, x: UInt64 = 0, y: UInt64 = 0
        var s: UInt64 = 1
        while s < UInt64(1) << UInt64(z) {
            let rx = 1 & (position / 2), ry = 1 & (position ^ rx)
            // The quadrant's rotation undone, as tileID made it.
            if ry == 0 {
                if rx == 1 {
                    x = s - 1 - x
                    y = s - 1 - y
                }
                swap(&x, &y)
            }
            x += s * rx
            y += s * ry
            position /= 4
            s *= 2
        }
        return TileAddress(z: z, x: Int(x), y: Int(y))
    }

    /// One directory entry: `runLength` tiles from `tileID` on share the blob at `offset` (from
    /// the start of the tile data); runLength 0 points at a leaf directory instead (offset from
    /// the start of the leaf directories).
    struct Entry {
        var tileID: UInt64
        var offset: UInt64
        var length: UInt32
        var runLength: UInt32
    }

    /// A directory as the spec stores it: the count, then columns of varints (tile ID deltas,
    /// run lengths, lengths, offsets, an offset 0 meaning "right after the previous entry's
    /// blob", else offset + 1), gzip-compressed.
    static func directory(_ entries: ArraySlice<Entry>) throws(RunFailure) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(entries.count * 6 + 8)
        appendVarint(UInt64(entries.count), to: &bytes)
        var lastID: UInt64 = 0
        for entry in entries {
            appendVarint(entry.tileID - lastID, to: &bytes)
            lastID = entry.tileID
        }
        for entry in entries { appendVarint(UInt64(entry.runLength), to: &bytes) }
        for entry in entries { appendVarint(UInt64(entry.length), to: &bytes) }
        var previous: Entry?
        for entry in entries {
            if let previous, entry.offset == previous.offset + UInt64(previous.length) {
                appendVarint(0, to: &bytes)
            } else {
                appendVarint(entry.offset + 1, to: &bytes)
            }
            previous = entry
        }
        return try gzip(bytes)
    }

    /// A directory's entries, from its bytes once decompressed (`directory`'s inverse); nil when
    /// they are not a directory.
    static func entries(_ bytes: [UInt8]) -> [Entry]? {
        var position = 0
        func varint() -> UInt64? {
            var value: UInt64 = 0, shift: UInt64 = 0
            while position < bytes.count && shift < 64 {
                let byte = bytes[position]
                position += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { return value }
                shift += 7
            }
            return nil
        }
        // Each entry takes at least four bytes: a count beyond that is not a directory's.
        guard let count = varint(), count <= UInt64(bytes.count) else { return nil }
        var entries = [Entry](repeating: Entry(tileID: 0, offset: 0, length: 0, runLength: 0), count: Int(count))
        var lastID: UInt64 = 0
        for index in entries.indices {
            guard let delta = varint() else { return nil }
            lastID &+= delta
            entries[index].tileID = lastID
        }
        for index in entries.indices {
            guard let run = varint(), run <= UInt64(UInt32.max) else { return nil }
            entries[index].runLength = UInt32(run)
        }
        for index in entries.indices {
            guard let length = varint(), length <= UInt64(UInt32.max) else { return nil }
            entries[index].length = UInt32(length)
        }
        for index in entries.indices {
            guard let offset = varint() else { return nil }
            if offset == 0 && index > 0 {
                entries[index].offset = entries[index - 1].offset + UInt64(entries[index - 1].length)
            } else {
                guard offset > 0 else { return nil }
                entries[index].offset = offset - 1
            }
        }
        return entries
    }

    static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// gzip (the header's internal compression, 2), by zlib's deflate at its default level.
    static func gzip(_ input: [UInt8]) throws(RunFailure) -> [UInt8] {
        var stream = z_stream()
        // 15 + 16: a gzip wrapper, not zlib's.
        guard deflateInit2_(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
                            Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw RunFailure("cannot start zlib's deflate (out of memory)", status: .ioError)
        }
        defer { deflateEnd(&stream) }
        // Room for the worst case in one call: above zlib's bound (n + n/4096 + n/16384 + 13,
        // and 18 bytes of gzip wrapper).
        var output = [UInt8](repeating: 0, count: input.count + input.count >> 10 + 128)
        let status = input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
                stream.avail_in = UInt32(source.count)
                stream.next_out = target.baseAddress
                stream.avail_out = UInt32(target.count)
                return CZlib.deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { throw RunFailure("zlib's deflate failed (status \(status))", status: .ioError) }
        output.removeLast(output.count - Int(stream.total_out))
        return output
    }

    /// gzip's inverse (zlib's inflate), for directories and metadata: nil when the bytes are not
    /// gzip, or inflate to more than `most` bytes.
    static func gunzip(_ input: [UInt8], most: Int = 1 << 28) -> [UInt8]? {
        var stream = z_stream()
        guard inflateInit2_(&stream, 15 + 16, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        return input.withUnsafeBufferPointer { source -> [UInt8]? in
            stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
            stream.avail_in = UInt32(source.count)
            while true {
                let (status, produced) = chunk.withUnsafeMutableBufferPointer { target in
                    stream.next_out = target.baseAddress
                    stream.avail_out = UInt32(target.count)
                    return (inflate(&stream, Z_NO_FLUSH), target.count - Int(stream.avail_out))
                }
                output += chunk[0..<produced]
                if status == Z_STREAM_END { return output }
                guard status == Z_OK, output.count <= most, produced > 0 || stream.avail_in > 0 else { return nil }
            }
        }
    }

    /// What the header says besides where the sections are.
    struct Summary {
        var addressedTiles: UInt64
        var tileEntries: UInt64
        var tileContents: UInt64
        var zooms: ClosedRange<Int>
        var bounds: (west: Double, south: Double, east: Double, north: Double)
        var center: (longitude: Double, latitude: Double, zoom: Int)
    }

    /// The 127-byte header, little-endian; the sections in the spec's order, each right after
    /// the one before: root directory, metadata, leaf directories, tile data.
    static func header(root: Int, metadata: Int, leaves: Int, data: UInt64, _ summary: Summary) -> [UInt8] {
        var bytes = Array("PMTiles".utf8) + [3]
        func word(_ value: UInt64) { for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8((value >> UInt64(shift)) & 0xFF)) } }
        func degrees(_ value: Double) {
            let fixed = UInt32(bitPattern: Int32((value * 10_000_000).rounded()))
            for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8((fixed >> UInt32(shift)) & 0xFF)) }
        }
        let rootOffset = UInt64(headerSize), metadataOffset = rootOffset + UInt64(root)
        let leavesOffset = metadataOffset + UInt64(metadata), dataOffset = leavesOffset + UInt64(leaves)
        word(rootOffset); word(UInt64(root))
        word(metadataOffset); word(UInt64(metadata))
        word(leavesOffset); word(UInt64(leaves))
        word(dataOffset); word(data)
        word(summary.addressedTiles); word(summary.tileEntries); word(summary.tileContents)
        // Clustered; internal compression gzip; tile compression none; tile type PNG.
        bytes += [1, 2, 1, 2]
        bytes += [UInt8(summary.zooms.lowerBound), UInt8(summary.zooms.upperBound)]
        degrees(summary.bounds.west); degrees(summary.bounds.south); degrees(summary.bounds.east); degrees(summary.bounds.north)
        bytes.append(UInt8(summary.center.zoom))
        degrees(summary.center.longitude); degrees(summary.center.latitude)
        return bytes
    }
}

extension PMTilesFormat {
    /// What a reader needs of a header: where the sections are, how they are compressed, what
    /// the tiles are, and the zooms and bounds the archive declares.
    struct ReadHeader {
        var root: (offset: UInt64, length: UInt64)
        var leaves: (offset: UInt64, length: UInt64)
        var data: (offset: UInt64, length: UInt64)
        /// 1 none, 2 gzip, 3 brotli, 4 zstd (0 unknown).
        var internalCompression: UInt8
        var tileCompression: UInt8
        /// 2 is PNG (0 unknown).
        var tileType: UInt8
        var zooms: ClosedRange<Int>
        var bounds: (west: Double, south: Double, east: Double, north: Double)
    }

    /// The header's fields (`header`'s inverse); nil when the bytes are not a v3 header.
    static func readHeader(_ bytes: [UInt8]) -> ReadHeader? {
        guard bytes.count >= headerSize, bytes[0..<7].elementsEqual("PMTiles".utf8), bytes[7] == 3 else { return nil }
        func word(_ at: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(bytes[at + $1]) << (8 * UInt64($1)) } }
        func degrees(_ at: Int) -> Double {
            Double(Int32(bitPattern: (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[at + $1]) << (8 * UInt32($1)) })) / 10_000_000
        }
        let low = Int(bytes[100]), high = Int(bytes[101])
        guard low <= high else { return nil }
        return ReadHeader(root: (word(8), word(16)), leaves: (word(40), word(48)), data: (word(56), word(64)),
                          internalCompression: bytes[97], tileCompression: bytes[98], tileType: bytes[99],
                          zooms: low...high, bounds: (degrees(102), degrees(106), degrees(110), degrees(114)))
    }
}
