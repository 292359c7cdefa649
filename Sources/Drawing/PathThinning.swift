/// The one rule by which a path's points are left out before it is drawn (by geo's line
/// rasterizer and by cairo, lines and fills alike): a point goes when the straight line from the
/// last point kept to a later one passes within `tolerance` of it and of every point left out
/// since. The line drawn then stays within `tolerance` of the path and the path within
/// `tolerance` of it (each point of the path is near the chord that replaces it, and the chord is
/// swept by the path's points as they go from its start to its end), so a stroke or a fill
/// moves by less than 1/8 px, and a dense or straight path costs what its pixels cost: at zoom 4
/// the Europe corpus' paths keep 43 % of their segments (the 1/8-px gap between kept points that
/// this replaces kept all of them). The first and last points always stay, and a point at least
/// every `window`, so the work is linear in the points.
///
/// Streaming: `start` with the first point, `offer` each next one (a point to keep may come
/// back), `finish` for the last.
public struct PathThinning {
    public static let tolerance = 0.125
    static let window = 16

    private var anchor = Pixel(0, 0)
    /// The points since the anchor, not yet kept or left out: all but the last are within
    /// `tolerance` of the chord from the anchor to the last.
    private var pending: [Pixel] = []

    public init() {}

    public mutating func start(_ first: Pixel) {
        anchor = first
        pending.removeAll(keepingCapacity: true)
    }

    /// The point before `point` to keep, if the chord from the anchor to `point` leaves one of
    /// the pending points too far (or the window is full): then the chord ends there.
    public mutating func offer(_ point: Pixel) -> Pixel? {
        guard let last = pending.last else {
            pending.append(point)
            return nil
        }
        if pending.count < PathThinning.window && pending.allSatisfy({ PathThinning.isNear($0, anchor, point) }) {
            pending.append(point)
            return nil
        }
        anchor = last
        pending.removeAll(keepingCapacity: true)
        pending.append(point)
        return last
    }

    /// `point` is kept whatever the rule says (an anchor of a path drawn in parts): the point
    /// before it to keep as well, if any; the thinning goes on from it.
    public mutating func keep(_ point: Pixel) -> Pixel? {
        let before = offer(point)
        anchor = point
        pending.removeAll(keepingCapacity: true)
        return before
    }

    /// The last point offered, always kept (nil when none was offered since the last kept).
    public mutating func finish() -> Pixel? {
        defer { pending.removeAll(keepingCapacity: true) }
        return pending.last
    }

    /// Whether `p` is within `tolerance` of the segment from `a` to `b`.
    @inline(__always)
    static func isNear(_ p: Pixel, _ a: Pixel, _ b: Pixel) -> Bool {
        let dx = b.x - a.x, dy = b.y - a.y, px = p.x - a.x, py = p.y - a.y
        let length2 = dx * dx + dy * dy
        let t = length2 > 0 ? min(1, max(0, (px * dx + py * dy) / length2)) : 0
        let ex = px - t * dx, ey = py - t * dy
        return ex * ex + ey * ey < tolerance * tolerance
    }

    /// The points thinned, from each of `anchors` (indices, ascending; the first is always kept)
    /// anew: a path drawn from some of its parts then keeps, in each, the points it keeps whole.
    public static func thinned(_ points: [Pixel], anchors: [Int] = []) -> [Pixel] {
        guard let first = points.first else { return [] }
        var kept = [first]
        kept.reserveCapacity(points.count)
        var thinning = PathThinning()
        thinning.start(first)
        var nextAnchor = anchors.firstIndex { $0 > 0 } ?? anchors.count
        for index in points.indices.dropFirst() {
            let point = points[index]
            if nextAnchor < anchors.count && anchors[nextAnchor] == index {
                nextAnchor += 1
                if let before = thinning.keep(point) { kept.append(before) }
                kept.append(point)
            } else if let before = thinning.offer(point) {
                kept.append(before)
            }
        }
        if let last = thinning.finish() { kept.append(last) }
        return kept
    }
}
