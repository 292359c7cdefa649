import CommandKit
import MapDrawing
import Records
import Threads

/// Pass 1 on the --jobs workers: each record prepared as render prepares it (`PreparingHandler`),
/// then, for each of its features, the tiles it puts ink on at every zoom it is drawn at
/// (`TileCover`): the costly part of partitioning, done in parallel, so that the one thread that
/// takes the records in order (`Partitioner`) only keeps them. What a record becomes:
///
///     record   := u32 features size, features (DisplayList), for each feature: cover
///     cover    := u32 n, n × (u64 tile key, u32 interior: 1 when wholly inside the fill)
///
/// Sendable by hand: its members are `let`s, and the style caches are taken under their lock.
final class CoveringHandler: PathHandler, @unchecked Sendable {
    let preparing: PreparingHandler
    let selection: TileSelection
    let drawing: DrawingSettings
    /// Style caches, one lent to each worker at a time (a cache is not shared), under `lock`.
    private var styleCaches: [StyleCache] = []
    private let lock = Monitor()

    var input: PathInputFormat { preparing.input }

    init(preparing: PreparingHandler, selection: TileSelection, drawing: DrawingSettings) {
        self.preparing = preparing
        self.selection = selection
        self.drawing = drawing
    }

    static let entryBytes = 12

    func handle(_ record: UnsafeBufferPointer<UInt8>, into output: RecordWriter) throws {
        let buffer = output.buffer
        let sizeAt = buffer.count
        DisplayList.put(UInt32(0), buffer)
        try preparing.handle(record, into: output)
        let featuresSize = buffer.count - sizeAt - 4
        UnsafeMutableRawPointer(buffer.base + sizeAt).storeBytes(of: UInt32(featuresSize), as: UInt32.self)
        lock.lock()
        let styles = styleCaches.popLast() ?? StyleCache(stamps: drawing.stampNames)
        lock.unlock()
        defer {
            lock.lock()
            styleCaches.append(styles)
            lock.unlock()
        }
        // Worked out into an array first: appending to the buffer may move the features.
        var covers: [UInt8] = []
        DisplayList.forEachFeature(UnsafeBufferPointer(start: buffer.base + sizeAt + 4, count: featuresSize)) { _, properties, encoded in
            let style = styles.style(properties)
            let shape = encoded.shape
            let countAt = covers.count
            covers.append(contentsOf: [0, 0, 0, 0])
            var count: UInt32 = 0
            // A feature's own minzoom and maxzoom leave it out of the other zooms.
            for zoom in selection.zooms where style.zooms.contains(zoom) {
                var cover = TileCover(zoom: zoom, selection: selection, model: drawing.model)
                cover.add(shape, style: style, curved: drawing.allCurved || style.geodesic)
                let interior = cover.interiorTiles
                for tile in cover.tiles {
                    withUnsafeBytes(of: tile) { covers.append(contentsOf: $0) }
                    withUnsafeBytes(of: UInt32(interior.contains(tile) ? 1 : 0)) { covers.append(contentsOf: $0) }
                }
                count += UInt32(cover.tiles.count)
            }
            withUnsafeBytes(of: count) { bytes in
                for index in 0..<4 { covers[countAt + index] = bytes[index] }
            }
        }
        covers.withUnsafeBufferPointer { buffer.append($0) }
    }
}
