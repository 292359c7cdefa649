#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What is wrong with a JSON text, and where (a 0-based byte offset into the record).
public struct JSONError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public var offset: Int
    public init(_ message: String, at offset: Int) {
        self.message = message
        self.offset = offset
    }
    public var description: String { "invalid JSON at byte \(offset): \(message)" }
}

/// A string token: where its content lies (quotes excluded) and whether it has escapes to decode.
public struct JSONStringToken: Sendable {
    public var content: Range<Int>
    public var hasEscapes: Bool
}

/// Nesting deeper than this is rejected, not recursed into: 10,000-deep input must not crash.
public let maximumJSONDepth = 512

/// A byte-level scanner over one JSON text (RFC 8259), strict about the grammar and about UTF-8.
/// It never builds a tree: callers walk the members they need and keep the byte ranges of the rest,
/// so unknown members pass through untouched.
public struct JSONScanner {
    public let bytes: UnsafeBufferPointer<UInt8>
    public var position: Int

    public init(_ bytes: UnsafeBufferPointer<UInt8>, position: Int = 0) {
        self.bytes = bytes
        self.position = position
    }

    @inlinable @inline(__always) var end: Int { bytes.count }

    // The small steps below are inlinable: GeoJSON's readers call them for every token, and a
    // call each had been a tenth of reading a short Feature.

    @inlinable @inline(__always)
    public mutating func skipWhitespace() {
        while position < end {
            let byte = bytes[position]
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return }
            position += 1
        }
    }

    /// The next significant byte, or nil at the end.
    @inlinable @inline(__always)
    public mutating func peek() -> UInt8? {
        skipWhitespace()
        return position < end ? bytes[position] : nil
    }

    public func error(_ message: String, at offset: Int? = nil) -> JSONError {
        JSONError(message, at: offset ?? position)
    }

    func describeNext() -> String {
        guard position < end else { return "end of line" }
        let byte = bytes[position]
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x" + String(byte, radix: 16, uppercase: true)
    }

    @inlinable @inline(__always)
    public mutating func expect(_ byte: UInt8) throws(JSONError) {
        skipWhitespace()
        guard position < end, bytes[position] == byte else { throw expected(byte) }
        position += 1
    }

    @usableFromInline
    func expected(_ byte: UInt8) -> JSONError {
        error("expected '\(Character(Unicode.Scalar(byte)))', found \(describeNext())")
    }

    /// Enters an object or array; returns false when it is empty (and already closed).
    @inlinable @inline(__always)
    public mutating func enter(_ open: UInt8, _ close: UInt8) throws(JSONError) -> Bool {
        try expect(open)
        skipWhitespace()
        if position < end && bytes[position] == close { position += 1; return false }
        return true
    }

    /// After an element: true when a comma says another follows, false when `close` ends it.
    @inlinable @inline(__always)
    public mutating func next(_ close: UInt8) throws(JSONError) -> Bool {
        skipWhitespace()
        if position < end {
            let byte = bytes[position]
            if byte == UInt8(ascii: ",") { position += 1; return true }
            if byte == close { position += 1; return false }
        }
        throw expectedCommaOr(close)
    }

    @usableFromInline
    func expectedCommaOr(_ close: UInt8) -> JSONError {
        error("expected ',' or '\(Character(Unicode.Scalar(close)))', found \(describeNext())")
    }

    /// Reads a member's key and the colon after it.
    @inline(__always)
    public mutating func key() throws(JSONError) -> JSONStringToken {
        skipWhitespace()
        guard position < end, bytes[position] == UInt8(ascii: "\"") else {
            throw error("expected a member name in quotes, found \(describeNext())")
        }
        let token = try string()
        try expect(UInt8(ascii: ":"))
        return token
    }

    /// Checks that nothing but white space follows the value.
    public mutating func expectEnd() throws(JSONError) {
        skipWhitespace()
        if position < end { throw error("unexpected \(describeNext()) after the JSON value") }
    }

    // MARK: Strings

    /// Scans a string, validating escapes and UTF-8.
    public mutating func string() throws(JSONError) -> JSONStringToken {
        try expect(UInt8(ascii: "\""))
        let start = position
        var hasEscapes = false
        while true {
            // Fast run over plain ASCII, eight bytes at a time.
            while position + 8 <= end {
                let special = specialStringBytes(UnsafeRawPointer(bytes.baseAddress! + position).loadUnaligned(as: UInt64.self))
                if special != 0 {
                    position += special.trailingZeroBitCount / 8
                    break
                }
                position += 8
            }
            while position < end && !isSpecialStringByte(bytes[position]) { position += 1 }
            guard position < end else { throw error("unterminated string", at: start - 1) }
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                return JSONStringToken(content: start..<(position - 1), hasEscapes: hasEscapes)
            case UInt8(ascii: "\\"):
                hasEscapes = true
                try escape()
            case ..<0x20:
                throw error("control character 0x\(String(byte, radix: 16, uppercase: true)) in a string (escape it)")
            default:
                try multibyte()
            }
        }
    }

    private mutating func escape() throws(JSONError) {
        let at = position
        position += 1
        guard position < end else { throw error("unterminated escape", at: at) }
        switch bytes[position] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
             UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            position += 1
        case UInt8(ascii: "u"):
            guard position + 4 < end, (1...4).allSatisfy({ hexValue(bytes[position + $0]) != nil }) else {
                throw error("\\u needs four hex digits", at: at)
            }
            position += 5
        default:
            throw error("invalid escape \\\(describeNext())", at: at)
        }
    }

    /// Validates one UTF-8 sequence of 2 to 4 bytes (no overlongs, no surrogates, ≤ U+10FFFF).
    private mutating func multibyte() throws(JSONError) {
        let length = validUTF8SequenceLength(bytes, at: position)
        guard length > 0 else {
            throw error("invalid UTF-8 (byte 0x\(String(bytes[position], radix: 16, uppercase: true)))")
        }
        position += length
    }

    /// The string's decoded text.
    public func text(_ token: JSONStringToken) -> String {
        let raw = UnsafeBufferPointer(rebasing: bytes[token.content])
        guard token.hasEscapes else { return String(decoding: raw, as: UTF8.self) }
        var utf8: [UInt8] = []
        utf8.reserveCapacity(raw.count)
        var i = 0
        var pendingHighSurrogate: UInt32?
        func scalar(_ value: UInt32) {
            let s = Unicode.Scalar(value) ?? "\u{FFFD}"
            utf8.append(contentsOf: Array(String(Character(s)).utf8))
        }
        while i < raw.count {
            let byte = raw[i]
            guard byte == UInt8(ascii: "\\") else {
                if let high = pendingHighSurrogate { scalar(high); pendingHighSurrogate = nil }
                utf8.append(byte); i += 1; continue
            }
            let kind = raw[i + 1]
            i += 2
            if kind == UInt8(ascii: "u") {
                var value: UInt32 = 0
                for k in 0..<4 { value = value << 4 | UInt32(hexValue(raw[i + k])!) }
                i += 4
                if let high = pendingHighSurrogate {
                    pendingHighSurrogate = nil
                    if (0xDC00...0xDFFF).contains(value) {
                        scalar(0x10000 + ((high - 0xD800) << 10) + (value - 0xDC00)); continue
                    }
                    scalar(0xFFFD)
                }
                if (0xD800...0xDBFF).contains(value) { pendingHighSurrogate = value } else { scalar(value) }
                continue
            }
            if let high = pendingHighSurrogate { scalar(high); pendingHighSurrogate = nil }
            switch kind {
            case UInt8(ascii: "b"): utf8.append(0x08)
            case UInt8(ascii: "f"): utf8.append(0x0C)
            case UInt8(ascii: "n"): utf8.append(0x0A)
            case UInt8(ascii: "r"): utf8.append(0x0D)
            case UInt8(ascii: "t"): utf8.append(0x09)
            default: utf8.append(kind)  // " \ /
            }
        }
        if let high = pendingHighSurrogate { scalar(high) }
        return String(decoding: utf8, as: UTF8.self)
    }

    /// Whether the string token is exactly `expected` (compared without building a String).
    @inline(__always)
    public func token(_ token: JSONStringToken, is expected: StaticString) -> Bool {
        if token.hasEscapes { return text(token) == expected.description }
        guard token.content.count == expected.utf8CodeUnitCount else { return false }
        return memcmp(bytes.baseAddress! + token.content.lowerBound, expected.utf8Start, token.content.count) == 0
    }

    // MARK: Numbers

    /// Reads a JSON number exactly: correctly rounded to the nearest double.
    /// Fast path (Clinger): at most 19 digits whose integer fits 53 bits and a power of ten
    /// within 10^±22 is one exact multiplication or division. Anything else goes to strtod.
    @inline(__always)
    public mutating func number() throws(JSONError) -> Double {
        skipWhitespace()
        let base = bytes.baseAddress!
        let start = position
        var p = position
        if let value = plainDecimal(at: &p) {
            position = p
            return value
        }
        p = position
        let negative = p < end && base[p] == UInt8(ascii: "-")
        if negative { p += 1 }
        // Integer part: "0" alone, or a non-zero digit and more.
        let integerStart = p
        var mantissa: UInt64 = 0
        readDigits(base, &p, into: &mantissa)
        let integerDigits = p - integerStart
        guard integerDigits > 0 else {
            position = p
            throw error(p < end ? "expected a number, found \(describeNext())" : "expected a number, found end of line")
        }
        if integerDigits > 1 && base[integerStart] == UInt8(ascii: "0") {
            throw error("leading zero in a number", at: start)
        }
        var fractionDigits = 0
        if p < end && base[p] == UInt8(ascii: ".") {
            p += 1
            let fractionStart = p
            readDigits(base, &p, into: &mantissa)
            fractionDigits = p - fractionStart
            guard fractionDigits > 0 else { position = p; throw error("expected a digit after '.'") }
        }
        var exponent = -fractionDigits
        if p < end && (base[p] | 0x20) == UInt8(ascii: "e") {
            p += 1
            var exponentSign = 1
            if p < end && (base[p] == UInt8(ascii: "-") || base[p] == UInt8(ascii: "+")) {
                if base[p] == UInt8(ascii: "-") { exponentSign = -1 }
                p += 1
            }
            guard p < end, isDigit(base[p]) else { position = p; throw error("expected a digit in the exponent") }
            var power = 0
            while p < end, isDigit(base[p]) {
                if power < 100_000 { power = power * 10 + Int(base[p] - 48) }
                p += 1
            }
            exponent += exponentSign * power
        }
        position = p
        // With at most 19 digits the mantissa did not wrap (leading zeros count, harmlessly).
        if integerDigits + fractionDigits <= 19 && mantissa <= 1 << 53 && exponent >= -22 && exponent <= 22 {
            var value = Double(mantissa)
            value = exponent < 0 ? value / powerOfTen(-exponent) : value * powerOfTen(exponent)
            return negative ? -value : value
        }
        return slowNumber(start..<p)
    }

    /// The number at `p` when it is a plain decimal that converts on the fast path: `-?int(.frac)?`
    /// with no leading zero, no exponent, at most 19 digits, an integer of them within 2^53 and at
    /// most 22 of them after the point, so that it is one exact division (Clinger). Moves `p` past
    /// it; nil, with `p` anywhere, for anything else, which `number` then reads (or rejects) in
    /// full. Coordinates nearly always are such decimals. `bounded: false` is for a caller that
    /// knows the buffer ends in a byte that can end no number and follow none (`compactPair`):
    /// then no step looks for the end of the buffer.
    @inlinable @inline(__always)
    func plainDecimal(at p: inout Int, bounded: Bool = true) -> Double? {
        let base = bytes.baseAddress!, end = bytes.count
        let negative = (!bounded || p < end) && base[p] == UInt8(ascii: "-")
        if negative { p &+= 1 }
        let integerStart = p
        var mantissa: UInt64 = 0
        readDigits(base, &p, into: &mantissa, bounded: bounded)
        var digits = p &- integerStart
        guard digits == 1 || (digits > 1 && base[integerStart] != UInt8(ascii: "0")) else { return nil }
        var fractionDigits = 0
        if (!bounded || p < end) && base[p] == UInt8(ascii: ".") {
            p &+= 1
            let fractionStart = p
            readDigits(base, &p, into: &mantissa, bounded: bounded)
            fractionDigits = p &- fractionStart
            guard fractionDigits > 0 else { return nil }
            digits &+= fractionDigits
        }
        guard (bounded && p == end) || base[p] | 0x20 != UInt8(ascii: "e"),
              digits <= 19 && mantissa <= 1 << 53 && fractionDigits <= 22 else { return nil }
        let value = Double(mantissa) / powerOfTen(fractionDigits)
        return negative ? -value : value
    }

    /// Reads the digits at `p` into `mantissa` (times ten plus the digit, each; wrapping past 64
    /// bits, which the callers tell by the count) and moves `p` past them. A byte at a time: eight
    /// at a time (SWAR) made `geo encode` slower, the count it waits for being on the critical path.
    /// Unbounded, it stops only at a byte that is not a digit (see `plainDecimal`).
    @inlinable @inline(__always)
    func readDigits(_ base: UnsafePointer<UInt8>, _ p: inout Int, into mantissa: inout UInt64, bounded: Bool = true) {
        // Wrapping arithmetic: p stays within the buffer, and an overflow check was two of the
        // loop's nine instructions.
        while !bounded || p < bytes.count {
            let digit = UInt64(base[p]) &- 48
            if digit >= 10 { break }
            mantissa = mantissa &* 10 &+ digit
            p &+= 1
        }
    }

    /// A position written compactly, `[x,y]` with two plain decimals (`plainDecimal`) and no
    /// white space, as most tools write GeoJSON; read at once and returned, or nil with nothing
    /// read for anything else (white space, a third number, an exponent, an error), which the
    /// caller then reads in full. Inlined into GeoJSON's path loop (`@_transparent`: with
    /// `@inline(__always)` alone it stayed a call, 2 % of `geo encode`'s instructions).
    ///
    /// Every GeoJSON record ends with `}` (a bare array, with `]`): a run of digits, a sign, a
    /// point or a comma cannot be its last byte, so when that is so the digit loops do not look
    /// for the end of the buffer, which was a third of their instructions.
    @_transparent
    public mutating func compactPair() -> (Double, Double)? {
        let base = bytes.baseAddress!, end = bytes.count
        guard position < end && base[position] == UInt8(ascii: "[") else { return nil }
        // `]` is 0x5D and `}` 0x7D: no other byte gives 0x7D with 0x20 set.
        return base[end - 1] | 0x20 == UInt8(ascii: "}") ? compactPair(bounded: false) : compactPair(bounded: true)
    }

    @inlinable @inline(__always)
    mutating func compactPair(bounded: Bool) -> (Double, Double)? {
        let base = bytes.baseAddress!, end = bytes.count
        var p = position + 1
        guard let first = plainDecimal(at: &p, bounded: bounded), (!bounded || p < end) && base[p] == UInt8(ascii: ",") else { return nil }
        p += 1
        guard let second = plainDecimal(at: &p, bounded: bounded), (!bounded || p < end) && base[p] == UInt8(ascii: "]") else { return nil }
        position = p + 1
        return (first, second)
    }

    /// `next(close)` with its commonest case, a comma right there, inlined.
    @inlinable @inline(__always)
    public mutating func nextElement(_ close: UInt8) throws(JSONError) -> Bool {
        if position < bytes.count && bytes[position] == UInt8(ascii: ",") {
            position += 1
            return true
        }
        return try next(close)
    }

    private func slowNumber(_ range: Range<Int>) -> Double {
        var text = [CChar](repeating: 0, count: range.count + 1)
        for (i, byte) in bytes[range].enumerated() { text[i] = CChar(bitPattern: byte) }
        return strtod(text, nil)
    }

    // MARK: Skipping and validating

    /// Validates the value at the current position and returns the bytes it spans.
    @discardableResult
    public mutating func skipValue(depth: Int = 0) throws(JSONError) -> Range<Int> {
        guard let byte = peek() else { throw error("expected a value, found end of line") }
        let start = position
        switch byte {
        case UInt8(ascii: "{"):
            guard depth < maximumJSONDepth else { throw error("nesting deeper than \(maximumJSONDepth) levels") }
            if try enter(UInt8(ascii: "{"), UInt8(ascii: "}")) {
                repeat {
                    _ = try key()
                    try skipValue(depth: depth + 1)
                } while try next(UInt8(ascii: "}"))
            }
        case UInt8(ascii: "["):
            guard depth < maximumJSONDepth else { throw error("nesting deeper than \(maximumJSONDepth) levels") }
            if try enter(UInt8(ascii: "["), UInt8(ascii: "]")) {
                repeat { try skipValue(depth: depth + 1) } while try next(UInt8(ascii: "]"))
            }
        case UInt8(ascii: "\""):
            _ = try string()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        default:
            _ = try number()
        }
        return start..<position
    }

    private mutating func literal(_ word: StaticString) throws(JSONError) {
        let length = word.utf8CodeUnitCount
        guard position + length <= end,
              memcmp(bytes.baseAddress! + position, word.utf8Start, length) == 0 else {
            throw error("expected a value, found \(describeNext())")
        }
        position += length
    }

    /// Consumes `null` if it is next.
    public mutating func null() -> Bool {
        guard peek() == UInt8(ascii: "n"), position + 4 <= end,
              memcmp(bytes.baseAddress! + position, "null", 4) == 0 else { return false }
        position += 4
        return true
    }
}

@inline(__always) func isDigit(_ byte: UInt8) -> Bool { byte &- 48 < 10 }

func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - 48
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - 87
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - 55
    default: return nil
    }
}

/// A byte that ends a string's plain ASCII run: the closing quote, a backslash, a control
/// character (invalid unescaped), or the first byte of a multi-byte UTF-8 character.
@inline(__always) func isSpecialStringByte(_ byte: UInt8) -> Bool {
    byte == 0x22 || byte == 0x5C || byte < 0x20 || byte >= 0x80
}

/// `isSpecialStringByte` for eight bytes at once (the first in the lowest byte): 0x80 set in
/// each byte that is special, or in a later byte (borrows run upward), so the lowest set bit is
/// the first special byte. A global lookup table had cost a lazy-initialisation check a byte.
@inline(__always) func specialStringBytes(_ loaded: UInt64) -> UInt64 {
    let word = UInt64(littleEndian: loaded)
    let low: UInt64 = 0x0101_0101_0101_0101, high: UInt64 = 0x8080_8080_8080_8080
    let quote = word ^ (0x22 &* low), backslash = word ^ (0x5C &* low)
    let zeroQuote = (quote &- low) & ~quote, zeroBackslash = (backslash &- low) & ~backslash
    let control = word &- (0x20 &* low)
    return (zeroQuote | zeroBackslash | control | word) & high
}
