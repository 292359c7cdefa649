// swift-tools-version:6.0
// geo: the geometry of map SDK shapes (encoded paths, geodesic lengths, style spans, circles)
// for shell pipelines. One module per responsibility; one module per command; `geo` is a thin
// dispatcher over them.
import PackageDescription

/// Hot paths append to raw byte buffers; exclusivity is guaranteed by construction there.
let fast: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked", "-cross-module-optimization"], .when(configuration: .release))]

let package = Package(
    name: "geo",
    products: [
        .executable(name: "geo", targets: ["geo"]),
    ],
    targets: [
        // PROJ's C API (proj.h, geodesic.h); the geodesy module is its only user.
        .systemLibrary(name: "CProj", pkgConfig: "proj", providers: [.apt(["libproj-dev"])]),

        // Byte-level JSON: scanner, exact number parsing and shortest formatting, output buffer.
        .target(name: "JSONBytes", swiftSettings: fast),
        // GeoJSON features and geometries on top of JSONBytes, with pass-through of raw members.
        .target(name: "GeoJSON", dependencies: ["JSONBytes"], swiftSettings: fast),
        // Google's Encoded Polyline Algorithm Format, 64-bit, precision 0...10.
        .target(name: "Polyline", swiftSettings: fast),
        // Declarative command descriptions, the argument parser, help and usage errors.
        .target(name: "GeoCommandLine"),
        // Edge lengths and positions along edges for every --kind, on PROJ: the only PROJ caller.
        .target(name: "Geodesy", dependencies: ["CProj", "GeoJSON"], swiftSettings: fast),
        // Streaming record I/O shared by every command: framing, errors, rejects, ordered --jobs,
        // and the option groups commands share (input formats, geodesy).
        .target(name: "Records", dependencies: ["JSONBytes", "GeoJSON", "Polyline", "GeoCommandLine", "Geodesy"], swiftSettings: fast),

        // One module per command.
        .target(name: "EncodeCommand", dependencies: ["Records", "GeoJSON", "Polyline", "JSONBytes", "GeoCommandLine"], swiftSettings: fast),
        .target(name: "DecodeCommand", dependencies: ["Records", "GeoJSON", "Polyline", "JSONBytes", "GeoCommandLine"], swiftSettings: fast),
        .target(name: "LengthCommand", dependencies: ["Records", "GeoJSON", "Geodesy", "GeoCommandLine", "JSONBytes"], swiftSettings: fast),
        .target(name: "InterpolateCommand", dependencies: ["Records", "GeoJSON", "Geodesy", "GeoCommandLine", "JSONBytes"], swiftSettings: fast),
        .target(name: "CircleCommand", dependencies: ["Records", "GeoJSON", "Geodesy", "GeoCommandLine", "JSONBytes"], swiftSettings: fast),
        .target(name: "SpansCommand", dependencies: ["Records", "GeoJSON", "Geodesy", "GeoCommandLine", "JSONBytes"], swiftSettings: fast),

        // Man pages and shell completions rendered from the command descriptions.
        .target(name: "Documentation", dependencies: ["GeoCommandLine"]),
        // The dispatcher: built-in registry, `geo help`, `geo commands`, external plugins.
        .target(name: "GeoDispatcher", dependencies: [
            "GeoCommandLine", "Records", "Documentation", "Geodesy", "EncodeCommand", "DecodeCommand", "LengthCommand", "InterpolateCommand",
            "CircleCommand", "SpansCommand",
        ]),
        .executableTarget(name: "geo", dependencies: ["GeoDispatcher"]),
        // libFuzzer harnesses (fuzz/run.sh), and in an ordinary build the replayer of saved inputs.
        .executableTarget(name: "geo-fuzz", dependencies: [
            "GeoDispatcher", "Records", "JSONBytes", "GeoJSON", "Polyline", "GeoCommandLine",
            "EncodeCommand", "DecodeCommand", "LengthCommand", "InterpolateCommand", "CircleCommand", "SpansCommand",
        ], path: "Sources/GeoFuzz"),

        // SwiftPM command plugins that regenerate the checked-in man pages and completions.
        .plugin(name: "GenerateManual",
                capability: .command(intent: .custom(verb: "generate-manual", description: "Regenerate man/man1 from the command descriptions"),
                                     permissions: [.writeToPackageDirectory(reason: "writes the man pages to man/man1")]),
                dependencies: ["geo"]),
        .plugin(name: "GenerateCompletions",
                capability: .command(intent: .custom(verb: "generate-completions", description: "Regenerate completions/ from the command descriptions"),
                                     permissions: [.writeToPackageDirectory(reason: "writes the bash, zsh and fish completions to completions/")]),
                dependencies: ["geo"]),

        .testTarget(name: "GeoTests", dependencies: [
            "JSONBytes", "GeoJSON", "Polyline", "GeoCommandLine", "Records", "Geodesy", "GeoDispatcher", "SpansCommand",
        ]),
    ]
)
