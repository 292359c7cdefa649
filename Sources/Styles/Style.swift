/// A GMSStrokeStyle: a solid colour, a gradient from one colour to another across its span, or a
/// stamp (GMSSpriteStyle, GMSTextureStyle) named by the image registered for it: styles name
/// images, they never hold a file path (a record never makes geo open a file).
public enum Style: Equatable, Sendable {
    case solid(Colour)
    case gradient(Colour, Colour)
    /// GMSSpriteStyle: the image repeated along the line, turned with it.
    case sprite(String)
    /// GMSTextureStyle: the image tiled along the stroke, scaled to its width.
    case texture(String)

    /// Parses a colour (`Colour.init`), `gradient(FROM,TO)`, `sprite(NAME)`, `texture(NAME)`
    /// (colour names and function names case-insensitive; stamp names are not).
    public init?(_ text: String) {
        let trimmed = text.trimmingSpaces()
        if let inner = functionArguments(trimmed, "gradient") {
            let parts = splitTopLevel(inner)
            guard parts.count == 2, let from = Colour(parts[0]), let to = Colour(parts[1]) else { return nil }
            self = .gradient(from, to)
            return
        }
        for (function, make) in [("sprite", Style.sprite), ("texture", Style.texture)] {
            if let inner = functionArguments(trimmed, function) {
                let name = inner.trimmingSpaces()
                guard isStampName(name) else { return nil }
                self = make(name)
                return
            }
        }
        guard let colour = Colour(trimmed) else { return nil }
        self = .solid(colour)
    }
}

/// An sRGB colour with alpha, 0...255 per channel.
public struct Colour: Equatable, Sendable {
    public var red, green, blue, alpha: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// The forms `init` reads, for messages.
    public static let forms = "a name, #RGB, #RRGGBB, #RRGGBBAA, rgb(R,G,B) or rgba(R,G,B,A)"

    /// Parses a name (UIKit's, CSS's), `#RGB`, `#RRGGBB`, `#RRGGBBAA`, CSS's `rgb(R,G,B)` (0-255)
    /// and `rgba(R,G,B,A)`: UIColor's four 0-1 floats, or CSS's 0-255 channels with alpha 0-1
    /// when a channel is above 1 (`rgba(255,0,0,0.5)`).
    public init?(_ text: String) {
        let text = text.trimmingSpaces()
        let isRGB = functionArguments(text, "rgb") != nil
        if let inner = functionArguments(text, "rgba") ?? functionArguments(text, "rgb") {
            let parts = splitTopLevel(inner)
            let numbers = parts.compactMap { Double($0.trimmingSpaces()) }
            let channels = numbers.prefix(3), alpha = isRGB ? 1 : numbers.last ?? -1
            // rgb() is CSS's; rgba() is UIColor's 0-1 floats unless a channel says 0-255.
            let scale = isRGB || channels.contains { $0 > 1 } ? 1.0 : 255.0
            guard numbers.count == parts.count, numbers.count == (isRGB ? 3 : 4), channels.allSatisfy({ (0...255 / scale).contains($0) }),
                  (0...1).contains(alpha) else { return nil }
            let bytes = channels.map { UInt8(($0 * scale).rounded()) }
            self.init(red: bytes[0], green: bytes[1], blue: bytes[2], alpha: UInt8((alpha * 255).rounded()))
            return
        }
        if text.hasPrefix("#") {
            var digits = Array(text.dropFirst())
            // #e00, as simplestyle allows and geojson.io writes: each digit doubled.
            if digits.count == 3 { digits = digits.flatMap { [$0, $0] } }
            guard digits.count == 6 || digits.count == 8, digits.allSatisfy(\.isHexDigit),
                  let value = UInt32(String(digits), radix: 16) else { return nil }
            let full = digits.count == 6 ? value << 8 | 0xFF : value
            self.init(red: UInt8(full >> 24), green: UInt8(full >> 16 & 0xFF), blue: UInt8(full >> 8 & 0xFF), alpha: UInt8(full & 0xFF))
            return
        }
        guard let rgba = namedColours[text.lowercased()] else { return nil }
        self.init(red: UInt8(rgba >> 24), green: UInt8(rgba >> 16 & 0xFF), blue: UInt8(rgba >> 8 & 0xFF), alpha: UInt8(rgba & 0xFF))
    }

    /// `#rrggbb`, as simplestyle's `stroke` wants it (alpha goes in `stroke-opacity`).
    public var hex: String {
        "#" + [red, green, blue].map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    public var opacity: Double { Double(alpha) / 255 }

    /// The colour `t` of the way from `self` to `other` (0...1), channel by channel.
    public func mixed(with other: Colour, _ t: Double) -> Colour {
        func channel(_ a: UInt8, _ b: UInt8) -> UInt8 { UInt8((Double(a) + (Double(b) - Double(a)) * t).rounded()) }
        return Colour(red: channel(red, other.red), green: channel(green, other.green),
                      blue: channel(blue, other.blue), alpha: channel(alpha, other.alpha))
    }
}

/// A stamp's name: letters, digits, `_` and `-`, 1 to 64 of them, so that it reads as a name and
/// never as a path.
public func isStampName(_ name: String) -> Bool {
    (1...64).contains(name.utf8.count) && name.utf8.allSatisfy { byte in
        (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || byte == 0x5F || byte == 0x2D
    }
}

extension String {
    /// Without the spaces around it.
    public func trimmingSpaces() -> String {
        var text = Substring(self)
        while text.first == " " { text = text.dropFirst() }
        while text.last == " " { text = text.dropLast() }
        return String(text)
    }
}

/// The text between the parentheses of `name(...)`, or nil when `text` is not that call.
func functionArguments(_ text: String, _ name: String) -> String? {
    guard text.lowercased().hasPrefix(name + "("), text.hasSuffix(")") else { return nil }
    return String(text.dropFirst(name.count + 1).dropLast())
}

/// Splits at the commas outside parentheses: `rgba(1,0,0,1),blue` → two parts.
func splitTopLevel(_ text: String) -> [String] {
    var parts: [String] = [], current = "", depth = 0
    for character in text {
        switch character {
        case "(": depth += 1
        case ")": depth -= 1
        case "," where depth == 0:
            parts.append(current)
            current = ""
            continue
        default: break
        }
        current.append(character)
    }
    parts.append(current)
    return parts
}

/// UIKit's named colours (the Maps SDK's examples use them: UIColor.redColor, ...), then common
/// CSS names that do not clash with them. RGBA, 8 bits each.
public let namedColours: [String: UInt32] = [
    // UIKit
    "black": 0x000000FF, "blue": 0x0000FFFF, "brown": 0x996633FF, "clear": 0x00000000,
    "cyan": 0x00FFFFFF, "darkgray": 0x555555FF, "gray": 0x808080FF, "green": 0x00FF00FF,
    "lightgray": 0xAAAAAAFF, "magenta": 0xFF00FFFF, "orange": 0xFF8000FF, "purple": 0x800080FF,
    "red": 0xFF0000FF, "white": 0xFFFFFFFF, "yellow": 0xFFFF00FF,
    // CSS
    "transparent": 0x00000000, "navy": 0x000080FF, "teal": 0x008080FF, "olive": 0x808000FF,
    "maroon": 0x800000FF, "silver": 0xC0C0C0FF, "lime": 0x00FF00FF, "aqua": 0x00FFFFFF,
    "fuchsia": 0xFF00FFFF, "pink": 0xFFC0CBFF, "gold": 0xFFD700FF, "indigo": 0x4B0082FF,
    "violet": 0xEE82EEFF, "crimson": 0xDC143CFF, "coral": 0xFF7F50FF, "salmon": 0xFA8072FF,
    "tomato": 0xFF6347FF, "orchid": 0xDA70D6FF, "khaki": 0xF0E68CFF, "beige": 0xF5F5DCFF,
    "ivory": 0xFFFFF0FF, "lavender": 0xE6E6FAFF, "turquoise": 0x40E0D0FF, "tan": 0xD2B48CFF,
    "chocolate": 0xD2691EFF, "darkgreen": 0x006400FF, "darkblue": 0x00008BFF, "darkred": 0x8B0000FF,
    "skyblue": 0x87CEEBFF, "steelblue": 0x4682B4FF, "royalblue": 0x4169E1FF, "hotpink": 0xFF69B4FF,
    "slategray": 0x708090FF, "forestgreen": 0x228B22FF, "seagreen": 0x2E8B57FF, "firebrick": 0xB22222FF,
    "darkorange": 0xFF8C00FF,
    // CSS's other spelling of the grays
    "grey": 0x808080FF, "darkgrey": 0x555555FF, "lightgrey": 0xAAAAAAFF, "slategrey": 0x708090FF,
]
