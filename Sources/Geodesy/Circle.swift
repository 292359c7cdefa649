#if canImport(Glibc)
import Glibc
#endif
import CProj
import Geometry

/// A GMSCircle on the ellipsoid: every point at geodesic distance `radius` from `center`.
///
/// Vertex i is the geodesic direct problem from the centre at azimuth −360·i/N (so the ring runs
/// counter-clockwise, RFC 7946), each within PROJ's accuracy (nanometres) of the circle. The
/// ellipsoid is symmetric about the centre's meridian plane, so vertex N−i is vertex i mirrored
/// across the centre's meridian: half the direct problems suffice. Edges are chords, so the
/// polygon lies inside the circle, by about r·π²/(2N²) for small circles.
public struct GeodesicCircle: Sendable {
    public let center: Position
    public let radius: Double
    let earth: Earth
    let geodesic: Geodesic

    /// Checks that the circle exists on this Earth: a finite radius > 0, short of the cut
    /// locus (π·b, where geodesics stop being shortest), not containing both poles.
    public init(center: Position, radius: Double, earth: Earth) throws(BadRecord) {
        guard radius.isFinite, radius > 0 else {
            throw BadRecord("radius \(number: radius) m: a circle needs a finite radius greater than 0")
        }
        let b = earth.a * (1 - earth.f)
        guard radius < .pi * b else {
            throw BadRecord("radius \(number: radius) m is past the cut locus (\(Int(.pi * b)) m on this ellipsoid): no circle has it")
        }
        self.center = center
        self.radius = radius
        self.earth = earth
        geodesic = Geodesic(earth)
        if containsPole(north: true) && containsPole(north: false) {
            throw BadRecord("a circle of radius \(number: radius) m around (\(number: center.latitude), \(number: center.longitude)) contains both poles")
        }
    }

    /// Whether the circle's disc contains the north (or south) pole.
    public func containsPole(north: Bool) -> Bool {
        var s12 = 0.0
        geod_inverse(geodesic.pointer, center.latitude, center.longitude, north ? 90 : -90, center.longitude, &s12, nil, nil)
        return s12 < radius
    }

    /// The closed, counter-clockwise ring of `segments` vertices (plus the closing one), every
    /// longitude in [-180, 180].
    public func ring(segments: Int) -> Path {
        precondition(segments >= 3)
        var ring = Path(repeating: Position(longitude: 0, latitude: 0), count: segments + 1)
        let centerLongitude = normalizedLongitude(center.longitude)
        for index in 0...(segments / 2) {
            let azimuth = -360 * Double(index) / Double(segments)
            var latitude = 0.0, longitude = 0.0
            geod_direct(geodesic.pointer, center.latitude, centerLongitude, azimuth, radius, &latitude, &longitude, nil)
            ring[index] = Position(longitude: longitude, latitude: latitude)
            if index > 0 && segments - index != index {
                // The mirror image across the centre's meridian, at azimuth +360·index/N.
                ring[segments - index] = Position(longitude: normalizedLongitude(2 * centerLongitude - longitude), latitude: latitude)
            }
        }
        ring[segments] = ring[0]
        return ring
    }

    /// How far the polygon's geodesic edges stray inside the true circle: the largest gap at an
    /// edge midpoint.
    public func largestGap(of ring: Path) -> Double {
        var largest = 0.0
        for index in 1..<ring.count {
            var line = geod_geodesicline()
            let a = ring[index - 1], b = ring[index]
            geod_inverseline(&line, geodesic.pointer, a.latitude, a.longitude, b.latitude, b.longitude,
                             GEOD_LATITUDE.rawValue | GEOD_LONGITUDE.rawValue | GEOD_DISTANCE_IN.rawValue)
            var latitude = 0.0, longitude = 0.0, s12 = 0.0
            geod_position(&line, line.s13 / 2, &latitude, &longitude, nil)
            geod_inverse(geodesic.pointer, center.latitude, center.longitude, latitude, longitude, &s12, nil, nil)
            largest = max(largest, radius - s12)
        }
        return largest
    }

    /// The fewest segments whose edges stay within `tolerance` metres of the circle: start from
    /// the small-circle estimate N = π/√(2δ/r) and step until the midpoints hold the bound.
    public func segments(forTolerance tolerance: Double, limit: Int) throws(BadRecord) -> Int {
        var segments = max(3, Int(estimatedSegments(forTolerance: tolerance).rounded(.down)) - 2)
        while segments <= limit {
            if largestGap(of: ring(segments: segments)) <= tolerance {
                // The estimate may start high for large circles: walk down while it still holds.
                while segments > 3 && largestGap(of: ring(segments: segments - 1)) <= tolerance { segments -= 1 }
                return segments
            }
            segments += max(1, segments / 1000)
        }
        throw BadRecord("a tolerance of \(plainDecimal(tolerance)) m needs more than \(limit) vertices for a radius of \(plainDecimal(radius)) m")
    }

    /// N = π/√(2δ/r): the vertices a small circle needs for its edges to stay within δ.
    public func estimatedSegments(forTolerance tolerance: Double) -> Double {
        Double.pi / (2 * tolerance / radius).squareRoot()
    }

    /// The latitude where the geodesic from `a` to `b` crosses the antimeridian (found by
    /// bisection on the distance along it, with longitudes unrolled from `a`).
    func antimeridianCrossing(_ a: Position, _ b: Position) -> Double {
        var line = geod_geodesicline()
        geod_inverseline(&line, geodesic.pointer, a.latitude, a.longitude, b.latitude, b.longitude,
                         GEOD_LATITUDE.rawValue | GEOD_LONGITUDE.rawValue | GEOD_DISTANCE_IN.rawValue | GEOD_LONG_UNROLL.rawValue)
        let target = a.longitude > 0 ? 180.0 : -180.0
        var low = 0.0, high = line.s13
        var latitude = a.latitude
        for _ in 0..<64 {
            let middle = (low + high) / 2
            var longitude = 0.0
            _ = geod_genposition(&line, GEOD_LONG_UNROLL.rawValue, middle, &latitude, &longitude, nil, nil, nil, nil, nil, nil)
            if (longitude - target) * (a.longitude > 0 ? 1 : -1) < 0 { low = middle } else { high = middle }
            if high - low < 1e-9 { break }
        }
        var longitude = 0.0
        _ = geod_genposition(&line, GEOD_LONG_UNROLL.rawValue, (low + high) / 2, &latitude, &longitude, nil, nil, nil, nil, nil, nil)
        return latitude
    }

    /// The ring as GeoJSON wants it (RFC 7946 §3.1.9): one Polygon; a MultiPolygon cut where
    /// geodesic edges cross ±180; or, around a pole, one Polygon that runs along the circle and
    /// closes over the pole through (±180, ±90).
    public func geometry(of ring: Path) -> Geometry {
        let crossings = (1..<ring.count).filter { abs(ring[$0].longitude - ring[$0 - 1].longitude) > 180 }
        if containsPole(north: true) || containsPole(north: false) {
            return .polygon([poleCap(ring, crossing: crossings.first, north: containsPole(north: true))])
        }
        guard crossings.count == 2 else { return .polygon([ring]) }
        // Two pieces, each closed along the antimeridian at the crossing latitudes.
        var pieces: [[Path]] = []
        for (enter, leave) in [(crossings[0], crossings[1]), (crossings[1], crossings[0])] {
            let entering = antimeridianCrossing(ring[enter - 1], ring[enter])
            let leaving = antimeridianCrossing(ring[leave - 1], ring[leave])
            let side = ring[enter].longitude > 0 ? 180.0 : -180.0
            var piece: Path = [Position(longitude: side, latitude: entering)]
            var index = enter
            while index != leave {
                piece.append(ring[index])
                index = index + 1 == ring.count ? 1 : index + 1  // skip the closing duplicate
            }
            piece.append(Position(longitude: side, latitude: leaving))
            piece.append(piece[0])
            pieces.append([piece])
        }
        return .multiPolygon(pieces)
    }

    /// A ring around a pole: the circle's vertices by longitude, then up the antimeridian,
    /// across the pole's edge of the map and back down.
    func poleCap(_ ring: Path, crossing: Int?, north: Bool) -> Path {
        var vertices = Array(ring.dropLast()).sorted { north ? $0.longitude < $1.longitude : $0.longitude > $1.longitude }
        let crossingLatitude: Double
        if let crossing {
            crossingLatitude = antimeridianCrossing(ring[crossing - 1], ring[crossing])
        } else {
            // No edge jumps across: a vertex sits on ±180 itself.
            crossingLatitude = ring.first { abs($0.longitude) == 180 }?.latitude ?? vertices[0].latitude
        }
        vertices.removeAll { abs($0.longitude) == 180 }
        let start = north ? -180.0 : 180.0
        let pole = north ? 90.0 : -90.0
        var cap: Path = [Position(longitude: start, latitude: crossingLatitude)]
        cap += vertices
        cap.append(Position(longitude: -start, latitude: crossingLatitude))
        cap.append(Position(longitude: -start, latitude: pole))
        cap.append(Position(longitude: start, latitude: pole))
        cap.append(cap[0])
        return cap
    }
}
