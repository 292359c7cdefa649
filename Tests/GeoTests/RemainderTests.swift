import Glibc
import SystemLibraries
import XCTest

/// SystemLibraries' `geo_remainder` and `geo_remquo` (exported as `remainder` and `remquo` for
/// PROJ) against glibc's own, bit for bit: the result, the sign of a zero, and remquo's quotient.
final class RemainderTests: XCTestCase {
    typealias Remainder = @convention(c) (Double, Double) -> Double
    typealias Remquo = @convention(c) (Double, Double, UnsafeMutablePointer<Int32>) -> Double

    /// libm's functions themselves, not the ones this test binary defines.
    static let libm: (remainder: Remainder, remquo: Remquo) = {
        guard let handle = dlopen("libm.so.6", RTLD_NOW),
              let remainder = dlsym(handle, "remainder"), let remquo = dlsym(handle, "remquo") else {
            fatalError("cannot find libm's remainder and remquo")
        }
        return (unsafeBitCast(remainder, to: Remainder.self), unsafeBitCast(remquo, to: Remquo.self))
    }()

    func check(_ x: Double, _ y: Double, file: StaticString = #filePath, line: UInt = #line) {
        let expected = RemainderTests.libm.remainder(x, y)
        let result = geo_remainder(x, y)
        var expectedQuotient: Int32 = 0, quotient: Int32 = 0
        let expectedR = RemainderTests.libm.remquo(x, y, &expectedQuotient)
        let r = geo_remquo(x, y, &quotient)
        if expected.isNaN {
            XCTAssertTrue(result.isNaN && r.isNaN && expectedR.isNaN, "remainder(\(x), \(y))", file: file, line: line)
            return
        }
        XCTAssertEqual(result.bitPattern, expected.bitPattern, "remainder(\(x), \(y)): \(result), glibc \(expected)", file: file, line: line)
        XCTAssertEqual(r.bitPattern, expectedR.bitPattern, "remquo(\(x), \(y)): \(r), glibc \(expectedR)", file: file, line: line)
        XCTAssertEqual(quotient, expectedQuotient, "remquo(\(x), \(y))'s quotient", file: file, line: line)
    }

    func testWhatGeodesicsReduce() {
        // AngDiff's remainder(x, 360) of longitudes and their differences, sincosdx's remquo(x, 90)
        // of latitudes and longitude differences; with the ties and their neighbours.
        var generator = SystemRandomNumberGenerator()
        for y in [360.0, 90.0, -360.0] {
            for _ in 0..<300_000 {
                check(Double.random(in: -3.5 * abs(y)...3.5 * abs(y), using: &generator), y)
            }
            for k in -12...12 {
                let x = Double(k) * abs(y) / 4
                for value in [x, x.nextUp, x.nextDown, -x, x.nextUp.nextUp, x.nextDown.nextDown] { check(value, y) }
            }
        }
    }

    func testRandomOperandsOfEveryMagnitude() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500_000 {
            let y = Double(sign: Bool.random(using: &generator) ? .minus : .plus,
                           exponent: Int.random(in: -1074...1023, using: &generator),
                           significand: Double.random(in: 1..<2, using: &generator))
            // Quotients around the fast path's bounds, and far beyond them.
            let quotient = Bool.random(using: &generator) ? Double.random(in: -5...5, using: &generator)
                : Double.random(in: -1e6...1e6, using: &generator)
            let x = y * quotient
            check(x.isFinite ? x : y, y)
            // Ties: (n + 1/2)·y, exact for a divisor of 21 significant bits (and not subnormal).
            let short = Double(sign: y.sign, exponent: Int.random(in: -1000...1000, using: &generator),
                               significand: Double(Int.random(in: 1 << 20 ..< 1 << 21, using: &generator)) * 0x1p-20)
            let n = Double(Int.random(in: -4...4, using: &generator))
            let tie = (n + 0.5) * short
            check(tie, short)
            check(tie.nextUp, short)
            check(tie.nextDown, short)
        }
    }

    func testEdges() {
        let small = [0.0, -0.0, 0x1p-1074, -0x1p-1074, 0x1p-1022, 0x1p-1000, 0x1.8p-1000, 3 * 0x1p-1074]
        let large = [0x1p1000, 0x1p1001, 0x1p1023, Double.greatestFiniteMagnitude, -Double.greatestFiniteMagnitude]
        let special = [Double.infinity, -Double.infinity, Double.nan, 1, -1, 1.5, 2.5, 3, 4, 360, 90]
        let values = small + large + special
        for x in values {
            for y in values {
                check(x, y)
                check(x * 2.5, y)
                check(x.nextUp, y)
            }
        }
    }
}
