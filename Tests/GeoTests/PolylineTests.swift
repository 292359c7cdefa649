import XCTest
@testable import Polyline

final class PolylineTests: XCTestCase {
    let three = [(38.5, -120.2), (40.7, -120.95), (43.252, -126.453)]

    func testPublicVectors() throws {
        XCTAssertEqual(try Polyline.encode(three, precision: 5), "_p~iF~ps|U_ulLnnqC_mqNvxq`@")
        XCTAssertEqual(try Polyline.encode(three, precision: 6), "_izlhA~rlgdF_{geC~ywl@_kwzCn`{nI")
        XCTAssertEqual(try Polyline.encode(three, precision: 0), "mAnFC@CH")
        for (text, precision) in [("_p~iF~ps|U_ulLnnqC_mqNvxq`@", 5), ("_izlhA~rlgdF_{geC~ywl@_kwzCn`{nI", 6)] {
            let points = try Polyline.decode(text, precision: precision)
            XCTAssertEqual(points.map(\.0), three.map(\.0))
            XCTAssertEqual(points.map(\.1), three.map(\.1))
        }
        // Ties: -112.083965e5 is exactly -11208396.5 and rounds away from zero.
        XCTAssertEqual(try Polyline.encode([(36.05322, -112.084004), (36.053573, -112.083914), (36.053845, -112.083965)]),
                       "ss`{E~kbkTeAQw@J")
        // Absolutes are rounded, not deltas.
        XCTAssertEqual(try Polyline.encode([(0, 0.000006), (0, 0.000002)]), "?A?@")
        XCTAssertEqual(try Polyline.encode([]), "")
        XCTAssertEqual(try Polyline.decode("").count, 0)
        XCTAssertEqual(try Polyline.encode([(-0.0, -0.0)]), "??")
        let backslashes = #"_chxEn`zvN\\]]"#
        XCTAssertEqual(try Polyline.encode(try Polyline.decode(backslashes)), backslashes)
    }

    func testRandomPathsRoundTripAtEveryPrecision() throws {
        var generator = SystemRandomNumberGenerator()
        for precision in 0...7 {
            let factor = Polyline.scale(precision)
            for _ in 0..<300 {
                let path = (0..<Int.random(in: 0...50, using: &generator)).map { _ in
                    ((Double.random(in: -90...90, using: &generator) * factor).rounded() / factor,
                     (Double.random(in: -180...180, using: &generator) * factor).rounded() / factor)
                }
                let decoded = try Polyline.decode(try Polyline.encode(path, precision: precision), precision: precision)
                XCTAssertEqual(decoded.map(\.0), path.map(\.0))
                XCTAssertEqual(decoded.map(\.1), path.map(\.1))
            }
        }
    }

    func testSixtyFourBitValues() throws {
        // Precision 7 overflows 32 bits; precision 10 needs 64.
        let path = [(89.9999999999, -179.9999999999), (-89.9999999999, 179.9999999999)]
        let decoded = try Polyline.decode(try Polyline.encode(path, precision: 10), precision: 10)
        XCTAssertEqual(decoded.map(\.0), path.map(\.0))
        XCTAssertEqual(decoded.map(\.1), path.map(\.1))
        XCTAssertEqual(try Polyline.encode([(0, -107.3741825)], precision: 7), try Polyline.encode([(0, -107.3741825)], precision: 7))
        XCTAssertEqual(try Polyline.decode(try Polyline.encode([(0, -107.3741825)], precision: 7), precision: 7)[0].1, -107.3741825)
    }

    func assertError(_ text: String, _ kind: PolylineError.Kind, at offset: Int, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try Polyline.decode(text), file: file, line: line) { error in
            XCTAssertEqual(error as? PolylineError, PolylineError(kind: kind, offset: offset), file: file, line: line)
        }
    }

    func testMalformedPolylinesNameTheByte() {
        assertError("_p~iF~ps|U!", .invalidByte(0x21), at: 10)
        assertError("_p~iF~ps|U _ulL", .invalidByte(0x20), at: 10)
        assertError("_p~iF~ps|U_ulLnnqC_mqNvxq", .truncated, at: 22)
        assertError("_p~iF", .missingLongitude, at: 0)
        assertError(String(repeating: "~", count: 13) + "?", .overflow, at: 0)
        assertError("??" + String(repeating: "_", count: 13) + "@", .overflow, at: 2)
        XCTAssertEqual(PolylineError(kind: .invalidByte(0x21), offset: 10).description,
                       "invalid polyline: byte 10 ('!' 0x21) is outside '?'..'~'")
    }

    func testLargestSixtyFourBitValueDecodes() throws {
        // 13 chunks: 12 full ones and a last one carrying the top 4 bits.
        let text = String(repeating: "~", count: 12) + "N" + "?"
        var values: [Int64] = []
        try text.utf8CString.withUnsafeBufferPointer { raw in
            try raw.withMemoryRebound(to: UInt8.self) { bytes in
                try Polyline.decode(UnsafeBufferPointer(rebasing: bytes.dropLast())) { latitude, _ in values.append(latitude) }
            }
        }
        XCTAssertEqual(values, [Int64.min])
    }

    func testUnencodableCoordinates() {
        XCTAssertThrowsError(try Polyline.encode([(.nan, 0)]))
        XCTAssertThrowsError(try Polyline.encode([(0, 1e300)]))
        XCTAssertThrowsError(try Polyline.encode([(0, 1e9)], precision: 10))
        XCTAssertNoThrow(try Polyline.encode([(0, 9e8)], precision: 10))
        // Each value fits, but the delta between them does not.
        XCTAssertThrowsError(try Polyline.encode([(0, -9e8), (0, 9e8)], precision: 10))
    }

    /// Values read eight bytes at a time agree with the byte-by-byte reader, value, length and
    /// error, on random text: long and short values, bytes outside '?'...'~' anywhere, and ends
    /// within and beyond the eight bytes.
    func testWordAtATimeValuesMatchByteByByte() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200_000 {
            var bytes = (0..<Int.random(in: 1...20, using: &generator)).map { _ -> UInt8 in
                switch Int.random(in: 0..<20, using: &generator) {
                case 0: return UInt8.random(in: 0...255, using: &generator)
                case 1...9: return UInt8.random(in: 95...126, using: &generator)  // continuation
                default: return UInt8.random(in: 63...94, using: &generator)      // end of a value
                }
            }
            bytes.append(contentsOf: [63, 63, 63, 63, 63, 63, 63, 63])
            bytes.withUnsafeBufferPointer { text in
                var fast = 0, slow = 0
                let fastResult = Result { () throws(PolylineError) in try Polyline.value(text, &fast) }
                let slowResult = Result { () throws(PolylineError) in try Polyline.valueByteByByte(text, &slow) }
                switch (fastResult, slowResult) {
                case (.success(let a), .success(let b)):
                    XCTAssertEqual(a, b, "\(bytes)")
                    XCTAssertEqual(fast, slow, "\(bytes)")
                case (.failure(let a), .failure(let b)):
                    XCTAssertEqual(a, b, "\(bytes)")
                default:
                    XCTFail("\(bytes): \(fastResult) vs \(slowResult)")
                }
            }
        }
    }

    func testDecodingIntoPairsMatchesDecodingPointByPoint() {
        // geo decode's bulk path: the room it sizes by counting bytes must hold every value, and
        // it must give the same pairs (swapped to GeoJSON's order) and the same errors.
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<50_000 {
            let bytes = (0..<Int.random(in: 0...40, using: &generator)).map { _ -> UInt8 in
                switch Int.random(in: 0..<40, using: &generator) {
                case 0: return UInt8.random(in: 0...255, using: &generator)
                case 1...15: return UInt8.random(in: 95...126, using: &generator)
                default: return UInt8.random(in: 63...94, using: &generator)
                }
            }
            bytes.withUnsafeBufferPointer { text in
                var expected: [Int64] = []
                let one = Result { () throws(PolylineError) in try Polyline.decode(text) { expected += [$1, $0] } }
                let room = Polyline.valueCountBound(text)
                XCTAssertEqual(room, bytes.filter { $0 < 95 }.count)
                let destination = UnsafeMutablePointer<Int64>.allocate(capacity: room)
                defer { destination.deallocate() }
                let bulk = Result { () throws(PolylineError) in try Polyline.decodeIntoPairs(text, destination) }
                switch (one, bulk) {
                case (.success, .success(let written)):
                    XCTAssertEqual(Array(UnsafeBufferPointer(start: destination, count: written)), expected, "\(bytes)")
                case (.failure(let a), .failure(let b)):
                    XCTAssertEqual(a, b, "\(bytes)")
                default:
                    XCTFail("\(bytes): \(one) vs \(bulk)")
                }
            }
        }
    }

    func testRoundingIsHalfAwayFromZeroForEveryDouble() {
        // The encoder rounds by adding 0.49999999999999994 with the sign and truncating. Against
        // the exact rounding of the same scaled double, on halves, near-halves, huge and tiny values.
        var generator = SystemRandomNumberGenerator()
        let below = 0.49999999999999994
        var scaledValues: [Double] = [0, -0.0, 0.5, -0.5, below, -below, 1.5, 2.5, -2.5, 0x1p52, 0x1p52 + 1, 0x1p53,
                                      0x1p52 - 0.5, 0x1p51 + 0.5, 0x1p62, -0x1p62, 4503599627370495.5, 1e-300, 5e-324]
        for _ in 0..<200_000 {
            let integer = Double(Int64.random(in: -(1 << 53)...(1 << 53), using: &generator))
            let scale = Double.random(in: 0...1, using: &generator) < 0.5 ? 1 : pow(2, Double(Int.random(in: -60...10, using: &generator)))
            let base = integer * scale
            scaledValues += [base, base + 0.5, base - 0.5, (base + 0.5).nextUp, (base + 0.5).nextDown, (base - 0.5).nextUp]
        }
        for precision in [0, 5, 6] {
            let encoder = PolylineEncoder(precision: precision)
            let factor = Polyline.scale(precision)
            for scaled in scaledValues where abs(scaled) < 0x1p62 {
                let value = scaled / factor
                let expected = Int64((value * factor).rounded(.toNearestOrAwayFromZero))
                XCTAssertEqual(try encoder.rounded(value), expected, "\(value) at precision \(precision)")
            }
        }
    }

    func testEncodingAPathAtOnceMatchesPointByPoint() {
        // The path loop skips the checks while values stay under 2^62; past that, and after it,
        // every point is checked. Same bytes and same errors as encoding point by point.
        var generator = SystemRandomNumberGenerator()
        let extremes: [Double] = [0x1p62, -0x1p62, 0x1p62.nextDown, 0x1.8p62, -0x1.fffp62, 0x1p63, -0x1p63, 1e300, .infinity, -.infinity, .nan]
        for _ in 0..<20_000 {
            let precision = [0, 5, 6].randomElement(using: &generator)!
            let values = (0..<2 * Int.random(in: 1...12, using: &generator)).map { _ -> Double in
                Int.random(in: 0..<6, using: &generator) == 0 ? extremes.randomElement(using: &generator)!
                    : Double.random(in: -180...180, using: &generator)
            }
            var one = PolylineEncoder(precision: precision)
            var expected: [UInt8] = []
            var expectedError: PolylineError?
            for index in stride(from: 0, to: values.count, by: 2) {
                do {
                    try one.append(latitude: values[index + 1], longitude: values[index]) { expected.append($0) }
                } catch { expectedError = error; break }
            }
            var all = PolylineEncoder(precision: precision)
            let output = UnsafeMutablePointer<UInt8>.allocate(capacity: values.count / 2 * PolylineEncoder.maximumPointLength)
            defer { output.deallocate() }
            let result = values.withUnsafeBytes { points in
                Result { () throws(PolylineError) in
                    try all.append(points: points.baseAddress!, count: values.count / 2, stride: 16,
                                   latitudeOffset: 8, longitudeOffset: 0, to: output)
                }
            }
            switch result {
            case .success(let length):
                XCTAssertNil(expectedError, "\(values)")
                XCTAssertEqual(Array(UnsafeBufferPointer(start: output, count: length)), expected, "\(values)")
            case .failure(let error):
                XCTAssertEqual(error.description, expectedError?.description, "\(values)")  // NaN != NaN
            }
        }
    }

    func testEveryShortValueIsWrittenAsTheAlgorithmSays() {
        // emit() writes values under 2^20 (one to four chunks) as one word, its length and
        // continuation bits from a table by the value's highest bit: every such value, and the
        // longer ones around each length's edge, against the algorithm written out byte by byte.
        func reference(_ delta: Int64) -> [UInt8] {
            var rest = UInt64(bitPattern: delta < 0 ? ~(delta << 1) : delta << 1)
            var bytes: [UInt8] = []
            while rest >= 0x20 {
                bytes.append(UInt8(0x20 | (rest & 0x1F)) + 63)
                rest >>= 5
            }
            bytes.append(UInt8(rest) + 63)
            return bytes
        }
        let output = UnsafeMutablePointer<UInt8>.allocate(capacity: 16)
        defer { output.deallocate() }
        var deltas = Array(Int64(-(1 << 19))...Int64((1 << 19) - 1))
        for bits in 20...63 { deltas += [Int64(1) << (bits - 1), -(Int64(1) << (bits - 1)), (Int64(1) << (bits - 1)) - 1] }
        deltas += [.max, .min]
        for delta in deltas {
            let length = PolylineEncoder.emit(delta, to: output)
            let expected = reference(delta)
            if length != expected.count || Array(UnsafeBufferPointer(start: output, count: length)) != expected {
                XCTFail("delta \(delta): wrote \(Array(UnsafeBufferPointer(start: output, count: length))), expected \(expected)")
                return
            }
        }
    }
}
