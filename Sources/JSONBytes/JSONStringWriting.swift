extension ByteBuffer {
    /// Appends `bytes` as a JSON string literal. Invalid UTF-8 becomes U+FFFD, so whatever came
    /// in (a rejected line of binary garbage, say) still makes valid JSON out.
    public func appendJSONString(_ bytes: UnsafeBufferPointer<UInt8>) {
        append(UInt8(ascii: "\""))
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte >= 0x20 && byte < 0x80 && byte != 0x22 && byte != 0x5C {
                append(byte); index += 1; continue
            }
            switch byte {
            case 0x22: append("\\\"")
            case 0x5C: append("\\\\")
            case 0x0A: append("\\n")
            case 0x0D: append("\\r")
            case 0x09: append("\\t")
            case 0..<0x20:
                append("\\u00")
                append(hexDigit(byte >> 4)); append(hexDigit(byte & 0xF))
            default:
                let length = validUTF8SequenceLength(bytes, at: index)
                if length == 0 {
                    append("\u{FFFD}")
                    index += 1
                } else {
                    append(UnsafeBufferPointer(rebasing: bytes[index..<(index + length)]))
                    index += length
                }
                continue
            }
            index += 1
        }
        append(UInt8(ascii: "\""))
    }

    public func appendJSONString(_ text: String) {
        var text = text
        text.withUTF8 { appendJSONString($0) }
    }
}

@inline(__always) private func hexDigit(_ nibble: UInt8) -> UInt8 {
    nibble < 10 ? 48 + nibble : 55 + nibble
}

/// The length of the well-formed UTF-8 sequence starting at `index`, or 0 if there is none.
public func validUTF8SequenceLength(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int {
    let lead = bytes[index]
    if lead < 0x80 { return 1 }
    let length: Int
    var lower: UInt8 = 0x80, upper: UInt8 = 0xBF
    switch lead {
    case 0xC2...0xDF: length = 2
    case 0xE0: length = 3; lower = 0xA0
    case 0xE1...0xEC, 0xEE...0xEF: length = 3
    case 0xED: length = 3; upper = 0x9F
    case 0xF0: length = 4; lower = 0x90
    case 0xF1...0xF3: length = 4
    case 0xF4: length = 4; upper = 0x8F
    default: return 0
    }
    guard index + length <= bytes.count else { return 0 }
    guard bytes[index + 1] >= lower && bytes[index + 1] <= upper else { return 0 }
    for i in 2..<length where bytes[index + i] & 0xC0 != 0x80 { return 0 }
    return length
}
