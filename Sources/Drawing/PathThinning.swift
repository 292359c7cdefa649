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
public final class PathThinning {
    public static let tolerance = 0.125
    static let window = 16

    private var anchor = Pixel(0, 0)
    /// The points since the anchor, not yet kept or left out (`count` of them, at most
    /// `window`): all but the last are within `tolerance` of the chord from the anchor to the
    /// last. A buffer of its own, not an array: a map tile offers every point of its paths here.
    private let pending = UnsafeMutablePointer<Pixel>.allocate(capacity: PathThinning.window)
    private var count = 0

    public init() {}

    deinit { pending.deallocate() }

    public func start(_ first: Pixel) {
        anchor = first
        count = 0
    }

    /// The point before `point` to keep, if the chord from the anchor to `point` leaves one of
    /// the pending points too far (or the window is full): then the chord ends there.
    public func offer(_ point: Pixel) -> Pixel? {
        // A point that is not finite is no place to draw to (and to the rasterizer a break
        // between pieces): it goes, as the gap rule before this one let it go.
        guard point.x.isFinite && point.y.isFinite else { return nil }
        if count > 0 && !(count < PathThinning.window && allNear(point)) {
            let last = pending[count - 1]
            anchor = last
            pending[0] = point
            count = 1
            return last
        }
        pending[count] = point
        count += 1
        return nil
    }

    private func allNear(_ end: Pixel) -> Bool {
        for index in 0..<count where !PathThinning.isNear(pending[index], anchor, end) { return false }
        return true
    }

    /// `point` is kept whatever the rule says (an anchor of a path drawn in parts): the point
    /// before it to keep as well, if any; the thinning goes on from it.
    public func keep(_ point: Pixel) -> Pixel? {
        let before = offer(point)
        anchor = point
        count = 0
        return before
    }

    /// The last point offered, always kept (nil when none was offered since the last kept).
    public func finish() -> Pixel? {
        defer { count = 0 }
        return count > 0 ? pending[count - 1] : nil
    }

    /// Whether `p` is within `tolerance` of the segment from `a` to `b` (no division: the
    /// nearest point is an end when `p` projects beyond it, else the foot of the perpendicular).
    @inline(__always)
    static func isNear(_ p: Pixel, _ a: Pixel, _ b: Pixel) -> Bool {
        let dx = b.x - a.x, dy = b.y - a.y, px = p.x - a.x, py = p.y - a.y
        let along = px * dx + py * dy, length2 = dx * dx + dy * dy, limit = tolerance * tolerance
        if along <= 0 { return px * px + py * py < limit }
        if along >= length2 {
            let qx = p.x - b.x, qy = p.y - b.y
            return qx * qx + qy * qy < limit
        }
        let across = px * dy - py * dx
        return across * across < limit * length2
    }

    /// The points thinned, from each of `anchors` (indices, ascending; the first is always kept)
    /// anew: a path drawn from some of its parts then keeps, in each, the points it keeps whole.
    public static func thinned(_ points: [Pixel], anchors: [Int] = []) -> [Pixel] {
        guard let first = points.first else { return [] }
        var kept = [first]
        kept.reserveCapacity(points.count)
        let thinning = PathThinning()
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
