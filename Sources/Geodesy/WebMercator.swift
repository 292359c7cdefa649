#if canImport(Glibc)
import Glibc
#endif
import Geometry

/// EPSG:3857, the projection of every map tile, worked out once for all of geo: the drawing
/// (`Projection` of "EPSG:3857"), the tile grid, the `projected` kind's measures and `locate`'s
/// plane. Its formulas are PROJ's own steps in PROJ's order (unitconvert to radians, then
/// webmerc: x = a·λ, y = a·asinh(tan φ)), so every value is bit for bit what PROJ gives
/// (Tests/GeoTests/RenderTests.swift compares them over the whole globe and its edges).
public enum WebMercator {
    /// WGS84's semi-major axis, the sphere EPSG:3857 projects.
    public static let radius = 6378137.0
    /// x at ±180°: π·a, half the world's width in metres.
    public static let half = 20037508.342789244
    /// atan(sinh(π)): the latitude where y reaches ±half and the world is square, the limit web
    /// maps hold latitudes to.
    public static let latitudeLimit = 85.051128779806592
    /// PROJ's degrees-to-radians factor (unitconvert), one rounding.
    static let radians = 0.017453292519943296

    /// y of a latitude within ±90° (degrees), as PROJ gives it: what is drawn.
    @inline(__always)
    public static func y(latitude: Double) -> Double { radius * asinh(tan(latitude * radians)) + 0 }

    /// x of a longitude within ±180° (degrees), as PROJ gives it.
    @inline(__always)
    public static func x(longitude: Double) -> Double { radius * (longitude * radians) + 0 }

    /// y measured, for the `projected` kind's lengths and areas and `locate`'s plane, on a sphere
    /// of `radius` (the ellipsoid's a): the same formula with tan taken from exactly reduced
    /// degrees, which keeps y to a relative 1e-15 up to the pole, where PROJ's tan(φ·π/180) is
    /// good only to a·ulp/cos φ (a metre-sized error within 1e-9° of it). The two agree to that
    /// bound everywhere (Tests/GeoTests/RenderTests.swift); measures take this one, pictures
    /// PROJ's.
    @inline(__always)
    public static func measuredY(latitude: Double, radius: Double) -> Double {
        let (s, c) = sincosDegrees(latitude)
        return radius * asinh(s / c)
    }

    /// A position in metres, its longitude taken into ±180° and its latitude held to
    /// ±`latitudeLimit`, as a web map (and geo's drawing) holds it.
    public static func metres(_ position: Position) -> (x: Double, y: Double) {
        let latitude = min(max(position.latitude, -latitudeLimit), latitudeLimit)
        return (x(longitude: normalizedLongitude(position.longitude)), y(latitude: latitude))
    }

    /// Projects `count` positions in place, degrees in, metres out, as PROJ does: a latitude
    /// within 1e-12 past ±π/2 is taken as the pole and a longitude brought within ±π (pj_fwd's
    /// preparation); a latitude further past the pole, a longitude past 10 radians, or NaN is
    /// PROJ's error: infinity.
    public static func project(x: UnsafeMutablePointer<Double>, y: UnsafeMutablePointer<Double>, count: Int) {
        for index in 0..<count {
            var lambda = x[index] * radians
            var phi = y[index] * radians
            guard abs(phi) <= Double.pi / 2 + 1e-12, abs(lambda) <= 10 else {
                x[index] = .infinity
                y[index] = .infinity
                continue
            }
            if abs(phi) > Double.pi / 2 { phi = phi < 0 ? -Double.pi / 2 : Double.pi / 2 }
            if abs(lambda) >= Double.pi + 1e-12 {
                lambda += Double.pi
                lambda -= 2 * Double.pi * (lambda / (2 * Double.pi)).rounded(.down)
                lambda -= Double.pi
            }
            x[index] = radius * lambda + 0
            y[index] = radius * asinh(tan(phi)) + 0
        }
    }

    /// The longitude and latitude of a point in metres (the inverse, for tile bounds).
    public static func position(x: Double, y: Double) -> Position {
        Position(longitude: x / radius / radians, latitude: (2 * atan(exp(y / radius)) - .pi / 2) / radians)
    }
}
