#if canImport(Glibc)
import Glibc
#endif
import Drawing

/// A ring on a map torn at ±180, cut there into stretches (the tracer cuts an edge across the
/// tear and resumes it at the other edge of the map), as the region it bounds: each stretch moved
/// a world's width to continue the one before, so that the ring is whole again, past one edge of
/// the map; and a ring that goes once round the world (round a pole) closed along the edge of the
/// map at the pole nearer its points. Filled at its place and a world's width to each side, what
/// lies past one edge shows at the other, as the shape the short way across ±180 (the Maps SDK's
/// convention) covers it. Joined straight across the map instead, a ring across ±180 would fill a
/// band round the whole world.
package enum TornRing {
    /// The joined ring, and the edges added to close it round a pole (edges of the fill that are
    /// not the ring's: the tiles they cross are not wholly inside it). `world` is the map's width,
    /// `poles` the y of its top and bottom edges, in the stretches' units.
    package static func joined(_ stretches: [[Pixel]], world: Double, poles: (top: Double, bottom: Double))
        -> (points: [Pixel], closing: [(Pixel, Pixel)]) {
        var points: [Pixel] = []
        var shift = 0.0
        // A cut: where the last stretch ended and the next begins are a world apart on one parallel.
        func across(_ a: Pixel, _ b: Pixel) -> Double? {
            let gap = b.x - a.x
            guard abs(b.y - a.y) <= 1e-6 * world, abs(abs(gap) - world) <= 1e-6 * world else { return nil }
            return gap > 0 ? world : -world
        }
        for stretch in stretches where !stretch.isEmpty {
            if let last = points.last, let gap = across(last, Pixel(stretch[0].x + shift, stretch[0].y)) { shift -= gap }
            points += shift == 0 ? stretch : stretch.map { Pixel($0.x + shift, $0.y) }
        }
        guard let first = points.first, let last = points.last, across(last, first) != nil else { return (points, []) }
        let meanY = points.reduce(0) { $0 + $1.y } / Double(points.count)
        let pole = abs(meanY - poles.top) <= abs(meanY - poles.bottom) ? poles.top : poles.bottom
        let down = Pixel(last.x, pole), back = Pixel(first.x, pole)
        points += [down, back]
        return (points, [(last, down), (down, back), (back, first)])
    }

    /// The ring and its copies a world's width to each side, each cut to the map's columns
    /// `west...east` (a picture wider than the world shows no copy past its edges).
    package static func copies(_ points: [Pixel], world: Double, west: Double, east: Double) -> [[Pixel]] {
        [0, -world, world].compactMap { shift in
            let copy = Canvas.clipRing(points.map { Pixel($0.x + shift, $0.y) }, to: (west, -.infinity, east, .infinity))
            return copy.count > 2 ? copy : nil
        }
    }
}
