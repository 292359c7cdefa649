import XCTest
@testable import CommandKit
import Geometry

/// `--from polyline` records, as every path-consuming command reads them.
final class PathInputTests: XCTestCase {
    func features(_ line: String, _ input: PathInputFormat) throws -> [Geometry?] {
        var line = line
        return try line.withUTF8 { bytes in
            var geometries: [Geometry?] = []
            try input.readFeatures(bytes) { geometries.append($0.geometry) }
            return geometries
        }
    }

    func testPolylineLinesRawOrQuoted() throws {
        let expected: Geometry = .lineString([Position(longitude: -120.2, latitude: 38.5),
                                              Position(longitude: -120.95, latitude: 40.7),
                                              Position(longitude: -126.453, latitude: 43.252)])
        XCTAssertEqual(try features("_p~iF~ps|U_ulLnnqC_mqNvxq`@", .polyline(precision: 5)), [expected])
        XCTAssertEqual(try features("\"_p~iF~ps|U_ulLnnqC_mqNvxq`@\"", .polyline(precision: 5)), [expected])
        XCTAssertEqual(try features("_izlhA~rlgdF_{geC~ywl@_kwzCn`{nI", .polyline(precision: 6)), [expected])
        XCTAssertEqual(try features("\"\"", .polyline(precision: 5)), [nil])
        XCTAssertEqual(try features("_p~iF~ps|U", .polyline(precision: 5)), [.point(Position(longitude: -120.2, latitude: 38.5))])
        // Escaped backslashes in a JSON string are one polyline byte each.
        XCTAssertEqual(try features(#""_chxEn`zvN\\\\]]""#, .polyline(precision: 5)),
                       try features(#"_chxEn`zvN\\]]"#, .polyline(precision: 5)))
    }

    func testWrongPrecisionIsCaughtByTheLatitude() {
        XCTAssertThrowsError(try features("_izlhA~rlgdF_{geC~ywl@_kwzCn`{nI", .polyline(precision: 5))) { error in
            XCTAssertTrue("\(error)".contains("is --precision 5 right?"), "\(error)")
        }
    }

    func testTextLinesAreLatitudeFirst() throws {
        XCTAssertEqual(try features("51.5,-0.12  48.85,2.35", .latLng),
                       [.lineString([Position(longitude: -0.12, latitude: 51.5), Position(longitude: 2.35, latitude: 48.85)])])
        XCTAssertEqual(try features("51.5,-0.12", .latLng), [.point(Position(longitude: -0.12, latitude: 51.5))])
        XCTAssertThrowsError(try features("51.5;-0.12", .latLng))
        XCTAssertThrowsError(try features("95,1", .latLng))
    }

    func testGeoJSONIsTheDefault() throws {
        XCTAssertEqual(try features(#"{"type":"Point","coordinates":[1,2]}"#, .geoJSON),
                       [.point(Position(longitude: 1, latitude: 2))])
    }
}
