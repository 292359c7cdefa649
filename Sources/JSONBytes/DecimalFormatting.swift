/// Decimal text for doubles: the shortest digits that read back to the same double, always in
/// plain positional notation (`0.00006`, never `6e-05`: geodesy tools read `e` as a hemisphere
/// letter), optionally rounded to a number of decimals.
///
/// Fast path: a value with at most 15 significant digits is found by scaling to an integer and
/// checking that dividing back gives the same double. Any two decimals of at most 15 significant
/// digits map to different doubles (DBL_DIG), so that integer *is* the shortest representation.
/// Everything else takes the exact (slower) path through Swift's shortest round-trip printer.
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
        let magnitude = value.magnitude
        negative = value.sign == .minus
        if magnitude == 0 {
            significand = 0; exponent = 0; return
        }
        if magnitude < 1e15 && magnitude >= 1e-7 {
            let scale = 15 - DecimalNumber.integerDigits(magnitude)
            let scaled = (magnitude * powersOfTen[scale]).rounded()
            if scaled < 1e15 && scaled / powersOfTen[scale] == magnitude {
                significand = UInt64(scaled); exponent = -scale
                normalize()
                return
            }
        }
        (significand, exponent) = DecimalNumber.parseDescription(magnitude)
        normalize()
    }

    /// `value` as an exact scaled integer, `integer / 10^scale`, as decoded polylines are.
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
        let divisor = powersOfTenInteger[drop]
        var quotient = significand / divisor
        let remainder = significand % divisor
        if remainder >= divisor - remainder { quotient += 1 }
        return DecimalNumber(negative: negative, significand: quotient, exponent: -decimals)
    }

    static func integerDigits(_ magnitude: Double) -> Int {
        var digits = 0
        while digits < 15 && magnitude >= powersOfTen[digits] { digits += 1 }
        return digits
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

/// 10^0 ... 10^22: every one exact as a double.
public let powersOfTen: [Double] = (0...22).map { power in
    var value = 1.0
    for _ in 0..<power { value *= 10 }
    return value
}

/// 10^0 ... 10^19 as integers.
public let powersOfTenInteger: [UInt64] = (0...19).map { power in
    var value: UInt64 = 1
    for _ in 0..<power { value *= 10 }
    return value
}

/// "00" "01" ... "99": two digits per division when printing integers.
private let digitPairs: [UInt8] = {
    var table: [UInt8] = []
    for value in 0..<100 {
        table.append(UInt8(48 + value / 10))
        table.append(UInt8(48 + value % 10))
    }
    return table
}()

@inline(__always) func decimalDigitCount(_ value: UInt64) -> Int {
    var count = 1
    while count < 20 && value >= powersOfTenInteger[count] { count += 1 }
    return count
}

extension ByteBuffer {
    /// Appends the decimal digits of `value`, written back to front in place.
    @inline(__always)
    public func appendDigits(_ value: UInt64) {
        let length = decimalDigitCount(value)
        let start = reserve(length)
        var index = length
        var rest = value
        digitPairs.withUnsafeBufferPointer { pairs in
            while rest >= 100 {
                let pair = Int(rest % 100) &* 2
                rest /= 100
                index -= 2
                start[index] = pairs[pair]
                start[index + 1] = pairs[pair + 1]
            }
            if rest >= 10 {
                let pair = Int(rest) &* 2
                start[0] = pairs[pair]
                start[1] = pairs[pair + 1]
            } else {
                start[0] = UInt8(truncatingIfNeeded: rest) &+ 48
            }
        }
        count += length
    }

    public func appendInteger(_ value: Int) {
        if value < 0 { append(UInt8(ascii: "-")) }
        appendDigits(UInt64(value.magnitude))
    }

    /// Plain positional notation: `-0.00006`, `123.4`, `10000000000000000`.
    public func append(_ number: DecimalNumber) {
        // Zero prints as 0 whatever its sign (-0.0, or -0.00001 rounded to 4 decimals).
        if number.negative && number.significand != 0 { append(UInt8(ascii: "-")) }
        if number.exponent >= 0 {
            appendDigits(number.significand)
            if number.significand != 0 {
                for _ in 0..<number.exponent { append(UInt8(ascii: "0")) }
            }
            return
        }
        let start = count
        appendDigits(number.significand)
        let digitCount = count - start
        let pointAt = digitCount + number.exponent  // digits before the decimal point
        if pointAt > 0 {
            // Shift the fraction right by one to make room for the point.
            let fraction = digitCount - pointAt
            let p = reserve(1)
            UnsafeMutableRawPointer(p - fraction + 1).copyMemory(from: p - fraction, byteCount: fraction)
            (p - fraction).pointee = UInt8(ascii: ".")
            count += 1
        } else {
            let leadingZeros = -pointAt
            let total = 2 + leadingZeros
            let p = reserve(total)
            let digits = p - digitCount
            UnsafeMutableRawPointer(digits + total).copyMemory(from: digits, byteCount: digitCount)
            digits[0] = UInt8(ascii: "0"); digits[1] = UInt8(ascii: ".")
            for i in 0..<leadingZeros { digits[2 + i] = UInt8(ascii: "0") }
            count += total
        }
    }

    /// A coordinate or other output double: shortest round-trip digits, or rounded to `decimals`.
    /// Non-finite values have no JSON form; callers reject them before output.
    @inline(__always)
    public func appendNumber(_ value: Double, decimals: Int? = nil) {
        guard var number = DecimalNumber(shortest: value) else {
            preconditionFailure("non-finite number reached the output")
        }
        if let decimals { number = number.rounded(toDecimals: decimals) }
        append(number)
    }
}
