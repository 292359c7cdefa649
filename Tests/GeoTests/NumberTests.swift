import Foundation
import XCTest
@testable import JSONBytes

/// Exact number parsing and shortest plain-decimal printing.
final class NumberTests: XCTestCase {
    func parse(_ text: String) throws -> Double {
        var text = text
        return try text.withUTF8 { bytes in
            var scanner = JSONScanner(bytes)
            let value = try scanner.number()
            try scanner.expectEnd()
            return value
        }
    }

    func format(_ value: Double, decimals: Int? = nil) -> String {
        let buffer = ByteBuffer()
        buffer.appendNumber(value, decimals: decimals)
        return buffer.string
    }

    func testParsesLikeStrtod() throws {
        let cases = ["0", "-0", "1", "-126.453", "38.5", "0.1", "1e22", "1e23", "9007199254740993",
                     "123456789012345678901234567890", "1.7976931348623157e308", "4.9e-324", "2.2250738585072011e-308",
                     "0.30000000000000004", "1E+2", "1e-7", "179.99999999999997", "-89.123456789012345678"]
        for text in cases {
            XCTAssertEqual(try parse(text).bitPattern, strtod(text, nil).bitPattern, text)
        }
    }

    func testRandomDecimalsParseExactly() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let digits = Int.random(in: 1...19, using: &generator)
            var text = Bool.random(using: &generator) ? "-" : ""
            text += String(Int.random(in: 0...999, using: &generator))
            text += "." + String((0..<digits).map { _ in "0123456789".randomElement(using: &generator)! })
            if Int.random(in: 0..<4, using: &generator) == 0 { text += "e" + String(Int.random(in: -30...30, using: &generator)) }
            XCTAssertEqual(try parse(text).bitPattern, strtod(text, nil).bitPattern, text)
        }
    }

    func testHugeAndTinyNumbers() throws {
        XCTAssertEqual(try parse("1e999"), .infinity)
        XCTAssertEqual(try parse("-1e999"), -.infinity)
        XCTAssertEqual(try parse("1e-400"), 0)
        XCTAssertEqual(try parse(String(repeating: "9", count: 400)), strtod(String(repeating: "9", count: 400), nil))
    }

    func testRejectsNonJSONNumbers() {
        for text in ["NaN", "Infinity", "-", "01", "1.", ".5", "+1", "1e", "1e+", "0x10", "--1"] {
            XCTAssertThrowsError(try parse(text), text)
        }
    }

    func testShortestRoundTripAndNeverExponent() {
        var generator = SystemRandomNumberGenerator()
        var values: [Double] = [0.00006, 1e-7, 1e16, 123456789012345680000, 5e-324, .greatestFiniteMagnitude,
                                0.1, 0.30000000000000004, -126.453, 1e15, 999999999999999.9, 179.99999999999997]
        for _ in 0..<50_000 {
            values.append(Double(bitPattern: UInt64.random(in: 0...0x7FEF_FFFF_FFFF_FFFF, using: &generator)))
            values.append(Double.random(in: -180...180, using: &generator))
            values.append((Double.random(in: -180...180, using: &generator) * 1e5).rounded() / 1e5)
        }
        for value in values {
            let text = format(value)
            XCTAssertFalse(text.contains("e") || text.contains("E"), text)
            XCTAssertEqual(Double(text), value, text)
            // As short as Swift's own shortest printer: same significant digits.
            XCTAssertEqual(significantDigits(text), significantDigits(value.description), "\(value)")
        }
    }

    func significantDigits(_ text: String) -> String {
        let mantissa = text.split(whereSeparator: { $0 == "e" || $0 == "E" }).first.map(String.init) ?? text
        var digits = mantissa.filter(\.isNumber)
        while digits.hasPrefix("0") { digits.removeFirst() }
        while digits.hasSuffix("0") { digits.removeLast() }
        return digits
    }

    func testPlainFormats() {
        XCTAssertEqual(format(0.00006), "0.00006")
        XCTAssertEqual(format(-126.453), "-126.453")
        XCTAssertEqual(format(1e16), "10000000000000000")
        XCTAssertEqual(format(38.5), "38.5")
        XCTAssertEqual(format(0), "0")
        XCTAssertEqual(format(-0.0), "0")
        XCTAssertEqual(format(-0.000015, decimals: 4), "0")
        XCTAssertEqual(format(-12), "-12")
        XCTAssertEqual(format(1.5e-10), "0.00000000015")
    }

    func testDecimalsRoundHalfAwayFromZeroOnPrintedDigits() {
        XCTAssertEqual(format(1.005, decimals: 2), "1.01")
        XCTAssertEqual(format(-1.005, decimals: 2), "-1.01")
        XCTAssertEqual(format(0.125, decimals: 2), "0.13")
        XCTAssertEqual(format(38.123456789, decimals: 6), "38.123457")
        XCTAssertEqual(format(2.5, decimals: 0), "3")
        XCTAssertEqual(format(1.2, decimals: 5), "1.2")
        XCTAssertEqual(format(0.0000004, decimals: 6), "0")
        XCTAssertEqual(format(9.9999999, decimals: 3), "10")
    }

    func testScaledIntegersPrintAsTheirDecimal() {
        // Decoded polyline values are integer / 10^p: the printed text is that decimal exactly.
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<50_000 {
            let precision = Int.random(in: 0...10, using: &generator)
            let integer = Int64.random(in: -180_0000000000...180_0000000000, using: &generator) / Int64(pow(10, Double(10 - precision)))
            let value = Double(integer) / powerOfTen(precision)
            let buffer = ByteBuffer()
            buffer.append(DecimalNumber(integer: integer, scale: precision))
            XCTAssertEqual(format(value), buffer.string)
        }
    }

    func testScaledIntegersPrintAsTheirDoubleWould() {
        // geo decode prints integer / 10^p from the integer: the same text as the double, rounded
        // or not, over the whole 64-bit range (past 15 digits it goes through the double).
        var generator = SystemRandomNumberGenerator()
        let edges: [Int64] = [0, 1, -1, 999_999_999_999_999, 1_000_000_000_000_000, -1_000_000_000_000_000, .max, .min]
        for index in 0..<100_000 {
            let precision = Int.random(in: 0...10, using: &generator)
            let bits = Int64.random(in: 1...62, using: &generator)
            let integer = index < edges.count * 11 ? edges[index % edges.count]
                : Int64.random(in: -(1 << bits)...(1 << bits) - 1, using: &generator)
            let decimals: Int? = Bool.random(using: &generator) ? nil : Int.random(in: 0...12, using: &generator)
            let buffer = ByteBuffer()
            buffer.appendScaled(integer, scale: precision, decimals: decimals)
            XCTAssertEqual(buffer.string, format(Double(integer) / powerOfTen(precision), decimals: decimals),
                           "\(integer) / 10^\(precision), decimals \(String(describing: decimals))")
        }
    }

    func testCoordinatePairsPrintAsEachNumberWould() {
        // geo decode writes a path's pairs in one loop, eight digits a word, with loops of its own
        // for precision 5 and 6: the text must be what appendScaled writes number by number.
        var generator = SystemRandomNumberGenerator()
        let edges: [Int64] = [0, 1, -1, 9, 10, 99_999, 100_000, -100_000, 99_999_999, 100_000_000,
                              18_000_000, -18_000_000, 999_999_999_999_999, 1_000_000_000_000_000, .max, .min]
        for round in 0..<3_000 {
            let scale = round < 17 * 4 ? round % 17 : Int.random(in: 0...19, using: &generator)
            let decimals: Int? = Int.random(in: 0..<8, using: &generator) == 0 ? Int.random(in: 0...12, using: &generator) : nil
            let integers = (0..<2 * Int.random(in: 1...300, using: &generator)).map { index -> Int64 in
                if Int.random(in: 0..<10, using: &generator) == 0 { return edges.randomElement(using: &generator)! }
                let bits = Int64.random(in: 1...(index % 7 == 0 ? 62 : 30), using: &generator)
                return Int64.random(in: -(1 << bits)...(1 << bits), using: &generator)
            }
            let pairs = ByteBuffer(capacity: 16)
            integers.withUnsafeBufferPointer { pairs.appendScaledPairs($0, scale: scale, decimals: decimals) }
            let oneByOne = ByteBuffer()
            for index in stride(from: 0, to: integers.count, by: 2) {
                if index > 0 { oneByOne.append(UInt8(ascii: ",")) }
                oneByOne.append(UInt8(ascii: "["))
                oneByOne.appendScaled(integers[index], scale: scale, decimals: decimals)
                oneByOne.append(UInt8(ascii: ","))
                oneByOne.appendScaled(integers[index + 1], scale: scale, decimals: decimals)
                oneByOne.append(UInt8(ascii: "]"))
            }
            XCTAssertEqual(pairs.string, oneByOne.string, "scale \(scale), decimals \(String(describing: decimals))")
        }
    }

    func testScaledDigitsInWordsMatchPlainDigits() {
        // The word-at-a-time writer against the digits Swift prints, across every digit count.
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200_000 {
            let scale = Int.random(in: 0...16, using: &generator)
            let integerPart = UInt64.random(in: 0..<powerOfTenInteger(Int.random(in: 0...min(8, 19 - scale), using: &generator)), using: &generator)
            let fraction = scale == 0 ? 0 : UInt64.random(in: 0..<powerOfTenInteger(Int.random(in: 0...scale, using: &generator)), using: &generator)
            let negative = Bool.random(using: &generator)
            let buffer = ByteBuffer()
            buffer.appendScaled(negative: negative, magnitude: integerPart * powerOfTenInteger(scale) + fraction, scale: scale)
            var digits = scale == 0 ? "" : String(fraction)
            digits = String(repeating: "0", count: scale - digits.count) + digits
            while digits.last == "0" { digits.removeLast() }
            let sign = negative && (integerPart != 0 || fraction != 0) ? "-" : ""
            XCTAssertEqual(buffer.string, sign + String(integerPart) + (digits.isEmpty ? "" : "." + digits))
        }
    }

    /// A JSON number with no exponent, at the start of a text, as long as it goes.
    let plainGrammar = try! NSRegularExpression(pattern: "^-?(0|[1-9][0-9]*)(\\.[0-9]+)?(?![0-9])")

    func testPlainDecimalsAndCompactPairsReadAsJSONSays() {
        // The path loop's fast reading: a plain decimal is read to its end and converted as
        // strtod does; anything else gives nil (and number() reads or rejects it); a compact
        // pair is two of them, or nil with nothing read.
        var generator = SystemRandomNumberGenerator()
        let pieces = ["-", "0", "00", "1", "7", "12", "180", ".", "5", "25", "12345", "123456789012", "e5", "E-3", "+", " ", "x", "9007199254740993"]
        for _ in 0..<100_000 {
            let text = (0..<Int.random(in: 1...5, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            let bytes = Array(text.utf8)
            bytes.withUnsafeBufferPointer { buffer in
                var plainEnd = 0
                let plain = JSONScanner(buffer).plainDecimal(at: &plainEnd)
                // The oracle: JSON's grammar for a number without exponent, then strtod.
                let match = plainGrammar.firstMatch(in: text, range: NSRange(text.startIndex..., in: text))
                let prefix = match.map { String(text.utf8.prefix($0.range.length))! } ?? ""
                let nextByte = bytes.dropFirst(prefix.utf8.count).first
                let hasFraction = match.map { $0.range(at: 2).location != NSNotFound } ?? false
                let isPlain = !prefix.isEmpty && nextByte != UInt8(ascii: "e") && nextByte != UInt8(ascii: "E")
                    && (hasFraction || nextByte != UInt8(ascii: "."))
                let digits = prefix.filter(\.isNumber).count
                if let plain {
                    XCTAssert(isPlain, text)
                    XCTAssertEqual(plainEnd, prefix.utf8.count, text)
                    XCTAssertEqual(plain, strtod(prefix, nil), text)
                } else {
                    XCTAssert(!isPlain || digits > 15, text)
                }
            }
            // A record ending with `]` or `}` takes the digit loops that do not look for the end;
            // any other last byte, the ones that do. Both read the same.
            for tail in ["", "}", " ", "\n"] {
                let pairBytes = Array("[\(text),\(text)]\(tail)".utf8)
                pairBytes.withUnsafeBufferPointer { buffer in
                    var scanner = JSONScanner(buffer)
                    var end = 1
                    let plain = JSONScanner(buffer).plainDecimal(at: &end)
                    if let (first, second) = scanner.compactPair() {
                        XCTAssertEqual(first, plain, text)
                        XCTAssertEqual(second, plain, text)
                        XCTAssertEqual(scanner.position, buffer.count - tail.utf8.count, text)
                    } else {
                        XCTAssertEqual(scanner.position, 0, text)
                        XCTAssert(plain == nil || buffer[end] != UInt8(ascii: ","), text)
                    }
                }
            }
        }
    }

    func testCompactPairsCutShortReadNothingPastTheRecord() {
        // The unbounded digit loops rely on the record's last byte, `]` or `}`, ending any run of
        // digits: a pair cut off anywhere and closed by that byte reads as the bounded loops read
        // it (followed by a space), and a pair it does not close is nil with nothing read. Each
        // record is read from the very end of a page followed by one that cannot be read, so a
        // loop that ran past the record would crash the test.
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        guard let pages = mmap(nil, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
              pages != MAP_FAILED else { return XCTFail("mmap: \(errno)") }
        defer { munmap(pages, 2 * page) }
        XCTAssertEqual(mprotect(pages + page, page, PROT_NONE), 0)
        func read(_ bytes: [UInt8]) -> (pair: (Double, Double)?, position: Int) {
            let start = (pages + page - bytes.count).assumingMemoryBound(to: UInt8.self)
            start.update(from: bytes, count: bytes.count)
            var scanner = JSONScanner(UnsafeBufferPointer(start: start, count: bytes.count))
            let pair = scanner.compactPair()
            return (pair, scanner.position)
        }
        for pair in ["[-73.61332,-12.01479]", "[180,90]", "[0.5,-0.25]", "[12345678901234567890,1]"] {
            let bytes = Array(pair.utf8)
            for cut in 1..<bytes.count {
                let closed = read(Array(bytes[..<cut]) + [UInt8(ascii: "]")])
                let bounded = read(Array(bytes[..<cut]) + [UInt8(ascii: "]"), UInt8(ascii: " ")])
                XCTAssertEqual(closed.pair.map { [$0.0, $0.1] }, bounded.pair.map { [$0.0, $0.1] }, "\(pair) cut at \(cut)")
                XCTAssertEqual(closed.position, bounded.position, "\(pair) cut at \(cut)")
                for last in [UInt8(ascii: "}"), UInt8(ascii: "7")] {
                    let unclosed = read(Array(bytes[..<cut]) + [last])
                    XCTAssertNil(unclosed.pair, "\(pair) cut at \(cut)")
                    XCTAssertEqual(unclosed.position, 0)
                }
            }
        }
    }

    func testStringRunsEightBytesAtATimeStopWhereByteByByteDoes() {
        // JSONScanner.string() skips plain ASCII eight bytes at a time: the first special byte it
        // finds (quote, backslash, control, non-ASCII) must be the first one there is.
        var generator = SystemRandomNumberGenerator()
        let specials: [UInt8] = [0x22, 0x5C, 0x00, 0x01, 0x1F, 0x80, 0xC3, 0xFF]
        for _ in 0..<300_000 {
            let bytes = (0..<8).map { _ -> UInt8 in
                switch Int.random(in: 0..<12, using: &generator) {
                case 0: return specials.randomElement(using: &generator)!
                case 1: return UInt8.random(in: 0...255, using: &generator)
                default: return [0x20, 0x21, 0x23, 0x5B, 0x5D, 0x7E, 0x7F, 0x41].randomElement(using: &generator)!
                }
            }
            let word = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
            let special = specialStringBytes(word)
            let expected = bytes.firstIndex(where: isSpecialStringByte) ?? 8
            XCTAssertEqual(special == 0 ? 8 : special.trailingZeroBitCount / 8, expected, "\(bytes)")
        }
    }

    func testStringEscapingReplacesInvalidUTF8() {
        let buffer = ByteBuffer()
        let bytes: [UInt8] = [0x61, 0x22, 0x5C, 0x0A, 0x01, 0xFF, 0xC3, 0xA9, 0xE2, 0x82]
        bytes.withUnsafeBufferPointer { buffer.appendJSONString($0) }
        XCTAssertEqual(buffer.string, "\"a\\\"\\\\\\n\\u0001\u{FFFD}é\u{FFFD}\u{FFFD}\"")
        XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(buffer.bytes), options: .fragmentsAllowed))
    }
}
