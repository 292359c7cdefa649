import Geometry
import Polyline

/// What a polyline that failed to decode probably was: one of precision 6 (OSRM's and
/// Valhalla's polyline6) read at the default 5, or one whose backslashes were escaped twice (a
/// polyline copied out of JSON without unescaping it: `\` is one of the polyline alphabet's
/// bytes). Asked only once a polyline has failed, so a good one never pays for it; the hint
/// goes with the failure (`BadRecord.hint`), shown once, with the first failure that has it.
enum PolylineHints {
    static let precision6 = "this looks like precision 6 (OSRM, Valhalla): add --precision 6"
    static let doubledBackslashes = "the polyline's backslashes are doubled (\\\\), as a JSON string or a shell leaves them: "
        + "unescape it first (jq -r, or printf '%b\\n' 'POLYLINE')"

    /// The hint for polyline `text` that failed to decode at `precision`, if any.
    static func hint(forFailed text: UnsafeBufferPointer<UInt8>, precision: Int) -> String? {
        // The doubled backslashes first: once they are undone, the precision may be told next.
        if let single = undoubled(text),
           single.withUnsafeBufferPointer({ fits($0, precision: precision) || (precision == 5 && fits($0, precision: 6)) }) {
            return doubledBackslashes
        }
        if precision == 5 && fits(text, precision: 6) { return precision6 }
        return nil
    }

    /// Whether `text` decodes to positions that all lie in [-90, 90] x [-180, 180] at `precision`.
    static func fits(_ text: UnsafeBufferPointer<UInt8>, precision: Int) -> Bool {
        let scale = Int64(Polyline.scale(precision))
        var inside = true
        do {
            try Polyline.decode(text) { latitude, longitude in
                inside = inside && latitude.magnitude <= 90 * scale.magnitude && longitude.magnitude <= 180 * scale.magnitude
            }
        } catch {
            return false
        }
        return inside
    }

    /// `text` with each `\\` made one `\`; nil when it has none.
    static func undoubled(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        let backslash = UInt8(ascii: "\\")
        var single: [UInt8] = []
        var index = 0
        while index < text.count {
            single.append(text[index])
            index += text[index] == backslash && index + 1 < text.count && text[index + 1] == backslash ? 2 : 1
        }
        return single.count < text.count ? single : nil
    }
}
