#if canImport(Glibc)
import Glibc
#endif
import Geometry

/// The space a spatial index of shapes and its pruning measure in (`geo locate --shapes`): 3-D
/// Earth-centred coordinates, where the chord between two points is never longer than any path
/// on the surface between them (so it bounds geodesic distances from below), or for `projected`
/// the Web Mercator plane (x, y, 0), whose distances are the planar ones, a point counting in
/// the copy of the world nearest. Geodesy, since its bounds are the geodesics' and edges'.
package struct SearchSpace: Sendable {
    package let earth: Earth
    package let planar: Bool
    package let geodesic: Bool

    package init(model: EdgeModel) {
        earth = model.earth
        planar = model.kind == .projected
        geodesic = model.kind == .geodesic
    }

    package typealias Point = SIMD3<Double>

    /// 2πa: the width of the Web Mercator world.
    package var worldWidth: Double { 2 * .pi * earth.a }

    package func point(_ position: Position) -> Point {
        if planar {
            return Point(earth.a * normalizedLongitude(position.longitude) * .pi / 180,
                         WebMercator.measuredY(latitude: position.latitude, radius: earth.a), 0)
        }
        let (sinPhi, cosPhi) = sincosDegrees(position.latitude)
        let (sinLambda, cosLambda) = sincosDegrees(position.longitude)
        let n = earth.a / (1 - earth.e2 * sinPhi * sinPhi).squareRoot()
        return Point(n * cosPhi * cosLambda, n * cosPhi * sinLambda, n * (1 - earth.e2) * sinPhi)
    }

    /// A lower bound on the distance from `p` to anything on the edge from `a` to `b` (`length`
    /// long by its kind), cheap enough to skip most edges without solving for the nearest point.
    /// - geodesic: a geodesic's curvature in space is its normal curvature, at most a/b² on the
    ///   ellipsoid (1/R on a sphere), and a curve of length s whose curvature is at most κ stays
    ///   within (1 − cos(κs/2))/κ of its chord (the circular arc bulges most); the chord is never
    ///   longer than the geodesic distance. Twice that sagitta is taken off, for margin.
    /// - rhumb: every point of the edge is within half its length of an end.
    /// - projected: the edge is the segment itself in the plane, taken the short way (an edge
    ///   from 179.96° to -179.45° is 0.59° long, not the rest of the world), `p` in each copy.
    package func lowerBound(_ p: Point, _ a: Point, _ b: Point, length: Double) -> Double {
        if planar {
            var b = b
            if b.x - a.x > worldWidth / 2 { b.x -= worldWidth } else if a.x - b.x > worldWidth / 2 { b.x += worldWidth }
            return min(segmentDistance(p, a, b), segmentDistance(p + Point(worldWidth, 0, 0), a, b),
                       segmentDistance(p - Point(worldWidth, 0, 0), a, b))
        }
        guard geodesic else {
            return distance(p, to: Box(low: pointwiseMin(a, b), high: pointwiseMax(a, b))) - length / 2
        }
        let curvature = earth.a / (earth.a * (1 - earth.f) * earth.a * (1 - earth.f))
        let angle = curvature * length / 2
        let sagitta = angle < .pi / 2 ? (1 - cos(angle)) / curvature : length / 2
        return segmentDistance(p, a, b) - 2 * sagitta - 1e-6 * length
    }

    /// A lower bound on the geodesic distance from the surface point `p` to any point of the
    /// surface in `box` (for `projected`, the planar distance from the nearest copy of `p`). The
    /// chord is one, but a weak one far away (a 5,000 km geodesic has a 4,869 km chord, and
    /// every box within that shell would be searched). The other: a path on the ellipsoid stays
    /// outside the ball of radius b, and radial projection onto that ball's sphere shortens it,
    /// so it is at least b times the angle θ between p and q seen from the centre; and for |q|
    /// between b and a, a chord of at least c gives, by the law of cosines, cos θ at most
    /// (|p|² + r² − c²) / (2|p|r) at r = b or r = a (the expression is largest at an end).
    package func lowerBound(_ p: Point, toBox box: Box) -> Double {
        let chord = distance(p, to: box)
        guard !planar, chord > 0 else { return chord }
        let b = earth.a * (1 - earth.f), pp = (p * p).sum(), length = pp.squareRoot()
        func cosine(_ r: Double) -> Double { (pp + r * r - chord * chord) / (2 * length * r) }
        let angle = acos(min(1, max(cosine(b), cosine(earth.a))))
        return max(chord, b * angle * (1 - 1e-12))
    }

    /// The distance from `p` to the straight segment from `a` to `b`.
    package func segmentDistance(_ p: Point, _ a: Point, _ b: Point) -> Double {
        let ab = b - a, ap = p - a
        let square = (ab * ab).sum()
        let t = square > 0 ? min(1, max(0, (ap * ab).sum() / square)) : 0
        let d = ap - ab * t
        return (d * d).sum().squareRoot()
    }

    /// The least distance from `p` to the box (for `projected`, from the nearest copy of `p`).
    package func distance(_ p: Point, to box: Box) -> Double {
        func plain(_ q: Point) -> Double {
            let d = pointwiseMax(pointwiseMax(box.low - q, q - box.high), Point(repeating: 0))
            return (d * d).sum().squareRoot()
        }
        guard planar else { return plain(p) }
        return min(plain(p), plain(p + Point(worldWidth, 0, 0)), plain(p - Point(worldWidth, 0, 0)))
    }
}

/// An axis-aligned box in the search space.
package struct Box: Sendable {
    package var low: SIMD3<Double>
    package var high: SIMD3<Double>

    package init(low: SIMD3<Double>, high: SIMD3<Double>) {
        self.low = low
        self.high = high
    }

    package static let empty = Box(low: SIMD3(repeating: .infinity), high: SIMD3(repeating: -.infinity))

    package mutating func formUnion(_ other: Box) {
        low = pointwiseMin(low, other.low)
        high = pointwiseMax(high, other.high)
    }

    package var center: SIMD3<Double> { (low + high) / 2 }
}
