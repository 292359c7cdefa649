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

/// The signed difference λ2 − λ1 reduced to [-180, 180]: the short way round, with the sign of a
/// half turn decided as PROJ's geodesics (GeographicLib's AngDiff) decide it, from the exact
/// difference: λ1 = −179.9, λ2 = 0.1 differ by 180.000000000000005… in binary, so the short way
/// is west (−180), though the rounded difference is 180. Every edge then runs the way PROJ's
/// inverse runs it, and a ring's winding round the poles agrees with its area's terms
/// (GeographicLib's Planimeter tests 5 and 6).
@inline(__always)
public func longitudeDifference(_ from: Double, _ to: Double) -> Double {
    // remainder(d, 360) without its cost where the answer is plain: d itself within ±180, and
    // d ∓ 360 (exact, by Sterbenz's lemma) within ±540, as remainder gives it. A rounded d below
    // 180 in magnitude means an exact one below 180 too (rounding is monotonic).
    let d = to - from
    if abs(d) < 180 { return d }
    let reduced = abs(d) < 540 ? (abs(d) == 180 ? d : d > 0 ? d - 360 : d + 360) : remainder(d, 360)
    guard abs(reduced) == 180 else { return reduced }
    // A half turn: the rounding error of d (Knuth's two-sum) says which side of it the exact
    // difference lies; none, and the sign of d stands.
    let part = d - to
    let error = (to - (d - part)) + (-from - part)
    return error == 0 ? (d < 0 ? -180 : 180) : (error > 0 ? -180 : 180)
}

/// Neumaier's compensated summation: adding a million edge lengths loses nothing visible.
public struct CompensatedSum: Sendable {
    public private(set) var sum = 0.0
    private var compensation = 0.0

    public init() {}

    @inline(__always)
    public mutating func add(_ value: Double) {
        let total = sum + value
        if abs(sum) >= abs(value) {
            compensation += (sum - total) + value
        } else {
            compensation += (value - total) + sum
        }
        sum = total
    }

    public var value: Double { sum + compensation }
}
