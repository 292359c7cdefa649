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

    /// Beyond each command's own `sampleArguments` (which run on standard input alone): options
    /// that name files (which `init` does not open), and render's other option groups.
    let withFiles: [String: [[String]]] = [
        "locate": [["--shapes", "shapes.ndjson", "--within", "5", "--limit", "2", "--kind", "projected"]],
        "render": [["-o", "x.png", "--size", "10x10", "--bbox", "0,0,1,1", "--projection", "EPSG:4326", "--geodesic", "--kind", "rhumb",
                    "--graticule", "10", "--background", "none", "--stamp", "a=a.png", "--from", "polyline", "-p6", "--strict", "--rejects", "r.ndjson"],
                   ["--sphere", "6371009", "--format", "pdf", "--padding", "4"], ["--ellps", "GRS80", "-o", "-"]],
    ]

    func testEveryCommandReadsOnlyWhatItDeclares() throws {
        for command in Dispatcher.builtins {
            let name = command.description.name
            for arguments in command.sampleArguments + (withFiles[name] ?? []) {
                let parsed = try ArgumentParser.parse(arguments + ["-q"], for: command.description)
                XCTAssertNoThrow(try command.init(parsed), "\(name) \(arguments)")
            }
        }
    }
}
