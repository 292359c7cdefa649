#if canImport(Glibc)
import Glibc
#endif
import Geodesy
import Geometry

/// A cheap two-sided bound on the geodesic distance from a point to a geodesic edge, from the
/// same question on the conformal sphere: the sphere of radius a on which a point has the
/// conformal latitude χ of its geodetic latitude φ and the same longitude (Gauss's conformal
/// map, as in Mercator's projection). The map is conformal, so the ellipsoid's lengths are the
/// sphere's divided by one scale k(φ) = a·cos χ / (N cos φ) whatever the direction, and
/// |d ln k/dφ| ≤ G (0.00335 on WGS84). Along any path of length ℓ (ellipsoid) or σ (sphere)
/// from p, φ moves by at most c·ℓ/a or c·σ/a, c = max(a/M, dφ/dχ) = 1/((1−e²)·min k), so there
/// k stays within a factor e^±ρ of k(p), ρ = G·c·(path)/a. And an ellipsoid geodesic, drawn on
/// the sphere, has geodesic curvature |∂ₙ ln k| ≤ G·c/a (how a conformal change of metric bends
/// geodesics), so it lies within δ = κa²(sec(ℓ/2a) − 1) of the great-circle arc between its
/// ends (a curve of curvature ≤ κ stays in the lens of the two circles of curvature κ through
/// its ends); twice that is allowed. With D the spherical distance to the arc:
///     (D − δ)·(1 − ρ)/k(p) ≤ d ≤ (D + δ)/((1 − ρ)·k(p)).
/// docs/algorithms.md ("The conformal bound") has the steps. The bound only chooses which
/// vertices get an exact distance: where two vertices' bounds overlap, or one straddles the
/// tolerance, the exact distances decide.
struct ConformalBound: Sendable {
    let radius: Double
    let e2: Double
    /// The series χ − φ = Σ c_j sin 2jφ, j = 1…6, in the third flattening n (Karney 2023,
    /// "On auxiliary latitudes", eq. for χ(φ)): 1e-16 rad at WGS84's n.
    let series: [Double]
    /// G·c: the bound on |d ln k| per radian travelled (σ/a or ℓ/a).
    let gradient: Double
    /// What the bound allows for rounding, the series, and the exact distances' own error
    /// (PROJ's geodesics, 15 nm; the nearest point's solver, nanometres): metres.
    static let slack = 1e-5

    init?(model: EdgeModel) {
        let f = model.earth.f
        guard model.kind == .geodesic, f >= 0, f < 0.01 else { return nil }
        radius = model.earth.a
        e2 = model.earth.e2
        let n = f / (2 - f), n2 = n * n, n3 = n2 * n, n4 = n3 * n, n5 = n4 * n, n6 = n5 * n
        series = [
            -2 * n + 2 * n2 / 3 + 4 * n3 / 3 - 82 * n4 / 45 + 32 * n5 / 45 + 4642 * n6 / 4725,
            5 * n2 / 3 - 16 * n3 / 15 - 13 * n4 / 9 + 904 * n5 / 315 - 1522 * n6 / 945,
            -26 * n3 / 15 + 34 * n4 / 21 + 8 * n5 / 5 - 12686 * n6 / 2835,
            1237 * n4 / 630 - 12 * n5 / 5 - 24832 * n6 / 14175,
            -734 * n5 / 315 + 109598 * n6 / 31185,
            444337 * n6 / 155925,
        ]
        // G and min k over a grid of latitudes (0.01°): d ln k/dφ = (1−e²)(sin φ − sin χ)/(cos φ W²)
        // is smooth, so the grid's largest value is within a hair of the true one; 5 % is added.
        var largest = 0.0, leastScale = Double.infinity
        var degrees = 0.0
        while degrees < 90 {
            let (s, c) = sincosDegrees(degrees)
            let (sinChi, _) = ConformalBound.conformal(s, c, series)
            let w2 = 1 - e2 * s * s
            largest = max(largest, abs((1 - e2) * (s - sinChi) / (c * w2)))
            leastScale = min(leastScale, 1 / ConformalBound.inverseScale(s, c, e2: e2, series))
            degrees += 0.01
        }
        gradient = 1.05 * largest / ((1 - e2) * leastScale)
    }

    /// sin χ and cos χ from sin φ and cos φ: χ = φ + Δ, Δ by Clenshaw's sum, its sine and
    /// cosine by their series (|Δ| < 0.01: the terms left out are below 1e-18).
    @inline(__always)
    static func conformal(_ s: Double, _ c: Double, _ series: [Double]) -> (sin: Double, cos: Double) {
        let twice = 2 * (c - s) * (c + s)  // 2 cos 2φ
        var b1 = 0.0, b2 = 0.0
        for j in stride(from: series.count - 1, through: 0, by: -1) {
            (b1, b2) = (twice * b1 - b2 + series[j], b1)
        }
        let delta = 2 * s * c * b1  // Σ c_j sin 2jφ = sin 2φ · b1
        let d2 = delta * delta
        let sinDelta = delta * (1 - d2 / 6 * (1 - d2 / 20))
        let cosDelta = 1 - d2 / 2 * (1 - d2 / 12 * (1 - d2 / 30))
        return (s * cosDelta + c * sinDelta, c * cosDelta - s * sinDelta)
    }

    /// 1/k = N cos φ / (a cos χ) = cos φ / (W cos χ); within 1e-8 rad of a pole, its value there
    /// (k is smooth and even about the pole; the error, G·1e-8, is below the slack).
    @inline(__always)
    static func inverseScale(_ s: Double, _ c: Double, e2: Double, _ series: [Double]) -> Double {
        let c = max(c, 1e-8)
        let chi = conformal(s, c, series)
        return c / ((1 - e2 * s * s).squareRoot() * chi.cos)
    }

    /// A position on the conformal sphere (unit vector) with 1/k there in the fourth lane.
    func vertex(_ p: Position) -> SIMD4<Double> {
        let (s, c) = sincosDegrees(p.latitude)
        let (sinLongitude, cosLongitude) = sincosDegrees(p.longitude)
        let chi = ConformalBound.conformal(s, c, series)
        return SIMD4(chi.cos * cosLongitude, chi.cos * sinLongitude, chi.sin, ConformalBound.inverseScale(s, c, e2: e2, series))
    }

    /// The arc from `a` to `b`, or nil when it is too long for the bound (15,000 km, well short
    /// of the half circle where the deviation has no bound).
    func edge(_ a: SIMD4<Double>, _ b: SIMD4<Double>) -> Arc? {
        let a3 = SIMD3(a.x, a.y, a.z), b3 = SIMD3(b.x, b.y, b.z)
        // From the difference b − a (exact for near points), so that short edges are well
        // conditioned: cross(a, b) of nearly equal vectors would lose their digits.
        let d = b3 - a3
        // The arc's length, from above: short arcs by asin y ≤ y(1 + y²(1 + y²)/6) (y ≤ 0.1),
        // sparing the inverse sine on most edges; it only sizes the deviation.
        let y = min(1, length(d) / 2)
        let angle = y <= 0.1 ? y * (1 + y * y * (1 + y * y) / 6) : asin(y)  // half the arc, radians
        guard 2 * radius * angle <= 1.5e7 else { return nil }
        let normal = cross(a3, d)
        let sine = length(normal)
        // Ends closer than a micrometre: the edge is a point.
        let isPoint = sine * radius < 1e-6
        let n = isPoint ? SIMD3<Double>.zero : normal / sine
        // sec x − 1 ≤ x²(1 + x²/2)/2 for x ≤ 0.1.
        let secant = angle <= 0.1 ? angle * angle * (1 + angle * angle / 2) / 2 : 1 / cos(angle) - 1
        let deviation = 2 * gradient * radius * secant + ConformalBound.slack
        return Arc(a: a3, b: b3, normal: n, afterA: cross(n, a3), beforeB: cross(b3, n), isPoint: isPoint,
                   deviation: deviation, radius: radius, gradient: gradient)
    }

    struct Arc {
        let a: SIMD3<Double>
        let b: SIMD3<Double>
        let normal: SIMD3<Double>
        /// p is past a (towards b) when (p − a)·afterA ≥ 0, before b when (p − b)·beforeB ≥ 0.
        let afterA: SIMD3<Double>
        let beforeB: SIMD3<Double>
        let isPoint: Bool
        let deviation: Double
        let radius: Double
        let gradient: Double

        /// The squared chord of the spherical distance from `p` to the arc: grows with it,
        /// cheap (no inverse trigonometry), for a first pass over a range.
        @inline(__always)
        func chordSquared(_ p: SIMD4<Double>) -> Double {
            let p3 = SIMD3(p.x, p.y, p.z)
            let fromA = p3 - a, fromB = p3 - b
            if !isPoint && dot(fromA, afterA) >= 0 && dot(fromB, beforeB) >= 0 {
                // The foot is on the arc: sin of the angle to the great circle is s.
                let s = dot(fromA, normal)
                let s2 = min(1, s * s)
                return 2 * s2 / (1 + (1 - s2).squareRoot())  // (2 sin(θ/2))², θ = asin|s|
            }
            return isPoint ? dot(fromA, fromA) : min(dot(fromA, fromA), dot(fromB, fromB))
        }

        /// The spherical distance, metres, of a squared chord.
        @inline(__always)
        func distance(chordSquared q: Double) -> Double { 2 * radius * asin(min(1, q.squareRoot() / 2)) }

        /// The squared chord of a spherical distance (0 for a negative one), from below: for
        /// x = D/2a ≤ 0.1, sin x ≥ x − x³/6.
        func chordSquared(distance: Double) -> Double {
            guard distance > 0 else { return 0 }
            let x = min(.pi / 2, distance / (2 * radius))
            let half = x <= 0.1 ? x * (1 - x * x / 6) : sin(x)
            return 4 * half * half
        }

        /// ρ for a spherical distance D: how far ln k may move along the paths the bound
        /// compares (nil past 1 %, where the bound would be loose: such ranges are measured
        /// exactly).
        @inline(__always)
        func rho(_ distance: Double) -> Double? {
            let rho = gradient * (distance + deviation) / radius * 1.02
            return rho <= 0.01 ? rho : nil
        }

        /// Lower and upper bounds on the exact distance from the position to the edge, metres,
        /// from its spherical distance and 1/k there (`inverseScale`), with `rho` that of a
        /// distance at least as large.
        @inline(__always)
        func bounds(distance: Double, inverseScale: Double, rho: Double) -> (low: Double, high: Double) {
            (max(0, distance - deviation) * inverseScale * (1 - rho) * (1 - 1e-12),
             (distance + deviation) * inverseScale / (1 - rho) * (1 + 1e-12))
        }
    }
}

@inline(__always) func dot(_ u: SIMD3<Double>, _ v: SIMD3<Double>) -> Double { (u * v).sum() }
@inline(__always) func length(_ u: SIMD3<Double>) -> Double { dot(u, u).squareRoot() }
@inline(__always) func cross(_ u: SIMD3<Double>, _ v: SIMD3<Double>) -> SIMD3<Double> {
    SIMD3(u.y * v.z - u.z * v.y, u.z * v.x - u.x * v.z, u.x * v.y - u.y * v.x)
}
