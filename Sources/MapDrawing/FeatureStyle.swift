#if canImport(Glibc)
import Glibc
#endif
import GeoCommandLine
import GeoJSON
import Geometry
import JSONBytes
import Styles

/// How one record is drawn, read from its properties: the Maps SDK's names and simplestyle's
/// alike (docs/render.md). Defaults follow simplestyle.
package struct FeatureStyle: Equatable {
    package var stroke = Stroke.colour(Colour(red: 0x55, green: 0x55, blue: 0x55))
    package var strokeWidth = 2.0
    package var strokeOpacity = 1.0
    package var fill = Colour(red: 0x55, green: 0x55, blue: 0x55, alpha: 153)
    package var markerColour = Colour(red: 0x7E, green: 0x7E, blue: 0x7E)
    package var markerRadius = 7.0
    package var zIndex = 0.0
    package var geodesic = false
    /// The zooms `geo tiles` draws the feature at: its `minzoom` and `maxzoom` properties, or
    /// tippecanoe's `"tippecanoe": {"minzoom": …, "maxzoom": …}` member (render ignores them).
    package var zooms = 0...Int.max
    /// GMSPolyline.spans, as `geo spans` writes them: one list for the path (each part of a
    /// MultiLineString drawn with it alike), or for a MultiLineString one list per part
    /// (`[[…], […]]`, `perPartSpans`), each part's spans running from its own first vertex.
    package var spans: [[Span]] = []
    package var perPartSpans = false
    package typealias Span = (style: Style, segments: Double)

    /// The spans part `part` of a path is drawn with (a LineString is part 0).
    package func spans(ofPart part: Int) -> [Span] {
        guard perPartSpans else { return spans.first ?? [] }
        return part < spans.count ? spans[part] : []
    }

    /// Whether any part has spans to draw.
    package var hasSpans: Bool { spans.contains { !$0.isEmpty } }

    package enum Stroke: Equatable {
        case colour(Colour)
        /// A `geo spans --split` piece: `stroke` at its start, `stroke-end` at its end.
        case ramp(Colour, Colour)
        case style(Style)

        /// The one colour of a solid stroke; nil for a ramp, a gradient or a stamp.
        var solidColour: Colour? {
            switch self {
            case .colour(let colour), .style(.solid(let colour)): colour
            default: nil
            }
        }

        /// Ramps along the line (what needs edge lengths).
        var isRamp: Bool {
            switch self {
            case .ramp, .style(.gradient): true
            default: false
            }
        }
    }

    package static func == (a: FeatureStyle, b: FeatureStyle) -> Bool {
        a.stroke == b.stroke && a.strokeWidth == b.strokeWidth && a.strokeOpacity == b.strokeOpacity && a.fill == b.fill
            && a.markerColour == b.markerColour && a.markerRadius == b.markerRadius && a.zIndex == b.zIndex
            && a.geodesic == b.geodesic && a.zooms == b.zooms && a.perPartSpans == b.perPartSpans
            && a.spans.elementsEqual(b.spans) { $0.elementsEqual($1) { $0.style == $1.style && $0.segments == $1.segments } }
    }

    /// Marker radii in pixels for simplestyle's marker-size.
    package static let markerSizes: [String: Double] = ["small": 5, "medium": 7, "large": 10]

    /// Reads the style of `feature` (properties in `record`); `stamps` are the names registered
    /// with --stamp. Anything it cannot use is a bad record.
    package init(_ feature: Feature, in record: UnsafeBufferPointer<UInt8>, stamps: Set<String>) throws {
        try self.init(properties: feature.propertiesBytes.map { UnsafeBufferPointer(rebasing: record[$0]) }, stamps: stamps)
    }

    /// Reads the style of the properties object `properties` (its raw JSON), or the defaults.
    package init(properties: UnsafeBufferPointer<UInt8>?, stamps: Set<String>) throws {
        guard let properties, properties.first == UInt8(ascii: "{") else { return }
        var scanner = JSONScanner(properties)
        guard try scanner.enter(UInt8(ascii: "{"), UInt8(ascii: "}")) else { return }
        var strokeText: (key: String, text: String)?, strokeEnd: String?
        var fillText: (key: String, text: String)?, fillOpacity: Double?
        var minZoom = 0, maxZoom = Int.max
        /// A zoom level: a number 0 or more, its whole part.
        func zoom(_ key: String) throws -> Int {
            Int(min(try FeatureStyle.number(&scanner, key, "a zoom level, 0 or more") { $0 >= 0 }, 64).rounded(.down))
        }
        repeat {
            let token = try scanner.key()
            let key = scanner.text(token)
            switch key {
            case "stroke", "strokeColor":
                strokeText = (key, try FeatureStyle.string(&scanner, key))
            case "stroke-end":
                strokeEnd = try FeatureStyle.string(&scanner, key)
            case "stroke-width", "strokeWidth":
                strokeWidth = try FeatureStyle.number(&scanner, key, "a width in pixels, 0 or more") { $0 >= 0 }
            case "stroke-opacity":
                strokeOpacity = try FeatureStyle.number(&scanner, key, "an opacity from 0 to 1") { (0...1).contains($0) }
            case "fill", "fillColor":
                fillText = (key, try FeatureStyle.string(&scanner, key))
            case "fill-opacity":
                fillOpacity = try FeatureStyle.number(&scanner, key, "an opacity from 0 to 1") { (0...1).contains($0) }
            case "z-index", "zIndex":
                zIndex = try FeatureStyle.number(&scanner, key, "a number") { _ in true }
            case "marker-color":
                let text = try FeatureStyle.string(&scanner, key)
                guard let colour = Colour(text) else { throw FeatureStyle.notAColour(key, text) }
                markerColour = colour
            case "marker-size":
                let text = try FeatureStyle.string(&scanner, key)
                guard let radius = FeatureStyle.markerSizes[text] else {
                    throw BadRecord("properties.marker-size: '\(MessageText.excerpt(text))' is not small, medium or large")
                }
                markerRadius = radius
            case "geodesic":
                geodesic = try FeatureStyle.bool(&scanner, key)
            case "spans":
                (spans, perPartSpans) = try FeatureStyle.spans(&scanner, stamps: stamps)
            case "minzoom": minZoom = try zoom(key)
            case "maxzoom": maxZoom = try zoom(key)
            case "tippecanoe" where scanner.peek() == UInt8(ascii: "{"):
                guard try scanner.enter(UInt8(ascii: "{"), UInt8(ascii: "}")) else { break }
                repeat {
                    let member = scanner.text(try scanner.key())
                    switch member {
                    case "minzoom": minZoom = try zoom("tippecanoe.minzoom")
                    case "maxzoom": maxZoom = try zoom("tippecanoe.maxzoom")
                    default: try scanner.skipValue()
                    }
                } while try scanner.next(UInt8(ascii: "}"))
            default:
                try scanner.skipValue()
            }
        } while try scanner.next(UInt8(ascii: "}"))
        if let (key, text) = strokeText {
            let style = try FeatureStyle.style(text, key, stamps: stamps)
            switch (style, strokeEnd) {
            case (.solid(let from), let end?):
                guard let to = Colour(end) else { throw FeatureStyle.notAColour("stroke-end", end) }
                stroke = .ramp(from, to)
            case (.solid(let colour), nil): stroke = .colour(colour)
            default: stroke = .style(style)
            }
        } else if let end = strokeEnd {
            guard let to = Colour(end) else { throw FeatureStyle.notAColour("stroke-end", end) }
            if case .colour(let from) = stroke { stroke = .ramp(from, to) }
        }
        if let (key, text) = fillText {
            guard let colour = Colour(text) else { throw FeatureStyle.notAColour(key, text) }
            // A colour with its own alpha keeps it; simplestyle's 0.6 is for one without.
            fill = colour
            if !FeatureStyle.hasAlpha(text) && fillOpacity == nil { fill.alpha = 153 }
        }
        if let fillOpacity { fill.alpha = UInt8((Double(fill.alpha) * fillOpacity).rounded()) }
        guard minZoom <= maxZoom else { throw BadRecord("properties: minzoom \(minZoom) is above maxzoom \(maxZoom)") }
        zooms = minZoom...maxZoom
    }

    package init() {}

    /// Whether a colour's text gives its alpha (`#RRGGBBAA`, `rgba(...)`).
    package static func hasAlpha(_ text: String) -> Bool {
        let text = text.trimmingSpaces().lowercased()
        return text.hasPrefix("rgba(") || (text.hasPrefix("#") && text.count == 9)
    }

    package static func style(_ text: String, _ key: String, stamps: Set<String>) throws -> Style {
        guard let style = Style(text) else {
            throw BadRecord("properties.\(key): '\(MessageText.excerpt(text))' is not a colour or style: use \(Colour.forms), gradient(FROM,TO), "
                            + "sprite(NAME) or texture(NAME)" + colourNameSuggestion(text))
        }
        switch style {
        case .sprite(let name), .texture(let name):
            guard stamps.contains(name) else {
                throw BadRecord("properties.\(key): no stamp '\(MessageText.excerpt(name))' was registered (give --stamp \(MessageText.excerpt(name))=IMAGE.png)")
            }
        default: break
        }
        return style
    }

    package static func notAColour(_ key: String, _ text: String) -> BadRecord {
        BadRecord("properties.\(key): '\(MessageText.excerpt(text))' is not a colour: use \(Colour.forms)" + colourNameSuggestion(text))
    }

    /// "; did you mean 'gray'?" for a misspelt colour name.
    package static func colourNameSuggestion(_ text: String) -> String {
        ArgumentParser.suggestion(for: text.trimmingSpaces().lowercased(), among: namedColours.keys.sorted(), prefix: "")
    }

    package static func string(_ scanner: inout JSONScanner, _ key: String) throws -> String {
        guard scanner.peek() == UInt8(ascii: "\"") else { throw BadRecord("properties.\(key) is not a string") }
        return scanner.text(try scanner.string())
    }

    package static func number(_ scanner: inout JSONScanner, _ key: String, _ what: String, _ valid: (Double) -> Bool) throws -> Double {
        let next = scanner.peek()
        if next == UInt8(ascii: "\"") {  // "5": ogr2ogr writes a CSV column as strings
            let text = try string(&scanner, key)
            guard let value = Double(text.trimmingSpaces()), value.isFinite, valid(value) else {
                throw BadRecord("properties.\(key): \"\(MessageText.excerpt(text))\" is not \(what)")
            }
            return value
        }
        guard let next, next == UInt8(ascii: "-") || (next >= 48 && next <= 57) else {
            let bytes = try scanner.skipValue()
            throw BadRecord("properties.\(key): \(MessageText.excerpt(scanner.bytes[bytes])) is not \(what)")
        }
        let value = try scanner.number()
        guard value.isFinite, valid(value) else { throw BadRecord("properties.\(key): \(number: value) is not \(what)") }
        return value
    }

    package static func bool(_ scanner: inout JSONScanner, _ key: String) throws -> Bool {
        let bytes = try scanner.skipValue()
        let text = String(decoding: scanner.bytes[bytes], as: UTF8.self)
        switch text {
        case "true": return true
        case "false", "null": return false
        default: throw BadRecord("properties.\(key) is not true or false")
        }
    }

    /// `[{"style": S, "segments": X}, ...]`, as `geo spans` writes it (segments default to 1), or
    /// for a MultiLineString a list of such lists, one per part (`perPart`).
    package static func spans(_ scanner: inout JSONScanner, stamps: Set<String>) throws -> (lists: [[Span]], perPart: Bool) {
        guard scanner.peek() == UInt8(ascii: "[") else {
            throw BadRecord("properties.spans is not a list of {\"style\", \"segments\"} (nor, for a MultiLineString, a list of such lists, one per part)")
        }
        guard try scanner.enter(UInt8(ascii: "["), UInt8(ascii: "]")) else { return ([], false) }
        guard scanner.peek() == UInt8(ascii: "[") else { return ([try spanItems(&scanner, "spans", stamps: stamps)], false) }
        var lists: [[Span]] = []
        repeat {
            let name = "spans[\(lists.count)]"
            guard scanner.peek() == UInt8(ascii: "[") else { throw BadRecord("properties.\(name) is not a list of {\"style\", \"segments\"}") }
            lists.append(try scanner.enter(UInt8(ascii: "["), UInt8(ascii: "]")) ? try spanItems(&scanner, name, stamps: stamps) : [])
        } while try scanner.next(UInt8(ascii: "]"))
        return (lists, true)
    }

    /// The spans of one list, its opening bracket read: `name` is the list's place in messages.
    private static func spanItems(_ scanner: inout JSONScanner, _ name: String, stamps: Set<String>) throws -> [Span] {
        var spans: [Span] = []
        repeat {
            let item = "\(name)[\(spans.count)]"
            guard scanner.peek() == UInt8(ascii: "{") else { throw BadRecord("properties.\(item) is not an object") }
            var style: Style?, segments = 1.0
            if try scanner.enter(UInt8(ascii: "{"), UInt8(ascii: "}")) {
                repeat {
                    let key = scanner.text(try scanner.key())
                    switch key {
                    case "style": style = try FeatureStyle.style(try string(&scanner, "\(item).style"), "\(item).style", stamps: stamps)
                    case "segments": segments = try number(&scanner, "\(item).segments", "a number greater than 0") { $0 > 0 }
                    default: try scanner.skipValue()
                    }
                } while try scanner.next(UInt8(ascii: "}"))
            }
            guard let style else { throw BadRecord("properties.\(item) has no style") }
            spans.append((style, segments))
        } while try scanner.next(UInt8(ascii: "]"))
        return spans
    }
}

/// Whether `bytes` hold the same bytes as `other`: compared with memcmp, where the generic
/// elementsEqual took 2 % of a tile run (properties are compared for every feature drawn).
package func sameBytes(_ bytes: [UInt8], _ other: UnsafeBufferPointer<UInt8>) -> Bool {
    guard bytes.count == other.count else { return false }
    return other.isEmpty || bytes.withUnsafeBytes { memcmp($0.baseAddress!, other.baseAddress!, other.count) } == 0
}

/// The styles of prepared features (whose properties the workers already read without error),
/// kept by their properties' bytes: the features of a layer mostly share their properties, and
/// comparing the bytes costs far less than reading colours and spans again for every feature
/// in every tile. One per thread; at most `limit` styles and `limitBytes` of properties,
/// forgotten all at once when full (a layer whose every feature has its own properties then
/// costs one lookup more a feature).
package final class StyleCache {
    static let limit = 4096
    static let limitBytes = 1 << 20
    /// Properties longer than this are read each time (long span lists): their bytes would
    /// fill memory faster than they repeat.
    static let longest = 4096
    let stamps: Set<String>
    private var styles: [[UInt8]: FeatureStyle] = [:]
    private var bytes = 0
    private var last: (bytes: [UInt8], style: FeatureStyle)?

    package init(stamps: Set<String>) { self.stamps = stamps }

    /// The style of `properties`, or the defaults where a prepared feature's style cannot be read.
    package func style(_ properties: UnsafeBufferPointer<UInt8>?) -> FeatureStyle {
        guard let properties, properties.count <= StyleCache.longest else { return read(properties) }
        if let last, sameBytes(last.bytes, properties) { return last.style }
        let key = Array(properties)
        let style: FeatureStyle
        if let known = styles[key] {
            style = known
        } else {
            style = read(properties)
            if styles.count >= StyleCache.limit || bytes + key.count > StyleCache.limitBytes {
                styles.removeAll(keepingCapacity: true)
                bytes = 0
            }
            styles[key] = style
            bytes += key.count
        }
        last = (key, style)
        return style
    }

    private func read(_ properties: UnsafeBufferPointer<UInt8>?) -> FeatureStyle {
        (try? FeatureStyle(properties: properties, stamps: stamps)) ?? FeatureStyle()
    }
}
