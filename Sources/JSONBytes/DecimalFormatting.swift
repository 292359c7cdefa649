/// Decimal text for doubles: the shortest digits that read back to the same double, always in
/// plain positional notation (`0.00006`, never `6e-05`: geodesy tools read `e` as a hemisphere
/// letter), optionally rounded to a number of decimals.
///
/// Fast path: a value with at most 15 significant digits is found by scaling it to an integer and
/// checking that dividing back gives the same double. Any two decimals of at most 15 significant
/// digits map to different doubles (DBL_DIG), so that integer *is* the shortest representation,
/// and it prints with integer arithmetic only. Everything else takes the exact (slower) path
/// through Swift's shortest round-trip printer.
public struct DecimalNumber: Equatable, Sendable {
    public var negative: Bool
    /// At most 17 significant digits, trailing zeros removed.
    public var significand: UInt64
    public var exponent: Int

    public init(negative: Bool, significand: UInt64, exponent: Int) {
        self.negative = negative
        self.significand = significand
        self.exponent = exponent
        normalize()
    }

    /// The shortest decimal that reads back as `value`; nil for infinities and NaN.
    public init?(shortest value: Double) {
        guard value.isFinite else { return nil }
        negative = value.sign == .minus
        if let (scaled, scale) = DecimalNumber.scaledExactly(value.magnitude) {
            significand = scaled
            exponent = -scale
        } else {
            (significand, exponent) = DecimalNumber.parseDescription(value.magnitude)
        }
        normalize()
    }

    /// An exact scaled integer, `integer / 10^scale`, as decoded polylines are.
    public init(integer: Int64, scale: Int) {
        self.init(negative: integer < 0, significand: integer.magnitude, exponent: -scale)
    }

    private mutating func normalize() {
        if significand == 0 { exponent = 0; return }
        while significand % 10 == 0 { significand /= 10; exponent += 1 }
    }

    /// Rounded to `decimals` places, half away from zero (on the decimal digits, so the value
    /// printed as `1.005` rounds to `1.01`).
    public func rounded(toDecimals decimals: Int) -> DecimalNumber {
        let drop = -exponent - decimals
        guard drop > 0 else { return self }
        guard drop <= 19 else { return DecimalNumber(negative: negative, significand: 0, exponent: 0) }
        return DecimalNumber(negative: negative, significand: roundedQuotient(significand, powerOfTenInteger(drop)),
                             exponent: -decimals)
    }

    /// `magnitude` as `integer / 10^scale` with at most 15 significant digits, if it is one: the
    /// fast path, and then provably the shortest representation.
    @inline(__always)
    static func scaledExactly(_ magnitude: Double) -> (UInt64, Int)? {
        guard magnitude < 1e15 && magnitude >= 1e-7 else { return nil }
        let integerDigits = magnitude < 1 ? 0 : decimalDigitCount(UInt64(magnitude))
        let scale = 15 - integerDigits
        let power = powerOfTen(scale)
        // Round to an integer with the 2^52 trick (cheaper than libm's round); exactness is checked.
        let scaled = (magnitude * power + 0x1p52) - 0x1p52
        guard scaled < 1e15 && scaled / power == magnitude else { return nil }
        // Drop trailing zeros now, by constant divisors, so that only significant digits print.
        var integer = UInt64(scaled)
        var digits = scale
        if integer == 0 { return (0, 0) }
        if digits >= 8 && integer % 100_000_000 == 0 { integer /= 100_000_000; digits -= 8 }
        if digits >= 4 && integer % 10_000 == 0 { integer /= 10_000; digits -= 4 }
        if digits >= 2 && integer % 100 == 0 { integer /= 100; digits -= 2 }
        if digits >= 1 && integer % 10 == 0 { integer /= 10; digits -= 1 }
        return (integer, digits)
    }

    /// Digits and exponent from Swift's shortest round-trip `description` (`1.2345e-05`, `123.4`).
    static func parseDescription(_ magnitude: Double) -> (UInt64, Int) {
        var significand: UInt64 = 0
        var exponent = 0
        var text = magnitude.description
        text.withUTF8 { utf8 in
            var index = 0
            var afterPoint = false
            while index < utf8.count {
                let byte = utf8[index]
                if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                    significand = significand * 10 + UInt64(byte - UInt8(ascii: "0"))
                    if afterPoint { exponent -= 1 }
                } else if byte == UInt8(ascii: ".") {
                    afterPoint = true
                } else if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
                    index += 1
                    var sign = 1
                    if utf8[index] == UInt8(ascii: "-") { sign = -1; index += 1 }
                    else if utf8[index] == UInt8(ascii: "+") { index += 1 }
                    var power = 0
                    while index < utf8.count { power = power * 10 + Int(utf8[index] - UInt8(ascii: "0")); index += 1 }
                    exponent += sign * power
                    break
                }
                index += 1
            }
        }
        return (significand, exponent)
    }
}

/// `value / divisor` rounded half away from zero.
@inline(__always)
func roundedQuotient(_ value: UInt64, _ divisor: UInt64) -> UInt64 {
    let quotient = value / divisor
    let remainder = value % divisor
    return remainder >= divisor - remainder ? quotient + 1 : quotient
}

/// 10^k for k in 0...22, every one exact as a double: a load from a table, not a branch on k
/// (a switch compiled to an indirect jump that mispredicted whenever a number's digit count
/// changed, 7 % of `geo encode` once it was no longer inlined). The table is a global `var` of a
/// tuple because that is what Swift initialises statically: a `let`, or a `let` read through
/// `withUnsafeBytes`, was copied to the stack, 23 stores a lookup, and a lazily initialised
/// global costs a check each time. Nothing writes it.
@inlinable @inline(__always)
public func powerOfTen(_ k: Int) -> Double {
    precondition(k >= 0 && k <= 22, "10^k is not exact as a double")
    return withUnsafePointer(to: &exactPowersOfTen) { UnsafeRawPointer($0).load(fromByteOffset: k &* 8, as: Double.self) }
}

@usableFromInline nonisolated(unsafe) var exactPowersOfTen: (Double, Double, Double, Double, Double, Double, Double, Double,
                                                           Double, Double, Double, Double, Double, Double, Double, Double,
                                                           Double, Double, Double, Double, Double, Double, Double) =
    (1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22)

/// 10^k for k in 0...19 as an integer.
@inline(__always)
public func powerOfTenInteger(_ k: Int) -> UInt64 {
    switch k {
    case 0: 1
    case 1: 10
    case 2: 100
    case 3: 1_000
    case 4: 10_000
    case 5: 100_000
    case 6: 1_000_000
    case 7: 10_000_000
    case 8: 100_000_000
    case 9: 1_000_000_000
    case 10: 10_000_000_000
    case 11: 100_000_000_000
    case 12: 1_000_000_000_000
    case 13: 10_000_000_000_000
    case 14: 100_000_000_000_000
    case 15: 1_000_000_000_000_000
    case 16: 10_000_000_000_000_000
    case 17: 100_000_000_000_000_000
    case 18: 1_000_000_000_000_000_000
    case 19: 10_000_000_000_000_000_000
    default: preconditionFailure("10^\(k) does not fit 64 bits")
    }
}

/// The number of decimal digits of `value` (1 for 0): log10 from the bit length, then one
/// comparison.
@inline(__always)
func decimalDigitCount(_ value: UInt64) -> Int {
    let guess = ((64 - value.leadingZeroBitCount) &* 1233) >> 12
    return guess < 20 && value >= powerOfTenInteger(guess) ? guess + 1 : max(guess, 1)
}

/// "00" "01" ... "99": two digits per division when printing integers. A StaticString lives in
/// the binary's constant data: no lazy initialisation.
private let digitPairs: StaticString = """
    0001020304050607080910111213141516171819\
    2021222324252627282930313233343536373839\
    4041424344454647484950515253545556575859\
    6061626364656667686970717273747576777879\
    8081828384858687888990919293949596979899
    """

/// The eight decimal digits of `value` (under 10^8, zero-padded), one a byte, the first digit
/// in the lowest byte, as values 0...9 (add 0x30 to each for ASCII): in 64-bit lanes, with
/// multiplications by reciprocals that are exact for these ranges (10486 / 2^20 for / 100 under
/// 10^4, 103 / 2^10 for / 10 under 100). After Paul Khuong's "SWAR itoa".
@inline(__always)
func digitValues(_ value: UInt64) -> UInt64 {
    // Lanes of 32 bits: the first four digits, the last four.
    let halves = (value / 10_000) | ((value % 10_000) << 32)
    // Lanes of 16 bits: two digits each.
    let hundreds = ((halves &* 10486) >> 20) & 0x0000_007F_0000_007F
    let pairs = ((halves &- hundreds &* 100) << 16) &+ hundreds
    // Bytes: one digit each.
    let tens = ((pairs &* 103) >> 10) & 0x000F_000F_000F_000F
    return tens &+ ((pairs &- tens &* 10) << 8)
}

/// Writes `integerPart.fraction` with `scale` fraction digits at `at`, trailing zeros dropped
/// (and the point with them when the fraction is 0), `-` first when `negative`; returns where it
/// ends. For an integer part under 10^8 and at most 16 fraction digits: every coordinate and
/// nearly every number geo prints. Digits go eight at a time (`digitValues`), written as whole
/// words, some bytes past the end, and then counted in: no branch depends on how many digits a
/// number has. The loops that looked for the first digit and the last non-zero one mispredicted
/// on every other coordinate. Needs 40 bytes of room.
@inline(__always)
func writeScaled(negative: Bool, _ integerPart: UInt64, _ fraction: UInt64, scale: Int,
                 at start: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer {
    let zeros: UInt64 = 0x3030_3030_3030_3030
    var at = start
    at.storeBytes(of: UInt8(ascii: "-"), as: UInt8.self)
    at += negative ? 1 : 0
    // Leading zero digits are the low bytes that are 0; one digit is always written.
    let integerDigits = digitValues(integerPart)
    let leading = min(integerDigits.trailingZeroBitCount / 8, 7)
    at.storeBytes(of: (integerDigits &>> UInt64(8 * leading)) | zeros, as: UInt64.self)
    at += 8 - leading
    at.storeBytes(of: UInt8(ascii: "."), as: UInt8.self)
    // The fraction's `scale` digits, then how many remain once trailing zeros are dropped.
    let significant: Int
    if scale <= 8 {
        let digits = digitValues(fraction) >> UInt64(8 * (8 - scale))
        (at + 1).storeBytes(of: digits | zeros, as: UInt64.self)
        significant = (71 - digits.leadingZeroBitCount) / 8
    } else {
        let high = digitValues(fraction / 100_000_000) &>> UInt64(8 * (16 - scale))
        let low = digitValues(fraction % 100_000_000)
        (at + 1).storeBytes(of: high | zeros, as: UInt64.self)
        (at + 1 + scale - 8).storeBytes(of: low | zeros, as: UInt64.self)
        significant = low != 0 ? scale - 8 + (71 - low.leadingZeroBitCount) / 8 : (71 - high.leadingZeroBitCount) / 8
    }
    return at + (significant == 0 ? 0 : significant + 1)
}

private extension UInt16 {
    /// Two ASCII characters as they lie in memory (little-endian).
    init(ascii2 text: StaticString) {
        self = UInt16(text.utf8Start[0]) | UInt16(text.utf8Start[1]) << 8
    }
}

extension ByteBuffer {
    /// Writes the `length` lowest decimal digits of `value` at `start`, zero-padded on the left.
    @inline(__always)
    func writeDigits(_ value: UInt64, length: Int, at start: UnsafeMutablePointer<UInt8>) {
        let pairs = digitPairs.utf8Start
        var index = length
        var rest = value
        while index >= 2 {
            let pair = Int(rest % 100) &* 2
            rest /= 100
            index -= 2
            start[index] = pairs[pair]
            start[index + 1] = pairs[pair + 1]
        }
        if index == 1 { start[0] = UInt8(truncatingIfNeeded: rest % 10) &+ 48 }
    }

    /// Appends the decimal digits of `value`.
    @inline(__always)
    public func appendDigits(_ value: UInt64) {
        let length = decimalDigitCount(value)
        writeDigits(value, length: length, at: reserve(length))
        count += length
    }

    public func appendInteger(_ value: Int) {
        if value < 0 { append(UInt8(ascii: "-")) }
        appendDigits(UInt64(value.magnitude))
    }

    /// `magnitude / 10^scale` in plain notation, trailing zeros dropped, optionally rounded to
    /// `decimals` places (half away from zero). Integer arithmetic only.
    @inline(__always)
    public func appendScaled(negative: Bool, magnitude: UInt64, scale: Int, decimals: Int? = nil) {
        var magnitude = magnitude
        var scale = scale
        if let decimals, decimals < scale {
            magnitude = roundedQuotient(magnitude, powerOfTenInteger(scale - decimals))
            scale = decimals
        }
        let unit = powerOfTenInteger(scale)
        let integerPart = magnitude / unit
        let fraction = magnitude % unit
        if integerPart < 100_000_000 && scale <= 16 {
            return appendScaledInWords(negative: negative && magnitude != 0, integerPart, fraction, scale: scale)
        }
        // Zero prints as 0 whatever its sign (-0.0, or -0.00001 rounded to 4 decimals).
        if negative && magnitude != 0 { append(UInt8(ascii: "-")) }
        appendDigits(integerPart)
        guard fraction != 0 else { return }
        let start = reserve(scale + 1)
        start[0] = UInt8(ascii: ".")
        writeDigits(fraction, length: scale, at: start + 1)
        var length = scale
        while start[length] == UInt8(ascii: "0") { length -= 1 }
        count += length + 1
    }

    /// `integerPart.fraction` with `scale` fraction digits, for an integer part under 10^8 and
    /// at most 16 fraction digits (`writeScaled`).
    @inline(__always)
    func appendScaledInWords(negative: Bool, _ integerPart: UInt64, _ fraction: UInt64, scale: Int) {
        let end = writeScaled(negative: negative, integerPart, fraction, scale: scale, at: UnsafeMutableRawPointer(reserve(40)))
        count = base.distance(to: end.assumingMemoryBound(to: UInt8.self))
    }

    /// `[x,y],[x,y],...` for pairs of scaled integers (`integer / 10^scale`, as `appendScaled`
    /// prints each one), in one loop that writes through a local pointer: no room check and no
    /// stored count per number. The pairs of a decoded path are most of `geo decode`'s output.
    public func appendScaledPairs(_ integers: UnsafeBufferPointer<Int64>, scale: Int, decimals: Int?) {
        // Precision 5 (Google's) and 6 (OSRM's, Valhalla's) get loops of their own, where 10^scale
        // is a constant: its divisions become multiplications.
        switch (scale, decimals) {
        case (5, nil): appendScaledPairs(integers, constantScale: 5, decimals: nil)
        case (6, nil): appendScaledPairs(integers, constantScale: 6, decimals: nil)
        default: appendScaledPairs(integers, constantScale: scale, decimals: decimals)
        }
    }

    @inline(__always)
    private func appendScaledPairs(_ integers: UnsafeBufferPointer<Int64>, constantScale scale: Int, decimals: Int?) {
        let unit = powerOfTenInteger(min(scale, 19))
        // Past 15 digits a number prints through its double; past 10^8 its integer part does not
        // fit a word: both go the general way, as does rounding to `decimals`.
        let fastLimit = scale <= 16 && decimals == nil ? min(unit.multipliedReportingOverflow(by: 100_000_000).overflow ? .max : unit * 100_000_000, 1_000_000_000_000_000) : 0
        let pairsPerBatch = 256
        var index = 0
        while index < integers.count {
            let end = min(integers.count, index + 2 * pairsPerBatch)
            var at = UnsafeMutableRawPointer(reserve((end - index) / 2 * (2 * 40 + 3)))
            while index < end {
                let x = integers[index], y = integers[index + 1]
                guard x.magnitude < fastLimit && y.magnitude < fastLimit else { break }
                at.storeBytes(of: UInt8(ascii: "["), as: UInt8.self)
                at = writeScaled(negative: x < 0, x.magnitude / unit, x.magnitude % unit, scale: scale, at: at + 1)
                at.storeBytes(of: UInt8(ascii: ","), as: UInt8.self)
                at = writeScaled(negative: y < 0, y.magnitude / unit, y.magnitude % unit, scale: scale, at: at + 1)
                at.storeBytes(of: UInt16(ascii2: "],"), as: UInt16.self)
                at += 2
                index += 2
            }
            count = base.distance(to: at.assumingMemoryBound(to: UInt8.self))
            if index < end {
                append(UInt8(ascii: "["))
                appendScaled(integers[index], scale: scale, decimals: decimals)
                append(UInt8(ascii: ","))
                appendScaled(integers[index + 1], scale: scale, decimals: decimals)
                append("],")
                index += 2
            }
        }
        if !integers.isEmpty { count -= 1 }  // the last pair's comma
    }

    /// Plain positional notation: `-0.00006`, `123.4`, `10000000000000000`.
    public func append(_ number: DecimalNumber) {
        if number.exponent >= 0 {
            if number.negative && number.significand != 0 { append(UInt8(ascii: "-")) }
            appendDigits(number.significand)
            if number.significand != 0 {
                for _ in 0..<number.exponent { append(UInt8(ascii: "0")) }
            }
        } else if -number.exponent <= 19 {
            appendScaled(negative: number.negative, magnitude: number.significand, scale: -number.exponent)
        } else {
            // Tinier than 10^-19: "0." then zeros, then the digits.
            if number.negative { append(UInt8(ascii: "-")) }
            append("0.")
            let zeros = -number.exponent - decimalDigitCount(number.significand)
            for _ in 0..<zeros { append(UInt8(ascii: "0")) }
            appendDigits(number.significand)
        }
    }

    /// A coordinate or other output double: shortest round-trip digits, or rounded to `decimals`.
    /// Non-finite values have no JSON form; callers reject them before output.
    @inline(__always)
    public func appendNumber(_ value: Double, decimals: Int? = nil) {
        if let (scaled, scale) = DecimalNumber.scaledExactly(value.magnitude) {
            appendScaled(negative: value < 0, magnitude: scaled, scale: scale, decimals: decimals)
            return
        }
        guard var number = DecimalNumber(shortest: value) else {
            preconditionFailure("non-finite number reached the output")
        }
        if let decimals { number = number.rounded(toDecimals: decimals) }
        append(number)
    }

    /// `integer / 10^scale`, as `appendNumber` would print that double: digits straight from the
    /// integer when it has at most 15 of them (then they are the shortest), else through the double.
    @inline(__always)
    public func appendScaled(_ integer: Int64, scale: Int, decimals: Int?) {
        if integer.magnitude < 1_000_000_000_000_000 {
            appendScaled(negative: integer < 0, magnitude: integer.magnitude, scale: scale, decimals: decimals)
        } else {
            appendNumber(Double(integer) / powerOfTen(scale), decimals: decimals)
        }
    }
}
