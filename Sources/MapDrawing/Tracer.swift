#if canImport(Glibc)
import Glibc
#endif
import Drawing
import Geodesy
import Geometry

/// A stretch of a path that shows, in pixels, with each point's place along the path: `t` is
/// the edge index plus the fraction of the edge's length (by --kind for edges drawn as
/// geodesics or rhumb lines, projected length for straight ones), the measure span positions
/// are laid out in.
package struct Stretch {
    package var points: [Pixel] = []
    package var t: [Double] = []
}

/// Collects stretches point by point: a nil point ends the stretch under way.
package struct StretchBuilder {
    package var stretches: [Stretch] = []
    package var current = Stretch()

    package mutating func emit(_ point: Pixel?, _ t: Double) {
        guard let point else {
            if !current.points.isEmpty { stretches.append(current); current = Stretch() }
            return
        }
        current.points.append(point)
        current.t.append(t)
    }
}

/// Turns geographic paths into pixel stretches: straight edges as two projected points, curved edges
/// (geodesic, rhumb, or a graticule's lines of constant latitude or longitude) densified until
/// no drawn point is more than 0.25 px from the curve, broken where the path leaves what the
/// projection shows (the far side of a globe: cut at the horizon, never folded over) or crosses
/// the projection's tear at ±180.
package final class Tracer {
    package static let tolerance = 0.25
    package let view: View
    /// The lines curved edges follow.
    package let model: EdgeModel
    /// Straight lines in Web Mercator: where a straight edge must be cut at ±180.
    package let mercator: EdgeModel

    package init(view: View, model: EdgeModel) {
        self.view = view
        self.model = model
        mercator = EdgeModel(earth: model.earth, kind: .projected)
    }

    package var frame: Frame { view.frame }

    /// The stretches of `path`; `closed` adds the closing edge of a ring, `skipCuts` leaves out edges
    /// that run along the ±180 meridian (where a shape was cut: never stroked).
    package func trace(_ path: ProjectedPath, curved: Bool, closed: Bool = false, skipCuts: Bool = false) -> [Stretch] {
        guard !path.positions.isEmpty else { return [] }
        // Constants, not variables: the local functions below read them without run-time
        // exclusivity checks.
        let closes = closed && path.positions.count > 1 && path.positions[0] != path.positions[path.positions.count - 1]
        let vertices = closes ? path.positions + [path.positions[0]] : path.positions
        let xs = closes ? path.x + [path.x[0]] : path.x, ys = closes ? path.y + [path.y[0]] : path.y
        let n = vertices.count
        var builder = StretchBuilder()
        func pixel(_ index: Int) -> Pixel? { xs[index].isFinite ? view.pixel(x: xs[index], y: ys[index]) : nil }
        builder.current.points.reserveCapacity(n)
        builder.current.t.reserveCapacity(n)
        builder.emit(pixel(0), 0)
        for index in 0..<(n - 1) {
            let a = vertices[index], b = vertices[index + 1]
            if skipCuts && abs(a.longitude) == 180 && a.longitude == b.longitude {
                builder.emit(nil, 0)
                builder.emit(pixel(index + 1), Double(index + 1))
                continue
            }
            let crosses = frame.torn && abs(frame.longitude(a.longitude) - frame.longitude(b.longitude)) > 180
            let visible = xs[index].isFinite && xs[index + 1].isFinite
            if !curved && visible && !crosses {
                builder.emit(pixel(index + 1), Double(index + 1))
                continue
            }
            if !curved && crosses && visible {
                // A straight edge across the tear: cut where its Web Mercator line, whose
                // longitude stretches linearly along it, meets the tear; each half on its side.
                let start = frame.longitude(a.longitude), delta = longitudeDifference(a.longitude, b.longitude)
                let tear = delta > 0 ? 180.0 : -180.0
                let f = min(1, max(0, (tear - start) / delta))
                let cut = mercator.edge(a, b).position(atFraction: f)
                let centre = frame.centre ?? 0
                builder.emit(frame.project(Position(longitude: centre + tear, latitude: cut.latitude)).map { view.pixel(x: $0.x, y: $0.y) },
                     Double(index) + f)
                builder.emit(nil, 0)
                builder.emit(frame.project(Position(longitude: centre - tear, latitude: cut.latitude)).map { view.pixel(x: $0.x, y: $0.y) },
                     Double(index) + f)
                builder.emit(pixel(index + 1), Double(index + 1))
                continue
            }
            // Any other edge that leaves the view is followed as its curve to the horizon or the
            // tear.
            let edge = (!curved && crosses ? mercator : model).edge(a, b)
            let minimumDepth = edge.length > 200_000 ? min(16, Int(log2(edge.length / 200_000).rounded(.up))) : 0
            densify(edge, index: index, from: (0, a.longitude, pixel(index)), to: (1, b.longitude, pixel(index + 1)),
                    depth: 0, minimumDepth: minimumDepth, into: &builder)
        }
        builder.emit(nil, 0)
        return builder.stretches
    }

    /// The pixels of a path drawn straight, as `trace(path, curved: false)` gives them when it
    /// makes one stretch of every vertex: every vertex shows and no edge crosses the tear. False
    /// (the path must be traced) otherwise. `points` is emptied first; a path of no vertex
    /// leaves it empty.
    package func traceStraight(_ path: DisplayList.PathBytes, into points: inout [Pixel]) -> Bool {
        points.removeAll(keepingCapacity: true)
        let count = path.count
        guard count > 0 else { return true }
        points.reserveCapacity(count)
        let view = self.view, frame = view.frame, torn = frame.torn   // read once, not a copy a vertex
        var previous = torn ? frame.longitude(path.longitude(0)) : 0
        for index in 0..<count {
            let x = path.x(index), y = path.y(index)
            guard x.isFinite, y.isFinite else { return false }
            if torn && index > 0 {
                let longitude = frame.longitude(path.longitude(index))
                guard abs(previous - longitude) <= 180 else { return false }
                previous = longitude
            }
            points.append(view.pixel(x: x, y: y))
        }
        return true
    }

    package typealias Sample = (f: Double, longitude: Double, pixel: Pixel?)

    /// Emits the points of the edge after `start` up to `end`, subdividing where the chord is
    /// more than the tolerance off the curve, bisecting to the horizon and to the tear.
    private func densify(_ edge: Edge, index: Int, from start: Sample, to end: Sample, depth: Int, minimumDepth: Int,
                         into builder: inout StretchBuilder) {
        let fm = (start.f + end.f) / 2
        let tiny = end.f - start.f < 1e-10 || depth >= 48
        var split = depth < minimumDepth
        var middle: Sample?
        func sampleMiddle() -> Sample {
            if let middle { return middle }
            let position = edge.position(atFraction: fm)
            let p = frame.project(position).map { view.pixel(x: $0.x, y: $0.y) }
            middle = (fm, position.longitude, p)
            return middle!
        }
        if !split && !tiny {
            switch (start.pixel, end.pixel) {
            case (let p0?, let p1?):
                if frame.torn && abs(frame.longitude(start.longitude) - frame.longitude(end.longitude)) > 180 {
                    split = true
                } else if let pm = sampleMiddle().pixel {
                    split = hypot(pm.x - (p0.x + p1.x) / 2, pm.y - (p0.y + p1.y) / 2) > Tracer.tolerance
                } else {
                    split = true  // the curve dips behind the globe
                }
            case (nil, nil):
                split = sampleMiddle().pixel != nil
            default:
                split = true  // the horizon is between: bisect to it
            }
        }
        guard split && !tiny else {
            let t = Double(index) + end.f
            if frame.torn && start.pixel != nil && end.pixel != nil
                && abs(frame.longitude(start.longitude) - frame.longitude(end.longitude)) > 180 {
                builder.emit(nil, t)  // across the tear: the line resumes on the other side
            }
            builder.emit(end.pixel, t)
            return
        }
        let m = sampleMiddle()
        densify(edge, index: index, from: start, to: m, depth: depth + 1, minimumDepth: minimumDepth, into: &builder)
        densify(edge, index: index, from: m, to: end, depth: depth + 1, minimumDepth: minimumDepth, into: &builder)
    }

    /// A line of constant latitude or longitude (the graticule), densified like an edge.
    package func traceGraticuleLine(from a: Position, to b: Position) -> [Stretch] {
        var builder = StretchBuilder()
        func emit(_ point: Pixel?, _ t: Double) { builder.emit(point, t) }
        let steps = 36
        var previous: Position = a
        emit(frame.project(a).map { view.pixel(x: $0.x, y: $0.y) }, 0)
        for step in 1...steps {
            let f = Double(step) / Double(steps)
            let next = Position(longitude: a.longitude + f * (b.longitude - a.longitude), latitude: a.latitude + f * (b.latitude - a.latitude))
            let line = LinearEdge(start: previous, end: next)
            densifyLinear(line, from: (0, previous.longitude, frame.project(previous).map { view.pixel(x: $0.x, y: $0.y) }),
                          to: (1, next.longitude, frame.project(next).map { view.pixel(x: $0.x, y: $0.y) }), depth: 0, emit: emit)
            previous = next
        }
        emit(nil, 0)
        return builder.stretches
    }

    package struct LinearEdge {
        let start: Position, end: Position
        func position(atFraction f: Double) -> Position {
            Position(longitude: start.longitude + f * (end.longitude - start.longitude),
                     latitude: start.latitude + f * (end.latitude - start.latitude))
        }
    }

    private func densifyLinear(_ edge: LinearEdge, from start: Sample, to end: Sample, depth: Int, emit: (Pixel?, Double) -> Void) {
        let fm = (start.f + end.f) / 2
        let position = edge.position(atFraction: fm)
        let middle: Sample = (fm, position.longitude, frame.project(position).map { view.pixel(x: $0.x, y: $0.y) })
        var split = false
        if depth < 30 {
            switch (start.pixel, end.pixel, middle.pixel) {
            case (let p0?, let p1?, let pm?):
                split = hypot(pm.x - (p0.x + p1.x) / 2, pm.y - (p0.y + p1.y) / 2) > Tracer.tolerance
            case (nil, nil, nil): split = false
            default: split = true
            }
        }
        guard split else {
            emit(end.pixel, end.f)
            return
        }
        densifyLinear(edge, from: start, to: middle, depth: depth + 1, emit: emit)
        densifyLinear(edge, from: middle, to: end, depth: depth + 1, emit: emit)
    }
}
