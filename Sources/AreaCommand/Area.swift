import CommandKit
import GeoCommandLine
import Geodesy
import GeodesyOptions
import GeoJSON
import Geometry
import Records

/// `geo area`: GMSGeometryArea and GMSGeometrySignedArea, on the ellipsoid, for every edge kind.
public struct Area: StreamingCommand {
    public static let description = CommandDescription(
        name: "area",
        summary: "add the area each record encloses, geodesic, rhumb or projected",
        discussion: """
        Adds properties.area_m2 (rename it with --field): the area the record encloses, each edge \
        following --kind. A Polygon's area is its outer ring's minus its holes', whatever way each \
        ring winds (inputs in the wild break RFC 7946's right-hand rule, and the Maps SDK's own \
        hollow polygon has every ring clockwise). MultiPolygons and GeometryCollections sum their \
        parts; a LineString is the ring it closes (GMSGeometryArea of a GMSPath), a \
        MultiLineString sums its parts; Points and a null geometry have area 0. With --signed, \
        properties.signed_area_m2 as well: each ring's area positive when it runs \
        counter-clockwise, negative when clockwise, summed as given (GMSGeometrySignedArea).

        A ring needs no closing vertex; one of fewer than 3 distinct vertices has area 0; one that \
        crosses itself is summed as given. Rings may cross the antimeridian and go round a pole. \
        A ring divides the Earth in two: its area is that of the smaller side, as GeographicLib's \
        Planimeter gives it.

        Accuracy: geodesic areas are PROJ's geod_polygon (Karney 2013), exact to about 0.1 m² on \
        small rings and 1e-15 relative on large ones. Rhumb areas integrate the authalic latitude \
        along each rhumb edge and agree with GeographicLib's Planimeter -R to 0.1 m² + 1e-9 \
        relative. Projected areas are planar, in Web Mercator square metres. With --sphere \
        6371009 the results are the Maps SDK's own spherical figures.
        """,
        options: [field, signed] + GeodesyOptions.options + PathInputFormat.options + StreamOptions.geoJSONFraming + StreamOptions.common,
        examples: [
            Example("geo area examples/parks.geojson | jq .properties.area_m2",
                    "The area of each park on WGS84, holes subtracted, in square metres."),
            Example("geo area --sphere 6371009 --signed examples/parks.geojson",
                    "Areas as the Maps SDK computes them, with the signed area of the rings as given."),
            Example("geo area --kind rhumb --from polyline --field area_rhumb_m2 examples/routes.polyline",
                    "The area inside each encoded path, its edges rhumb lines."),
        ])

    public static let sampleArguments = [["--signed"], ["--kind", "rhumb", "--from", "polyline", "-p6"], ["--field", "a", "--sphere", "6371009"]]

    static let field = Option(text: "field", valueName: "NAME", help: "The property the area goes in.")
        .defaulting(to: "area_m2")
    static let signed = Flag("signed", help: "Also add properties.signed_area_m2: each ring positive counter-clockwise, negative clockwise, summed as given.")

    public let stream: StreamConfiguration
    public let handler: AreaHandler

    public init(_ arguments: ParsedArguments) throws(UsageError) {
        stream = try StreamOptions.configuration(arguments, jsonOutput: true)
        let field = arguments[Area.field], signed = arguments[Area.signed]
        if signed && field == "signed_area_m2" {
            throw UsageError("--field signed_area_m2 --signed would write properties.signed_area_m2 twice: pick another --field")
        }
        handler = AreaHandler(input: try PathInputFormat(arguments), model: try GeodesyOptions.model(arguments),
                              field: field, signed: signed)
    }
}

public struct AreaHandler: PathHandler {
    public let input: PathInputFormat
    let model: EdgeModel
    let field: String
    let signed: Bool

    public func handle(_ record: UnsafeBufferPointer<UInt8>, into output: RecordWriter) throws {
        try input.readFeatures(record) { feature in
            var area = CompensatedSum(), signedArea = CompensatedSum()
            try add(feature.geometry, &area, &signedArea)
            var added: [(String, JSONValue)] = [(field, .number(area.value))]
            if signed { added.append(("signed_area_m2", .number(signedArea.value))) }
            output.write(feature, from: record, adding: added)
        }
    }

    /// Adds a geometry's area and signed area to the sums.
    func add(_ geometry: Geometry?, _ area: inout CompensatedSum, _ signedArea: inout CompensatedSum) throws {
        switch geometry {
        case nil:
            return
        case .point(let position):
            try model.validate([position])
        case .multiPoint(let points):
            try model.validate(points)
        case .lineString(let ring):
            try model.validate(ring)
            let value = model.signedArea(ofRing: ring)
            area.add(abs(value))
            signedArea.add(value)
        case .multiLineString(let rings):
            for ring in rings { try add(.lineString(ring), &area, &signedArea) }
        case .polygon(let rings):
            for ring in rings { try model.validate(ring) }
            area.add(model.area(ofPolygon: rings))
            signedArea.add(model.signedArea(ofPolygon: rings))
        case .multiPolygon(let polygons):
            for polygon in polygons { try add(.polygon(polygon), &area, &signedArea) }
        case .geometryCollection(let members):
            for member in members { try add(member, &area, &signedArea) }
        }
    }
}
