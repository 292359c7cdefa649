#if canImport(Glibc)
import Glibc
#endif
import Geodesy
import Geometry
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
    /// The meridians and parallels the shapes cover, for the metadata and the page: the band
    /// render fits its view to, across ±180 when that is narrower.
    private var cover = LongitudeCover()
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
            let curved = drawing.allCurved || style.geodesic
            extend(shape, curved: curved)
            do throws(RunFailure) {
                let offset = try partition.keep(whole)
                // A feature's own minzoom and maxzoom leave it out of the other zooms.
                for zoom in selection.zooms where style.zooms.contains(zoom) {
                    var cover = TileCover(zoom: zoom, selection: selection, model: drawing.model)
                    cover.add(shape, style: style, curved: curved)
                    let interior = cover.interiorTiles
                    for tile in cover.tiles {
                        try partition.add(TileEntry(tile: tile, zIndex: style.zIndex, offset: offset, size: UInt32(whole.count),
                                                    interior: interior.contains(tile) ? 1 : 0))
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

    private func extend(_ shape: Shape?, curved: Bool) {
        func path(_ path: ProjectedPath, edges: Bool) {
            var previous: Position?
            for position in path.positions {
                cover.add(position)
                if edges, let a = previous {
                    cover.addEdge(a, position, latitudes: curved ? drawing.model.latitudeRange(ofEdgeFrom: a, to: position)
                                  : min(a.latitude, position.latitude)...max(a.latitude, position.latitude))
                }
                previous = position
            }
        }
        switch shape {
        case nil: return
        case .points(let paths): paths.forEach { path($0, edges: false) }
        case .lines(let paths): paths.forEach { path($0, edges: true) }
        case .line(let line): path(line, edges: true)
        case .polygons(let polygons): polygons.forEach { $0.forEach { path($0, edges: true) } }
        case .collection(let members): members.forEach { extend($0, curved: curved) }
        }
    }

    /// W, S, E, N of where the ink is (W > E across ±180), within Web Mercator's ±85.0511°: the
    /// band of meridians the shapes cover, as render fits its view, or --bbox's region, or
    /// --tile's bounds, when given.
    func bounds(box: (west: Double, south: Double, east: Double, north: Double)?, subtree: TileAddress?)
        -> (west: Double, south: Double, east: Double, north: Double) {
        let limit = WebMercator.latitudeLimit
        if let box {
            return (normalizedLongitude(box.west), max(-limit, box.south), normalizedLongitude(box.east), min(limit, box.north))
        }
        if let subtree {
            let corner = TileSpace.bounds(of: subtree)
            let northWest = WebMercator.position(x: corner.left, y: corner.top)
            let southEast = WebMercator.position(x: corner.left + corner.size, y: corner.top - corner.size)
            return (northWest.longitude, southEast.latitude, southEast.longitude, northWest.latitude)
        }
        let latitudes = cover.latitudes
        guard latitudes.south <= latitudes.north else { return (-180, -limit, 180, limit) }
        let band = cover.band ?? (west: -180, east: 180)
        return (band.west, max(-limit, latitudes.south), band.east, min(limit, latitudes.north))
    }
}
