import JSONBytes

/// The most positions (points, vertices, span elements) that one input record may turn into.
/// Commands that multiply their input (`interpolate --every/--densify`, `spans`, circles) check
/// the size they are about to produce against it, so that a tiny step is a bad record, not an
/// attempt to allocate gigabytes: geo's memory stays flat whatever the options. A million
/// positions is about 40 MB of GeoJSON text for one record.
public enum RecordLimit {
    public static let positions = 1_000_000

    /// Throws when `count` (what the record would produce) is over the limit. `what` names the
    /// things counted ("points"), `advice` says what to change.
    /// `estimated` says that `count` is an upper bound.
    public static func check(_ count: Double, _ what: String, estimated: Bool = false,
                             advice: @autoclosure () -> String) throws(RecordTooLarge) {
        guard count > Double(positions) else { return }
        throw RecordTooLarge(count: count, what: what, estimated: estimated, advice: advice())
    }
}

/// A record that would produce more than `RecordLimit.positions`: a bad record (exit 65).
public struct RecordTooLarge: Error, CustomStringConvertible {
    public var count: Double
    public var what: String
    public var estimated: Bool
    public var advice: String

    public var description: String {
        "this record would make \(estimated ? "about " : "")\(formatCount(count)) \(what), over geo's limit of "
            + "\(formatCount(Double(RecordLimit.positions))) per record: \(advice)"
    }
}

/// 157,249,381,102: whole counts in messages, grouped, never in exponent notation.
func formatCount(_ count: Double) -> String {
    guard count.isFinite && count < 9e18 else { return "more than \(grouped(Int(9e18)))" }
    return grouped(Int(count.rounded(.up)))
}
