import CircleCommand
import CommandKit
import DecodeCommand
import EncodeCommand
import GeoCommandLine
import GeoDispatcher
import GeoJSON
import InterpolateCommand
import JSONBytes
import LengthCommand
import Polyline
import Records
import SpansCommand

/// The fuzz harnesses: each takes arbitrary bytes and must neither crash nor break an
/// invariant (a failed invariant is a crash on purpose, so the fuzzer keeps the input).
enum Harness: String, CaseIterable {
    /// The byte-level JSON scanner and the GeoJSON reader on one record.
    case scanner
    /// The polyline decoder; whatever decodes must re-encode to the same bytes.
    case polyline
    /// Every command's argument parsing and validation on NUL-separated arguments.
    case arguments
    /// Every command's record handler, over the bytes as a whole input (framing included).
    case records

    func run(_ data: UnsafeBufferPointer<UInt8>) {
        switch self {
        case .scanner: scanner(data)
        case .polyline: polyline(data)
        case .arguments: arguments(data)
        case .records: records(data)
        }
    }

    func scanner(_ data: UnsafeBufferPointer<UInt8>) {
        var scanner = JSONScanner(data)
        if (try? scanner.skipValue()) != nil {
            // A valid JSON value: the reader must give features or a reason, and writing
            // features back must produce a valid JSON text.
            _ = try? GeoJSONReader.readFeatures(data) { feature in
                let out = ByteBuffer()
                GeoJSONWriter().write(feature, from: data, adding: [("n", .number(1))], to: out)
                var check = JSONScanner(out.bytes)
                precondition((try? check.skipValue()) != nil && (try? check.expectEnd()) != nil,
                             "the writer produced invalid JSON: \(out.string)")
            }
        }
    }

    func polyline(_ data: UnsafeBufferPointer<UInt8>) {
        var values: [(Int64, Int64)] = []
        guard (try? Polyline.decode(data, { values.append(($0, $1)) })) != nil else { return }
        // Re-encoding the integers gives back the canonical text; decoding that gives the same values.
        var encoder = PolylineEncoder(precision: 0)
        var bytes: [UInt8] = []
        for (latitude, longitude) in values {
            guard (try? encoder.append(latitude: Double(latitude), longitude: Double(longitude), to: { bytes.append($0) })) != nil else { return }
        }
        var again: [(Int64, Int64)] = []
        let exact = values.allSatisfy { $0.0.magnitude < 1 << 53 && $0.1.magnitude < 1 << 53 }
        if exact {
            bytes.withUnsafeBufferPointer { _ = try? Polyline.decode($0, { again.append(($0, $1)) }) }
            precondition(again.elementsEqual(values, by: ==), "polyline round trip changed the values")
        }
    }

    func arguments(_ data: UnsafeBufferPointer<UInt8>) {
        let words = data.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        for command in Dispatcher.builtins {
            guard let parsed = try? ArgumentParser.parse(words, for: command.description) else { continue }
            _ = try? command.init(parsed)
        }
    }

    /// One handler per command, with settings that keep the work per record bounded, and whether
    /// it writes GeoJSON (the others write polylines or text, which may well start with "{").
    static let handlers: [(handler: any RecordHandler, writesJSON: Bool)] = [
        (handler(Encode.self, []), false), (handler(Encode.self, ["--to", "json", "-p", "7"]), true),
        (handler(Decode.self, []), true), (handler(Decode.self, ["--field", "p", "--to", "text"]), false),
        (handler(Length.self, ["--cumulative"]), true), (handler(Length.self, ["--kind", "rhumb"]), true),
        (handler(Length.self, ["--kind", "projected", "--from", "polyline"]), true),
        (handler(Interpolate.self, ["--fraction", "0.3", "--kind", "rhumb"]), true),
        (handler(Interpolate.self, ["--distance", "-1000"]), true),
        (handler(Interpolate.self, ["--count", "7", "--kind", "projected"]), true),
        (handler(Interpolate.self, ["--densify", "500000"]), true),
        (handler(Interpolate.self, ["--every", "100000", "--to", "polyline"]), false),
        (handler(CircleToPolygon.self, ["--radius", "100000", "--segments", "16"]), true),
        (handler(CircleToPolygon.self, ["--radius-field", "r", "--segments", "8"]), true),
        (handler(Spans.self, ["--style", "red", "--style", "gradient(red,blue)", "--length", "300000", "--offset", "-7", "--split"]), true),
        (handler(Spans.self, ["--span", "red:0.5", "--span", "blue", "--kind", "rhumb"]), true),
    ]

    static func handler<Command: StreamingCommand>(_ type: Command.Type, _ arguments: [String]) -> any RecordHandler {
        try! Command(ArgumentParser.parse(arguments, for: Command.description)).handler
    }

    func records(_ data: UnsafeBufferPointer<UInt8>) {
        let bytes = Array(data)
        for (handler, writesJSON) in Harness.handlers {
            let (output, _) = processInMemory(bytes, with: handler)
            // Every GeoJSON output line must be one whole, valid JSON text.
            for line in output.split(separator: UInt8(ascii: "\n")) where writesJSON {
                line.withUnsafeBufferPointer { text in
                    var check = JSONScanner(text)
                    let valid = (try? check.skipValue()) != nil && (try? check.expectEnd()) != nil
                    if !valid { printError("a handler wrote invalid JSON: \(String(decoding: text, as: UTF8.self))\n") }
                    precondition(valid, "a handler wrote invalid JSON")
                }
            }
        }
    }
}
