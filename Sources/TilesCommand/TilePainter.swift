#if canImport(Glibc)
import Glibc
#endif
import Drawing
import Geodesy
import MapDrawing
import Records

/// What one drawing thread draws tiles with.
final class TilePainter {
    let settings: TileSettings
    let frame: Frame
    let stamps: [(String, Stamp)]
    let stampNames: Set<String>
    let size: Int
    /// The premultiplied pixel of a tile that shows only the background.
    let backgroundWord: UInt32
    private var buffer: [UInt8] = []
    /// The thread's one canvas, cleared for each tile.
    private let canvas: Canvas
    private let styles: StyleCache

    /// `projection`: Web Mercator, this thread's own; `stamps`: the run's, loaded once, of which
    /// the painter draws with copies of its own (`Stamp.copy()`).
    init(settings: TileSettings, stamps: [(String, Stamp)], projection: Projection) {
        self.settings = settings
        frame = Frame(projection: projection, centre: nil)
        self.stamps = stamps.map { name, stamp in (name, stamp.copy()) }
        stampNames = settings.drawing.stampNames
        styles = StyleCache(stamps: stampNames)
        size = 256 * settings.scale
        let probe = Canvas(format: .png, width: 1, height: 1, fd: -1)
        if settings.drawing.background.alpha > 0 { probe.fillBackground(settings.drawing.background) }
        backgroundWord = probe.word(x: 0, y: 0) ?? 0
        canvas = Canvas(format: .png, width: size, height: size, fd: -1, antialiasing: settings.drawing.antialiasing, threads: 1,
                        compression: .fast, workspace: PNGWorkspace())
    }

    /// Entries read at a time: a tile of a low zoom can have one for every record of the input.
    static let block = 4096

    /// Tiles of one colour (most of a layer of countries at zoom 10: 504,060 of 684,189 tiles
    /// are land) are encoded once for each colour, and tiles wholly inside fills (as the
    /// partition marks them) are not drawn either: each list of fill colours is drawn once. Up
    /// to `solidKinds` of each are kept, a thread.
    private var solidTiles: [[UInt32]: [UInt8]?] = [:]
    /// By pixel and the colour the canvas knows (its PNG is written from it): the same two, the
    /// same bytes, whichever thread or tile drew them first.
    private var uniformTiles: [UInt64: [UInt8]] = [:]
    static let solidKinds = 1024
    /// Tiles with at most this many entries are looked at for being wholly inside fills.
    static let solidMost = 64

    /// The tile's PNG, drawn from its `count` entries starting at `first`, or nil when it shows
    /// no ink (and blank tiles are not kept).
    func draw(_ tile: TileAddress, first: Int, count: Int, from source: SortedEntries, keepBlank: Bool) throws(RunFailure) -> [UInt8]? {
        // A small tile's entries are read once: to see whether it is wholly inside fills, and to draw it.
        let small = count > 0 && count <= TilePainter.solidMost ? try source.entries(from: first, count: count) : nil
        guard let small, let fills = try solidFills(small, from: source) else {
            return try drawn(tile, first: first, count: count, read: small, from: source, keepBlank: keepBlank)
        }
        if let known = solidTiles[fills] { return known }
        let png = try drawn(tile, first: first, count: count, read: small, from: source, keepBlank: keepBlank)
        if solidTiles.count < TilePainter.solidKinds { solidTiles[fills] = png }
        return png
    }

    /// The fill colours of the tile's features, in drawing order from the last opaque one (which
    /// hides those before it), when the tile is wholly inside each of them: the tile is then of
    /// one colour, theirs laid over each other. Nil otherwise.
    private func solidFills(_ entries: [TileEntry], from source: SortedEntries) throws(RunFailure) -> [UInt32]? {
        guard entries.allSatisfy({ $0.interior != 0 }) else { return nil }
        var fills: [UInt32] = []
        try source.forEachFeature(entries, buffer: &buffer) { bytes in
            DisplayList.forEachFeature(bytes) { _, properties, _ in
                let fill = styles.style(properties).fill
                if fill.alpha == 255 { fills.removeAll() }
                fills.append(UInt32(fill.red) << 24 | UInt32(fill.green) << 16 | UInt32(fill.blue) << 8 | UInt32(fill.alpha))
            }
        }
        return fills
    }

    /// The tile drawn from its `count` entries from `first`, or from `read`, when they were read.
    private func drawn(_ tile: TileAddress, first: Int, count: Int, read: [TileEntry]?, from source: SortedEntries,
                       keepBlank: Bool) throws(RunFailure) -> [UInt8]? {
        let bounds = TileSpace.bounds(of: tile)
        let view = View(frame: frame, width: size, height: size, left: bounds.left, top: bounds.top, scale: Double(size) / bounds.size)
        canvas.reset()
        let painter = settings.drawing.painter(on: canvas, view: view, stamps: stamps, pixelRatio: Double(settings.scale))
        painter.region = (PathIndex.Box(minX: bounds.left, minY: bounds.top - bounds.size, maxX: bounds.left + bounds.size, maxY: bounds.top),
                          bounds.size / Double(size))
        func paint(_ entries: [TileEntry]) throws(RunFailure) {
            try source.forEachFeature(entries, buffer: &buffer) { bytes in
                DisplayList.forEachFeature(bytes) { _, properties, shape in
                    painter.draw(shape, style: styles.style(properties))
                }
            }
        }
        if let read {
            try paint(read)
        } else {
            for start in stride(from: first, to: first + count, by: TilePainter.block) {
                try paint(try source.entries(from: start, count: min(TilePainter.block, first + count - start)))
            }
        }
        guard keepBlank || !canvas.isUniform(backgroundWord) else { return nil }
        guard let word = canvas.word(x: 0, y: 0), canvas.isUniform(word) else { return try encoded(tile) }
        let key = UInt64(word) << 32 | UInt64(canvas.knownColour ?? UInt32.max)
        if let known = uniformTiles[key] { return known }
        let png = try encoded(tile)
        if uniformTiles.count < TilePainter.solidKinds { uniformTiles[key] = png }
        return png
    }

    private func encoded(_ tile: TileAddress) throws(RunFailure) -> [UInt8] {
        do { try canvas.finish() } catch {
            throw RunFailure("cannot encode tile \(tile.name): \(error.message)", status: .ioError)
        }
        return canvas.encoded
    }
}
