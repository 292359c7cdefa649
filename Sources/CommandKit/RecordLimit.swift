import Geometry

/// The most positions (points, vertices, span elements) that one input record may turn into.
/// Commands that multiply their input (`interpolate --every/--densify`, `spans`, circles) check
/// the size they are about to produce against it, so that a tiny step is a bad record, not an
/// attempt to allocate gigabytes: geo's memory stays flat whatever the options. A million
/// positions is about 40 MB of GeoJSON text for one record.
public enum RecordLimit {
    public static let positions = 1_000_000

    /// Throws a bad record when `count` (what the record would produce) is over the limit.
    /// `what` names the things counted ("points"), `advice` says what to change; `estimated`
    /// says that `count` is an estimate.
    public static func check(_ count: Double, _ what: String, estimated: Bool = false,
                             advice: @autoclosure () -> String) throws(BadRecord) {
        guard count > Double(positions) else { return }
        let shown = count < 1e18 ? "\(count: Int(count.rounded(.up)))" : "more than 10^18"
        throw BadRecord("this record would make \(estimated ? "about " : "")\(shown) \(what), over geo's limit of "
                        + "\(count: positions) per record: \(advice())")
    }
}
