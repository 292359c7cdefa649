#if canImport(Glibc)
import Glibc
#endif
import CProj
import Geometry

/// Where a point lies relative to a ring.
public enum RingLocation: Sendable, Equatable {
    case inside, outside, boundary
}

extension EdgeModel {
    /// The distance within which a point counts as on a ring (metres; Web Mercator metres for
    /// `projected`): 10 nm, above what rounding a computed point's longitude to a double alone
    /// moves it (1.6 nm at 150°) and PROJ's own error (15 nm at most, nanometres in practice).
    public static let defaultBoundaryTolerance = 1e-8

    /// Whether a polygon holds `p` (GMSGeometryContainsLocation, edges following the kind): inside
    /// the first ring and in none of the others (holes), **whatever way each ring winds**. A
    /// point on any ring (within `boundaryTolerance`) is inside, as are the vertices.
    ///
    /// Each ring's inside is the side `signedArea(ofRing:)` measures, the smaller one, so a ring
    /// around a pole holds the pole (the Maps SDK instead never holds the south pole). Edges take
    /// the short way round, so rings may cross ±180. A geodesic edge running east–west at 60° N
    /// bulges poleward of the parallel: a point between the two is inside a ring whose edge it is
    /// for `.geodesic`, and outside for `.rhumb` (which runs along the parallel).
    ///
    /// Method: the parity of the crossings of the meridian from `p` north to the pole with the
    /// ring, each edge's crossing latitude found on the edge by its kind (geodesic: Newton on the
    /// longitude along the geodesic, bracketed; rhumb: ψ is linear in λ; projected: y is linear
    /// in x), then whether the north pole is inside (`insideContainsNorthPole(ofRing:)`). Points
    /// within 1 µm of an edge are settled by `nearestPoint(onEdgeFrom:to:near:)`. Exact up to
    /// rounding: the tests compare with a winding-number count over densified rings.
    public func contains(polygon rings: [Path], _ p: Position, boundaryTolerance: Double = defaultBoundaryTolerance) -> Bool {
        guard let outer = rings.first else { return false }
        switch location(of: p, inRing: outer, boundaryTolerance: boundaryTolerance) {
        case .outside: return false
        case .boundary: return true
        case .inside: break
        }
        var inside = true
        for hole in rings.dropFirst() {
            switch location(of: p, inRing: hole, boundaryTolerance: boundaryTolerance) {
            case .boundary: return true
            case .inside: inside = false
            case .outside: break
            }
        }
        return inside
    }

    /// Where `p` lies relative to one ring (its smaller side is the inside): see
    /// `contains(polygon:_:boundaryTolerance:)`. A ring of fewer than 3 distinct vertices has no
    /// inside, only its edges.
    public func location(of p: Position, inRing ring: Path, boundaryTolerance: Double = defaultBoundaryTolerance) -> RingLocation {
        let vertices = ringVertices(ring)
        guard !vertices.isEmpty else { return .outside }
        guard vertices.count > 1 else {
            return nearestPoint(onEdgeFrom: vertices[0], to: vertices[0], near: p).distance <= boundaryTolerance ? .boundary : .outside
        }
        var above = false
        for index in vertices.indices {
            let a = vertices[index], b = vertices[index + 1 == vertices.count ? 0 : index + 1]
            switch meridianCrossing(a, b, p, tolerance: boundaryTolerance) {
            case .boundary: return .boundary
            case .above: above.toggle()
            case .none: break
            }
        }
        guard vertices.count >= 3 else { return .outside }
        // An odd number of crossings north of p: p is on the side without the north pole.
        return above != insideContainsNorthPole(vertices: vertices) ? .inside : .outside
    }

    /// Whether a ring's inside (its smaller side, the one `signedArea(ofRing:)` measures) holds
    /// the north pole (for `projected`, the top of the Web Mercator square). Computed once per
    /// ring, this is all `contains` needs beyond the edges crossing the point's meridian.
    public func insideContainsNorthPole(ofRing ring: Path) -> Bool {
        insideContainsNorthPole(vertices: ringVertices(ring))
    }

    func insideContainsNorthPole(vertices: [Position]) -> Bool {
        guard vertices.count >= 3 else { return false }
        // Fast path: a ring that stays within less than 180° of longitude and never reaches a pole
        // lies in a lune of at most half the surface, and the north pole is outside it.
        var longitude = 0.0, west = 0.0, east = 0.0
        var reachesPole = false
        for index in vertices.indices {
            let a = vertices[index], b = vertices[index + 1 == vertices.count ? 0 : index + 1]
            if abs(a.latitude) == 90 { reachesPole = true }
            longitude += longitudeDifference(a.longitude, b.longitude)
            west = min(west, longitude)
            east = max(east, longitude)
        }
        if kind == .projected && abs(longitude) < 180 { return false }  // a plane polygon: never
        // Within less than 180°, no edge of any kind passes over a pole.
        if east - west < 180 && abs(longitude) < 180 && !reachesPole { return false }
        let sums = ringSums(vertices)
        let northFree = sums.northFree(surface: surfaceArea)
        let half = surfaceArea / 2
        // The side without the pole is the larger one: the inside holds the pole.
        return abs(northFree) > half || (abs(northFree) == half && northFree < 0)
    }

    enum Crossing { case none, above, boundary }

    /// How the edge from `a` to `b` meets the meridian of `p` north of it: crossing it north of
    /// `p` (counted once, half-open at the vertices), not, or passing within `tolerance` of `p`.
    func meridianCrossing(_ a: Position, _ b: Position, _ p: Position, tolerance: Double) -> Crossing {
        let deltaA = longitudeDifference(p.longitude, a.longitude)  // [-180, 180]
        let lambda12 = longitudeDifference(a.longitude, b.longitude)
        let deltaB = deltaA + lambda12
        // Longitudes within this of the edge's may hold points within `tolerance` of it.
        let parallel = kind == .projected ? earth.a : rhumb.parallelRadius(p.latitude)
        let slack = parallel > 0 ? tolerance / parallel * 180 / .pi * 2 : .infinity
        let low = min(deltaA, deltaB), high = max(deltaA, deltaB)
        var above = false, check = false
        for target in [0.0, 360, -360] where low - slack <= target && target <= high + slack {
            let strict = lambda12 > 0 ? deltaA <= target && target < deltaB
                : lambda12 < 0 ? deltaB <= target && target < deltaA : false
            guard strict else {
                check = true  // p's meridian passes (nearly) through a vertex, or along the edge
                continue
            }
            let (crossesAbove, offset) = crossing(a, b, p, fraction: (target - deltaA) / lambda12, lambda12: lambda12)
            if crossesAbove { above.toggle() }
            if offset <= max(1e-6, 100 * tolerance) { check = true }
        }
        if check && nearestPoint(onEdgeFrom: a, to: b, near: p).distance <= tolerance { return .boundary }
        return above ? .above : .none
    }

    /// Where the edge crosses p's meridian, `fraction` of the way through its longitudes: whether
    /// north of p, and about how far from p (metres, only good when small).
    func crossing(_ a: Position, _ b: Position, _ p: Position, fraction: Double, lambda12: Double) -> (Bool, Double) {
        if abs(a.latitude) == 90 || abs(b.latitude) == 90 {
            // The edge turns through λ12 at the pole (it runs along the other end's meridian).
            let pole = abs(a.latitude) == 90 ? a.latitude : b.latitude
            return (pole > p.latitude, abs(pole - p.latitude) * .pi / 180 * earth.a)
        }
        switch kind {
        case .geodesic:
            let (latitude, azimuth) = geodesicMeridianCrossing(a, b, longitudeOffset: fraction * lambda12)
            let metres = abs(latitude - p.latitude) * .pi / 180 * earth.a * (1 - earth.e2)
            return (latitude > p.latitude, metres * abs(sincosDegrees(azimuth).sin))
        case .rhumb:
            let psiA = rhumb.isometricLatitude(a.latitude), psiB = rhumb.isometricLatitude(b.latitude)
            let psi = psiA + fraction * (psiB - psiA)
            // (isometricLatitude(90) is −∞: sincosDegrees(90) has cos −0.0.)
            let psiP = abs(p.latitude) == 90 ? (p.latitude > 0 ? Double.infinity : -.infinity) : rhumb.isometricLatitude(p.latitude)
            let sine = abs(lambda12 * .pi / 180) / hypot(lambda12 * .pi / 180, psiB - psiA)
            return (psi > psiP, abs(psi - psiP) * rhumb.parallelRadius(p.latitude) * sine)
        case .projected:
            let ya = mercatorY(a.latitude), yb = mercatorY(b.latitude)
            let y = ya + fraction * (yb - ya), yp = mercatorY(p.latitude)
            let dx = earth.a * lambda12 * .pi / 180
            return (y > yp, abs(y - yp) * abs(dx) / hypot(dx, yb - ya))
        }
    }

    /// The latitude and azimuth (degrees) where the geodesic from `a` to `b` reaches the longitude
    /// a.longitude + offset (0 < |offset| < |λ12|, same sign): Newton on λ(s), dλ/ds =
    /// sin α/(N cos φ), kept inside a shrinking bracket.
    func geodesicMeridianCrossing(_ a: Position, _ b: Position, longitudeOffset offset: Double) -> (Double, Double) {
        var line = geod_geodesicline()
        geod_inverseline(&line, geodesic.pointer, a.latitude, a.longitude, b.latitude, b.longitude,
                         GEOD_LATITUDE.rawValue | GEOD_LONGITUDE.rawValue | GEOD_AZIMUTH.rawValue | GEOD_DISTANCE_IN.rawValue)
        let lambda12 = longitudeDifference(a.longitude, b.longitude)
        let direction = lambda12 > 0 ? 1.0 : -1.0
        let target = a.longitude + offset
        var low = 0.0, high = line.s13
        var s = line.s13 * offset / lambda12
        var latitude = a.latitude, longitude = a.longitude, azimuth = 0.0
        for _ in 0..<100 {
            _ = geod_genposition(&line, GEOD_LONG_UNROLL.rawValue, s, &latitude, &longitude, &azimuth, nil, nil, nil, nil, nil)
            let miss = (longitude - target) * direction  // increasing along the edge
            if miss == 0 { break }
            if miss < 0 { low = s } else { high = s }
            let rate = abs(sincosDegrees(azimuth).sin) / max(rhumb.parallelRadius(latitude), 1e-300) * 180 / .pi
            var next = s - miss / rate
            if !(next > low && next < high) { next = (low + high) / 2 }
            if abs(next - s) <= 1e-10 || high - low <= 1e-10 {
                s = next
                _ = geod_genposition(&line, GEOD_LONG_UNROLL.rawValue, s, &latitude, &longitude, &azimuth, nil, nil, nil, nil, nil)
                break
            }
            s = next
        }
        return (latitude, azimuth)
    }
}
