import XCTest
import CommandKit
import GeoCommandLine
@testable import GeoDispatcher

/// Every command's options as declared: no two share a name, and every option a command reads
/// is one it declares (reading another traps, so constructing each command with typical
/// arguments is the test).
final class OptionDeclarationTests: XCTestCase {
    func testNoTwoOptionsOfACommandShareAName() {
        for command in Dispatcher.builtins {
            let options = command.description.options
            let longs = options.map(\.long) + ["help", "version"]
            XCTAssertEqual(Set(longs).count, longs.count, "\(command.description.name): \(longs)")
            let shorts = options.compactMap(\.short) + ["h"]
            XCTAssertEqual(Set(shorts).count, shorts.count, "\(command.description.name): \(shorts)")
        }
    }

    /// Arguments that make each command read every option group it has.
    let typical: [String: [[String]]] = [
        "encode": [[], ["--to", "json", "-p6", "--rs"]],
        "decode": [[], ["--field", "p", "--to", "text"], ["--digits", "3", "--collection"]],
        "length": [[], ["--from", "polyline", "-p6", "--kind", "rhumb", "--cumulative"], ["--sphere", "6371009", "--from", "text"]],
        "interpolate": [["--fraction", "0.5"], ["--every", "10", "--to", "polyline", "--to-precision", "6"], ["--densify", "5", "--digits", "2"]],
        "circle-to-polygon": [["--radius", "10"], ["--center", "1,2", "--radius", "5", "--tolerance", "1"], ["--radius-field", "r", "--to", "polyline"]],
        "spans": [["--style", "red", "--length", "5"], ["--span", "red:2", "--split", "--width", "3"]],
        "area": [[], ["--signed", "--kind", "rhumb", "--from", "polyline", "-p6"], ["--field", "a", "--sphere", "6371009"]],
        "locate": [["--point", "1,2"], ["--point", "1,2", "--from", "text", "--tolerance", "1"],
                   ["--shapes", "shapes.ndjson", "--within", "5", "--limit", "2", "--kind", "projected"]],
        "render": [[], ["-o", "x.png", "--size", "10x10", "--bbox", "0,0,1,1", "--projection", "EPSG:4326", "--geodesic", "--kind", "rhumb",
                        "--graticule", "10", "--background", "none", "--stamp", "a=a.png", "--from", "polyline", "-p6", "--strict", "--rejects", "r.ndjson"],
                   ["--sphere", "6371009", "--format", "pdf", "--padding", "4"], ["--ellps", "GRS80", "-o", "-"]],
    ]

    func testEveryCommandReadsOnlyWhatItDeclares() throws {
        for command in Dispatcher.builtins {
            let name = command.description.name
            let cases = try XCTUnwrap(typical[name], "add typical arguments for \(name)")
            for arguments in cases {
                let parsed = try ArgumentParser.parse(arguments + ["-q"], for: command.description)
                XCTAssertNoThrow(try command.init(parsed), "\(name) \(arguments)")
            }
        }
    }
}
