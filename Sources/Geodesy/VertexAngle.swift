#if canImport(Glibc)
import Glibc
#endif
import CProj
import Geometry

extension EdgeModel {
    /// The cosine of the angle at `b` between its edges to `a` and to `c`, each running by the
    /// kind: 1 for a spike folding back on itself, −1 for a straight run. The angle is the
    /// difference of the two edges' azimuths at `b` (geodesic azimuths, rhumb courses, or Web
    /// Mercator grid bearings), what mapshaper's weighted Visvalingam measures in the plane.
    /// A zero-length edge has no direction: the angle is taken as straight (−1).
    public func angleCosine(at b: Position, from a: Position, to c: Position) -> Double {
        guard a != b && c != b else { return -1 }
        switch kind {
        case .geodesic:
            var toA = 0.0, toC = 0.0, s12 = 0.0, azi2 = 0.0
            geod_inverse(geodesic.pointer, b.latitude, b.longitude, a.latitude, a.longitude, &s12, &toA, &azi2)
            geod_inverse(geodesic.pointer, b.latitude, b.longitude, c.latitude, c.longitude, &s12, &toC, &azi2)
            return sincosDegrees(toA - toC).cos
        case .rhumb:
            let toA = rhumb.inverse(b.latitude, b.longitude, a.latitude, a.longitude).azimuth
            let toC = rhumb.inverse(b.latitude, b.longitude, c.latitude, c.longitude).azimuth
            return cos(toA - toC)
        case .projected:
            let (ax, ay) = mercatorDelta(b, a), (cx, cy) = mercatorDelta(b, c)
            let lengths = hypot(ax, ay) * hypot(cx, cy)
            return lengths > 0 ? (ax * cx + ay * cy) / lengths : -1
        }
    }
}
