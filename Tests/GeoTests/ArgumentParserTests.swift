import XCTest
@testable import GeoCommandLine

final class ArgumentParserTests: XCTestCase {
    let command = CommandDescription(name: "demo", summary: "demo", discussion: "", options: [
        OptionSpec("precision", short: "p", value: .integer(0...10), default: "5", help: "digits"),
        OptionSpec("to", value: .choice(["text", "json"]), help: "format"),
        OptionSpec("quiet", short: "q", help: "quiet"),
        OptionSpec("strict", short: "s", help: "strict"),
        OptionSpec("distance", value: .number, help: "metres"),
        OptionSpec("style", value: .text, repeatable: true, help: "style"),
    ])

    func parse(_ arguments: [String]) throws -> ParsedArguments { try ArgumentParser.parse(arguments, for: command) }

    func message(_ arguments: [String]) -> String? {
        do { _ = try parse(arguments); return nil } catch { return (error as? UsageError)?.message }
    }

    func testValueSpellingsAreEquivalent() throws {
        for spelling in [["--precision=6"], ["--precision", "6"], ["-p6"], ["-p", "6"], ["-p=6"]] {
            XCTAssertEqual(try parse(spelling).integer("precision"), 6, "\(spelling)")
        }
    }

    func testClusteredFlagsAndOperands() throws {
        let parsed = try parse(["-qsp7", "a.ndjson", "-", "--", "--to", "-q"])
        XCTAssertTrue(parsed.has("quiet"))
        XCTAssertTrue(parsed.has("strict"))
        XCTAssertEqual(parsed.integer("precision"), 7)
        XCTAssertEqual(parsed.operands, ["a.ndjson", "-", "--to", "-q"])
    }

    func testNegativeValuesAndRepeats() throws {
        let parsed = try parse(["--distance", "-500", "--style", "red", "--style=blue", "-p", "3", "-p", "4"])
        XCTAssertEqual(parsed.number("distance"), -500)
        XCTAssertEqual(parsed.all("style"), ["red", "blue"])
        XCTAssertEqual(parsed.integer("precision"), 4)
    }

    func testHelpAndVersion() throws {
        XCTAssertTrue(try parse(["--help"]).helpRequested)
        XCTAssertTrue(try parse(["-h"]).helpRequested)
        XCTAssertTrue(try parse(["--version"]).versionRequested)
    }

    func testUsageErrors() {
        XCTAssertEqual(message(["--precison", "6"]), "unknown option '--precison'; did you mean '--precision'?")
        XCTAssertEqual(message(["--prec=6"]), "unknown option '--prec'; did you mean '--precision'?")
        XCTAssertEqual(message(["--zzz"]), "unknown option '--zzz'")
        XCTAssertEqual(message(["-x"]), "unknown option '-x'")
        XCTAssertEqual(message(["--precision"]), "option '--precision' needs a value (N)")
        XCTAssertEqual(message(["-p", "11"]), "option '-p' takes a whole number from 0 to 10, not '11'")
        XCTAssertEqual(message(["--to", "txt"]), "option '--to' takes one of text, json, not 'txt'; did you mean 'text'?")
        XCTAssertEqual(message(["--quiet=yes"]), "option '--quiet' takes no value")
        XCTAssertEqual(message(["--distance", "nan"]), "option '--distance' takes a finite number, not 'nan'")
    }

    func testEditDistance() {
        XCTAssertEqual(ArgumentParser.editDistance("encod", "encode"), 1)
        XCTAssertEqual(ArgumentParser.editDistance("ecnode", "encode"), 1)
        XCTAssertEqual(ArgumentParser.editDistance("", "abc"), 3)
    }

    func testHelpIsRenderedFromTheDescription() {
        let help = HelpText.render(command)
        XCTAssertTrue(help.contains("USAGE: geo demo [OPTIONS] [FILE...]"))
        XCTAssertTrue(help.contains("-p, --precision N"))
        XCTAssertTrue(help.contains("(default: 5)"))
        XCTAssertTrue(help.contains("--to text|json"))
    }
}
