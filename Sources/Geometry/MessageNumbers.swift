// How numbers read in messages (BadRecord's, UsageError's): as geo writes them in its output.

extension DefaultStringInterpolation {
    /// `\(number: x)`: a number in a message as geo writes numbers in its output, the shortest
    /// text that reads back to the same double and never exponent notation (`0.000001`,
    /// `20000000`, `-0.5`); Swift's own shortest digits, with the exponent written out.
    public mutating func appendInterpolation(number value: Double) {
        appendLiteral(plainDecimal(value))
    }
}

extension DefaultStringInterpolation {
    /// `\(count: n)`: a whole count in a message, grouped by thousands (157,249,381,102).
    public mutating func appendInterpolation(count value: Int) {
        var digits = Array(String(value.magnitude))
        var index = digits.count - 3
        while index > 0 { digits.insert(",", at: index); index -= 3 }
        appendLiteral((value < 0 ? "-" : "") + String(digits))
    }
}

/// Swift's shortest round-trip digits (`1e-06`, `1000.0`) as a plain decimal (`0.000001`, `1000`).
public func plainDecimal(_ value: Double) -> String {
    guard value.isFinite else { return value.isNaN ? "NaN" : (value < 0 ? "-infinity" : "infinity") }
    var text = value.description
    let negative = text.hasPrefix("-")
    if negative { text.removeFirst() }
    var exponent = 0
    if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
        exponent = Int(text[text.index(after: e)...])!
        text = String(text[..<e])
    }
    var integer = text, fraction = ""
    if let dot = text.firstIndex(of: ".") {
        integer = String(text[..<dot])
        fraction = String(text[text.index(after: dot)...])
    }
    // Move the decimal point by the exponent.
    var digits = integer + fraction
    var point = integer.count + exponent
    if point < 0 { digits = String(repeating: "0", count: -point) + digits; point = 0 }
    if point > digits.count { digits += String(repeating: "0", count: point - digits.count) }
    var whole = String(digits.prefix(point)), rest = String(digits.dropFirst(point))
    while rest.last == "0" { rest.removeLast() }
    while whole.count > 1 && whole.first == "0" { whole.removeFirst() }
    if whole.isEmpty { whole = "0" }
    let plain = rest.isEmpty ? whole : whole + "." + rest
    return negative && plain != "0" ? "-" + plain : plain
}
