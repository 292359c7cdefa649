// How text quoted from a record reads in a message: on one line, and short. A message is one
// line on standard error (`geo CMD: FILE:LINE: problem`) however the record was laid out, so a
// pretty-printed position's line ends and indentation must not reach it.

public enum MessageText {
    /// The longest excerpt of a record a message quotes, in characters.
    public static let excerptLimit = 60

    /// `text` on one line: every run of white space (line ends, tabs, indentation) one space,
    /// none at either end. Every record's message passes through here before it is reported
    /// (`RecordFailure.naming`).
    public static func oneLine(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 <= 0x20 }) else { return text }
        var line = ""
        line.reserveCapacity(text.utf8.count)
        var pendingSpace = false
        for character in text {
            if character.isWhitespace {
                pendingSpace = !line.isEmpty
                continue
            }
            if pendingSpace { line.append(" ") }
            pendingSpace = false
            line.append(character)
        }
        return line
    }

    /// Bytes of a record quoted in a message: decoded as UTF-8 (a bad byte as U+FFFD), on one
    /// line, and cut after `limit` characters with an ellipsis.
    public static func excerpt<Bytes: Collection>(_ bytes: Bytes, limit: Int = excerptLimit) -> String where Bytes.Element == UInt8 {
        // Enough bytes for `limit` characters after white space runs collapse, and no more:
        // a record may be megabytes long.
        let text = oneLine(String(decoding: bytes.prefix(limit * 8), as: UTF8.self))
        guard text.count > limit || bytes.count > limit * 8 else { return text }
        return String(text.prefix(limit)) + "…"
    }

    public static func excerpt(_ text: String, limit: Int = excerptLimit) -> String {
        excerpt(text.utf8, limit: limit)
    }
}
