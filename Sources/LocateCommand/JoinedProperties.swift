import GeoCommandLine
import JSONBytes

/// `--join`: the properties of each shape of FILE that its matches carry, as the JSON object
/// each match writes under `properties`. Kept once per shape, as text ready to write, in one
/// array for all the shapes (100,000 shapes are 100,000 slices of it, not 100,000 allocations);
/// with names, only those members are kept.
struct JoinedProperties: Sendable {
    enum Selection: Sendable, Equatable {
        case all
        case named(Set<String>)
    }

    let selection: Selection
    /// Every shape's object, one after the other; shape k's ends at ends[k].
    private var text: [UInt8] = []
    private var ends: [Int] = []

    init(_ selection: Selection) { self.selection = selection }

    /// `*`, or names separated by commas.
    static func parse(_ text: String) throws(UsageError) -> Selection {
        if text == "*" { return .all }
        let names = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard !names.contains(where: \.isEmpty) else {
            throw UsageError("option '--join' takes property names separated by commas, or '*' for all of them, not '\(text)'")
        }
        return .named(Set(names))
    }

    /// Adds the next shape's properties: `properties`, the raw value of its `properties` member
    /// in `record` (an object or null, as the reader checked), nil when it has none. A name the
    /// shape does not have is left out of its object.
    mutating func add(_ properties: Range<Int>?, of record: UnsafeBufferPointer<UInt8>) throws(JSONError) {
        defer { ends.append(text.count) }
        guard let properties, record[properties.lowerBound] == UInt8(ascii: "{") else {
            text.append(contentsOf: "{}".utf8)
            return
        }
        guard case .named(let names) = selection else { return append(record[properties]) }
        text.append(UInt8(ascii: "{"))
        var first = true
        var scanner = JSONScanner(record, position: properties.lowerBound)
        if try scanner.enter(UInt8(ascii: "{"), UInt8(ascii: "}")) {
            repeat {
                scanner.skipWhitespace()
                let keyStart = scanner.position
                let key = try scanner.key()
                let value = try scanner.skipValue()
                guard names.contains(scanner.text(key)) else { continue }
                if !first { text.append(UInt8(ascii: ",")) }
                first = false
                append(record[keyStart...key.content.upperBound])
                text.append(UInt8(ascii: ":"))
                append(record[value])
            } while try scanner.next(UInt8(ascii: "}"))
        }
        text.append(UInt8(ascii: "}"))
    }

    /// Raw JSON without its line breaks: outside strings they are white space (inside they are
    /// invalid), and a match is written on its record's one line.
    private mutating func append(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) {
        text.append(contentsOf: bytes.lazy.filter { $0 != 0x0A && $0 != 0x0D })
    }

    /// Shape k's object, as JSON text.
    func object(ofShape shape: Int) -> String {
        let start = shape == 0 ? 0 : ends[shape - 1]
        return String(decoding: text[start..<ends[shape]], as: UTF8.self)
    }
}
