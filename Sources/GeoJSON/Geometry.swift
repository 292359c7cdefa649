/// A GeoJSON position, `[longitude, latitude]` (RFC 7946). Altitudes and further numbers in the
/// input are validated and left in the raw bytes, which pass through when a geometry is unchanged.
public struct Position: Equatable, Sendable {
    public var longitude: Double
    public var latitude: Double
    public init(longitude: Double, latitude: Double) {
        self.longitude = longitude
        self.latitude = latitude
    }
}

/// A sequence of positions: a LineString, a ring, a MultiPoint's points.
public typealias Path = [Position]

/// The seven RFC 7946 geometry types.
public indirect enum Geometry: Equatable, Sendable {
    case point(Position)
    case multiPoint(Path)
    case lineString(Path)
    case multiLineString([Path])
    case polygon([Path])
    case multiPolygon([[Path]])
    case geometryCollection([Geometry])

    public var typeName: String {
        switch self {
        case .point: "Point"
        case .multiPoint: "MultiPoint"
        case .lineString: "LineString"
        case .multiLineString: "MultiLineString"
        case .polygon: "Polygon"
        case .multiPolygon: "MultiPolygon"
        case .geometryCollection: "GeometryCollection"
        }
    }
}

/// Why a record is not the GeoJSON a command can use.
public struct GeoJSONError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
