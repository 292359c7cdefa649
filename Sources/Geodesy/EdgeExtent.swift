#if canImport(Glibc)
import Glibc
#endif
import CProj
import Geometry

/// An interval of longitudes running east from `west` through `width` degrees, across ±180 when
/// it must: what a spatial index needs of an edge.
public struct LongitudeSpan: Sendable, Equatable {
    /// The western end, in [-180, 180).
    public let west: Double
    /// Degrees eastward from `west`, in [0, 360]; 360 is every longitude.
    public let width: Double

    public init(west: Double, width: Double) {
        let reduced = remainder(west, 360)
        self.west = reduced == 180 ? -180 : reduced
        self.width = min(max(width, 0), 360)
    }

    /// Every longitude (an edge that reaches a pole, where all meridians meet).
    public static let all = LongitudeSpan(west: -180, width: 360)

    public var isAll: Bool { width >= 360 }
    /// The eastern end, in [-180, 180].
    public var east: Double { normalizedLongitude(west + width) }
    /// Whether the span runs across the antimeridian.
    public var crossesAntimeridian: Bool { west + width > 180 }

    /// Whether `longitude` (any value, taken modulo 360) is in the span, ends included.
    public func contains(_ longitude: Double) -> Bool {
        if isAll { return true }
        var offset = remainder(longitude - west, 360)
        if offset < 0 { offset += 360 }
        return offset <= width
    }
}

extension EdgeModel {
    /// The latitudes the edge from `a` to `b` covers, by its kind, as exact as the inputs.
    ///
    /// A geodesic edge may bulge past both ends to its vertex, the point of greatest |latitude|
    /// on the whole geodesic: it is inside the edge when the azimuth crosses ±90° between the
    /// ends (heading poleward at one end and equatorward at the other), and its latitude follows
    /// from Clairaut's relation: with β the reduced latitude (tan β = (1 − f) tan φ), the
    /// equatorial azimuth α0 has sin α0 = sin α1·cos β1, the vertex has cos β0 = |sin α0|, so
    /// tan φ0 = tan β0/(1 − f) (Karney 2013, §2). An edge over a pole reaches ±90. Rhumb lines and
    /// projected edges are monotonic in latitude: the ends bound them.
    ///
    /// A spatial index should pad the range by the distance it searches within (the bound is
    /// exact to rounding, about 1e-14°).
    public func latitudeRange(ofEdgeFrom a: Position, to b: Position) -> ClosedRange<Double> {
        guard kind == .geodesic, a != b else { return min(a.latitude, b.latitude)...max(a.latitude, b.latitude) }
        return lengthAndLatitudeRange(ofEdgeFrom: a, to: b).latitudes
    }

    /// |φ0|, the greatest latitude on the geodesic through latitude φ1 at azimuth α1.
    func vertexLatitude(latitude: Double, azimuth: Double) -> Double {
        let oneMinusF = 1 - earth.f
        let (sinPhi, cosPhi) = sincosDegrees(latitude)
        let norm = hypot(oneMinusF * sinPhi, cosPhi)
        let sinBeta = oneMinusF * sinPhi / norm, cosBeta = cosPhi / norm
        let (sinAlpha, cosAlpha) = sincosDegrees(azimuth)
        let sinAlpha0 = sinAlpha * cosBeta
        let cosAlpha0 = hypot(cosAlpha * cosBeta, sinBeta)
        // tan φ0 = tan β0/(1 − f) = cos α0/((1 − f)|sin α0|)
        return atan2(cosAlpha0, oneMinusF * abs(sinAlpha0)) * 180 / .pi
    }

    /// The longitudes the edge from `a` to `b` covers: the short way round from one end to the
    /// other (edges of every kind are monotonic in longitude), or every longitude when the edge
    /// reaches a pole (a pole vertex, or a geodesic running over one).
    public func longitudeSpan(ofEdgeFrom a: Position, to b: Position) -> LongitudeSpan {
        let lambda12 = longitudeDifference(a.longitude, b.longitude)
        if kind != .projected {
            if abs(a.latitude) == 90 || abs(b.latitude) == 90 { return .all }
            if kind == .geodesic && abs(lambda12) == 180 { return .all }  // a meridian over a pole
        }
        return lambda12 >= 0 ? LongitudeSpan(west: a.longitude, width: lambda12) : LongitudeSpan(west: b.longitude, width: -lambda12)
    }
}

extension EdgeModel {
    /// The edge's length and its latitude range together: for a geodesic one inverse problem
    /// gives both (what an index of many edges wants: half the work of asking twice).
    public func lengthAndLatitudeRange(ofEdgeFrom a: Position, to b: Position) -> (length: Double, latitudes: ClosedRange<Double>) {
        guard kind == .geodesic, a != b else { return (length(a, b), latitudeRange(ofEdgeFrom: a, to: b)) }
        var s12 = 0.0, azi1 = 0.0, azi2 = 0.0
        geod_inverse(geodesic.pointer, a.latitude, a.longitude, b.latitude, b.longitude, &s12, &azi1, &azi2)
        var low = min(a.latitude, b.latitude), high = max(a.latitude, b.latitude)
        let northward1 = abs(azi1) < 90, northward2 = abs(azi2) < 90
        if northward1 != northward2 {
            let vertex = vertexLatitude(latitude: a.latitude, azimuth: azi1)
            if northward1 { high = max(high, vertex) } else { low = min(low, -vertex) }
        }
        return (s12, low...high)
    }
}
