#if canImport(Glibc)
import Glibc
#endif
import CSQLite
import Records
import Styles

/// An MBTiles file read back through SQLite: its `tiles` table or view (rows in TMS order, row 0
/// at the south), and the zooms and bounds of its `metadata` when it has them. Its tiles must
/// be PNG (metadata format png, or none said).
final class MBTilesSource: TileSource {
    let path: String
    private(set) var declared: (zooms: ClosedRange<Int>, bounds: (west: Double, south: Double, east: Double, north: Double))?
    private var database: OpaquePointer?

    init(_ path: String) throws(RunFailure) {
        self.path = path
        guard sqlite3_open_v2(path, &database, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else {
            let reason = database.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(database)
            throw RunFailure("cannot open '\(path)': \(reason)", status: .noInput)
        }
        var metadata: [String: String] = [:]
        // A file without a metadata table has no zooms or bounds to say, not a problem.
        try? query("SELECT name, value FROM metadata") { statement in
            if let name = sqlite3_column_text(statement, 0), let value = sqlite3_column_text(statement, 1) {
                metadata[String(cString: name)] = String(cString: value)
            }
            return true
        }
        if let format = metadata["format"], format.lowercased() != "png" {
            sqlite3_close(database)
            throw TileSources.notAPart(path, "its tiles are \(format) (metadata format), not PNG as geo tiles draws")
        }
        let bounds = metadata["bounds"]?.split(separator: ",").compactMap { Double(String($0).trimmingSpaces()) }
        if let low = metadata["minzoom"].flatMap({ Int($0) }), let high = metadata["maxzoom"].flatMap({ Int($0) }),
           0 <= low, low <= high, high <= 24, let bounds, bounds.count == 4 {
            declared = (low...high, (bounds[0], bounds[1], bounds[2], bounds[3]))
        }
    }

    deinit { sqlite3_close(database) }

    func forEachTile(_ body: (TileAddress, [UInt8]) throws(RunFailure) -> Void) throws(RunFailure) {
        var failure: RunFailure?
        do {
            try query("SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles") { statement in
                let z = Int(sqlite3_column_int64(statement, 0)), x = Int(sqlite3_column_int64(statement, 1))
                let row = Int(sqlite3_column_int64(statement, 2))
                guard (0...24).contains(z), let tile = TileSources.tile(z: z, x: x, y: (1 << z) - 1 - row) else {
                    failure = TileSources.notAPart(path, "its tiles table holds zoom \(z), column \(x), row \(row), which is no tile")
                    return false
                }
                let count = Int(sqlite3_column_bytes(statement, 3))
                let data = sqlite3_column_blob(statement, 3)
                let bytes = data.map { Array(UnsafeRawBufferPointer(start: $0, count: count)) } ?? []
                do throws(RunFailure) { try body(tile, bytes) } catch {
                    failure = error
                    return false
                }
                return true
            }
        } catch {
            throw failure ?? TileSources.notAPart(path, error.message)
        }
        if let failure { throw failure }
    }

    /// Runs `sql`, handing each row to `row` until it says stop; throws SQLite's reason when it fails.
    private func query(_ sql: String, _ row: (OpaquePointer) -> Bool) throws(RunFailure) {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(database, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw RunFailure("SQLite: \(String(cString: sqlite3_errmsg(database)))", status: .dataError)
        }
        defer { sqlite3_finalize(statement) }
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { return }
            guard status == SQLITE_ROW else { throw RunFailure("SQLite: \(String(cString: sqlite3_errmsg(database)))", status: .dataError) }
            if !row(statement) { return }
        }
    }
}
