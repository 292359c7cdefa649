import Geometry

/// How bad records are told on standard error: one line each (`geo CMD: FILE:LINE: problem`),
/// a hint after the first of its kind, no more than `perKind` lines of one kind from one file
/// (then how many were not shown), and a count at the end.
struct FailureReport {
    let command: String
    static let perKind = 100
    /// A kind of problem in one input.
    private struct Kind: Hashable, Comparable {
        var source: String
        var problem: String
        static func < (a: Kind, b: Kind) -> Bool { (a.source, a.problem) < (b.source, b.problem) }
    }
    private var counts: [Kind: Int] = [:]
    /// Per input, the run of bad records that are not text (a NUL byte, or not UTF-8) on
    /// consecutive lines, and the line it ends at: binary bytes make a new kind of problem of
    /// nearly every line, so after `binaryShown` such lines in a row the rest of the input's
    /// messages are counted, not shown. (Bad records among good ones are each told.)
    static let binaryShown = 3
    private var binary: [String: (count: Int, line: Int)] = [:]
    private var hinted: Set<String> = []
    private(set) var total = 0

    init(command: String) { self.command = command }

    /// The text to print for one failure: its line, maybe with a hint, or nothing once its kind
    /// has had its share.
    mutating func lines(for failure: RecordFailure, source: String) -> String {
        total += 1
        let run = binary[source, default: (0, 0)]
        if run.count >= FailureReport.binaryShown { return "" }
        if failure.input.contains(0) || !failure.input.withUnsafeBufferPointer(RecordHints.isUTF8) {
            let count = run.line == failure.line - 1 ? run.count + 1 : 1
            binary[source] = (count, failure.line)
            if count == FailureReport.binaryShown {
                return "geo \(command): \(source):\(failure.line): \(failure.message)\n"
                    + "geo \(command): \(source):\(failure.line): from here on the input looks binary (compressed, or not GeoJSON?): "
                    + "its bad records are counted, not shown\n"
            }
        }
        let kind = Kind(source: source, problem: FailureReport.kind(of: failure.message))
        let seen = counts[kind, default: 0] + 1
        counts[kind] = seen
        guard seen <= FailureReport.perKind else { return "" }
        var text = "geo \(command): \(source):\(failure.line): \(failure.message)\n"
        if let hint = failure.hint, !hinted.contains(hint) {
            hinted.insert(hint)
            text += "geo \(command): hint: \(hint)\n"
        }
        if seen == FailureReport.perKind {
            text += "geo \(command): (further messages like this one are counted, not shown)\n"
        }
        return text
    }

    /// The closing lines: what was not shown, and how many records were rejected of how many.
    func summary(records: Int) -> String {
        var text = ""
        for (kind, count) in counts.sorted(by: { $0.key < $1.key }) where count > FailureReport.perKind {
            text += "geo \(command): \(count: count - FailureReport.perKind) more like \"\(kind.problem)\" in \(kind.source) not shown\n"
        }
        if total > 0 {
            text += "geo \(command): \(count: total) of \(count: records) record\(records == 1 ? "" : "s") rejected\n"
        }
        return text
    }

    /// What is wrong, without the particulars of one record: quoted text, excerpts of the
    /// record (in brackets), numbers (hexadecimal ones too: `byte 0x8B`) and geometry type names
    /// are blanked, so that a message's kind does not change with the bytes or the geometry it
    /// quotes (a binary file would otherwise make a new kind of almost every line).
    static func kind(of message: String) -> String {
        var kind = ""
        var closing: [Character] = []
        var word = ""
        var lastWasNumber = false
        func endWord() {
            kind += geometryTypes.contains(word) ? "…" : word
            word = ""
        }
        var characters = message.makeIterator()
        while let character = characters.next() {
            if let close = closing.last {
                // Inside quotes or an excerpt: only its end (or, in brackets, a nested one) counts.
                if character == close {
                    closing.removeLast()
                    if closing.isEmpty { kind.append(character) }
                } else if close != "\"" && close != "'", let nested = FailureReport.closing[character] {
                    closing.append(nested)
                }
                continue
            }
            if character.isLetter && !lastWasNumber {
                word.append(character)
                continue
            }
            // An apostrophe (the Earth's) opens no quote.
            let apostrophe = character == "'" && !word.isEmpty
            endWord()
            if !apostrophe, let close = FailureReport.closing[character] {
                closing.append(close)
                kind += "\(character)…"
                lastWasNumber = false
            } else if character.isNumber || (lastWasNumber && (character.isHexDigit || character == "x")) {
                if !lastWasNumber { kind.append("#") }
                lastWasNumber = true
            } else {
                lastWasNumber = false
                kind.append(character)
            }
        }
        endWord()
        return kind
    }

    /// Quotes and brackets, and what ends them.
    private static let closing: [Character: Character] = ["\"": "\"", "'": "'", "[": "]", "{": "}"]

    private static let geometryTypes: Set<String> = [
        "Point", "MultiPoint", "LineString", "MultiLineString", "Polygon", "MultiPolygon", "GeometryCollection",
    ]
}
