import XCTest
import Geometry
@testable import GeoJSON
@testable import JSONBytes

final class GeoJSONTests: XCTestCase {
    /// Reads every Feature of `text` and rewrites it, optionally adding properties.
    func roundTrip(_ text: String, geometry: GeoJSONWriter.GeometryOutput = .unchanged,
                   adding added: [(String, JSONValue)] = []) throws -> [String] {
        var text = text
        return try text.withUTF8 { bytes in
            var out: [String] = []
            try GeoJSONReader.readFeatures(bytes) { feature in
                let buffer = ByteBuffer()
                GeoJSONWriter().write(feature, from: bytes, geometry: geometry, adding: added, to: buffer)
                out.append(buffer.string)
            }
            return out
        }
    }

    func geometries(_ text: String) throws -> [Geometry?] {
        var text = text
        return try text.withUTF8 { bytes in
            var out: [Geometry?] = []
            try GeoJSONReader.readFeatures(bytes) { out.append($0.geometry) }
            return out
        }
    }

    func assertRejected(_ text: String, _ fragment: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try geometries(text), file: file, line: line) { error in
            XCTAssertTrue("\(error)".contains(fragment), "\(error) lacks \(fragment)", file: file, line: line)
        }
    }

    func p(_ lon: Double, _ lat: Double) -> Position { Position(longitude: lon, latitude: lat) }

    func testEveryGeometryType() throws {
        XCTAssertEqual(try geometries(#"{"type":"Point","coordinates":[1,2]}"#), [.point(p(1, 2))])
        XCTAssertEqual(try geometries(#"{"coordinates":[[1,2],[3,4]],"type":"LineString"}"#), [.lineString([p(1, 2), p(3, 4)])])
        XCTAssertEqual(try geometries(#"{"type":"MultiPoint","coordinates":[[1,2,100]]}"#), [.multiPoint([p(1, 2)])])
        XCTAssertEqual(try geometries(#"{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]],[]]}"#),
                       [.polygon([[p(0, 0), p(1, 0), p(1, 1), p(0, 0)], []])])
        XCTAssertEqual(try geometries(#"{"type":"MultiLineString","coordinates":[[[0,0],[1,1]],[[2,2],[3,3]]]}"#),
                       [.multiLineString([[p(0, 0), p(1, 1)], [p(2, 2), p(3, 3)]])])
        XCTAssertEqual(try geometries(#"{"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[0,0]]]]}"#),
                       [.multiPolygon([[[p(0, 0), p(1, 0), p(0, 0)]]])])
        XCTAssertEqual(try geometries(#"{"type":"GeometryCollection","geometries":[{"type":"Point","coordinates":[5,6]}]}"#),
                       [.geometryCollection([.point(p(5, 6))])])
        XCTAssertEqual(try geometries(#"{"type":"LineString","coordinates":[]}"#), [.lineString([])])
        XCTAssertEqual(try geometries(#"{"type":"Feature","properties":null,"geometry":null}"#), [nil])
    }

    func testFeatureCollectionYieldsItsFeaturesInOrder() throws {
        let text = #"{"type":"FeatureCollection","features":[{"type":"Feature","id":1,"geometry":{"type":"Point","coordinates":[1,1]},"properties":{}},{"type":"Feature","id":2,"geometry":null,"properties":{}}]}"#
        XCTAssertEqual(try roundTrip(text), [
            #"{"type":"Feature","id":1,"geometry":{"type":"Point","coordinates":[1,1]},"properties":{}}"#,
            #"{"type":"Feature","id":2,"geometry":null,"properties":{}}"#,
        ])
    }

    func testUnknownMembersPassThroughByteForByte() throws {
        let text = #"{ "bbox" : [0,0, 1,1], "type":"Feature", "x-ext":{"deep":[1.0E+2, "é\u00e9"]},"geometry":{"type":"Point","coordinates":[1.50,2]},"properties":{"a":1e2,"polyline":"old"},"id":"f1"}"#
        XCTAssertEqual(try roundTrip(text), [
            #"{"bbox":[0,0, 1,1],"type":"Feature","x-ext":{"deep":[1.0E+2, "é\u00e9"]},"geometry":{"type":"Point","coordinates":[1.50,2]},"properties":{"a":1e2,"polyline":"old"},"id":"f1"}"#,
        ])
        XCTAssertEqual(try roundTrip(text, adding: [("polyline", .string("_ibE_ibE"))]), [
            #"{"bbox":[0,0, 1,1],"type":"Feature","x-ext":{"deep":[1.0E+2, "é\u00e9"]},"geometry":{"type":"Point","coordinates":[1.50,2]},"properties":{"a":1e2,"polyline":"_ibE_ibE"},"id":"f1"}"#,
        ])
    }

    func testBareGeometryBecomesAFeature() throws {
        XCTAssertEqual(try roundTrip(#"{"type":"Point","coordinates":[0.00006,-0.5]}"#, adding: [("n", .number(1e-7))]),
                       [#"{"type":"Feature","properties":{"n":0.0000001},"geometry":{"type":"Point","coordinates":[0.00006,-0.5]}}"#])
    }

    func testReplacedGeometry() throws {
        let text = #"{"type":"Feature","geometry":null,"properties":{"k":[1]}}"#
        XCTAssertEqual(try roundTrip(text, geometry: .replaced(.lineString([p(1, 2), p(3, 4)]))),
                       [#"{"type":"Feature","geometry":{"type":"LineString","coordinates":[[1,2],[3,4]]},"properties":{"k":[1]}}"#])
    }

    func testBadRecords() {
        assertRejected(#"{"type":"Point","coordinates":[1,91]}"#, "outside [-90, 90]")
        assertRejected(#"{"type":"Point","coordinates":[1,1e999]}"#, "not finite")
        assertRejected(#"{"type":"Point","coordinates":[1]}"#, "one number")
        assertRejected(#"{"type":"Point","coordinates":null}"#, "null")
        assertRejected(#"{"type":"LineString","coordinates":[1,2]}"#, "must be an array of positions")
        assertRejected(#"{"type":"Polygon","coordinates":[[1,2]]}"#, "must be an array of arrays")
        assertRejected(#"{"type":"Circle","coordinates":[1,2]}"#, "unknown GeoJSON type \"Circle\"")
        assertRejected(#"{"type":"Feature","properties":{}}"#, "without a \"geometry\"")
        assertRejected(#"{"type":"Feature","geometry":null,"geometry":null}"#, "duplicate member \"geometry\"")
        assertRejected(#"{"type":"Feature","geometry":null,"properties":[]}"#, "\"properties\" must be")
        assertRejected(#"[1,2]"#, "expected a GeoJSON object")
        assertRejected(#"{"type":"Point","coordinates":[1,2]"#, "expected ',' or '}'")
        assertRejected(#"{"type":"Point","coordinates":[1,2]} x"#, "after the JSON value")
        assertRejected(#"{"type":"Point","coordinates":[NaN,2]}"#, "expected a number")
        assertRejected(#"{"type":"LineString","coordinates":[[1,2],[3]]}"#, "one number")
        assertRejected(#"{"type":"LineString","coordinates":[[1,2],[[3,4]]]}"#, "nested unevenly")
    }

    func testDeepNestingIsAnErrorNotACrash() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        assertRejected(#"{"type":"Feature","geometry":null,"properties":{"x":\#(deep)}}"#, "nesting deeper than")
        assertRejected(#"{"type":"Point","coordinates":\#(deep)}"#, "nested")
    }

    func testInvalidUTF8IsRejected() {
        var bytes = Array(#"{"type":"Feature","geometry":null,"properties":{"name":"x"}}"#.utf8)
        bytes[bytes.count - 4] = 0xFF
        XCTAssertThrowsError(try bytes.withUnsafeBufferPointer { try GeoJSONReader.readFeatures($0) { _ in } }) { error in
            XCTAssertTrue("\(error)".contains("invalid UTF-8"), "\(error)")
        }
    }

    func testHundredMegabyteLine() throws {
        var text = #"{"type":"Feature","properties":{"pad":""#
        text += String(repeating: "x", count: 100_000_000)
        text += #""},"geometry":{"type":"Point","coordinates":[1,2]}}"#
        XCTAssertEqual(try geometries(text), [.point(p(1, 2))])
    }
}
