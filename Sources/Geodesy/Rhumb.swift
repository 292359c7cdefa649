#if canImport(Glibc)
import Glibc
#endif
import CProj

/// Rhumb lines (loxodromes) on the ellipsoid, built on PROJ's geodesic primitives since PROJ has
/// no rhumb API. Method (docs/algorithms.md, "Rhumb lines"): with the isometric latitude ψ, a rhumb
/// line is straight in (λ, ψ), so
///     s12 = R̄ · hypot(λ12, ψ12),  azimuth = atan2(λ12, ψ12),
/// where R̄ = m12 / ψ12 is the mean radius of the parallels crossed (m12 the meridian arc). For
/// nearly east–west lines m12 / ψ12 is 0/0, so when |ψ12| < 0.1 both integrals are taken by the
/// same 10-point Gauss–Legendre rule instead: R̄ = ∫ρ dφ / ∫(ρ/R) dφ. Checked against
/// GeographicLib's RhumbSolve to 1e-7 m (Tests/EndToEnd). A rhumb line ending at a pole runs along a
/// meridian: its length is the meridian arc.
struct RhumbMath: Sendable {
    let earth: Earth
    let geodesic: Geodesic
    let e2: Double

    init(earth: Earth, geodesic: Geodesic) {
        self.earth = earth
        self.geodesic = geodesic
        e2 = earth.e2
    }

    /// e·atanh(e·x), also for a prolate spheroid (e² < 0).
    @inline(__always)
    func eatanhe(_ x: Double) -> Double {
        e2 >= 0 ? sqrt(e2) * atanh(sqrt(e2) * x) : -sqrt(-e2) * atan(sqrt(-e2) * x)
    }

    /// Isometric latitude ψ(φ) in radians (±∞ at the poles).
    @inline(__always)
    func isometricLatitude(_ latitude: Double) -> Double {
        let (s, c) = sincosDegrees(latitude)
        return asinh(s / c) - eatanhe(s)
    }

    /// Signed meridian arc from φ1 to φ2, metres.
    func meridianArc(_ latitude1: Double, _ latitude2: Double) -> Double {
        var s12 = 0.0
        geod_inverse(geodesic.pointer, latitude1, 0, latitude2, 0, &s12, nil, nil)
        return latitude2 >= latitude1 ? s12 : -s12
    }

    /// The radius of the parallel at φ: a·cosφ/√(1 − e²sin²φ).
    @inline(__always)
    func parallelRadius(_ latitude: Double) -> Double {
        let (s, c) = sincosDegrees(latitude)
        return earth.a * c / sqrt(1 - e2 * s * s)
    }

    /// ∫ρ dφ and ∫(ρ/R) dφ over [φ1, φ2] (φ in degrees; the results in metres and radians).
    func gaussLegendre(_ latitude1: Double, _ latitude2: Double) -> (arc: Double, psi: Double) {
        let middle = (latitude1 + latitude2) / 2
        let half = (latitude2 - latitude1) / 2 * .pi / 180
        var arc = 0.0, psi = 0.0
        for (node, weight) in gaussLegendre10 {
            for latitude in [middle - node * (latitude2 - latitude1) / 2, middle + node * (latitude2 - latitude1) / 2] {
                let (s, c) = sincosDegrees(latitude)
                let w = 1 - e2 * s * s
                arc += weight * earth.a * (1 - e2) / (w * sqrt(w))  // ρ, the meridian's radius
                psi += weight * (1 - e2) / (w * c)                   // ρ/R = dψ/dφ
            }
        }
        return (arc * half, psi * half)
    }

    /// Length (metres) and azimuth (radians from north) of the rhumb line from 1 to 2.
    func inverse(_ latitude1: Double, _ longitude1: Double, _ latitude2: Double, _ longitude2: Double)
        -> (length: Double, azimuth: Double) {
        let lambda12 = longitudeDifference(longitude1, longitude2) * .pi / 180
        if abs(latitude1) == 90 || abs(latitude2) == 90 {
            // ψ is infinite at a pole: the rhumb line is the meridian.
            let arc = meridianArc(latitude1, latitude2)
            return (abs(arc), arc >= 0 ? 0 : .pi)
        }
        let psi12 = isometricLatitude(latitude2) - isometricLatitude(latitude1)
        if latitude1 == latitude2 {
            let radius = parallelRadius(latitude1)
            return (radius * abs(lambda12), atan2(lambda12, 0))
        }
        if abs(psi12) >= 0.1 {
            let arc = meridianArc(latitude1, latitude2)
            let radius = arc / psi12
            return (radius * hypot(lambda12, psi12), atan2(lambda12, psi12))
        }
        let (arc, psi) = gaussLegendre(latitude1, latitude2)
        let radius = arc / psi
        // hypot(R̄λ12, m12) = R̄·hypot(λ12, ψ12) with the better-conditioned ψ12 = m12/R̄.
        return (hypot(radius * lambda12, arc), atan2(lambda12, psi12))
    }

    /// The point `distance` metres along the rhumb line from (φ1, λ1) at `azimuth`.
    func position(_ latitude1: Double, _ longitude1: Double, azimuth: Double, distance: Double) -> (Double, Double) {
        // Along a meridian (azimuth 0 or π, as at the poles) there is no east-west part at all:
        // sin π is 1.2e-16, not 0, and ψ is infinite at a pole.
        let meridian = azimuth == 0 || azimuth == .pi || abs(latitude1) == 90
        let north = meridian ? (azimuth == .pi ? -distance : distance) : distance * cos(azimuth)
        let east = meridian ? 0 : distance * sin(azimuth)
        var latitude = latitude1
        if north != 0 {
            var longitude = 0.0
            geod_direct(geodesic.pointer, latitude1, 0, north >= 0 ? 0 : 180, abs(north), &latitude, &longitude, nil)
            if abs(longitude) > 90 { latitude = north >= 0 ? 90 : -90 }  // went over the pole: clamp
        }
        if east == 0 || abs(latitude) == 90 { return (latitude, normalizedLongitude(longitude1)) }
        let psi = isometricLatitude(latitude) - isometricLatitude(latitude1)
        let radius = latitude == latitude1 ? parallelRadius(latitude1)
            : abs(psi) >= 0.1 ? north / psi : gaussLegendreRatio(latitude1, latitude)
        return (latitude, normalizedLongitude(longitude1 + east / radius * 180 / .pi))
    }

    /// R̄ over [φ1, φ2] by quadrature.
    func gaussLegendreRatio(_ latitude1: Double, _ latitude2: Double) -> Double {
        let (arc, psi) = gaussLegendre(latitude1, latitude2)
        return arc / psi
    }
}

/// 10-point Gauss–Legendre nodes (positive half) and weights on [-1, 1].
private let gaussLegendre10: [(Double, Double)] = [
    (0.1488743389816312108848260, 0.2955242247147528701738930),
    (0.4333953941292471907992659, 0.2692667193099963550912269),
    (0.6794095682990244062343274, 0.2190863625159820439955349),
    (0.8650633666889845107320967, 0.1494513491505805931457763),
    (0.9739065285171717200779640, 0.0666713443086881375935688),
]
