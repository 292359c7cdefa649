#if canImport(Glibc)
import Glibc
#endif
import Geodesy
import MapDrawing
import Records

/// The consumer of pass 1, on the engine's output thread: each prepared feature goes to the
/// spool, with an entry for every tile it touches at every zoom. Sendable by hand: only the
/// output thread touches it until the engine has joined its threads; the run reads it after.
final class Partitioner: @unchecked Sendable {
    let partition: TilePartition
    let selection: TileSelection
    let drawing: DrawingSettings
    private(set) var failure: RunFailure?
    private(set) var features = 0
    /// Per zoom, the rectangle of tiles with entries (columns, rows): --empty's extent.
    private(set) var inkedTiles: [(columns: ClosedRange<Int>, rows: ClosedRange<Int>)?] = Array(repeating: nil, count: 25)
    /// The extent of every position, for the metadata and the page.
    private var west = Double.infinity, east = -Double.infinity, south = Double.infinity, north = -Double.infinity
    private let styles: StyleCache

    /// Whether `inkedTiles` is kept (only --empty without --bbox or --tile needs it).
    let tracksInkedTiles: Bool

    init(partition: TilePartition, selection: TileSelection, drawing: DrawingSettings, tracksInkedTiles: Bool) {
        self.tracksInkedTiles = tracksInkedTiles
        self.partition = partition
        self.selection = selection
        self.drawing = drawing
        styles = StyleCache(stamps: drawing.stampNames)
    }

    func consume(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard failure == nil else { return }
        DisplayList.forEachFeature(bytes) { whole, properties, encoded in
            guard failure == nil else { return }
            features += 1
            let shape = encoded.shape
            // The workers read this style already: it cannot fail here.
            let style = styles.style(properties)
            extend(shape)
            do throws(RunFailure) {
                let offset = try partition.keep(whole)
                let curved = drawing.allCurved || style.geodesic
                for zoom in selection.zooms {
                    var cover = TileCover(zoom: zoom, selection: selection, model: drawing.model)
                    cover.add(shape, style: style, curved: curved)
                    for tile in cover.tiles {
                        try partition.add(TileEntry(tile: tile, zIndex: style.zIndex, offset: offset, size: UInt32(whole.count)))
                    }
                    if tracksInkedTiles { noteInked(cover.tiles, zoom: zoom) }
                }
            } catch {
                failure = error
            }
        }
    }

    private func noteInked(_ tiles: [UInt64], zoom: Int) {
        for key in tiles {
            let tile = TileAddress(key: key)
            if let (columns, rows) = inkedTiles[zoom] {
                inkedTiles[zoom] = (min(columns.lowerBound, tile.x)...max(columns.upperBound, tile.x), min(rows.lowerBound, tile.y)...max(rows.upperBound, tile.y))
            } else {
                inkedTiles[zoom] = (tile.x...tile.x, tile.y...tile.y)
            }
        }
    }

    private func extend(_ shape: Shape?) {
        func path(_ path: ProjectedPath) {
            for position in path.positions {
                west = min(west, position.longitude); east = max(east, position.longitude)
                south = min(south, position.latitude); north = max(north, position.latitude)
            }
        }
        switch shape {
        case nil: return
        case .points(let paths), .lines(let paths): paths.forEach(path)
        case .line(let line): path(line)
        case .polygons(let polygons): polygons.forEach { $0.forEach(path) }
        case .collection(let members): members.forEach(extend)
        }
    }

    /// W, S, E, N of what was drawn (within --bbox when given, and Web Mercator's ±85.0511°).
    func bounds(clampedTo box: (west: Double, south: Double, east: Double, north: Double)?) -> (west: Double, south: Double, east: Double, north: Double) {
        let limit = WebMercator.latitudeLimit
        guard west <= east else { return (-180, -limit, 180, limit) }
        var result = (west: max(-180, west), south: max(-limit, south), east: min(180, east), north: min(limit, north))
        if let box, box.west < box.east {
            result = (max(result.west, box.west), max(result.south, box.south), min(result.east, box.east), min(result.north, box.north))
        }
        return result
    }
}
