/// The drawing thread: draws each prepared feature as it comes, in input order, or keeps it
/// for later when its z-index is not 0. Sendable by hand: only the engine's output thread uses
/// it until the engine has joined its threads; the run reads it after.
package final class Drawer: @unchecked Sendable {
    package let painter: Painter
    package let stamps: Set<String>
    package let spools = LayerSpools()
    private let styles: StyleCache
    /// Features read and prepared, drawn now or kept for their z-index.
    package private(set) var records = 0

    package init(painter: Painter, stamps: Set<String>) {
        self.painter = painter
        self.stamps = stamps
        styles = StyleCache(stamps: stamps)
    }

    package func consume(_ bytes: UnsafeBufferPointer<UInt8>) {
        DisplayList.forEachFeature(bytes) { whole, properties, shape in
            records += 1
            // The workers read this style already: it cannot fail here.
            let style = styles.style(properties)
            if style.zIndex == 0 {
                painter.draw(shape, style: style)
            } else {
                spools.keep(whole, z: style.zIndex)
            }
        }
    }

    /// Draws a feature kept in a spool.
    package func redraw(_ bytes: UnsafeBufferPointer<UInt8>) {
        DisplayList.forEachFeature(bytes) { _, properties, shape in
            painter.draw(shape, style: styles.style(properties))
        }
    }
}
