// geo-fuzz: libFuzzer harnesses for geo, and their replayer.
//
// Fuzzing (fuzz/run.sh builds this with `--sanitize fuzzer --sanitize address -DFUZZING`):
//     GEO_FUZZ_HARNESS=scanner geo-fuzz [libFuzzer options] CORPUS...
// Replaying saved inputs (an ordinary build; the regression tests do this):
//     geo-fuzz HARNESS FILE...
// Listing the harnesses (one a line):
//     geo-fuzz --list
#if canImport(Glibc)
import Glibc
#endif
import Records

#if FUZZING
/// The harness named by GEO_FUZZ_HARNESS, read once.
let selectedHarness: Harness = {
    guard let name = getenv("GEO_FUZZ_HARNESS").map({ String(cString: $0) }), let harness = Harness(rawValue: name) else {
        fatalError("set GEO_FUZZ_HARNESS to one of \(Harness.allCases.map(\.rawValue))")
    }
    return harness
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    selectedHarness.run(UnsafeBufferPointer(start: data, count: size))
    return 0
}
#else
/// Replays saved inputs through a harness (the regression tests' way in).
@main
struct Replay {
    static func main() {
        let arguments = CommandLine.arguments
        if arguments.count == 2, arguments[1] == "--list" {  // fuzz/run.sh and the tests read the harnesses here
            for harness in Harness.allCases { print(harness.rawValue) }
            return
        }
        guard arguments.count >= 2, let harness = Harness(rawValue: arguments[1]) else {
            printError("usage: geo-fuzz \(Harness.allCases.map(\.rawValue).joined(separator: "|")) FILE...\n")
            exit(64)
        }
        for path in arguments.dropFirst(2) {
            guard let file = fopen(path, "rb") else {
                printError("geo-fuzz: cannot open \(path)\n")
                exit(66)
            }
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = fread(&buffer, 1, buffer.count, file)
                if count <= 0 { break }
                bytes += buffer[0..<count]
            }
            fclose(file)
            bytes.withUnsafeBufferPointer { harness.run($0) }
        }
        print("replayed \(arguments.count - 2) input(s) through \(harness.rawValue): no crash")
    }
}
#endif
