import SystemLibraries
import XCTest

/// SystemLibraries' `geo_hypot` (exported as `hypot` for PROJ): within 1.2 ulp of the exact value,
/// checked against Float80 (64-bit mantissa, a far wider exponent range), and C99's special cases.
final class SystemLibrariesTests: XCTestCase {
    /// |result - exact| in units in the last place of the exact value rounded to a double.
    func ulpError(_ x: Double, _ y: Double) -> Double {
        let exact = (Float80(x) * Float80(x) + Float80(y) * Float80(y)).squareRoot()
        let result = geo_hypot(x, y)
        if Double(exact).isInfinite { return result.isInfinite ? 0 : .infinity }
        return Double(abs(Float80(result) - exact) / Float80(Double(exact).ulp))
    }

    func testWithinOneUlpOnRandomOperandsOfEveryMagnitude() {
        var generator = SystemRandomNumberGenerator()
        var worst = 0.0
        for _ in 0..<200_000 {
            // Exponents across the whole range, so the scaled branches are exercised too.
            let x = Double(sign: Bool.random(using: &generator) ? .minus : .plus,
                           exponent: Int.random(in: -1074...1023, using: &generator),
                           significand: Double.random(in: 1..<2, using: &generator))
            let nearby = x * Double.random(in: 0.5...2, using: &generator)
            let y = Bool.random(using: &generator) ? nearby : Double(sign: .plus, exponent: Int.random(in: -1074...1023), significand: 1.5)
            worst = max(worst, ulpError(x, y))
        }
        XCTAssertLessThanOrEqual(worst, 1.2)
    }

    func testWithinOneUlpOnWhatGeodesicsNormalise() {
        // PROJ's norm2(sin, cos) pairs: operands near 1 and near 0.
        var worst = 0.0
        for _ in 0..<200_000 {
            let angle = Double.random(in: -Double.pi...Double.pi)
            let scale = Double.random(in: 0.9...1.1)
            worst = max(worst, ulpError(sin(angle) * scale, cos(angle) * scale))
        }
        XCTAssertLessThanOrEqual(worst, 1.2)
    }

    func testEdgesOfTheScaledRanges() {
        for x in [0x1p500, 0x1p-500, 0x1p1023, Double.greatestFiniteMagnitude / 2, 0x1p-1074, 0x1p-1022, 1, 3] {
            for y in [0, 0x1p500, 0x1p-500, 0x1p-1074, 4, x, x * 0x1p-60, x * 0x1p-26] {
                XCTAssertLessThanOrEqual(ulpError(x, y), 1.2, "hypot(\(x), \(y))")
            }
        }
        XCTAssertEqual(geo_hypot(3, 4), 5)
        XCTAssertEqual(geo_hypot(-3, 4), 5)
        XCTAssertEqual(geo_hypot(0, -0.0), 0)
        XCTAssertEqual(geo_hypot(.greatestFiniteMagnitude, .greatestFiniteMagnitude), .infinity)
    }

    func testSpecialValuesFollowC99() {
        XCTAssertEqual(geo_hypot(.infinity, .nan), .infinity)
        XCTAssertEqual(geo_hypot(.nan, -.infinity), .infinity)
        XCTAssertEqual(geo_hypot(-.infinity, 1), .infinity)
        XCTAssertTrue(geo_hypot(.nan, 1).isNaN)
        XCTAssertTrue(geo_hypot(0, .nan).isNaN)
    }

}
