#if canImport(Glibc)
import Glibc
#endif
import CSQLite
import Geodesy
import Geometry
import Records
import Threads

/// Where finished tiles go. `put` is called from the drawing threads at once: each store keeps
/// itself safe (a directory writes tiles side by side, a database one at a time).
protocol TileStore: AnyObject, Sendable {
    func put(_ tile: TileAddress, png: [UInt8]) throws(RunFailure)
    /// The run succeeded: make the output whole (metadata, rename).
    func finish(_ metadata: TileMetadata) throws(RunFailure)
    /// The run failed: leave nothing half written.
    func discard()
}

/// Where a run's tiles go (a drawing run's or a merge's), and what it says of them.
extension TileSettings {
    /// A store of OUT's kind, built beside OUT.
    func makeStore() throws(RunFailure) -> TileStore {
        switch kind {
        case .directory: try DirectoryStore(root: output, page: html)
        case .mbtiles: try MBTilesStore(path: output)
        case .pmtiles: try PMTilesStore(path: output)
        }
    }

    /// Refuses an OUT that this run may not replace, before anything is read: without --force
    /// anything but an empty folder; even with it, a folder holding a file geo would not have
    /// written (replacing the pyramid removes it), or a file of the other kind. Whether OUT exists.
    func checkExistingOutput() throws(RunFailure) -> Bool {
        var info = stat()
        guard stat(output, &info) == 0 else { return false }
        let isDirectory = (info.st_mode & S_IFMT) == S_IFDIR
        let wantsFile = kind != .directory
        if wantsFile && (info.st_mode & S_IFMT) != S_IFREG && !isDirectory {
            throw RunFailure("cannot write '\(output)': \(kind.named) is written whole and renamed into place, "
                             + "and must be a regular file (not a device or FIFO)", status: .cannotCreate)
        }
        if wantsFile == isDirectory {
            throw RunFailure("'\(output)' is \(isDirectory ? "a directory" : "not a directory"): "
                             + kind.named + " cannot replace it", status: .cannotCreate)
        }
        if isDirectory, let foreign = DirectoryStore.foreignFile(in: output) {
            guard force else {
                throw RunFailure("'\(output)' exists and is not empty: give another OUT, or --force to replace a pyramid geo wrote", status: .cannotCreate)
            }
            throw RunFailure("'\(output)' holds '\(foreign)', which geo tiles did not write: replacing the pyramid would remove it, "
                             + "so geo leaves it be (even with --force); give another OUT or move it", status: .cannotCreate)
        }
        if isDirectory && DirectoryStore.isEmpty(output) { return true }
        if !force {
            throw RunFailure("'\(output)' exists: give --force to replace it (it is replaced whole when the run ends)", status: .cannotCreate)
        }
        return true
    }

    /// The line a run ends with on a terminal: `wrote 80,046 tiles (846.5 MB) at zooms 0-9 to out in 14.4 s`.
    func reportWritten(_ written: (tiles: Int, bytes: Int), zooms: ClosedRange<Int>, since start: Double) {
        let zooms = zooms.count == 1 ? "zoom \(zooms.lowerBound)" : "zooms \(zooms.lowerBound)-\(zooms.upperBound)"
        let size = written.bytes >= 1_000_000 ? "\(oneDecimal(Double(written.bytes) / 1e6)) MB" : "\(oneDecimal(Double(written.bytes) / 1e3)) kB"
        printError("geo tiles: wrote \(count: written.tiles) tile\(written.tiles == 1 ? "" : "s") (\(size)) at \(zooms) to \(output) "
                   + "in \(oneDecimal(ProgressLine.now() - start)) s\n")
    }
}

/// What MBTiles' metadata table, a PMTiles header and its JSON metadata, and the HTML page say
/// of a pyramid.
struct TileMetadata {
    var name: String
    var zooms: ClosedRange<Int>
    /// W, S, E, N in degrees.
    var bounds: (west: Double, south: Double, east: Double, north: Double)
    var tileSize: Int
    /// Where a viewer opens: the middle of the bounds (in Web Mercator, across ±180 when they
    /// are), at the deepest zoom within `zooms` at which they fit a 1024 × 768 view.
    let center: (longitude: Double, latitude: Double, zoom: Int)

    /// `bounds`: W, S, E, N, W > E across ±180.
    init(name: String, zooms: ClosedRange<Int>, bounds: (west: Double, south: Double, east: Double, north: Double), tileSize: Int) {
        self.name = name
        self.zooms = zooms
        self.bounds = bounds
        self.tileSize = tileSize
        let width = bounds.east >= bounds.west ? bounds.east - bounds.west : bounds.east + 360 - bounds.west
        let south = WebMercator.metres(Position(longitude: 0, latitude: bounds.south)).y
        let north = WebMercator.metres(Position(longitude: 0, latitude: bounds.north)).y
        let middle = WebMercator.position(x: 0, y: (south + north) / 2)
        // World pixels across the bounds at zoom 0; each zoom doubles them.
        let across = width / 360 * 256, down = (north - south) / (2 * WebMercator.half) * 256
        var zoom = zooms.lowerBound
        while zoom < zooms.upperBound && across * Double(1 << (zoom + 1)) <= 1024 && down * Double(1 << (zoom + 1)) <= 768 { zoom += 1 }
        center = (normalizedLongitude(bounds.west + width / 2), middle.latitude, zoom)
    }

    /// The MBTiles metadata rows, in order: the same names and values go in PMTiles' JSON.
    var rows: [(name: String, value: String)] {
        let b = bounds, c = center
        return [
            ("name", name), ("format", "png"), ("type", "overlay"), ("version", "1"),
            ("description", "drawn by geo tiles"),
            ("minzoom", "\(zooms.lowerBound)"), ("maxzoom", "\(zooms.upperBound)"),
            ("bounds", "\(b.west),\(b.south),\(b.east),\(b.north)"),
            ("center", "\(c.longitude),\(c.latitude),\(c.zoom)"),
        ]
    }

    /// PMTiles' JSON metadata: the rows as an object of strings (the spec asks for strings).
    var json: String {
        func quoted(_ text: String) -> String {
            var result = "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": result += "\\\""
                case "\\": result += "\\\\"
                case _ where scalar.value < 0x20:
                    let hex = String(scalar.value, radix: 16)
                    result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                default: result.unicodeScalars.append(scalar)
                }
            }
            return result + "\""
        }
        return "{" + rows.map { "\(quoted($0.name)):\(quoted($0.value))" }.joined(separator: ",") + "}"
    }
}

/// A tile's bytes hashed to 64 bits, to find identical tiles (the stores compare the bytes of
/// tiles whose hashes are equal): eight bytes at a time, mixed as splitmix64 mixes.
enum TileBytes {
    static func hash(_ bytes: [UInt8]) -> UInt64 {
        func mix(_ value: UInt64) -> UInt64 {
            var z = value &+ 0x9E37_79B9_7F4A_7C15
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        return bytes.withUnsafeBytes { raw in
            var hash = mix(UInt64(raw.count))
            var index = 0
            while index + 8 <= raw.count {
                hash = mix(hash ^ raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                index += 8
            }
            var tail: UInt64 = 0
            for byte in raw[index...].reversed() { tail = tail << 8 | UInt64(byte) }
            return mix(hash ^ tail)
        }
    }
}

/// `OUT/{z}/{x}/{y}.png` (and `OUT/index.html` with --html), built in a folder beside OUT and
/// put in its place whole when the run succeeds (WholeDirectoryOutput): a reader sees the old
/// pyramid or the new one, and a rerun leaves no tile of the last one behind.
/// Sendable by hand: `made` is touched only with `lock` held; the rest is set in init.
final class DirectoryStore: TileStore, @unchecked Sendable {
    let output: WholeDirectoryOutput
    /// Whether the page that shows the tiles goes in too (--html).
    let page: Bool
    private var made: Set<String> = []
    private let lock = Monitor()

    init(root: String, page: Bool) throws(RunFailure) {
        output = try WholeDirectoryOutput(root)
        self.page = page
    }

    private func makeDirectory(_ path: String) throws(RunFailure) {
        lock.lock()
        defer { lock.unlock() }
        guard !made.contains(path) else { return }
        if mkdir(path, 0o777) != 0 && errno != EEXIST {
            throw RunFailure("cannot create '\(output.path)': \(systemReason())", status: .cannotCreate)
        }
        made.insert(path)
    }

    func put(_ tile: TileAddress, png: [UInt8]) throws(RunFailure) {
        let root = output.building
        try makeDirectory("\(root)/\(tile.z)")
        try makeDirectory("\(root)/\(tile.z)/\(tile.x)")
        // The folder is geo's own until it is put in place: each tile is written straight to
        // its name, no tile seen half written.
        let fd = open("\(root)/\(tile.name).png", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard fd >= 0 else { return try failed(tile, systemReason()) }
        if let reason = png.withUnsafeBytes({ writeAll(fd, $0) }) {
            close(fd)
            try failed(tile, reason)
        }
        if close(fd) != 0 { try failed(tile, systemReason()) }
    }

    private func failed(_ tile: TileAddress, _ reason: String) throws(RunFailure) {
        throw RunFailure("cannot write '\(output.path)/\(tile.name).png': \(reason)", status: .ioError)
    }

    func finish(_ metadata: TileMetadata) throws(RunFailure) {
        if page { try TileViewer.write(into: output.building, metadata) }
        try output.commit()
    }

    func discard() { output.discard() }

    /// Whether the folder holds nothing: used as if new, without --force.
    static func isEmpty(_ root: String) -> Bool {
        guard let folder = opendir(root) else { return false }
        defer { closedir(folder) }
        var count = 0
        while readdir(folder) != nil { count += 1 }
        return count <= 2  // . and ..
    }

    /// The first file in the folder `root` that geo tiles would not have written (anything but
    /// `{z}/{x}/{y}.png` and `index.html`), or nil: a pyramid geo replaces may hold nothing of
    /// the user's, since replacing it removes it.
    static func foreignFile(in root: String) -> String? {
        /// A folder's entries, sorted, each with whether it is a folder or a regular file (a
        /// link is neither: geo writes none).
        func entries(_ path: String) -> [(name: String, isFolder: Bool, isFile: Bool)] {
            guard let folder = opendir(path) else { return [] }
            defer { closedir(folder) }
            var result: [(name: String, isFolder: Bool, isFile: Bool)] = []
            while let entry = readdir(folder) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
                if name == "." || name == ".." { continue }
                var info = stat()
                let kind = lstat("\(path)/\(name)", &info) == 0 ? info.st_mode & S_IFMT : 0
                result.append((name, kind == S_IFDIR, kind == S_IFREG))
            }
            return result.sorted { $0.name < $1.name }
        }
        func number(_ text: Substring) -> Bool { (1...8).contains(text.count) && text.allSatisfy { ("0"..."9").contains($0) } }
        for zoom in entries(root) where !(zoom.name == "index.html" && zoom.isFile) {
            let zoomPath = "\(root)/\(zoom.name)"
            guard zoom.isFolder, number(zoom.name[...]) else { return zoomPath }
            for column in entries(zoomPath) {
                let columnPath = "\(zoomPath)/\(column.name)"
                guard column.isFolder, number(column.name[...]) else { return columnPath }
                for row in entries(columnPath) where !(row.isFile && row.name.hasSuffix(".png") && number(row.name.dropLast(4))) {
                    return "\(columnPath)/\(row.name)"
                }
            }
        }
        return nil
    }
}

/// An MBTiles 1.3 file: SQLite, a `tiles(zoom_level, tile_column, tile_row, tile_data)` view with
/// rows in TMS order (row 0 at the south), and `metadata(name, value)`. Identical tiles are kept
/// once, as mbutil and tippecanoe keep them: `images(tile_id, tile_data)` holds each distinct
/// PNG, named by its hash (a suffix when different bytes share one), and `map(zoom_level,
/// tile_column, tile_row, tile_id)` every tile; readers see the view. Written to a temporary file
/// beside its name, in one transaction, and renamed into place when the run succeeds.
/// Sendable by hand: the database is written only with `lock` held (`put`) or after the
/// drawing threads have ended (`finish`, `discard`).
final class MBTilesStore: TileStore, @unchecked Sendable {
    private let output: WholeFileOutput
    private var database: OpaquePointer?
    /// Keeps an image unless its name is taken; whether the named image holds these bytes;
    /// places a tile.
    private var insertImage: OpaquePointer?
    private var findImage: OpaquePointer?
    private var insertTile: OpaquePointer?
    private let lock = Monitor()

    init(path: String) throws(RunFailure) {
        output = try WholeFileOutput(path)
        guard let temporary = output.temporaryPath else {
            output.discard()
            throw RunFailure("cannot write '\(path)': an MBTiles file is a database, and must be a regular file (not a device or FIFO)", status: .cannotCreate)
        }
        var handle: OpaquePointer?
        guard sqlite3_open_v2(temporary, &handle, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let handle else {
            let reason = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(handle)
            output.discard()
            throw RunFailure("cannot create '\(path)': \(reason)", status: .cannotCreate)
        }
        database = handle
        do throws(RunFailure) {
            // No journal: the file is new and private until the rename, so a failure is undone by
            // removing it, not by rolling back.
            try execute("""
                PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA page_size = 4096;
                CREATE TABLE metadata (name TEXT, value TEXT);
                CREATE TABLE map (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_id TEXT);
                CREATE TABLE images (tile_data BLOB, tile_id TEXT);
                CREATE UNIQUE INDEX images_id ON images (tile_id);
                CREATE VIEW tiles AS SELECT map.zoom_level AS zoom_level, map.tile_column AS tile_column,
                    map.tile_row AS tile_row, images.tile_data AS tile_data FROM map JOIN images ON images.tile_id = map.tile_id;
                BEGIN;
                """)
            for (sql, statement) in [("INSERT OR IGNORE INTO images VALUES (?2, ?1)", \MBTilesStore.insertImage),
                                     ("SELECT 1 FROM images WHERE tile_id = ?1 AND tile_data = ?2", \MBTilesStore.findImage),
                                     ("INSERT INTO map VALUES (?, ?, ?, ?)", \MBTilesStore.insertTile)] {
                var prepared: OpaquePointer?
                guard sqlite3_prepare_v2(handle, sql, -1, &prepared, nil) == SQLITE_OK else { throw failure("prepare") }
                self[keyPath: statement] = prepared
            }
        } catch {
            discard()
            throw error
        }
    }

    private func failure(_ what: String) -> RunFailure {
        RunFailure("cannot write '\(output.path ?? "")': SQLite could not \(what): \(String(cString: sqlite3_errmsg(database)))", status: .ioError)
    }

    private func execute(_ sql: String) throws(RunFailure) {
        guard sqlite3_exec(database, sql, nil, nil, nil) == SQLITE_OK else { throw failure("run \(sql.prefix(40))") }
    }

    func put(_ tile: TileAddress, png: [UInt8]) throws(RunFailure) {
        let hash = String(TileBytes.hash(png), radix: 16)
        lock.lock()
        defer { lock.unlock() }
        // The image named by the hash, kept unless the name is taken; then the name is this
        // tile's if it holds these bytes, else (different bytes, the same hash) the next suffix.
        var name = hash
        for suffix in 1... {
            for statement in [insertImage, findImage] {
                sqlite3_bind_text(statement, 1, name, -1, geo_sqlite_transient())
                let status = png.withUnsafeBytes { sqlite3_bind_blob(statement, 2, $0.baseAddress, Int32($0.count), geo_sqlite_transient()) }
                guard status == SQLITE_OK else { throw failure("store tile \(tile.name)") }
            }
            guard sqlite3_step(insertImage) == SQLITE_DONE else { throw failure("store tile \(tile.name)") }
            sqlite3_reset(insertImage)
            let found = sqlite3_step(findImage)
            sqlite3_reset(findImage)
            guard found == SQLITE_ROW || found == SQLITE_DONE else { throw failure("store tile \(tile.name)") }
            if found == SQLITE_ROW { break }
            name = "\(hash)-\(suffix)"
        }
        sqlite3_bind_int(insertTile, 1, Int32(tile.z))
        sqlite3_bind_int(insertTile, 2, Int32(tile.x))
        sqlite3_bind_int(insertTile, 3, Int32((1 << tile.z) - 1 - tile.y))
        sqlite3_bind_text(insertTile, 4, name, -1, geo_sqlite_transient())
        guard sqlite3_step(insertTile) == SQLITE_DONE else { throw failure("store tile \(tile.name)") }
        sqlite3_reset(insertTile)
    }

    private func finalizeStatements() {
        for statement in [insertImage, findImage, insertTile] where statement != nil { sqlite3_finalize(statement) }
        (insertImage, findImage, insertTile) = (nil, nil, nil)
    }

    func finish(_ metadata: TileMetadata) throws(RunFailure) {
        finalizeStatements()
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(database, "INSERT INTO metadata VALUES (?, ?)", -1, &statement, nil) == SQLITE_OK else { throw failure("prepare") }
        for (name, value) in metadata.rows {
            sqlite3_bind_text(statement, 1, name, -1, geo_sqlite_transient())
            sqlite3_bind_text(statement, 2, value, -1, geo_sqlite_transient())
            guard sqlite3_step(statement) == SQLITE_DONE else {
                sqlite3_finalize(statement)
                throw failure("write the metadata")
            }
            sqlite3_reset(statement)
        }
        sqlite3_finalize(statement)
        // The index MBTiles readers look tiles up by (and that keeps each tile once), made once
        // at the end: faster than keeping it while inserting.
        try execute("CREATE UNIQUE INDEX map_index ON map (zoom_level, tile_column, tile_row); COMMIT;")
        guard sqlite3_close(database) == SQLITE_OK else { throw failure("close the database") }
        database = nil
        try output.commit()
    }

    func discard() {
        finalizeStatements()
        if let database { sqlite3_close(database) }
        database = nil
        output.discard()
    }
}
