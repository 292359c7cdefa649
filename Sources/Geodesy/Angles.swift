#if canImport(Glibc)
import Glibc
#endif

/// Angles in degrees, reduced exactly before converting to radians (GeographicLib's `sincosd`):
/// sin 90° is exactly 1 and cos 90° exactly 0, which matters next to the poles.
@inline(__always)
public func sincosDegrees(_ degrees: Double) -> (sin: Double, cos: Double) {
    // [-180, 180]; most angles are already there, and remainder() is slow.
    var reduced = abs(degrees) <= 180 ? degrees : remainder(degrees, 360)
    let quarter = (reduced / 90).rounded()
    reduced -= 90 * quarter
    let radians = reduced * .pi / 180
    let s = sin(radians), c = cos(radians)
    switch Int(quarter) & 3 {
    case 0: return (s, c)
    case 1: return (c, -s)
    case 2: return (-s, -c)
    default: return (-c, s)
    }
}

/// A longitude in [-180, 180] (180 stays 180, as PROJ prints it).
@inline(__always)
public func normalizedLongitude(_ degrees: Double) -> Double {
    if abs(degrees) <= 180 { return degrees }
    let reduced = remainder(degrees, 360)
    return reduced == -180 && degrees > 0 ? 180 : reduced
}

/// The signed difference λ2 − λ1 reduced to [-180, 180]: the short way round.
@inline(__always)
public func longitudeDifference(_ from: Double, _ to: Double) -> Double {
    // remainder(d, 360) without its cost where the answer is plain: d itself within ±180, and
    // d ∓ 360 (exact, by Sterbenz's lemma) within ±540, as remainder gives it.
    let d = to - from
    if abs(d) <= 180 { return d }
    if abs(d) < 540 { return d > 0 ? d - 360 : d + 360 }
    return remainder(d, 360)
}
