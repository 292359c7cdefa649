#if canImport(Glibc)
import Glibc
#endif
import CProj
import Geometry

extension EdgeModel {
    /// The position on the edge from `a` to `b` (running by the kind) nearest to `p`:
    /// GMSGeometryIsLocationOnPath's question, answered exactly on the ellipsoid.
    ///
    /// - `distance`: the geodesic distance on the ellipsoid from `p` to `position`, metres,
    ///   whatever the kind shapes the edge (for `projected`, the planar Web Mercator distance,
    ///   as geo-locate(1) says).
    /// - `along`: the distance from `a` along the edge to `position`, measured by the kind (so
    ///   `edge(a, b).position(atDistance: along)` is `position`).
    /// - `position`: on the edge, longitude in [-180, 180]; an end point as given when nearest.
    ///
    /// Method. With X(s) the point at distance s along the edge, d(s) = |pX| falls while the
    /// direction from X to p makes an acute angle ε with the edge (d′ = −cos ε), so the ends tell
    /// whether the minimum is inside the edge (cos ε > 0 at `a`, < 0 at `b`) or at an end.
    /// Inside, s is found in that shrinking bracket:
    /// - geodesic (the interception problem, Karney 2013 §8; the iteration is Baselga &
    ///   Martínez-Llario 2018's, with the step made exact on the ellipsoid): from X, solve the
    ///   inverse problem X→p (`geod_geninverse`: distance, azimuth, reduced length m12, geodesic
    ///   scale M12) and move along the edge by R·atan2((m12/R)·cos ε, M12): the along-track
    ///   distance of the right spherical triangle far away, and Newton's step m12·cos ε/M12 near
    ///   the solution (quadratic convergence: 3 to 5 inverse problems). Edges up to about
    ///   19,900 km (short of the antipodal ambiguity), `p` anywhere.
    /// - rhumb: the edge is cut into pieces turning at most 10° from a geodesic and at most
    ///   2,000 km long, each end probed; each piece whose ends bracket a minimum is solved with
    ///   Newton's step for h(s) = cos ε, h′ = −sin ε·(sin ε·M12/m12 + sin α·sin φ/(N cos φ)) (the
    ///   second term the rhumb line's geodesic curvature), falling back to the geodesic step and
    ///   bisection; the nearest of the candidates and the two ends wins.
    /// - projected: the foot of the perpendicular in Web Mercator, `p` taken in the copy of the
    ///   world (±360°) nearest the edge, clamped to the segment.
    ///
    /// Accuracy: `distance` within 1 mm of a brute-force minimisation (python geographiclib and
    /// RhumbSolve, dense sampling refined to 1e-5 m) on random edges, in practice 1e-8 m; `along`
    /// to 1e-8 m where the minimum is sharp (see docs/area-and-locate.md).
    public func nearestPoint(onEdgeFrom a: Position, to b: Position, near p: Position)
        -> (position: Position, distance: Double, along: Double) {
        switch kind {
        case .geodesic: return nearestOnGeodesic(a, b, p)
        case .rhumb: return nearestOnRhumb(a, b, p)
        case .projected: return nearestOnMercatorSegment(a, b, p)
        }
    }

    /// The position on a path (its edges by the kind) nearest to `p`, with `edge` the 0-based
    /// index of its edge and `along` the distance from the path's start (by the kind, as
    /// `cumulativeLengths(of:)` counts). `closed`: a ring, the closing edge included when the last
    /// vertex is not the first. The first of equally near edges wins. Nil for an empty path.
    public func nearestPoint(onPath path: Path, closed: Bool = false, near p: Position)
        -> (position: Position, distance: Double, along: Double, edge: Int)? {
        guard let first = path.first else { return nil }
        guard path.count > 1 else {
            let single = nearestPoint(onEdgeFrom: first, to: first, near: p)
            return (single.position, single.distance, 0, 0)
        }
        var best: (position: Position, distance: Double, along: Double, edge: Int)?
        var start = CompensatedSum()
        let edges = closed && path.first != path.last ? path.count : path.count - 1
        for index in 0..<edges {
            let a = path[index], b = path[index + 1 == path.count ? 0 : index + 1]
            let candidate = nearestPoint(onEdgeFrom: a, to: b, near: p)
            if best == nil || candidate.distance < best!.distance {
                best = (candidate.position, candidate.distance, start.value + candidate.along, index)
            }
            start.add(length(a, b))
        }
        return best
    }

    // MARK: Geodesic and rhumb edges

    /// One point X on the edge and the geodesic from it to p.
    struct Probe {
        var s: Double
        var position: Position
        var distance: Double
        /// cos and sin of ε, the azimuth towards p minus the edge's azimuth at X.
        var cosEpsilon: Double
        var sinEpsilon: Double
        /// Reduced length and geodesic scale of the geodesic X→p.
        var m12: Double
        var M12: Double
    }

    @inline(__always)
    func probe(_ s: Double, at x: Position, edgeAzimuth: Double, towards p: Position) -> Probe {
        var s12 = 0.0, azi1 = 0.0, azi2 = 0.0, m12 = 0.0, M12 = 0.0, M21 = 0.0
        geod_geninverse(geodesic.pointer, x.latitude, x.longitude, p.latitude, p.longitude, &s12, &azi1, &azi2, &m12, &M12, &M21, nil)
        let (sine, cosine) = sincosDegrees(azi1 - edgeAzimuth)
        return Probe(s: s, position: x, distance: s12, cosEpsilon: cosine, sinEpsilon: sine, m12: m12, M12: M12)
    }

    /// The along-track step to the foot of the perpendicular from p on the geodesic tangent to the
    /// edge at X: exact on a sphere of radius a, Newton's step m12·cos ε/M12 near the foot.
    @inline(__always)
    func geodesicStep(_ probe: Probe) -> Double {
        let radius = earth.a
        return radius * atan2(probe.m12 / radius * probe.cosEpsilon, probe.M12)
    }

    func nearestOnGeodesic(_ a: Position, _ b: Position, _ p: Position) -> (position: Position, distance: Double, along: Double) {
        var line = geod_geodesicline()
        geod_inverseline(&line, geodesic.pointer, a.latitude, a.longitude, b.latitude, b.longitude,
                         GEOD_LATITUDE.rawValue | GEOD_LONGITUDE.rawValue | GEOD_AZIMUTH.rawValue | GEOD_DISTANCE_IN.rawValue)
        let length = line.s13
        let startPosition = Position(longitude: normalizedLongitude(a.longitude), latitude: a.latitude)
        let start = probe(0, at: a, edgeAzimuth: line.azi1, towards: p)
        if start.distance == 0 || length == 0 { return (startPosition, start.distance, 0) }
        var latitude = 0.0, longitude = 0.0, azimuth = 0.0
        geod_position(&line, length, &latitude, &longitude, &azimuth)
        // At a pole the azimuth belongs to the longitude the line arrives with, not b's own.
        let end = probe(length, at: abs(b.latitude) == 90 ? Position(longitude: longitude, latitude: b.latitude) : b,
                        edgeAzimuth: azimuth, towards: p)
        let endPosition = Position(longitude: normalizedLongitude(b.longitude), latitude: b.latitude)
        guard start.cosEpsilon > 0 && end.cosEpsilon < 0 else {
            // d rises from a or falls into b all along: the nearest point is an end.
            return end.distance < start.distance ? (endPosition, end.distance, length) : (startPosition, start.distance, 0)
        }
        let found = solveInBracket(start, end, tolerance: max(1e-9, length * 1e-15), curvature: { _ in 0 }) { s in
            var latitude = 0.0, longitude = 0.0, azimuth = 0.0
            withUnsafePointer(to: line) { geod_position($0, s, &latitude, &longitude, &azimuth) }
            return probe(s, at: Position(longitude: longitude, latitude: latitude), edgeAzimuth: azimuth, towards: p)
        }
        if found.distance <= min(start.distance, end.distance) { return (found.position, found.distance, found.s) }
        return end.distance < start.distance ? (endPosition, end.distance, length) : (startPosition, start.distance, 0)
    }

    func nearestOnRhumb(_ a: Position, _ b: Position, _ p: Position) -> (position: Position, distance: Double, along: Double) {
        let (length, azimuth) = rhumb.inverse(a.latitude, a.longitude, b.latitude, b.longitude)
        let startPosition = Position(longitude: normalizedLongitude(a.longitude), latitude: a.latitude)
        let azimuthDegrees = azimuth * 180 / .pi
        // A rhumb line ending at a pole is the meridian of its other end (as Edge walks it); at
        // the pole, azimuths are taken on that meridian.
        let originLongitude = abs(a.latitude) == 90 ? b.longitude : a.longitude
        let start = probe(0, at: Position(longitude: originLongitude, latitude: a.latitude), edgeAzimuth: azimuthDegrees, towards: p)
        if start.distance == 0 || length == 0 { return (startPosition, start.distance, 0) }
        let endPosition = Position(longitude: normalizedLongitude(b.longitude), latitude: b.latitude)
        let end = probe(length, at: abs(b.latitude) == 90 ? Position(longitude: a.longitude, latitude: b.latitude) : b,
                        edgeAzimuth: azimuthDegrees, towards: p)
        let sinAzimuth = abs(a.latitude) == 90 || abs(b.latitude) == 90 ? 0 : sin(azimuth)
        let position = { (s: Double) -> Position in
            let (latitude, longitude) = self.rhumb.position(a.latitude, originLongitude, azimuth: azimuth, distance: s)
            return Position(longitude: longitude, latitude: latitude)
        }
        // Geodesic curvature of the rhumb line at X: sin α·tan φ/N = sin α·sin φ/(N cos φ).
        let curvature = { (x: Position) -> Double in
            guard sinAzimuth != 0 else { return 0 }
            let radius = self.rhumb.parallelRadius(x.latitude)
            return radius > 0 ? sinAzimuth * sincosDegrees(x.latitude).sin / radius : 0
        }
        // Pieces that each turn at most 10° from a geodesic (the rhumb line turns by Δλ·sin φ,
        // |sin φ| largest at an end) and are at most 2,000 km long.
        let turning = abs(longitudeDifference(a.longitude, b.longitude) * .pi / 180)
            * max(abs(sincosDegrees(a.latitude).sin), abs(sincosDegrees(b.latitude).sin))
        let pieces = min(64, max(1, Int((turning / (10 * .pi / 180)).rounded(.up)), Int((length / 2e6).rounded(.up))))
        var best = end.distance < start.distance ? (endPosition, end.distance, length) : (startPosition, start.distance, 0)
        var left = start
        for piece in 1...pieces {
            let right: Probe
            if piece == pieces {
                right = end
            } else {
                let s = length * Double(piece) / Double(pieces)
                right = probe(s, at: position(s), edgeAzimuth: azimuthDegrees, towards: p)
                if right.distance < best.1 { best = (right.position, right.distance, right.s) }
            }
            if left.cosEpsilon > 0 && right.cosEpsilon < 0 {
                let found = solveInBracket(left, right, tolerance: max(1e-9, length * 1e-15), curvature: curvature) { s in
                    self.probe(s, at: position(s), edgeAzimuth: azimuthDegrees, towards: p)
                }
                if found.distance < best.1 { best = (found.position, found.distance, found.s) }
            }
            left = right
        }
        let (found, distance, along) = best
        return (Position(longitude: normalizedLongitude(found.longitude), latitude: found.latitude), distance, along)
    }

    /// The s in (low.s, high.s) where cos ε changes sign from + to − (d is least), given probes
    /// at both ends: Newton's step for cos ε when it stays in the bracket, else the geodesic step,
    /// else bisection; the bracket shrinks every time. `curvature(X)`: the edge's geodesic
    /// curvature (0 for a geodesic, whose step is then already Newton's).
    func solveInBracket(_ low: Probe, _ high: Probe, tolerance: Double, curvature: (Position) -> Double,
                        probeAt: (Double) -> Probe) -> Probe {
        var low = low, high = high
        var s = low.s + geodesicStep(low)
        if !(s > low.s && s < high.s) { s = high.s + geodesicStep(high) }
        if !(s > low.s && s < high.s) { s = (low.s + high.s) / 2 }
        var current = probeAt(s)
        for _ in 0..<200 {
            if current.distance == 0 || current.cosEpsilon == 0 { break }
            if current.cosEpsilon > 0 { low = current } else { high = current }
            var step = geodesicStep(current)
            let bend = curvature(current.position)
            if bend != 0 {
                // Newton on h = cos ε: h′ = −sin ε·(sin ε·M12/m12 + κ).
                let rate = current.sinEpsilon * (current.sinEpsilon * current.M12 / current.m12 + bend)
                let newton = current.cosEpsilon / rate
                if rate > 0 && newton.isFinite && current.s + newton > low.s && current.s + newton < high.s { step = newton }
            }
            if abs(step) <= tolerance { break }
            var next = current.s + step
            if !(next > low.s && next < high.s) { next = (low.s + high.s) / 2 }
            if high.s - low.s <= tolerance { break }
            current = probeAt(next)
        }
        return current
    }

    // MARK: Projected edges

    /// Where along the Web Mercator segment a→b (0...1) the point nearest to `p` is, and its
    /// planar distance, given the three points' y (`WebMercator.measuredY` on this Earth's a):
    /// `p` taken in the copy of the world (±360°) nearest the segment, which spans at most half
    /// of it. The one arithmetic of projected nearest points, for callers that measure many
    /// points against one segment with each y computed once (`geo simplify`).
    @inlinable
    public func mercatorSegmentDistance(_ a: Position, ya: Double, _ b: Position, yb: Double, _ p: Position, yp: Double) -> (t: Double, distance: Double) {
        let radiansToX = earth.a * .pi / 180
        let dx = longitudeDifference(a.longitude, b.longitude) * radiansToX, dy = yb - ya
        let length2 = dx * dx + dy * dy
        let xp0 = longitudeDifference(a.longitude, p.longitude) * radiansToX
        let world = 360 * radiansToX
        let west = min(0, dx), east = max(0, dx)
        var best: (t: Double, distance: Double) = (0, .infinity)
        @inline(__always) func consider(_ xp: Double) {
            // A copy farther across than the best distance cannot be nearer (hypot ≥ its
            // larger side, within a rounding): most copies are skipped without one.
            let across = xp < west ? west - xp : xp > east ? xp - east : 0
            guard across * (1 - 1e-15) <= best.distance else { return }
            let t = length2 > 0 ? min(1, max(0, (xp * dx + (yp - ya) * dy) / length2)) : 0
            let distance = hypot(xp - t * dx, yp - (ya + t * dy))
            if distance < best.distance { best = (t, distance) }
        }
        consider(xp0)
        consider(xp0 - world)
        consider(xp0 + world)
        return best
    }

    func nearestOnMercatorSegment(_ a: Position, _ b: Position, _ p: Position) -> (position: Position, distance: Double, along: Double) {
        let ya = mercatorY(a.latitude), yb = mercatorY(b.latitude)
        let best = mercatorSegmentDistance(a, ya: ya, b, yb: yb, p, yp: mercatorY(p.latitude))
        let radiansToX = earth.a * .pi / 180
        let dx = longitudeDifference(a.longitude, b.longitude) * radiansToX, dy = yb - ya
        let length2 = dx * dx + dy * dy
        let along = best.t * length2.squareRoot()
        if best.t == 0 { return (Position(longitude: normalizedLongitude(a.longitude), latitude: a.latitude), best.distance, 0) }
        if best.t == 1 { return (Position(longitude: normalizedLongitude(b.longitude), latitude: b.latitude), best.distance, along) }
        let longitude = a.longitude + best.t * longitudeDifference(a.longitude, b.longitude)
        let latitude = atan(sinh((ya + best.t * dy) / earth.a)) * 180 / .pi
        return (Position(longitude: normalizedLongitude(longitude), latitude: latitude), best.distance, along)
    }
}
