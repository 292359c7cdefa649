#if canImport(Glibc)
import Glibc
#endif
import CProj
import Geometry

/// A heading in [0, 360): degrees clockwise from north, as `geo heading` prints them (PROJ gives
/// (-180, 180]; -0 and a tiny negative that would round to 360 both become 0).
@inline(__always)
func compassDegrees(_ degrees: Double) -> Double {
    var reduced = remainder(degrees, 360)
    if reduced < 0 { reduced += 360 }
    return reduced >= 360 ? 0 : reduced + 0  // + 0 turns -0 into 0
}

extension EdgeModel {
    /// The heading at the start of the edge from `a` to `b` and on arrival at `b`
    /// (GMSGeometryHeading, by the kind), degrees in [0, 360); nil for an edge of length 0.
    /// geodesic: PROJ's azimuths (on a sphere, computeHeading's great-circle bearing); rhumb:
    /// the constant course, both the same; projected: the Web Mercator grid bearing, the same.
    public func headings(from a: Position, to b: Position) -> (initial: Double, final: Double)? {
        switch kind {
        case .geodesic:
            var s12 = 0.0, azi1 = 0.0, azi2 = 0.0
            geod_inverse(geodesic.pointer, a.latitude, a.longitude, b.latitude, b.longitude, &s12, &azi1, &azi2)
            return s12 == 0 ? nil : (compassDegrees(azi1), compassDegrees(azi2))
        case .rhumb:
            let (length, azimuth) = rhumb.inverse(a.latitude, a.longitude, b.latitude, b.longitude)
            guard length != 0 else { return nil }
            let course = compassDegrees(azimuth * 180 / .pi)
            return (course, course)
        case .projected:
            let (dx, dy) = mercatorDelta(a, b)
            guard dx != 0 || dy != 0 else { return nil }
            let bearing = compassDegrees(atan2(dx, dy) * 180 / .pi)
            return (bearing, bearing)
        }
    }

    /// The position `distance` metres from `p` at `heading` degrees (GMSGeometryOffset, the
    /// direct problem, by the kind), longitude in [-180, 180]. A rhumb line that would run past a
    /// pole, or one that starts at a pole (where it has no course), is a bad record.
    public func offset(_ p: Position, distance: Double, heading: Double) throws(BadRecord) -> Position {
        switch kind {
        case .geodesic:
            var latitude = 0.0, longitude = 0.0
            geod_direct(geodesic.pointer, p.latitude, p.longitude, heading, distance, &latitude, &longitude, nil)
            return Position(longitude: normalizedLongitude(longitude), latitude: latitude)
        case .rhumb:
            return try rhumbOffset(p, distance: distance, heading: heading)
        case .projected:
            let (s, c) = sincosDegrees(heading)
            let x = p.longitude * .pi / 180 * earth.a + distance * s
            let y = mercatorY(p.latitude) + distance * c
            return Position(longitude: normalizedLongitude(x / earth.a * 180 / .pi), latitude: atan(sinh(y / earth.a)) * 180 / .pi)
        }
    }

    /// The rhumb line's direct problem, refusing what has no answer on a rhumb line: a start at
    /// a pole, and a distance whose northward part goes past a pole (the line spirals into it and
    /// ends there; GeographicLib's RhumbSolve gives no longitude then).
    func rhumbOffset(_ p: Position, distance: Double, heading: Double) throws(BadRecord) -> Position {
        guard distance != 0 else { return Position(longitude: normalizedLongitude(p.longitude), latitude: p.latitude) }
        guard abs(p.latitude) != 90 else {
            throw BadRecord("a rhumb line has no course at a pole (latitude \(number: p.latitude)): use --kind geodesic")
        }
        let (s, c) = sincosDegrees(heading)
        let north = distance * c
        if north != 0 {
            let pole: Double = north > 0 ? 90 : -90
            if abs(north) > abs(rhumb.meridianArc(p.latitude, pole)) {
                throw BadRecord("the rhumb line at heading \(number: heading) reaches the \(pole > 0 ? "north" : "south") pole before \(number: distance) m")
            }
        }
        // RhumbMath walks a course given in radians; exact quarter turns keep meridians and
        // parallels exact (sin π is not 0).
        let azimuth = c == 0 ? (s > 0 ? Double.pi / 2 : -.pi / 2) : s == 0 ? (c > 0 ? 0 : .pi) : atan2(s, c)
        let (latitude, longitude) = rhumb.position(p.latitude, p.longitude, azimuth: azimuth, distance: distance)
        return Position(longitude: longitude, latitude: latitude)
    }

    /// The position from which travelling `distance` metres at `heading` arrives at `p`
    /// (android-maps-utils' computeOffsetOrigin, by the kind); nil where there is none.
    ///
    /// rhumb and projected: the same line run backwards (a rhumb line's course is the same all
    /// along it), exact. geodesic on a sphere: computeOffsetOrigin's own closed form, its choice
    /// between two origins and its nulls. geodesic on an ellipsoid: the secant method on the azimuth
    /// of arrival (`originAlongArrival`), else Newton's method on the direct problem
    /// (docs/algorithms.md, "Offset origin"), each started from computeOffsetOrigin's answer
    /// on the sphere of the same mean radius, then from the point `distance` back along the
    /// reversed heading; an answer is accepted when the direct problem from it lands within
    /// `originTolerance` of `p`, and there is none when neither start leads to one.
    public func offsetOrigin(of p: Position, distance: Double, heading: Double) throws(BadRecord) -> Position? {
        if distance == 0 { return Position(longitude: normalizedLongitude(p.longitude), latitude: p.latitude) }
        switch kind {
        case .rhumb, .projected:
            return try offset(p, distance: -distance, heading: heading)
        case .geodesic where earth.isSphere:
            return sphericalOffsetOrigin(of: p, distance: distance, heading: heading, radius: earth.a)
        case .geodesic:
            let meanRadius = earth.a * (1 - earth.f / 3)  // (2a + b)/3
            let starts = [sphericalOffsetOrigin(of: p, distance: distance, heading: heading, radius: meanRadius),
                          try offset(p, distance: distance, heading: heading + 180)]
            for case let start? in starts {
                if let found = originAlongArrival(of: p, distance: distance, heading: heading, from: start)
                    ?? geodesicOffsetOrigin(of: p, distance: distance, heading: heading, from: start) { return found }
            }
            return nil
        }
    }

    /// How close to the target the direct problem from a computed origin must land, metres.
    public static let originTolerance = 1e-6

    /// android-maps-utils' SphericalUtil.computeOffsetOrigin on a sphere of radius `radius`, step for
    /// step (its formula is from the PROJ mailing list, October 2008): of the two solutions of
    /// a quadratic for cos φ it takes the one with a latitude in range, and there is none when
    /// the discriminant is negative or both latitudes are out of range.
    func sphericalOffsetOrigin(of p: Position, distance: Double, heading: Double, radius: Double) -> Position? {
        let angle = distance / radius
        let (sinHeading, cosHeading) = sincosDegrees(heading)
        let n1 = cos(angle), n2 = sin(angle) * cosHeading, n3 = sin(angle) * sinHeading
        let n4 = sincosDegrees(p.latitude).sin
        let n12 = n1 * n1
        let discriminant = n2 * n2 * n12 + n12 * n12 - n12 * n4 * n4
        guard discriminant >= 0 else { return nil }
        var b = (n2 * n4 + sqrt(discriminant)) / (n1 * n1 + n2 * n2)
        // As in the SDK, `a` keeps the first solution's value when the second b is tried.
        let a = (n4 - n2 * b) / n1
        var latitude = atan2(a, b)
        if abs(latitude) > .pi / 2 {
            b = (n2 * n4 - sqrt(discriminant)) / (n1 * n1 + n2 * n2)
            latitude = atan2(a, b)
        }
        guard abs(latitude) <= .pi / 2 else { return nil }
        let longitude = p.longitude * .pi / 180 - atan2(n3, n1 * cos(latitude) - n2 * sin(latitude))
        return Position(longitude: normalizedLongitude(longitude * 180 / .pi), latitude: latitude * 180 / .pi)
    }

    /// The origin as a problem in one unknown: the azimuth α at which the geodesic from the
    /// origin arrives at `p`. Going `distance` back from `p` along it reaches a candidate O and
    /// the azimuth there; O is the origin when the way from O to `p` sets off at `heading`. The
    /// secant method on that mismatch, from the azimuth at `p` of the geodesic from `start`,
    /// takes a direct problem a step and converges in a few (2-D Newton below takes some fifteen
    /// geodesic problems a step): an answer is accepted as there, when the direct problem from
    /// it lands within `originTolerance` of `p`; nil sends the caller to Newton.
    func originAlongArrival(of p: Position, distance: Double, heading: Double, from start: Position) -> Position? {
        let g = geodesic.pointer
        var s12 = 0.0, azi1 = 0.0, arrival = 0.0
        geod_inverse(g, start.latitude, start.longitude, p.latitude, p.longitude, &s12, &azi1, &arrival)
        guard arrival.isFinite else { return nil }
        /// The candidate origin for arrival azimuth α, and its heading's mismatch in degrees.
        func candidate(_ alpha: Double) -> (origin: Position, mismatch: Double) {
            var latitude = 0.0, longitude = 0.0, away = 0.0
            geod_direct(g, p.latitude, p.longitude, alpha + 180, distance, &latitude, &longitude, &away)
            return (Position(longitude: longitude, latitude: latitude), remainder(away + 180 - heading, 360))
        }
        var (a0, a1) = (arrival, arrival + 1e-4)
        var (m0, m1) = (candidate(a0).mismatch, candidate(a1))
        for _ in 0..<20 where abs(m1.mismatch) > 1e-12 && m1.mismatch != m0 {
            let next = a1 - m1.mismatch * (a1 - a0) / (m1.mismatch - m0)
            guard next.isFinite else { return nil }
            (a0, m0) = (a1, m1.mismatch)
            a1 = next
            m1 = candidate(a1)
        }
        let origin = m1.origin
        var latitude = 0.0, longitude = 0.0, miss = 0.0
        geod_direct(g, origin.latitude, origin.longitude, heading, distance, &latitude, &longitude, nil)
        geod_inverse(g, latitude, longitude, p.latitude, p.longitude, &miss, nil, nil)
        guard miss <= EdgeModel.originTolerance else { return nil }
        return Position(longitude: normalizedLongitude(origin.longitude), latitude: origin.latitude)
    }

    /// Newton's method on O ↦ direct(O, heading, distance) = p. Positions are moved in metres
    /// east and north of where they are; the Jacobian is taken by central differences 1 m apart
    /// (their error, (1 m / 6400 km)² relative, is far below what the iteration needs), and the
    /// residual is the geodesic from where the direct problem lands to p, as a vector east and
    /// north. A step that does not bring the landing point closer is halved until it does.
    /// Convergence is quadratic near the answer; 30 steps are plenty where an origin exists.
    func geodesicOffsetOrigin(of p: Position, distance: Double, heading: Double, from start: Position) -> Position? {
        let g = geodesic.pointer
        func direct(_ from: Position, _ azimuth: Double, _ s: Double) -> Position {
            var latitude = 0.0, longitude = 0.0
            geod_direct(g, from.latitude, from.longitude, azimuth, s, &latitude, &longitude, nil)
            return Position(longitude: longitude, latitude: latitude)
        }
        /// The vector from `a` to `b`, metres east and north at `a`.
        func vector(_ a: Position, _ b: Position) -> (east: Double, north: Double) {
            var s12 = 0.0, azi1 = 0.0
            geod_inverse(g, a.latitude, a.longitude, b.latitude, b.longitude, &s12, &azi1, nil)
            let (s, c) = sincosDegrees(azi1)
            return (s12 * s, s12 * c)
        }
        func moved(_ from: Position, east: Double, north: Double) -> Position {
            let length = hypot(east, north)
            return length == 0 ? from : direct(from, atan2(east, north) * 180 / .pi, length)
        }
        func miss(_ origin: Position) -> Double {
            let residual = vector(direct(origin, heading, distance), p)
            return hypot(residual.east, residual.north)
        }
        var origin = start
        var best = (origin, miss(origin))
        for _ in 0..<30 where best.1 > 1e-9 {
            let landed = direct(origin, heading, distance)
            let residual = vector(landed, p)
            // Columns: how the landing point moves, seen from `landed`, per metre east and north.
            let step = 1.0
            let east1 = vector(landed, direct(moved(origin, east: step, north: 0), heading, distance))
            let east0 = vector(landed, direct(moved(origin, east: -step, north: 0), heading, distance))
            let north1 = vector(landed, direct(moved(origin, east: 0, north: step), heading, distance))
            let north0 = vector(landed, direct(moved(origin, east: 0, north: -step), heading, distance))
            let j11 = (east1.east - east0.east) / (2 * step), j21 = (east1.north - east0.north) / (2 * step)
            let j12 = (north1.east - north0.east) / (2 * step), j22 = (north1.north - north0.north) / (2 * step)
            let determinant = j11 * j22 - j12 * j21
            guard determinant.isFinite, abs(determinant) > 1e-12 else { break }
            var dEast = (j22 * residual.east - j12 * residual.north) / determinant
            var dNorth = (j11 * residual.north - j21 * residual.east) / determinant
            // A step longer than a quarter meridian is no Newton step: shorten it.
            let length = hypot(dEast, dNorth)
            if length > 1e7 { dEast *= 1e7 / length; dNorth *= 1e7 / length }
            var scale = 1.0, next = moved(origin, east: dEast, north: dNorth), nextMiss = miss(next)
            while nextMiss >= best.1 && scale > 1e-6 {
                scale /= 2
                next = moved(origin, east: scale * dEast, north: scale * dNorth)
                nextMiss = miss(next)
            }
            guard nextMiss < best.1 else { break }
            origin = next
            best = (origin, nextMiss)
        }
        let (found, closest) = best
        guard closest <= EdgeModel.originTolerance else { return nil }
        return Position(longitude: normalizedLongitude(found.longitude), latitude: found.latitude)
    }
}
