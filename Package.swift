// swift-tools-version:6.0
// Licensed under the MIT License: see LICENSE.
// geo: the geometry of map SDK shapes (encoded paths, geodesic lengths, style spans, circles)
// for shell pipelines. One module per responsibility; one module per command; `geo` is a thin
// dispatcher over them.
import PackageDescription

let fast: [SwiftSetting] = [.unsafeFlags(["-cross-module-optimization"], .when(configuration: .release))]
/// Without the run-time exclusivity checks, in the modules whose hot loops go through class
/// members or global tables: the output ByteBuffer (JSONBytes, GeoJSON, Records), the lookup
/// tables read through `withUnsafePointer(to: &global)` (JSONBytes' powers of ten, Polyline's
/// chunk layouts), the rasterizer's band scratch (Drawing). Safe because each of these is
/// touched by one thread at a time and never through two overlapping accesses: a buffer or
/// band has one owner, and the tables are never written.
let fastUnchecked: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked", "-cross-module-optimization"], .when(configuration: .release))]

let package = Package(
    name: "geo",
    products: [
        .executable(name: "geo", targets: ["geo"]),
    ],
    targets: [
        // PROJ's C API (proj.h, geodesic.h from libproj-dev); the geodesy module is its only user.
        // Headers only: SystemLibraries loads libproj on first use.
        .systemLibrary(name: "CProj"),
        // How geo runs its C libraries: PROJ, cairo, SQLite and zlib loaded on first use (a command
        // that needs none never loads them), and a fast hypot, remainder and remquo exported in place of
        // glibc's for the whole process.
        .target(name: "SystemLibraries", linkerSettings: [.linkedLibrary("dl")]),
        // glibc's <malloc.h> (mallopt), for the engine's output buffers; a prefetch hint.
        .systemLibrary(name: "CMalloc"),

        // The layers, bottom up (docs/ARCHITECTURE.md; Tests/Layering checks these arrows against
        // the imports). Leaves: no dependencies.
        // Byte-level JSON: scanner, exact number parsing and shortest formatting, output buffer.
        .target(name: "JSONBytes", swiftSettings: fastUnchecked),
        // Google's Encoded Polyline Algorithm Format, 64-bit, precision 0...10.
        .target(name: "Polyline", swiftSettings: fastUnchecked),
        // Positions, paths, the seven geometry types, and the bad-record error every layer throws.
        .target(name: "Geometry", swiftSettings: fast),
        // Declarative command descriptions, typed options, the argument parser, help and usage errors.
        .target(name: "GeoCommandLine"),
        // Stroke styles and colours as the Maps SDK and simplestyle name them: the one parser
        // spans and render share.
        .target(name: "Styles"),
        // Threads on pthreads, and a mutex with a condition: what the engine and the line
        // rasterizer share.
        .target(name: "Threads", swiftSettings: fast),
        // cairo's C API as a system library (libcairo2-dev): the drawing module is its only user.
        .systemLibrary(name: "CCairo"),
        // SQLite's C API (libsqlite3-dev), for MBTiles: tiles is its only user. Headers only:
        // SystemLibraries loads libsqlite3 on first use.
        .systemLibrary(name: "CSQLite"),
        // zlib's deflate and inflate (zlib1g-dev), for the PNG encoder and for reading gzip input.
        // Headers only: SystemLibraries loads libz on first use.
        .systemLibrary(name: "CZlib"),

        // GeoJSON features and geometries on top of JSONBytes, with pass-through of raw members.
        .target(name: "GeoJSON", dependencies: ["JSONBytes", "Geometry"], swiftSettings: fastUnchecked),
        // Edge lengths, positions along edges and circles for every --kind, on PROJ: the only PROJ caller.
        .target(name: "Geodesy", dependencies: ["CProj", "SystemLibraries", "Geometry"], swiftSettings: fast),
        // The streaming engine, free of the command line: reader (gzip input too), framing,
        // documents, ordered --jobs pipeline, result writer, rejects, progress, signals, RecordHandler.
        .target(name: "Records", dependencies: ["JSONBytes", "Geometry", "GeoJSON", "CMalloc", "CZlib", "SystemLibraries", "Threads"], swiftSettings: fastUnchecked),
        // What commands share between the engine and the command line: the GeoCommand and
        // StreamingCommand protocols, the stream and path-format option groups, the per-record
        // size limit. Not geodesy: encode and decode never reach PROJ's headers.
        .target(name: "CommandKit", dependencies: ["GeoCommandLine", "Records", "JSONBytes", "Geometry", "GeoJSON", "Polyline"], swiftSettings: fast),
        // --kind, --ellps, --sphere: the geodesy option group, for the commands that measure.
        .target(name: "GeodesyOptions", dependencies: ["GeoCommandLine", "Geodesy", "Geometry", "Records"], swiftSettings: fast),

        // One module per command.
        .target(name: "EncodeCommand", dependencies: ["CommandKit", "Records", "GeoCommandLine", "Geometry", "GeoJSON", "JSONBytes", "Polyline"], swiftSettings: fast),
        .target(name: "DecodeCommand", dependencies: ["CommandKit", "Records", "GeoCommandLine", "Geometry", "GeoJSON", "JSONBytes", "Polyline"], swiftSettings: fast),
        .target(name: "LengthCommand", dependencies: ["CommandKit", "GeodesyOptions", "Records", "GeoCommandLine", "Geometry", "GeoJSON", "Geodesy"], swiftSettings: fast),
        .target(name: "InterpolateCommand", dependencies: ["CommandKit", "GeodesyOptions", "Records", "GeoCommandLine", "Geometry", "GeoJSON", "Geodesy"], swiftSettings: fast),
        .target(name: "CircleCommand", dependencies: ["CommandKit", "GeodesyOptions", "Records", "GeoCommandLine", "Geometry", "GeoJSON", "Geodesy"], swiftSettings: fast),
        .target(name: "SpansCommand", dependencies: ["CommandKit", "GeodesyOptions", "Records", "GeoCommandLine", "Geometry", "GeoJSON", "Geodesy", "JSONBytes", "Styles"], swiftSettings: fast),
        .target(name: "HeadingCommand", dependencies: ["CommandKit", "GeodesyOptions", "Records", "GeoCommandLine", "Geometry", "GeoJSON", "Geodesy"], swiftSettings: fast),
        .target(name: "OffsetCommand", dependencies: ["CommandKit", "GeodesyOptions", "Records", "GeoCommandLine", "Geometry", "GeoJSON", "Geodesy"], swiftSettings: fast),
        .target(name: "BboxCommand", dependencies: ["CommandKit", "GeodesyOptions", "Records", "GeoCommandLine", "Geometry", "GeoJSON", "Geodesy", "JSONBytes"], swiftSettings: fast),
        .target(name: "AreaCommand", dependencies: ["CommandKit", "GeodesyOptions", "Records", "GeoCommandLine", "Geometry", "GeoJSON", "Geodesy"], swiftSettings: fast),
        .target(name: "MapDrawing", dependencies: ["CommandKit", "GeodesyOptions", "Records", "GeoCommandLine", "Geometry", "GeoJSON", "Geodesy", "JSONBytes", "Styles", "Drawing"], swiftSettings: fast),
        .target(name: "RenderCommand", dependencies: ["MapDrawing", "CommandKit", "GeodesyOptions", "Records", "GeoCommandLine", "Geometry", "GeoJSON", "Geodesy", "Styles", "Drawing"], swiftSettings: fast),
        .target(name: "TilesCommand", dependencies: ["MapDrawing", "CommandKit", "Records", "GeoCommandLine", "Geometry", "Geodesy", "Styles", "Drawing", "CSQLite", "CMalloc", "CZlib", "SystemLibraries", "Threads", "JSONBytes"], swiftSettings: fast),
        .target(name: "SimplifyCommand", dependencies: ["CommandKit", "GeodesyOptions", "Records", "GeoCommandLine", "Geometry", "GeoJSON", "Geodesy", "Polyline"], swiftSettings: fast),
        .target(name: "LocateCommand", dependencies: ["CommandKit", "GeodesyOptions", "Records", "GeoCommandLine", "Geometry", "GeoJSON", "Geodesy", "JSONBytes"], swiftSettings: fast),

        // Pictures in pixels on cairo: the one drawing code path for PNG, PDF and SVG.
        .target(name: "Drawing", dependencies: ["CCairo", "CZlib", "SystemLibraries", "Styles", "RasterKernels", "RunDeflate", "Threads"], swiftSettings: fastUnchecked),
        // The line rasterizer's inner loops in C: a segment's coverage, prefetching composite (Drawing's only).
        .target(name: "RasterKernels", cSettings: [.unsafeFlags(["-O3", "-fno-math-errno"])]),
        // PNG rows for map tiles in C: unpremultiplied, and deflated by matching one pixel back
        // and one row up only, with Huffman codes built per block (Drawing's only).
        .target(name: "RunDeflate", cSettings: [.unsafeFlags(["-O3"])]),

        // Man pages and shell completions rendered from the command descriptions.
        .target(name: "Documentation", dependencies: ["GeoCommandLine"]),
        // The dispatcher: built-in registry, `geo help`, `geo commands`, external plugins.
        .target(name: "GeoDispatcher", dependencies: [
            "GeoCommandLine", "CommandKit", "Records", "Geodesy", "Documentation", "EncodeCommand", "DecodeCommand", "LengthCommand", "InterpolateCommand",
            "CircleCommand", "SpansCommand", "AreaCommand", "LocateCommand", "RenderCommand", "TilesCommand",
            "HeadingCommand", "OffsetCommand", "BboxCommand", "SimplifyCommand",
        ]),
        // The binary exports exactly hypot, remainder and remquo (Tests/EndToEnd/test_system_libraries.py):
        // the dynamic linker then binds every call of them in the process to SystemLibraries'
        // (ELF interposition), libm's callers included: PROJ's geodesics, its projections in
        // render, cairo. That is safe because they return what glibc's do: remainder and remquo
        // bit for bit, hypot within 1.2 ulp (SystemLibraries/*.c). --no-export-dynamic undoes
        // the -export-dynamic that -static-stdlib adds (it comes later on the link line), so
        // nothing else is exported: not the Swift symbols, which the Swift runtime finds through
        // its own sections (and a crash's backtrace through the file's symbol table), and not the
        // lazy PROJ and cairo wrappers, which libproj's calls between its own functions would
        // otherwise bind to. The Swift runtime linked in statically: it saves ~2.5 MB of
        // resident memory in every run (only the pages geo touches, and far fewer relocations)
        // and starts no slower (bench/README.md, Memory).
        .executableTarget(name: "geo", dependencies: ["GeoDispatcher"],
                          linkerSettings: [.unsafeFlags(["-Xlinker", "--export-dynamic-symbol=hypot", "-Xlinker", "--export-dynamic-symbol=remainder",
                                                         "-Xlinker", "--export-dynamic-symbol=remquo", "-static-stdlib", "-Xlinker", "--no-export-dynamic"])]),
        // libFuzzer harnesses (fuzz/run.sh), and in an ordinary build the replayer of saved inputs.
        // They reach the commands through Dispatcher.builtins, so a new command is fuzzed too.
        .executableTarget(name: "geo-fuzz", dependencies: [
            "GeoDispatcher", "CommandKit", "Records", "JSONBytes", "GeoJSON", "Polyline", "GeoCommandLine", "Drawing", "Styles",
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
            "CProj", "CCairo", "SystemLibraries", "JSONBytes", "Geometry", "GeoJSON", "Polyline", "GeoCommandLine", "Records", "Geodesy", "CommandKit", "GeoDispatcher",
            "EncodeCommand", "DecodeCommand", "LengthCommand", "InterpolateCommand", "CircleCommand", "SpansCommand",
            "Styles", "Drawing", "MapDrawing", "RenderCommand", "TilesCommand", "RunDeflate", "SimplifyCommand",
        ]),
    ]
)
