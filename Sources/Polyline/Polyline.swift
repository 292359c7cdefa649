/// Google's Encoded Polyline Algorithm Format, as the Maps SDK's GMSPath uses it, with 64-bit
/// integers so that precision 6..10 and long paths cannot overflow silently.
///
/// Encoding: each coordinate is scaled by 10^precision and rounded half away from zero on its
/// absolute value; deltas between consecutive *rounded* values (latitude before longitude, the first
/// point against 0,0) are zig-zag encoded into 5-bit chunks, low chunk first, 0x20 on every chunk
/// but the last, plus 63. Decoding returns the exact integers; a coordinate is `integer / 10^p`
/// (division: it gives the double nearest the decimal, multiplication by 10^-p often does not).
public enum Polyline {
    public static let precisions = 0...10

    /// 10^p as an exact double (p ≤ 22).
    @inline(__always)
    public static func scale(_ precision: Int) -> Double {
        var value = 1.0
        for _ in 0..<precision { value *= 10 }
        return value
    }
}

/// A malformed polyline or an unencodable coordinate, with the byte offset it was found at.
public struct PolylineError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Equatable, Sendable {
        case invalidByte(UInt8)
        case truncated
        case missingLongitude
        case overflow
        case coordinateTooLarge(Double)
        case notFinite(Double)
    }
    public var kind: Kind
    /// Byte offset in the polyline (decoding), or index of the coordinate (encoding).
    public var offset: Int

    public var description: String {
        switch kind {
        case .invalidByte(let byte):
            let shown = byte >= 0x20 && byte < 0x7F ? "'\(Character(Unicode.Scalar(byte)))' " : ""
            return "invalid polyline: byte \(offset) (\(shown)0x\(String(byte, radix: 16, uppercase: true))) is outside '?'..'~'"
        case .truncated:
            return "invalid polyline: the value starting at byte \(offset) runs off the end (truncated)"
        case .missingLongitude:
            return "invalid polyline: a latitude with no longitude at byte \(offset)"
        case .overflow:
            return "invalid polyline: the value at byte \(offset) overflows 64 bits"
        case .coordinateTooLarge(let value):
            return "coordinate \(value) of point \(offset) is too large to encode at this precision"
        case .notFinite(let value):
            return "coordinate \(value) of point \(offset) is not a finite number"
        }
    }
}

// MARK: - Decoding

extension Polyline {
    /// Decodes `text` into scaled integers: calls `body(latitude, longitude)` for each point.
    /// Throws on a byte outside 63...126, a value running off the end, a latitude without a
    /// longitude, or a value or running sum that overflows 64 bits.
    @inline(__always)
    public static func decode(_ text: UnsafeBufferPointer<UInt8>,
                              _ body: (Int64, Int64) -> Void) throws(PolylineError) {
        var index = 0
        var latitude: Int64 = 0
        var longitude: Int64 = 0
        while index < text.count {
            let latitudeStart = index
            let deltaLatitude = try value(text, &index)
            if index == text.count { throw PolylineError(kind: .missingLongitude, offset: latitudeStart) }
            let longitudeStart = index
            let deltaLongitude = try value(text, &index)
            let (newLatitude, overflowLatitude) = latitude.addingReportingOverflow(deltaLatitude)
            if overflowLatitude { throw PolylineError(kind: .overflow, offset: latitudeStart) }
            let (newLongitude, overflowLongitude) = longitude.addingReportingOverflow(deltaLongitude)
            if overflowLongitude { throw PolylineError(kind: .overflow, offset: longitudeStart) }
            latitude = newLatitude
            longitude = newLongitude
            body(latitude, longitude)
        }
    }

    /// Room enough for the values of `text`: one per byte that can end a value ('?'...'^', and
    /// any invalid byte below '?'). Eight bytes at a time: a byte loop took a sixth of a decode.
    public static func valueCountBound(_ text: UnsafeBufferPointer<UInt8>) -> Int {
        guard let base = text.baseAddress else { return 0 }
        let high: UInt64 = 0x8080_8080_8080_8080
        var count = 0, index = 0
        while index + 8 <= text.count {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
            // A byte's 0x80 survives the subtraction when its low 7 bits are 95 or more; bytes
            // of 128 and up are invalid anywhere and can end nothing.
            let below = ~((word | high) &- 0x5F5F_5F5F_5F5F_5F5F) & ~word & high
            count &+= below.nonzeroBitCount
            index += 8
        }
        while index < text.count {
            count &+= base[index] < 95 ? 1 : 0
            index += 1
        }
        return count
    }

    /// Decodes `text` into `destination` as longitude, latitude pairs (GeoJSON's order) and
    /// returns how many integers it wrote. `destination` has room for `valueCountBound(text)`
    /// integers. The same checks and errors as `decode(_:_:)`, without a call per point: in
    /// `geo decode` the closure call and the array append per point took a sixth of the time.
    public static func decodeIntoPairs(_ text: UnsafeBufferPointer<UInt8>,
                                       _ destination: UnsafeMutablePointer<Int64>) throws(PolylineError) -> Int {
        var written = 0
        try decode(text) { latitude, longitude in
            destination[written] = longitude
            destination[written + 1] = latitude
            written += 2
        }
        return written
    }

    /// One zig-zag value: chunks of 5 bits, low first, 0x20 set on all but the last.
    @inline(__always)
    static func value(_ text: UnsafeBufferPointer<UInt8>, _ index: inout Int) throws(PolylineError) -> Int64 {
        if index + 8 <= text.count,
           let (bits, length) = valueInWord(UnsafeRawPointer(text.baseAddress! + index).loadUnaligned(as: UInt64.self)) {
            index += length
            let magnitude = Int64(bitPattern: bits >> 1)
            return bits & 1 != 0 ? ~magnitude : magnitude
        }
        return try valueByteByByte(text, &index)
    }

    /// The zig-zag bits of a value that ends within these eight bytes (first byte lowest), and
    /// its length; nil when it does not end there or a byte before its end is not '?'...'~'
    /// (the byte-by-byte path then reads it, and names the problem). Without a loop: a loop's
    /// exit, at a length that varies from value to value, mispredicts every time.
    @inline(__always)
    static func valueInWord(_ loaded: UInt64) -> (UInt64, Int)? {
        let word = UInt64(littleEndian: loaded)
        let high: UInt64 = 0x8080_8080_8080_8080
        // Each byte minus 63 in its low 7 bits, with no borrow between bytes (the 0x80 set
        // first absorbs it); its 0x80 is then clear when the byte's low 7 bits were below 63.
        let chunks = (word | high) &- 0x3F3F_3F3F_3F3F_3F3F
        let ends = ~chunks & 0x2020_2020_2020_2020
        guard ends != 0 else { return nil }
        let length = ends.trailingZeroBitCount / 8 + 1
        let inValue = length == 8 ? UInt64.max : (1 << UInt64(8 * length)) &- 1
        // Outside '?'...'~': below 63, 127 (its low 7 bits plus one reach 0x80), or 128 and up.
        let invalid = (~chunks | ((word & 0x7F7F_7F7F_7F7F_7F7F) &+ 0x0101_0101_0101_0101) | word) & high
        guard invalid & inValue == 0 else { return nil }
        // Gather the 5-bit chunks: pairs into 10 bits, then 20, then 40.
        var bits = chunks & 0x1F1F_1F1F_1F1F_1F1F & inValue
        bits = (bits & 0x00FF_00FF_00FF_00FF) | ((bits & 0xFF00_FF00_FF00_FF00) >> 3)
        bits = (bits & 0x0000_FFFF_0000_FFFF) | ((bits & 0xFFFF_0000_FFFF_0000) >> 6)
        bits = (bits & 0x0000_0000_FFFF_FFFF) | ((bits & 0xFFFF_FFFF_0000_0000) >> 12)
        return (bits, length)
    }

    static func valueByteByByte(_ text: UnsafeBufferPointer<UInt8>, _ index: inout Int) throws(PolylineError) -> Int64 {
        let start = index
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard index < text.count else { throw PolylineError(kind: .truncated, offset: start) }
            let byte = text[index]
            let chunk = byte &- 63
            guard chunk < 64 else { throw PolylineError(kind: .invalidByte(byte), offset: index) }
            index += 1
            let bits = UInt64(chunk & 0x1F)
            // The 13th chunk may only add the last 4 bits of a 64-bit value.
            guard shift < 64, shift < 60 || bits >> (64 - shift) == 0 else {
                throw PolylineError(kind: .overflow, offset: start)
            }
            result |= bits << shift
            shift += 5
            if chunk < 0x20 { break }
        }
        let magnitude = Int64(bitPattern: result >> 1)
        return result & 1 != 0 ? ~magnitude : magnitude
    }

    /// Convenience for tests and small jobs: `(latitude, longitude)` pairs as doubles.
    public static func decode(_ text: String, precision: Int = 5) throws(PolylineError) -> [(Double, Double)] {
        var points: [(Double, Double)] = []
        let factor = scale(precision)
        var text = text
        var failure: PolylineError?
        text.withUTF8 { utf8 in
            do throws(PolylineError) {
                try decode(utf8) { points.append((Double($0) / factor, Double($1) / factor)) }
            } catch { failure = error }
        }
        if let failure { throw failure }
        return points
    }
}

// MARK: - Encoding

/// Encodes one path incrementally: `append` each point, then take the text.
public struct PolylineEncoder {
    public let precision: Int
    let factor: Double
    var previousLatitude: Int64 = 0
    var previousLongitude: Int64 = 0
    var pointIndex = 0

    public init(precision: Int) {
        precondition(Polyline.precisions.contains(precision))
        self.precision = precision
        factor = Polyline.scale(precision)
    }

    /// round(|v|·10^p) half away from zero, with the sign put back; an error past 64 bits.
    @inline(__always)
    func rounded(_ value: Double) throws(PolylineError) -> Int64 {
        let scaled = value * factor
        // One test for both errors (NaN and infinities fail it too), told apart once it fails.
        guard scaled >= -0x1p63 && scaled < 0x1p63 else {
            throw PolylineError(kind: value.isFinite ? .coordinateTooLarge(value) : .notFinite(value), offset: pointIndex)
        }
        return PolylineEncoder.roundedHalfAway(scaled)
    }

    /// A double of magnitude under 2^63 rounded to an integer, half away from zero. Add the
    /// largest double below one half, with the sign of `scaled`, and truncate: exact for every
    /// double. Adding 0.5 itself is not: 0.49999999999999994 + 0.5 rounds up to 1, and so does
    /// 2^52 + 1.5 to 2^52 + 2. With 0.5 - 2^-54, a sum below the next integer stays below it (a
    /// fraction under one half is at least one ulp under it), and a fraction of one half exactly
    /// reaches it. No branch: whether a coordinate's scaled double lies just above or just below
    /// its integer is a coin toss.
    @inline(__always)
    static func roundedHalfAway(_ scaled: Double) -> Int64 {
        Int64(scaled + Double(signOf: scaled, magnitudeOf: 0.49999999999999994))
    }

    /// The most bytes one point takes: two 64-bit values of 13 five-bit chunks each.
    public static let maximumPointLength = 26

    /// Writes the encoding of one point at `output`, which must have room for
    /// `maximumPointLength` bytes, and returns how many it wrote.
    @inline(__always)
    public mutating func append(latitude: Double, longitude: Double,
                                to output: UnsafeMutablePointer<UInt8>) throws(PolylineError) -> Int {
        let lat = try rounded(latitude)
        let lng = try rounded(longitude)
        let (deltaLatitude, overflowLatitude) = lat.subtractingReportingOverflow(previousLatitude)
        let (deltaLongitude, overflowLongitude) = lng.subtractingReportingOverflow(previousLongitude)
        guard !overflowLatitude else { throw PolylineError(kind: .coordinateTooLarge(latitude), offset: pointIndex) }
        guard !overflowLongitude else { throw PolylineError(kind: .coordinateTooLarge(longitude), offset: pointIndex) }
        let latitudeLength = PolylineEncoder.emit(deltaLatitude, to: output)
        let length = latitudeLength + PolylineEncoder.emit(deltaLongitude, to: output + latitudeLength)
        previousLatitude = lat
        previousLongitude = lng
        pointIndex += 1
        return length
    }

    /// Writes the encoding of `count` points at `output`, which has room for `count *
    /// maximumPointLength` bytes, and returns how many bytes it wrote. The points lie `stride`
    /// bytes apart from `points`, each with its latitude and longitude as doubles at the given
    /// offsets: an array of any position type, read in one loop with no call per point.
    public mutating func append(points: UnsafeRawPointer, count: Int, stride: Int, latitudeOffset: Int, longitudeOffset: Int,
                                to output: UnsafeMutablePointer<UInt8>) throws(PolylineError) -> Int {
        var written = 0
        var point = points
        // The loop keeps its state in locals, stored back once: kept in `self`, it was written to
        // memory at every point. Wrapping arithmetic: `written` is bounded by the output's size.
        var lastLatitude = previousLatitude, lastLongitude = previousLongitude
        defer {
            previousLatitude = lastLatitude
            previousLongitude = lastLongitude
        }
        // While this point and the previous one are under 2^62 (every coordinate is: 180 * 10^10
        // is under 2^41), a value is finite and a delta cannot overflow: no check per value.
        // Anything else takes the checked path, and so does every point after one that was over.
        var checked = lastLatitude.magnitude >= 1 << 62 || lastLongitude.magnitude >= 1 << 62
        let firstIndex = pointIndex
        for index in 0..<count {
            let latitude = point.load(fromByteOffset: latitudeOffset, as: Double.self)
            let longitude = point.load(fromByteOffset: longitudeOffset, as: Double.self)
            point += stride
            let scaledLatitude = latitude * factor, scaledLongitude = longitude * factor
            guard !checked && scaledLatitude.magnitude < 0x1p62 && scaledLongitude.magnitude < 0x1p62 else {
                (previousLatitude, previousLongitude, pointIndex) = (lastLatitude, lastLongitude, firstIndex &+ index)
                written &+= try append(latitude: latitude, longitude: longitude, to: output + written)
                (lastLatitude, lastLongitude) = (previousLatitude, previousLongitude)
                checked = lastLatitude.magnitude >= 1 << 62 || lastLongitude.magnitude >= 1 << 62
                continue
            }
            let lat = PolylineEncoder.roundedHalfAway(scaledLatitude), lng = PolylineEncoder.roundedHalfAway(scaledLongitude)
            written &+= PolylineEncoder.emit(lat &- lastLatitude, to: output + written)
            written &+= PolylineEncoder.emit(lng &- lastLongitude, to: output + written)
            lastLatitude = lat
            lastLongitude = lng
        }
        pointIndex = firstIndex &+ count
        return written
    }

    /// Appends the encoding of one point through `write`, a byte at a time.
    @inline(__always)
    public mutating func append(latitude: Double, longitude: Double,
                                to write: (UInt8) -> Void) throws(PolylineError) {
        try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: PolylineEncoder.maximumPointLength) { bytes throws(PolylineError) in
            let length = try append(latitude: latitude, longitude: longitude, to: bytes.baseAddress!)
            for index in 0..<length { write(bytes[index]) }
        }
    }

    /// Writes one zig-zag value at `output` and returns its length. Most values take one to four
    /// chunks: those are spread into the bytes of one word, each with its continuation bit set
    /// when more follow, and stored at once, without a branch on the length (a loop's exit, at a
    /// length that varies from value to value, mispredicts); bytes past the value's length are
    /// scratch that the next value overwrites. The length and the continuation bits come from
    /// `chunkLayouts` by the value's highest bit: fifteen instructions of comparisons and
    /// shifts had been a fifth of the encoder's.
    @inline(__always)
    static func emit(_ delta: Int64, to output: UnsafeMutablePointer<UInt8>) -> Int {
        let zigzag = UInt64(bitPattern: (delta << 1) ^ (delta >> 63))
        if zigzag < 1 << 20 {
            let highestBit = 63 &- (zigzag | 1).leadingZeroBitCount
            let layout = withUnsafePointer(to: &chunkLayouts) {
                UnsafeRawPointer($0).load(fromByteOffset: highestBit &* 8, as: UInt64.self)
            }
            let value = UInt32(truncatingIfNeeded: zigzag)
            let chunks = (value & 0x1F) | (value & 0x3E0) << 3 | (value & 0x7C00) << 6 | (value & 0xF_8000) << 9
            let more = UInt32(truncatingIfNeeded: layout >> 32)
            UnsafeMutableRawPointer(output).storeBytes(of: ((chunks | more) &+ 0x3F3F_3F3F).littleEndian, as: UInt32.self)
            return Int(truncatingIfNeeded: layout & 0xFF)
        }
        var rest = zigzag
        var index = 0
        while rest >= 0x20 {
            output[index] = UInt8(0x20 | (rest & 0x1F)) + 63
            rest >>= 5
            index += 1
        }
        output[index] = UInt8(rest) + 63
        return index + 1
    }
}

extension Polyline {
    /// Convenience for tests and small jobs: `(latitude, longitude)` pairs to text.
    public static func encode(_ points: [(Double, Double)], precision: Int = 5) throws(PolylineError) -> String {
        var encoder = PolylineEncoder(precision: precision)
        var bytes: [UInt8] = []
        for (latitude, longitude) in points {
            try encoder.append(latitude: latitude, longitude: longitude) { bytes.append($0) }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// For a zig-zag value under 2^20, by the index of its highest set bit (0...19): its length in
/// five-bit chunks (the low half) and the continuation bits of every chunk but its last, one
/// 0x20 a byte (the high half). A global `var` because Swift initialises that statically (see
/// JSONBytes' `powerOfTen`); nothing writes it.
nonisolated(unsafe) private var chunkLayouts: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                                               UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (
    0x00000000_00000001, 0x00000000_00000001, 0x00000000_00000001, 0x00000000_00000001, 0x00000000_00000001,
    0x00000020_00000002, 0x00000020_00000002, 0x00000020_00000002, 0x00000020_00000002, 0x00000020_00000002,
    0x00002020_00000003, 0x00002020_00000003, 0x00002020_00000003, 0x00002020_00000003, 0x00002020_00000003,
    0x00202020_00000004, 0x00202020_00000004, 0x00202020_00000004, 0x00202020_00000004, 0x00202020_00000004
)

extension PolylineEncoder {
    /// A coordinate as this encoder rounds it (`value`·10^p, half away from zero): the integer
    /// whose differences the polyline holds.
    public func integer(_ value: Double) throws(PolylineError) -> Int64 { try rounded(value) }

    /// How many characters the encoding of one value (a difference of integers) takes: what
    /// a budget of characters counts without writing them.
    public static func encodedLength(_ delta: Int64) -> Int {
        let zigzag = UInt64(bitPattern: (delta << 1) ^ (delta >> 63))
        return (64 - (zigzag | 1).leadingZeroBitCount + 4) / 5
    }
}
