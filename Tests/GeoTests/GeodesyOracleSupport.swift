import CProj
import Foundation
import XCTest
import Geometry
@testable import Geodesy

/// Oracles for the area and locate tests, run at test time: GeographicLib's command-line tools
/// (`Planimeter`, `GeodSolve`, `RhumbSolve`; Debian package geographiclib-tools) and
/// Tests/oracles/nearest_point.py (python `geographiclib`). A missing oracle fails the test,
/// never skips it (CI installs them: `make setup`).
enum GeodesyOracle {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The executable `name` on PATH.
    static func executable(_ name: String) throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw Failure(description: "the oracle `\(name)` is missing: install geographiclib-tools and python3 geographiclib (make setup)")
    }

    /// Runs `name arguments…` with `input` on stdin; its stdout.
    static func run(_ name: String, _ arguments: [String], input: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try executable(name))
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        // Write on another thread: a large input and a large output would otherwise deadlock.
        let data = Data(input.utf8)
        let writer = Thread {
            stdin.fileHandleForWriting.write(data)
            try? stdin.fileHandleForWriting.close()
        }
        writer.start()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        let errors = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "\(name) \(arguments) failed (\(process.terminationStatus)): \(String(decoding: errors, as: UTF8.self))")
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// A number as GeographicLib's tools must read it: fixed-point, never exponent notation
    /// (`6e-05` is read as 6°E minus 5).
    static func decimal(_ x: Double) -> String {
        String(format: abs(x) < 1e4 ? "%.17f" : "%.9f", x)
    }

    /// `Planimeter [-R] -e a f` on each ring: the signed area (counter-clockwise positive, the
    /// smaller side).
    static func planimeter(_ rings: [Path], earth: Earth, rhumb: Bool) throws -> [Double] {
        var input = ""
        for ring in rings {
            for vertex in ring { input += "\(decimal(vertex.latitude)) \(decimal(vertex.longitude))\n" }
            input += "\n"
        }
        let arguments = (rhumb ? ["-R"] : []) + ["-p", "12", "-e", decimal(earth.a), decimal(earth.f)]
        let lines = try run("Planimeter", arguments, input: input).split(separator: "\n")
        guard lines.count == rings.count else { throw Failure(description: "Planimeter gave \(lines.count) lines for \(rings.count) rings") }
        return try lines.map { line in
            let fields = line.split(separator: " ")
            guard fields.count == 3, let area = Double(fields[2]) else { throw Failure(description: "Planimeter said '\(line)'") }
            return area
        }
    }

    /// Positions along rhumb lines from `RhumbSolve` (direct problem): (start, azimuth°, s) → position.
    static func rhumbDirect(_ requests: [(Position, Double, Double)], earth: Earth) throws -> [Position] {
        let input = requests.map { "\(decimal($0.0.latitude)) \(decimal($0.0.longitude)) \(decimal($0.1)) \(decimal($0.2))\n" }.joined()
        let lines = try run("RhumbSolve", ["-p", "9", "-e", decimal(earth.a), decimal(earth.f)], input: input).split(separator: "\n")
        return lines.map { line in
            let fields = line.split(separator: " ").compactMap { Double($0) }
            return Position(longitude: fields[1], latitude: fields[0])
        }
    }

    /// Azimuth (degrees) and length of rhumb lines from `RhumbSolve -i`.
    static func rhumbInverse(_ requests: [(Position, Position)], earth: Earth) throws -> [(azimuth: Double, length: Double)] {
        let input = requests.map { "\(decimal($0.0.latitude)) \(decimal($0.0.longitude)) \(decimal($0.1.latitude)) \(decimal($0.1.longitude))\n" }.joined()
        let lines = try run("RhumbSolve", ["-i", "-p", "9", "-e", decimal(earth.a), decimal(earth.f)], input: input).split(separator: "\n")
        return lines.map { line in
            let fields = line.split(separator: " ").compactMap { Double($0) }
            return (fields[0], fields[1])
        }
    }

    struct NearestCase: Codable {
        var kind: String
        var a: [Double]
        var b: [Double]
        var p: [Double]
        var along: Double
    }

    struct NearestAnswer: Codable {
        var distance: Double
        var along: Double
        var length: Double
        var distance_at_along: Double
        var position_at_along: [Double]
    }

    /// Tests/oracles/nearest_point.py on the cases (brute force: dense sampling, refined to 1e-5 m).
    static func nearest(_ cases: [NearestCase], earth: Earth) throws -> [NearestAnswer] {
        struct Job: Codable { var a: Double; var f: Double; var cases: [NearestCase] }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("oracles/nearest_point.py").path
        let input = String(decoding: try JSONEncoder().encode(Job(a: earth.a, f: earth.f, cases: cases)), as: UTF8.self)
        let output = try run("python3", [script], input: input)
        return try JSONDecoder().decode([NearestAnswer].self, from: Data(output.utf8))
    }
}

/// SplitMix64: the same pseudo-random cases on every run and every platform.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform double in range, rounded to 1e-10 (so that the decimal the oracles read is the
    /// same double geo computes with).
    mutating func coordinate(_ range: ClosedRange<Double>) -> Double {
        (Double.random(in: range, using: &self) * 1e10).rounded() / 1e10
    }
}

func lonLat(_ longitude: Double, _ latitude: Double) -> Position {
    Position(longitude: longitude, latitude: latitude)
}

/// The geodesic direct problem (PROJ): the point `distance` metres from `start` at `azimuth`°,
/// rounded to 1e-10° like the other generated coordinates.
func geodesicDirect(_ earth: Earth, from start: Position, azimuth: Double, distance: Double) -> Position {
    var geodesic = geod_geodesic()
    geod_init(&geodesic, earth.a, earth.f)
    var latitude = 0.0, longitude = 0.0
    geod_direct(&geodesic, start.latitude, start.longitude, azimuth, distance, &latitude, &longitude, nil)
    return lonLat((longitude * 1e10).rounded() / 1e10, (latitude * 1e10).rounded() / 1e10)
}

/// The forward azimuth (degrees) at the end of the geodesic from `a` to `b` (PROJ).
func geodesicEndAzimuth(_ earth: Earth, _ a: Position, _ b: Position) -> Double {
    var geodesic = geod_geodesic()
    geod_init(&geodesic, earth.a, earth.f)
    var s12 = 0.0, azi1 = 0.0, azi2 = 0.0
    geod_inverse(&geodesic, a.latitude, a.longitude, b.latitude, b.longitude, &s12, &azi1, &azi2)
    return azi2
}
