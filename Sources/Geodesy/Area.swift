#if canImport(Glibc)
import Glibc
#endif
import CProj
import Geometry

// Areas of rings and polygons for every edge kind (GMSGeometryArea, GMSGeometrySignedArea on the
// ellipsoid). Method, references and measured accuracy: docs/area-and-locate.md.
//
// Every kind is computed the same way, as GeographicLib's PolygonArea does for geodesics: each
// edge contributes S12, the area between it and the equator (counter-clockwise around the
// quadrilateral (φ1,λ1) (0,λ1) (0,λ2) (φ2,λ2)); the ring's counter-clockwise area is −ΣS12,
// corrected by half the surface when the ring winds around the poles an odd number of times, and
// reduced to (−A0/2, A0/2], A0 the whole surface. So a ring always measures its smaller side,
// positive when that side lies on its left (the ring runs counter-clockwise around it).

extension EdgeModel {
    /// The area of the whole surface: 4πc² (c the authalic radius) on the ellipsoid or sphere;
    /// for `projected`, the Web Mercator square, (2πa)².
    public var surfaceArea: Double {
        kind == .projected ? 4 * .pi * .pi * earth.a * earth.a : 4 * .pi * AuthalicLatitude(earth: earth).c2
    }

    /// The signed area of a ring, m² (Web Mercator m² for `projected`): positive when the ring
    /// runs counter-clockwise around the region it encloses, negative when clockwise.
    ///
    /// The closing edge (last vertex to first) is implied; a repeated closing vertex and repeated
    /// consecutive vertices are ignored; a ring of fewer than 3 distinct vertices has area 0. A
    /// ring that crosses itself is summed as given (the loops of a figure 8 cancel). Edges follow
    /// the kind, the short way round, so rings may cross the antimeridian.
    ///
    /// Which side: a ring divides the surface in two. Like GeographicLib's Planimeter and PROJ's
    /// `geod_polygon_compute(…, reverse 0, sign 1, …)`, the result is the area of the *smaller*
    /// side, in (−A0/2, A0/2] where A0 = `surfaceArea`, signed by whether that side lies on the
    /// ring's left. A ring around the north pole running east encloses the polar cap (positive);
    /// a ring around the south pole running east also encloses its polar cap, clockwise
    /// (negative). The Maps SDK instead never counts the south pole as inside: for rings around
    /// the south pole, or enclosing more than half the Earth, its figure is the complement's.
    ///
    /// - geodesic: each edge's S12 from PROJ's `geod_geninverse` asked for the area alone (Karney
    ///   2013, §6), summed with compensation: what `geod_polygon_*` computes, without the
    ///   distances it also works out (about 10 % faster); error about 0.1 m² for small rings,
    ///   1e-15 relative for large ones.
    /// - rhumb: S12 = c²·λ12·⟨sin ξ⟩, the mean of the sine of the authalic latitude ξ over the
    ///   isometric latitude ψ along the edge (λ is linear in ψ on a rhumb line), with ∫sin ξ dψ =
    ///   ln cosh ψ + ∫(sin ξ − tanh ψ) dψ, the remainder by Gauss–Legendre quadrature (Karney,
    ///   "The area of rhumb polygons", 2023, derives the same integral and sums it as a series).
    ///   Agrees with GeographicLib's `Planimeter -R` to 0.1 m² + 1e-9 relative (tests). A vertex
    ///   exactly at a pole is a turn there: the edges to it run along the meridian of their other
    ///   end (GeographicLib ≥ 2.2; the 2.1 Planimeter on Debian 12 instead stops ψ short of ∞).
    /// - projected: the shoelace formula in Web Mercator metres (x = aλ unrolled edge by edge,
    ///   y = a·asinh(tan φ)), exact up to rounding; no reduction, except that a ring going round
    ///   the world (east–west across the whole map) is closed along the edge of the Web Mercator
    ///   square (y = ±πa) and reduced like the others. Latitudes ±90 have no y: call `validate`.
    public func signedArea(ofRing ring: Path) -> Double {
        let vertices = ringVertices(ring)
        guard vertices.count >= 3 else { return 0 }
        let sums = ringSums(vertices)
        if kind == .projected && sums.winding == 0 { return -sums.underEdges }
        return reducedArea(sums.northFree(surface: surfaceArea), surface: surfaceArea)
    }

    /// The area of a polygon, m² (Web Mercator m² for `projected`), never negative: the first
    /// ring's area minus each further ring's (its holes), **whatever way each ring winds**
    /// (RFC 7946's right-hand rule is often broken, and the Maps SDK's own sample polygon has every
    /// ring clockwise). Each ring's area is `abs(signedArea(ofRing:))`. GMSGeometryArea of a
    /// GMSPolygon with holes.
    public func area(ofPolygon rings: [Path]) -> Double {
        guard let outer = rings.first else { return 0 }
        var sum = CompensatedSum()
        sum.add(abs(signedArea(ofRing: outer)))
        for hole in rings.dropFirst() { sum.add(-abs(signedArea(ofRing: hole))) }
        return sum.value
    }

    /// The rings' signed areas summed as given (GMSGeometrySignedArea ring by ring): a hole
    /// wound against its outer ring subtracts, one wound the same way adds.
    public func signedArea(ofPolygon rings: [Path]) -> Double {
        var sum = CompensatedSum()
        for ring in rings { sum.add(signedArea(ofRing: ring)) }
        return sum.value
    }

    /// S12, the area between the edge from `a` to `b` and the equator (for `projected`, the line
    /// y = 0), positive for an edge running east north of the equator: Karney's S12 for geodesics,
    /// c²·λ12·⟨sin ξ⟩ for rhumb lines, Δx·(y1 + y2)/2 in Web Mercator.
    func areaUnderEdge(_ a: Position, _ b: Position) -> Double {
        switch kind {
        case .geodesic:
            var s12 = 0.0
            geod_geninverse(geodesic.pointer, a.latitude, a.longitude, b.latitude, b.longitude,
                            nil, nil, nil, nil, nil, nil, &s12)
            return s12
        case .rhumb:
            let lambda12 = longitudeDifference(a.longitude, b.longitude) * .pi / 180
            let authalic = AuthalicLatitude(earth: earth)
            return authalic.c2 * lambda12 * authalic.meanSinXi(a.latitude, b.latitude, minus: 0, rhumb: rhumb)
        case .projected:
            let dx = earth.a * longitudeDifference(a.longitude, b.longitude) * .pi / 180
            return dx * (mercatorY(a.latitude) + mercatorY(b.latitude)) / 2
        }
    }

    /// ΣS12 over the ring's edges (closing edge included) and the number of times it winds
    /// eastward round the poles (Σλ12 / 360°).
    ///
    /// For rhumb and projected rings the edges' terms are taken relative to the first vertex's
    /// parallel (c²·λ12·(⟨sin ξ⟩ − sin ξ0), Δx·(ȳ − y0)), the difference computed without
    /// cancellation, and c²·sin ξ0·Σλ12 = c²·sin ξ0·2πw added back: a ring of long, nearly
    /// east–west edges (whose terms reach 1e14 m² and cancel to a small area) then loses nothing
    /// to rounding.
    func ringSums(_ vertices: [Position]) -> RingSums {
        var under = CompensatedSum(), turns = CompensatedSum()
        let authalic = AuthalicLatitude(earth: earth)
        let reference = vertices.first?.latitude ?? 0
        let referenceY = kind == .projected ? mercatorY(reference) : 0
        for index in vertices.indices {
            let a = vertices[index], b = vertices[index + 1 == vertices.count ? 0 : index + 1]
            let lambda12 = longitudeDifference(a.longitude, b.longitude)
            turns.add(lambda12)
            switch kind {
            case .geodesic:
                under.add(areaUnderEdge(a, b))
            case .rhumb:
                let excess = authalic.meanSinXi(a.latitude, b.latitude, minus: reference, rhumb: rhumb)
                under.add(authalic.c2 * lambda12 * .pi / 180 * excess)
            case .projected:
                let dx = earth.a * lambda12 * .pi / 180
                under.add(dx * ((mercatorY(a.latitude) - referenceY) + (mercatorY(b.latitude) - referenceY)) / 2)
            }
        }
        let winding = Int((turns.value / 360).rounded())
        if winding != 0 {
            // What the reference parallel's terms add up to round the pole(s).
            let zone = kind == .rhumb ? authalic.c2 * authalic.sinXi(sincosDegrees(reference).sin)
                : kind == .projected ? earth.a * referenceY : 0
            under.add(zone * 2 * .pi * Double(winding))
        }
        return RingSums(underEdges: under.value, winding: winding)
    }
}

/// What a ring's area and inside follow from.
struct RingSums {
    /// ΣS12, the clockwise area between the ring and the equator.
    var underEdges: Double
    /// How many times the ring winds eastward round the poles.
    var winding: Int

    /// The signed area of the side of the ring that does not hold the north pole (for
    /// `projected`, the top edge of the Web Mercator square): −ΣS12 − w·A0/2. Unreduced, so
    /// its magnitude says which side is the smaller.
    func northFree(surface: Double) -> Double {
        -underEdges - Double(winding) * surface / 2
    }
}

/// `area` reduced to (−A0/2, A0/2]: the smaller side, signed (GeographicLib's AreaReduce).
func reducedArea(_ area: Double, surface: Double) -> Double {
    let reduced = remainder(area, surface)
    return reduced == -surface / 2 ? surface / 2 : reduced
}

/// A ring's vertices with repeated consecutive ones and the repeated closing one dropped.
func ringVertices(_ ring: Path) -> [Position] {
    var vertices: [Position] = []
    vertices.reserveCapacity(ring.count)
    for vertex in ring where vertices.last != vertex { vertices.append(vertex) }
    while vertices.count > 1 && vertices.first == vertices.last { vertices.removeLast() }
    return vertices
}

/// The authalic (equal-area) latitude ξ and the area under rhumb lines.
///
/// The area between the equator and latitude φ over a longitude interval dλ is c²·sin ξ·dλ,
/// with sin ξ = q(φ)/q(90°), q(φ) = (1 − e²)(sin φ/(1 − e² sin²φ) + atanh(e sin φ)/e), and c² =
/// a²q(90°)/2 the authalic radius squared (4πc² is the area of the ellipsoid). Along a rhumb
/// line λ is linear in the isometric latitude ψ, so the edge's S12 is c²·λ12 times the mean of
/// sin ξ over ψ. On the conformal sphere sin χ = tanh ψ, whose integral is ln cosh ψ; what is
/// left, (sin ξ − tanh ψ)·dψ/dφ, is of order e², smooth, and vanishes at the poles, so
/// Gauss–Legendre quadrature in φ takes it to rounding (1e-16 of the edge's term; checked
/// against 40-digit quadrature, see docs/area-and-locate.md).
struct AuthalicLatitude {
    let e2: Double
    /// q(90°)
    let qp: Double
    /// The authalic radius squared, m².
    let c2: Double

    init(earth: Earth) {
        e2 = earth.e2
        let qp = 1 + (1 - e2) * Self.atanhEOverE(1, e2)
        self.qp = qp
        c2 = earth.a * earth.a * qp / 2
    }

    /// atanh(e·x)/e, its limit x on a sphere, atan(|e|x)/|e| on a prolate spheroid (e² < 0).
    @inline(__always)
    static func atanhEOverE(_ x: Double, _ e2: Double) -> Double {
        if e2 > 0 { let e = e2.squareRoot(); return atanh(e * x) / e }
        if e2 < 0 { let e = (-e2).squareRoot(); return atan(e * x) / e }
        return x
    }

    /// sin ξ for sin φ = s.
    @inline(__always)
    func sinXi(_ s: Double) -> Double {
        (1 - e2) * (s / (1 - e2 * s * s) + Self.atanhEOverE(s, e2)) / qp
    }

    /// (sin ξ − tanh ψ)·dψ/dφ at φ (degrees), written with 1 − sin ξ and 1 − tanh ψ so that
    /// nothing cancels next to the poles (where dψ/dφ grows like 1/cos φ).
    @inline(__always)
    func excessOverConformal(_ latitude: Double, rhumb: RhumbMath) -> Double {
        let (s, c) = sincosDegrees(abs(latitude))
        let u = c * c / (1 + s)  // 1 − sin φ
        let oneMinusSinXi = (u * (1 + e2 * s) / (1 - e2 * s * s) + (1 - e2) * Self.atanhEOverE(u / (1 - e2 * s), e2)) / qp
        let psi = rhumb.isometricLatitude(abs(latitude))
        let oneMinusTanhPsi = 2 / (exp(2 * psi) + 1)
        let dPsi = (1 - e2) / ((1 - e2 * s * s) * c)
        let value = (oneMinusTanhPsi - oneMinusSinXi) * dPsi
        return latitude < 0 ? -value : value
    }

    /// sin ξ(φ) − sin ξ(φr), without cancellation when φ is near φr: with s = sin φ,
    /// q(s) − q(sr) = (1 − e²)·[Δs·(1 + e²·s·sr)/((1 − e²s²)(1 − e²sr²)) + atanh(e·Δs/(1 − e²·s·sr))/e],
    /// Δs = 2·cos((φ + φr)/2)·sin((φ − φr)/2).
    @inline(__always)
    func sinXiDifference(_ latitude: Double, _ reference: Double) -> Double {
        let s = sincosDegrees(latitude).sin, sr = sincosDegrees(reference).sin
        let delta = 2 * sincosDegrees((latitude + reference) / 2).cos * sincosDegrees((latitude - reference) / 2).sin
        let rational = delta * (1 + e2 * s * sr) / ((1 - e2 * s * s) * (1 - e2 * sr * sr))
        return (1 - e2) * (rational + Self.atanhEOverE(delta / (1 - e2 * s * sr), e2)) / qp
    }

    /// The mean of sin ξ over ψ between latitudes φ1 and φ2 (degrees), minus sin ξ at
    /// `reference`: S12 = c²·λ12·meanSinXi(φ1, φ2, minus: 0). Relative to a nearby reference the
    /// result is small and exact to rounding, where the mean itself is close to 1.
    func meanSinXi(_ latitude1: Double, _ latitude2: Double, minus reference: Double, rhumb: RhumbMath) -> Double {
        if latitude1 == latitude2 { return sinXiDifference(latitude1, reference) }
        if abs(latitude1) == 90 || abs(latitude2) == 90 {
            // ψ is infinite at a pole: the mean is the pole's sin ξ = ±1 (the edge runs along the
            // other end's meridian and turns through λ12 at the pole), 0 from pole to pole.
            let mean: Double = latitude1 == -latitude2 ? 0 : abs(latitude1) == 90 ? (latitude1 > 0 ? 1 : -1) : (latitude2 > 0 ? 1 : -1)
            return mean - sinXi(sincosDegrees(reference).sin)
        }
        let psi1 = rhumb.isometricLatitude(latitude1), psi2 = rhumb.isometricLatitude(latitude2)
        let psi12 = psi2 - psi1
        if abs(psi12) < 0.1 {
            // Nearly east–west: the mean of sin ξ − sin ξr weighted by dψ/dφ, both sums by the
            // same rule (no 0/0 as ψ12 → 0).
            let middle = (latitude1 + latitude2) / 2, half = (latitude2 - latitude1) / 2
            var weighted = 0.0, weights = 0.0
            for (node, weight) in gaussLegendre10Nodes {
                for side in [-1.0, 1.0] {
                    let latitude = middle + side * node * half
                    let (s, c) = sincosDegrees(latitude)
                    let w = weight / ((1 - e2 * s * s) * c)
                    weighted += w * sinXiDifference(latitude, reference)
                    weights += w
                }
            }
            return weighted / weights
        }
        // ∫ tanh ψ dψ = ln cosh ψ, as |ψ| + log1p(e^−2|ψ|) − ln 2 (no overflow, no cancellation).
        let lnCosh12 = (abs(psi2) - abs(psi1)) + (log1p(exp(-2 * abs(psi2))) - log1p(exp(-2 * abs(psi1))))
        var integral = 0.0
        if e2 != 0 {
            // Composite rule, pieces of at most 30° (error below 1e-16 relative, measured).
            let pieces = max(1, Int((abs(latitude2 - latitude1) / 30).rounded(.up)))
            let width = (latitude2 - latitude1) / Double(pieces)
            for piece in 0..<pieces {
                let middle = latitude1 + (Double(piece) + 0.5) * width, half = width / 2
                var sum = 0.0
                for (node, weight) in gaussLegendre10Nodes {
                    sum += weight * (excessOverConformal(middle - node * half, rhumb: rhumb)
                                     + excessOverConformal(middle + node * half, rhumb: rhumb))
                }
                integral += sum * half * .pi / 180
            }
        }
        // ψ12 ≥ 0.1 here: the mean varies along the edge, and subtracting sin ξr loses little.
        return (lnCosh12 + integral) / psi12 - sinXi(sincosDegrees(reference).sin)
    }
}

/// 10-point Gauss–Legendre nodes (positive half) and weights on [−1, 1].
let gaussLegendre10Nodes: [(Double, Double)] = [
    (0.1488743389816312108848260, 0.2955242247147528701738930),
    (0.4333953941292471907992659, 0.2692667193099963550912269),
    (0.6794095682990244062343274, 0.2190863625159820439955349),
    (0.8650633666889845107320967, 0.1494513491505805931457763),
    (0.9739065285171717200779640, 0.0666713443086881375935688),
]
