#if canImport(Glibc)
import Glibc
#endif
import Geodesy
import Geometry
import MapDrawing
import Records

/// The consumer of pass 1, on the engine's output thread: each prepared feature goes to the
/// spool, with an entry for every tile its cover (worked out by the workers: `CoveringHandler`)
/// lists. Sendable by hand: only the output thread touches it until the engine has joined its
/// threads; the run reads it after.
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

    /// Reads records as `CoveringHandler` writes them.
    func consume(_ bytes: UnsafeBufferPointer<UInt8>) {
        var position = 0
        func u32() -> Int {
            defer { position += 4 }
            return Int(UnsafeRawPointer(bytes.baseAddress! + position).loadUnaligned(as: UInt32.self))
        }
        while failure == nil && position + 4 <= bytes.count {
            let featuresSize = u32()
            let featureBytes = UnsafeBufferPointer(rebasing: bytes[position..<(position + featuresSize)])
            position += featuresSize
            DisplayList.forEachFeature(featureBytes) { whole, properties, encoded in
                let tiles = u32()
                let tilesAt = position
                position += tiles * 8
                let runs = u32()
                let runsAt = position
                position += runs * 12
                guard failure == nil else { return }
                features += 1
                let style = styles.style(properties)
                extend(encoded, curved: drawing.allCurved || style.geodesic)
                do throws(RunFailure) {
                    let offset = try partition.keep(whole)
                    func add(_ tile: UInt64, interior: Bool) throws(RunFailure) {
                        try partition.add(TileEntry(tile: tile, zIndex: style.zIndex, offset: offset, size: UInt32(whole.count),
                                                    interior: interior ? 1 : 0))
                    }
                    for index in 0..<tiles {
                        let tile = UnsafeRawPointer(bytes.baseAddress! + tilesAt + index * 8).loadUnaligned(as: UInt64.self)
                        try add(tile, interior: false)
                        if tracksInkedTiles { noteInked(tile) }
                    }
                    for index in 0..<runs {
                        let at = UnsafeRawPointer(bytes.baseAddress! + runsAt + index * 12)
                        let first = at.loadUnaligned(as: UInt64.self), count = Int(at.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
                        for step in 0..<count { try add(TileAddress.key(first, east: step), interior: true) }
                        if tracksInkedTiles { noteInked(first); noteInked(TileAddress.key(first, east: count - 1)) }
                    }
                } catch {
                    failure = error
                }
            }
        }
    }

    private func noteInked(_ key: UInt64) {
        let tile = TileAddress(key: key)
        if let (columns, rows) = inkedTiles[tile.z] {
            inkedTiles[tile.z] = (min(columns.lowerBound, tile.x)...max(columns.upperBound, tile.x), min(rows.lowerBound, tile.y)...max(rows.upperBound, tile.y))
        } else {
            inkedTiles[tile.z] = (tile.x...tile.x, tile.y...tile.y)
        }
    }

    /// Adds the shape's positions and edges to the cover, read where they lie (this thread
    /// takes every record in turn: decoding each shape into arrays cost it more than the rest).
    private func extend(_ shape: DisplayList.ShapeBytes, curved: Bool) {
        shape.forEachPath { path, hasEdges in
            var previous: Position?
            for index in 0..<path.count {
                let position = Position(longitude: path.longitude(index), latitude: path.latitude(index))
                cover.add(position)
                if hasEdges, let a = previous {
                    cover.addEdge(a, position, latitudes: curved ? drawing.model.latitudeRange(ofEdgeFrom: a, to: position)
                                  : min(a.latitude, position.latitude)...max(a.latitude, position.latitude))
                }
                previous = position
            }
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
