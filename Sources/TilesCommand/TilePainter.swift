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

    /// The tile's PNG, drawn from its `count` entries starting at `first`, or nil when it shows
    /// no ink (and blank tiles are not kept).
    func draw(_ tile: TileAddress, first: Int, count: Int, from source: SortedEntries, keepBlank: Bool) throws(RunFailure) -> [UInt8]? {
        let bounds = TileSpace.bounds(of: tile)
        let view = View(frame: frame, width: size, height: size, left: bounds.left, top: bounds.top, scale: Double(size) / bounds.size)
        canvas.reset()
        let painter = settings.drawing.painter(on: canvas, view: view, stamps: stamps, pixelRatio: Double(settings.scale))
        for start in stride(from: first, to: first + count, by: TilePainter.block) {
            try source.forEachFeature(try source.entries(from: start, count: min(TilePainter.block, first + count - start)), buffer: &buffer) { bytes in
                DisplayList.forEachFeature(bytes) { _, properties, shape in
                    painter.draw(shape, style: styles.style(properties))
                }
            }
        }
        guard keepBlank || !canvas.isUniform(backgroundWord) else { return nil }
        do { try canvas.finish() } catch {
            throw RunFailure("cannot encode tile \(tile.name): \(error.message)", status: .ioError)
        }
        return canvas.encoded
    }
}
