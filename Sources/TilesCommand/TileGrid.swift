#if canImport(Glibc)
import Glibc
#endif
import Geodesy
import Geometry
import MapDrawing
import Records

/// One tile of the XYZ scheme (Google's and OpenStreetMap's): zoom z has 2^z × 2^z tiles, x
/// east from −180°, y south from 85.0511°.
struct TileAddress: Hashable, Comparable, Sendable {
    var z: Int
    var x: Int
    var y: Int

    /// z, x, y in one word, ordered as tiles are drawn (by zoom, then column, then row): zoom
    /// 24 at most, so x and y take 24 bits each.
    var key: UInt64 { UInt64(z) << 56 | UInt64(x) << 28 | UInt64(y) }

    init(z: Int, x: Int, y: Int) {
        self.z = z
        self.x = x
        self.y = y
    }

    init(key: UInt64) {
        z = Int(key >> 56)
        x = Int((key >> 28) & 0xFFF_FFFF)
        y = Int(key & 0xFFF_FFFF)
    }

    static func < (a: TileAddress, b: TileAddress) -> Bool { a.key < b.key }

    /// The key of the tile `columns` east of the one whose key is `key`, in its row (the runs
    /// of tiles wholly inside a fill, `TileCover.forEachInteriorRun`).
    static func key(_ key: UInt64, east columns: Int) -> UInt64 { key + UInt64(columns) << 28 }

    var name: String { "\(z)/\(x)/\(y)" }
}

/// Web Mercator (Geodesy's `WebMercator`) as tiles lay it out: a tile's bounds in metres, and
/// "world pixels" at a zoom (256 × 2^z across the world, y down from the top), the space tile
/// coverage is worked out in.
enum TileSpace {
    /// The tile's top left corner in metres and its width.
    static func bounds(of tile: TileAddress) -> (left: Double, top: Double, size: Double) {
        let size = 2 * WebMercator.half / Double(1 << tile.z)
        return (-WebMercator.half + Double(tile.x) * size, WebMercator.half - Double(tile.y) * size, size)
    }

    /// W, S, E, N in degrees of a rectangle of tiles of one zoom.
    static func degrees(columns: ClosedRange<Int>, rows: ClosedRange<Int>, zoom: Int) -> (west: Double, south: Double, east: Double, north: Double) {
        let first = bounds(of: TileAddress(z: zoom, x: columns.lowerBound, y: rows.lowerBound))
        let last = bounds(of: TileAddress(z: zoom, x: columns.upperBound, y: rows.upperBound))
        let northWest = WebMercator.position(x: first.left, y: first.top)
        let southEast = WebMercator.position(x: last.left + last.size, y: last.top - last.size)
        return (northWest.longitude, southEast.latitude, southEast.longitude, northWest.latitude)
    }

    /// The frame tiles are drawn and listed in: Web Mercator, not recentred.
    static func webMercatorFrame() throws(RunFailure) -> Frame {
        do { return Frame(projection: try Projection(crs: "EPSG:3857"), centre: nil) } catch {
            throw RunFailure("cannot make Web Mercator: \(error.message)", status: ExitCode(69))  // EX_UNAVAILABLE: PROJ is broken
        }
    }

    /// Metres to world pixels at zoom z.
    @inline(__always)
    static func worldPixel(x: Double, y: Double, zoom: Int) -> (x: Double, y: Double) {
        let scale = 256 * Double(1 << zoom) / (2 * WebMercator.half)
        return ((x + WebMercator.half) * scale, (WebMercator.half - y) * scale)
    }
}

/// Which tiles a run makes: the zoom range, limited by --bbox (the tiles that meet a region)
/// and by --tile (one tile's subtree).
struct TileSelection: Sendable {
    var zooms: ClosedRange<Int>
    /// Per zoom, the columns and rows allowed: columns as one or two ranges (a region across the
    /// antimeridian wraps).
    private var columns: [[ClosedRange<Int>]] = []
    private var rows: [ClosedRange<Int>] = []

    init(zooms: ClosedRange<Int>, box: (west: Double, south: Double, east: Double, north: Double)?, subtree: TileAddress?) {
        self.zooms = zooms
        for z in 0...24 {
            let last = (1 << z) - 1
            var columnRanges = [0...last]
            var rowRange = 0...last
            if let box {
                func column(_ longitude: Double) -> Int {
                    min(last, max(0, Int(floor((longitude + 180) / 360 * Double(1 << z)))))
                }
                func row(_ latitude: Double) -> Int {
                    let y = WebMercator.metres(Position(longitude: 0, latitude: latitude)).y
                    return min(last, max(0, Int(floor(TileSpace.worldPixel(x: 0, y: y, zoom: z).y / 256))))
                }
                let west = box.west == 180 ? -180 : normalizedLongitude(box.west)
                let east = box.east == -180 ? 180 : normalizedLongitude(box.east)
                columnRanges = west <= east ? [column(west)...column(east)] : [column(west)...last, 0...column(east)]
                rowRange = row(box.north)...row(box.south)
            }
            if let subtree {
                if z < subtree.z {
                    columnRanges = []
                } else {
                    let shift = z - subtree.z
                    let span = (subtree.x << shift)...(((subtree.x + 1) << shift) - 1)
                    columnRanges = columnRanges.compactMap { $0.overlaps(span) ? $0.clamped(to: span) : nil }
                    let rowSpan = (subtree.y << shift)...(((subtree.y + 1) << shift) - 1)
                    if rowRange.overlaps(rowSpan) { rowRange = rowRange.clamped(to: rowSpan) } else { columnRanges = [] }
                }
            }
            columns.append(columnRanges)
            rows.append(rowRange)
        }
    }

    /// The selection within a rectangle of tiles at each zoom (`rectangles[z]`, nil: no tile at
    /// that zoom): --empty's extent of the data.
    func limited(to rectangles: [(columns: ClosedRange<Int>, rows: ClosedRange<Int>)?]) -> TileSelection {
        var limited = self
        for z in 0...24 {
            guard z < rectangles.count, let rectangle = rectangles[z], rows[z].overlaps(rectangle.rows) else {
                limited.columns[z] = []
                continue
            }
            limited.rows[z] = rows[z].clamped(to: rectangle.rows)
            limited.columns[z] = columns[z].compactMap { $0.overlaps(rectangle.columns) ? $0.clamped(to: rectangle.columns) : nil }
        }
        return limited
    }

    func contains(_ tile: TileAddress) -> Bool {
        zooms.contains(tile.z) && rows[tile.z].contains(tile.y) && columns[tile.z].contains { $0.contains(tile.x) }
    }

    /// The rows allowed at zoom z.
    func rows(atZoom z: Int) -> ClosedRange<Int> { rows[z] }

    /// The columns allowed at zoom z, west to east.
    func columns(atZoom z: Int) -> [ClosedRange<Int>] { columns[z].sorted { $0.lowerBound < $1.lowerBound } }

    /// Every tile of the selection, in drawing order (for --empty).
    func forEachTile<Failure: Error>(_ body: (TileAddress) throws(Failure) -> Void) throws(Failure) {
        for z in zooms {
            for range in columns(atZoom: z) {
                for x in range {
                    for y in rows[z] { try body(TileAddress(z: z, x: x, y: y)) }
                }
            }
        }
    }

    /// How many tiles the selection holds.
    var count: Int {
        zooms.reduce(0) { total, z in total + columns[z].reduce(0) { $0 + $1.count } * rows[z].count }
    }
}
