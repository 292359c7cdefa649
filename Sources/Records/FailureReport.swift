import Geometry

/// How bad records are told on standard error: one line each (`geo CMD: FILE:LINE: problem`),
/// a hint after the first of its kind, no more than `perKind` lines of one kind (then how many
/// were not shown), and a count at the end.
struct FailureReport {
    let command: String
    static let perKind = 100
    private var counts: [String: Int] = [:]
    private var hinted: Set<String> = []
    private(set) var total = 0

    init(command: String) { self.command = command }

    /// The text to print for one failure: its line, maybe with a hint, or nothing once its kind
    /// has had its share.
    mutating func lines(for failure: RecordFailure, source: String) -> String {
        total += 1
        let kind = FailureReport.kind(of: failure.message)
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
            text += "geo \(command): \(count: count - FailureReport.perKind) more like \"\(kind)\" not shown\n"
        }
        if total > 0 {
            text += "geo \(command): \(count: total) of \(count: records) record\(records == 1 ? "" : "s") rejected\n"
        }
        return text
    }

    /// A message with its particulars (numbers, quoted text) blanked: messages of one kind
    /// share it.
    static func kind(of message: String) -> String {
        var kind = ""
        var quote: Character?
        var lastWasDigit = false
        for character in message {
            if let open = quote {
                if character == open { quote = nil; kind.append(character) }
                continue
            }
            if character == "\"" || character == "'" {
                quote = character
                kind += "\(character)…"
                continue
            }
            if character.isNumber {
                if !lastWasDigit { kind.append("#") }
                lastWasDigit = true
                continue
            }
            lastWasDigit = false
            kind.append(character)
        }
        return kind
    }
}
