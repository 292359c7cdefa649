import XCTest
@testable import GeoCommandLine

final class ArgumentParserTests: XCTestCase {
    enum Format: String, CaseIterable, Sendable { case text, json }
    static let precision = Option(integer: "precision", short: "p", in: 0...10, help: "digits").defaulting(to: 5)
    static let to = Option(choice: "to", of: Format.self, help: "format")
    static let quiet = Flag("quiet", short: "q", help: "quiet")
    static let strict = Flag("strict", short: "s", help: "strict")
    static let distance = Option(number: "distance", help: "metres")
    static let style = Option(text: "style", help: "style").repeatable()
    let command = CommandDescription(name: "demo", summary: "demo", discussion: "",
                                     options: [precision, to, quiet, strict, distance, style])

    func parse(_ arguments: [String]) throws -> ParsedArguments { try ArgumentParser.parse(arguments, for: command) }

    func message(_ arguments: [String]) -> String? {
        do { _ = try parse(arguments); return nil } catch { return (error as? UsageError)?.message }
    }

    func testValueSpellingsAreEquivalent() throws {
        for spelling in [["--precision=6"], ["--precision", "6"], ["-p6"], ["-p", "6"], ["-p=6"]] {
            XCTAssertEqual(try parse(spelling)[Self.precision], 6, "\(spelling)")
        }
    }

    func testClusteredFlagsAndOperands() throws {
        let parsed = try parse(["-qsp7", "a.ndjson", "-", "--", "--to", "-q"])
        XCTAssertTrue(parsed[Self.quiet])
        XCTAssertTrue(parsed[Self.strict])
        XCTAssertEqual(parsed[Self.precision], 7)
        XCTAssertEqual(parsed.operands, ["a.ndjson", "-", "--to", "-q"])
    }

    func testNegativeValuesAndRepeats() throws {
        let parsed = try parse(["--distance", "-500", "--style", "red", "--style=blue", "-p", "3", "-p", "4"])
        XCTAssertEqual(parsed[Self.distance], -500)
        XCTAssertEqual(parsed.all(Self.style), ["red", "blue"])
        XCTAssertEqual(parsed[Self.precision], 4)
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
        XCTAssertEqual(message(["-p", "11"]), "option '--precision' takes a whole number from 0 to 10, not '11'")
        XCTAssertEqual(message(["--to", "txt"]), "option '--to' takes one of text, json, not 'txt'; did you mean 'text'?")
        XCTAssertEqual(message(["--quiet=yes"]), "option '--quiet' takes no value")
        XCTAssertEqual(message(["--distance", "nan"]), "option '--distance' takes a finite number, not 'nan'")
    }

    func testTypedValuesAndDefaults() throws {
        let parsed = try parse(["--to", "json"])
        XCTAssertEqual(parsed[Self.to], .json)
        XCTAssertEqual(parsed[Self.precision], 5, "the declared default")
        XCTAssertNil(parsed[Self.distance])
        XCTAssertFalse(parsed[Self.quiet])
        XCTAssertFalse(parsed.has(Self.precision))
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
