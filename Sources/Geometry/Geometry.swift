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

extension Geometry {
    /// The geometry of a path: nil for the empty path, a Point for one position, else a
    /// LineString (what a decoded polyline is).
    public static func path(_ path: Path) -> Geometry? {
        switch path.count {
        case 0: nil
        case 1: .point(path[0])
        default: .lineString(path)
        }
    }

    /// The positions of a geometry that is one path, in order: a LineString's or MultiPoint's,
    /// a Point as a path of one, a Polygon without holes as its ring (what one encoded polyline
    /// can hold). Throws for geometries of several paths.
    public static func singlePath(of geometry: Geometry?) throws(BadRecord) -> Path {
        switch geometry {
        case nil: return []
        case .point(let position): return [position]
        case .multiPoint(let path), .lineString(let path): return path
        case .polygon(let rings) where rings.count <= 1: return rings.first ?? []
        case .polygon(let rings):
            throw BadRecord("a Polygon with \(rings.count - 1) hole\(rings.count == 2 ? "" : "s") has more than one path")
        case .some(let other):
            throw BadRecord("a \(other.typeName) has more than one path")
        }
    }

    /// The path a command walks along (interpolate, spans): a LineString (maybe empty), or a
    /// Point as a path of one point. `purpose` ends the message for anything else ("to interpolate along").
    public static func walkablePath(of geometry: Geometry?, _ purpose: String) throws(BadRecord) -> Path {
        switch geometry {
        case .lineString(let line): return line
        case .point(let position): return [position]
        case nil: throw BadRecord("a null geometry has no path \(purpose)")
        case .some(let other): throw BadRecord("a \(other.typeName) is not a path \(purpose): give LineStrings")
        }
    }
}
