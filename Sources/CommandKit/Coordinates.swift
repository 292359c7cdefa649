import GeoCommandLine
import Geometry

/// `LAT,LNG` on the command line (`--center`, `--point`): latitude first, like the Maps SDK's
/// CLLocationCoordinate2D, the latitude within [-90, 90].
public func parseLatLng(_ text: String, option: String) throws(UsageError) -> Position {
    let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmed() }
    guard parts.count == 2, let latitude = Double(parts[0]), let longitude = Double(parts[1]), latitude.isFinite, longitude.isFinite else {
        throw UsageError("--\(option) takes LAT,LNG (like 37.7749,-122.4194), not '\(text)'")
    }
    guard (-90...90).contains(latitude) else { throw UsageError("--\(option) latitude \(number: latitude) is outside [-90, 90]") }
    return Position(longitude: longitude, latitude: latitude)
}
