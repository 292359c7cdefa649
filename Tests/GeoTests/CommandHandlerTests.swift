import Foundation
import XCTest
import CircleCommand
import CommandKit
import DecodeCommand
import EncodeCommand
import GeoCommandLine
import InterpolateCommand
import LengthCommand
import Records
import SpansCommand

/// Each command's record handler, in process, through the same reader and processor the
/// streaming runner uses (processInMemory): golden cases that check a change in seconds, without
/// a release build. The values are public references (Google's polyline vector, the Maps SDK's
/// spherical figures, the spans worked example of docs/algorithms.md) or exact by construction.
final class CommandHandlerTests: XCTestCase {
    func handler<Command: StreamingCommand>(_ type: Command.Type, _ arguments: [String]) throws -> any RecordHandler {
        try Command(ArgumentParser.parse(arguments, for: Command.description)).handler
    }

    /// The output lines and the failures (line: message) of a command over `input`.
    func run<Command: StreamingCommand>(_ type: Command.Type, _ arguments: [String], _ input: String) throws -> (lines: [String], failures: [String]) {
        let (output, failures) = processInMemory(Array(input.utf8), with: try handler(type, arguments))
        let lines = String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init)
        return (lines, failures.map { "\($0.line): \($0.message)" })
    }

    let google = #"{"type":"LineString","coordinates":[[-120.2,38.5],[-120.95,40.7],[-126.453,43.252]]}"#

    func testEncode() throws {
        XCTAssertEqual(try run(Encode.self, [], google + "\n").lines, ["_p~iF~ps|U_ulLnnqC_mqNvxq`@"])
        XCTAssertEqual(try run(Encode.self, ["-p6"], google + "\n").lines, ["_izlhA~rlgdF_{geC~ywl@_kwzCn`{nI"])
        let hole = #"{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]],[[0.2,0.2],[0.3,0.2],[0.3,0.3],[0.2,0.2]]]}"#
        let (lines, failures) = try run(Encode.self, [], hole + "\n")
        XCTAssertEqual(lines, [])
        XCTAssertEqual(failures, ["1: a Polygon with 1 hole has more than one path: use --to geojson to keep every path"])
        XCTAssertTrue(try run(Encode.self, ["--to", "json"], hole + "\n").lines[0].contains(#""holes":["#))
    }

    func testDecode() throws {
        XCTAssertEqual(try run(Decode.self, [], "_p~iF~ps|U_ulLnnqC_mqNvxq`@\n").lines,
                       [#"{"type":"Feature","properties":{},"geometry":{"type":"LineString","coordinates":[[-120.2,38.5],[-120.95,40.7],[-126.453,43.252]]}}"#])
        XCTAssertEqual(try run(Decode.self, ["--to", "text"], "_p~iF~ps|U_ulLnnqC_mqNvxq`@\n").lines,
                       ["38.5,-120.2 40.7,-120.95 43.252,-126.453"])
        let feature = #"{"type":"Feature","id":7,"properties":{"p":"_p~iF~ps|U"},"geometry":null}"#
        XCTAssertEqual(try run(Decode.self, ["--field", "p"], feature + "\n").lines,
                       [#"{"type":"Feature","id":7,"properties":{"p":"_p~iF~ps|U"},"geometry":{"type":"Point","coordinates":[-120.2,38.5]}}"#])
        XCTAssertEqual(try run(Decode.self, [], "_p~iF~ps|U_\n").failures.count, 1)
    }

    func testLengthOnTheSDKSphere() throws {
        // San Francisco to New York, GMSGeometryLength: 4129091.998 m (docs/algorithms.md).
        let line = #"{"type":"LineString","coordinates":[[-122.4194,37.7749],[-74.006,40.7128]]}"#
        let out = try run(Length.self, ["--sphere", "6371009", "--field", "m"], line + "\n").lines[0]
        let metres = Double(out.split(separator: ":")[3].split(separator: "}")[0])!
        XCTAssertEqual(metres, 4129091.998, accuracy: 0.001)
        XCTAssertEqual(try run(Length.self, ["--from", "text"], "0,0 0,1\n").lines.count, 1)
    }

    func testInterpolateOnTheEquator() throws {
        let line = #"{"type":"LineString","coordinates":[[0,0],[2,0]]}"#
        // The midpoint of 2° of equator: 1° east, half of 222638.98 m (a·π/90 on WGS84).
        let midpoint = try run(Interpolate.self, ["--fraction", "0.5"], line + "\n").lines[0]
        let feature = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(midpoint.utf8)) as? [String: Any])
        let coordinates = try XCTUnwrap((feature["geometry"] as? [String: Any])?["coordinates"] as? [Double])
        XCTAssertEqual(coordinates[0], 1, accuracy: 1e-12)
        XCTAssertEqual(coordinates[1], 0, accuracy: 1e-12)
        XCTAssertEqual(try XCTUnwrap((feature["properties"] as? [String: Any])?["distance_m"] as? Double), 111319.49079327357, accuracy: 1e-8)
        // (0,0), (0,1), (0,2) as a polyline: zeros are "?", a step of 1e5 is "_ibE".
        XCTAssertEqual(try run(Interpolate.self, ["--count", "3", "--to", "polyline"], line + "\n").lines, ["???_ibE?_ibE"])
        XCTAssertEqual(try run(Interpolate.self, ["--every", "1e-6"], line + "\n").failures.count, 1)
    }

    func testCircleRingIsClosedAndCounterClockwise() throws {
        let out = try run(CircleToPolygon.self, ["--radius", "1000", "--segments", "4", "--to", "polyline"],
                          #"{"type":"Point","coordinates":[0,0]}"# + "\n").lines
        XCTAssertEqual(out.count, 1)
        let failures = try run(CircleToPolygon.self, ["--radius", "-1"], #"{"type":"Point","coordinates":[0,0]}"# + "\n").failures
        XCTAssertEqual(failures, ["1: radius -1 m: a circle needs a finite radius greater than 0"])
    }

    func testSpansWorkedExample() throws {
        let line = #"{"type":"LineString","coordinates":[[0,0],[1,0],[2,0],[3,0]]}"#
        let out = try run(Spans.self, ["--style", "white", "--style", "black", "--length", "100000", "--length", "50000",
                                       "--sphere", "6371009", "--digits", "5"], line + "\n").lines[0]
        let segments = out.components(separatedBy: #""segments":"#).dropFirst().map { Double($0.prefix { $0 != "}" })! }
        for (got, expected) in zip(segments, [0.89932, 0.44966, 0.89932, 0.44966, 0.302039]) {
            XCTAssertEqual(got, expected, accuracy: 1e-5)
        }
        XCTAssertEqual(segments.count, 5)
    }

    func testACollectionWithOneBadFeatureRejectsOnlyIt() throws {
        let good = #"{"type":"Feature","properties":{},"geometry":{"type":"LineString","coordinates":[[0,0],[1,0]]}}"#
        let bad = #"{"type":"Feature","properties":{},"geometry":{"type":"Linestring","coordinates":[[0,0],[1,0]]}}"#
        let (lines, failures) = try run(Length.self, [], #"{"type":"FeatureCollection","features":["# + good + "," + bad + "," + good + "]}\n")
        XCTAssertEqual(lines.count, 2)
        XCTAssertEqual(failures.count, 1)
        XCTAssertTrue(failures[0].hasPrefix("1: features[1]: "), failures[0])
    }

    func testAPrettyDocumentIsReadFeatureByFeature() throws {
        let document = "{\n  \"type\": \"FeatureCollection\",\n  \"features\": [\n    {\"type\": \"Point\", \"coordinates\": [0, 0]},\n    {\"type\": \"Point\",\n     \"coordinates\": [0, 95]}\n  ]\n}\n"
        let (lines, failures) = try run(Length.self, [], document)
        XCTAssertEqual(lines.count, 1)
        XCTAssertEqual(failures.count, 1)
        XCTAssertTrue(failures[0].hasPrefix("5: features[1]: latitude"), failures[0])
    }
}
