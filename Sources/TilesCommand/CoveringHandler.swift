import CommandKit
import MapDrawing
import Records

/// Pass 1 on the --jobs workers: each record prepared as render prepares it (`PreparingHandler`),
/// then, for each of its features, the tiles it puts ink on at every zoom it is drawn at
/// (`TileCover`): the costly part of partitioning, done in parallel, so that the one thread that
/// takes the records in order (`Partitioner`) only keeps them. What a record becomes:
///
///     record   := u32 features size, features (DisplayList), for each feature: cover
///     cover    := u32 n, n × u64 tile key        the tiles its outline, lines or markers reach
///                 u32 m, m × (u64 tile key, u32 count)
///                                                 runs of tiles eastward along a row, wholly
///                                                 inside its fill (a country at a deep zoom
///                                                 covers millions of tiles, in a few thousand runs)
///
/// Sendable by hand: its members are `let`s (the style caches are lent under their pool's lock).
final class CoveringHandler: PathHandler, @unchecked Sendable {
    let preparing: PreparingHandler
    let selection: TileSelection
    let drawing: DrawingSettings
    private let styles: StyleCachePool

    var input: PathInputFormat { preparing.input }

    init(preparing: PreparingHandler, selection: TileSelection, drawing: DrawingSettings) {
        self.preparing = preparing
        self.selection = selection
        self.drawing = drawing
        styles = StyleCachePool(stamps: drawing.stampNames)
    }

    func handle(_ record: UnsafeBufferPointer<UInt8>, into output: RecordWriter) throws {
        let buffer = output.buffer
        let sizeAt = buffer.count
        DisplayList.put(UInt32(0), buffer)
        try preparing.handle(record, into: output)
        let featuresSize = buffer.count - sizeAt - 4
        UnsafeMutableRawPointer(buffer.base + sizeAt).storeBytes(of: UInt32(featuresSize), as: UInt32.self)
        let cache = styles.borrow()
        defer { styles.giveBack(cache) }
        // Worked out into an array first: appending to the buffer may move the features.
        var covers: [UInt8] = []
        func put<Value>(_ value: Value) { withUnsafeBytes(of: value) { covers.append(contentsOf: $0) } }
        func patch(_ value: UInt32, at index: Int) { withUnsafeBytes(of: value) { for k in 0..<4 { covers[index + k] = $0[k] } } }
        let cover = TileCover(zoom: 0, selection: selection, model: drawing.model)
        var runs: [(TileAddress, Int)] = []
        DisplayList.forEachFeature(UnsafeBufferPointer(start: buffer.base + sizeAt + 4, count: featuresSize)) { _, properties, encoded in
            let style = cache.style(properties)
            let shape = encoded.shape
            runs.removeAll(keepingCapacity: true)
            let countAt = covers.count
            put(UInt32(0))
            var count: UInt32 = 0
            // A feature's own minzoom and maxzoom leave it out of the other zooms.
            for zoom in selection.zooms where style.zooms.contains(zoom) {
                cover.restart(atZoom: zoom)
                cover.add(shape, style: style, curved: drawing.allCurved || style.geodesic)
                for tile in cover.tiles { put(tile) }
                count += UInt32(cover.tiles.count)
                cover.forEachInteriorRun { runs.append(($0, $1)) }
            }
            patch(count, at: countAt)
            put(UInt32(runs.count))
            for (first, length) in runs {
                put(first.key)
                put(UInt32(length))
            }
        }
        covers.withUnsafeBufferPointer { buffer.append($0) }
    }
}
