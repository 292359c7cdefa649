#if canImport(Glibc)
import Glibc
#endif
import CommandKit
import Drawing
import GeoCommandLine
import GeoDispatcher
import GeoJSON
import JSONBytes
import Polyline
import Records
import Styles

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
    /// The canvas and its line rasterizer: the bytes as drawing calls, coordinates of any size;
    /// and the picture through the tile PNG writer (RunDeflate), inflated again by zlib.
    case rasterizer

    func run(_ data: UnsafeBufferPointer<UInt8>) {
        switch self {
        case .scanner: scanner(data)
        case .polyline: polyline(data)
        case .arguments: arguments(data)
        case .records: records(data)
        case .rasterizer: rasterizer(data)
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

    /// Every built-in (`Dispatcher.builtins`, so a command added later is fuzzed too) with each of
    /// its `sampleArguments`: the record handler of a streaming command, run in memory; any other
    /// command (render) run whole on the input as a file.
    static let runs: [Run] = Dispatcher.builtins.flatMap { command in
        command.sampleArguments.map { arguments in
            let parsed = try! ArgumentParser.parse(arguments, for: command.description)
            // A handler whose output the command gathers first (bbox --all's raw boxes) is not
            // the command's output: that command is run whole, as render is.
            if let streaming = try! command.init(parsed) as? any StreamingCommand, streaming.handlerWritesOutput {
                return .handler(streaming.handler)
            }
            return .whole(command, arguments)
        }
    }

    enum Run {
        case handler(any RecordHandler)
        case whole(any GeoCommand.Type, [String])
    }

    func records(_ data: UnsafeBufferPointer<UInt8>) {
        for run in Harness.runs {
            switch run {
            case .handler(let handler):
                let (output, _) = processInMemory(Array(data), with: handler)
                Harness.checkJSON(output)
            case .whole(let command, let arguments):
                Harness.runWhole(command, arguments, on: data)
            }
        }
    }

    /// Every output line with a '"' in it must be one whole, valid JSON text: GeoJSON output
    /// always has one, and the other outputs never (polylines are bytes 63-126, the LAT,LNG
    /// text is digits, signs, points, commas and spaces).
    static func checkJSON(_ output: [UInt8]) {
        for line in output.split(separator: UInt8(ascii: "\n")) where line.contains(UInt8(ascii: "\"")) {
            line.withUnsafeBufferPointer { text in
                var check = JSONScanner(text)
                let valid = (try? check.skipValue()) != nil && (try? check.expectEnd()) != nil
                if !valid { printError("a handler wrote invalid JSON: \(String(decoding: text, as: UTF8.self))\n") }
                precondition(valid, "a handler wrote invalid JSON")
            }
        }
    }

    /// Runs `geo COMMAND ARGUMENTS... -q FILE` with the bytes in FILE, its standard output thrown
    /// away (its messages still go to standard error).
    static func runWhole(_ command: any GeoCommand.Type, _ arguments: [String], on data: UnsafeBufferPointer<UInt8>) {
        var template = Array("/tmp/geo-fuzz-XXXXXX".utf8CString)
        let file = mkstemp(&template)
        precondition(file >= 0, "cannot create a temporary file")
        let path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        defer { unlink(path) }
        var written = 0
        while written < data.count {
            let count = write(file, data.baseAddress! + written, data.count - written)
            precondition(count > 0, "cannot write the temporary file")
            written += count
        }
        close(file)
        fflush(nil)
        let savedOutput = dup(1), discard = open("/dev/null", O_WRONLY)
        dup2(discard, 1)
        close(discard)
        defer {
            fflush(nil)
            dup2(savedOutput, 1)
            close(savedOutput)
        }
        let parsed = try! ArgumentParser.parse(arguments + ["-q", path], for: command.description)
        let status = try! command.init(parsed).run()
        precondition(status == .success || status == .dataError, "\(command.description.name) ended with \(status)")
    }
}

extension Harness {
    /// Reads the bytes as a small picture and a list of drawing calls (lines of any width and
    /// colour, with coordinates as raw doubles: infinities, NaNs, 1e308, subnormals; fills,
    /// markers, layers), draws them with one thread and with several, and requires the same
    /// picture both times, every pixel validly premultiplied (no channel above its alpha); then
    /// encodes it as a map tile is (geo's run deflater; RGBA, or a palette) and requires zlib to
    /// inflate it into those pixels, unpremultiplied.
    func rasterizer(_ data: UnsafeBufferPointer<UInt8>) {
        var bytes = ByteReader(data)
        let width = 1 + Int(bytes.byte() % 64), height = 1 + Int(bytes.byte() % 160), threads = 2 + Int(bytes.byte() % 4)
        let calls = Array(data[min(3, data.count)...])
        let canvas = Harness.draw(calls, width: width, height: height, threads: 1)
        let one = canvas.words()
        let several = Harness.draw(calls, width: width, height: height, threads: threads).words()
        precondition(one == several, "\(threads) threads drew another picture than one thread")
        for word in one {
            let alpha = word >> 24
            precondition((word >> 16) & 0xFF <= alpha && (word >> 8) & 0xFF <= alpha && word & 0xFF <= alpha,
                         "a pixel is not validly premultiplied: \(String(word, radix: 16))")
        }
        do { try canvas.finish() } catch { preconditionFailure("the PNG could not be encoded: \(error)") }
        let decoded = Harness.decodedPixels(canvas.encoded, width: width, height: height)
        for (index, word) in one.enumerated() {
            let alpha = word >> 24
            let channel = { (shift: UInt32) in alpha == 0 ? 0 : UInt8((((word >> shift) & 0xFF) * 255 + alpha / 2) / alpha) }
            precondition(Array(decoded[4 * index..<4 * index + 4]) == [channel(16), channel(8), channel(0), UInt8(alpha)],
                         "pixel \(index) came back from the PNG as another colour")
        }
    }

    /// The RGBA bytes of `png` (8-bit RGBA, or an 8-bit palette with tRNS, unfiltered rows: what
    /// geo writes), its IDAT chunks inflated by zlib's own `uncompress` (loaded here: geo only
    /// deflates).
    static func decodedPixels(_ png: [UInt8], width: Int, height: Int) -> [UInt8] {
        typealias Uncompress = @convention(c) (UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt>?, UnsafePointer<UInt8>?, UInt) -> Int32
        guard let library = dlopen("libz.so.1", RTLD_NOW), let symbol = dlsym(library, "uncompress") else { preconditionFailure("no libz.so.1") }
        var stream: [UInt8] = [], palette: [UInt8] = [], alphas: [UInt8] = [], colourType: UInt8 = 0, at = 8
        while at + 12 <= png.count {
            let length = png[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: png[at + 4..<at + 8], as: UTF8.self), data = png[at + 8..<at + 8 + length]
            switch type {
            case "IHDR": colourType = data[data.startIndex + 9]
            case "PLTE": palette = Array(data)
            case "tRNS": alphas = Array(data)
            case "IDAT": stream += data
            default: break
            }
            at += 12 + length
        }
        precondition(colourType == 6 || colourType == 3, "colour type \(colourType)")
        let pixelBytes = colourType == 6 ? 4 : 1, size = height * (1 + pixelBytes * width)
        var rows = [UInt8](repeating: 0, count: size + 1)
        var length = UInt(rows.count)
        let status = unsafeBitCast(symbol, to: Uncompress.self)(&rows, &length, stream, UInt(stream.count))
        precondition(status == 0 && length == UInt(size), "zlib could not inflate the PNG (status \(status), \(length) of \(size) bytes)")
        var pixels: [UInt8] = []
        for y in 0..<height {
            let row = y * (1 + pixelBytes * width)
            precondition(rows[row] == 0, "row \(y) has filter \(rows[row])")
            for x in 0..<width {
                if pixelBytes == 4 { pixels += rows[row + 1 + 4 * x..<row + 5 + 4 * x]; continue }
                let entry = Int(rows[row + 1 + x])
                precondition(3 * entry + 2 < palette.count, "pixel (\(x), \(y)) has no palette entry \(entry)")
                pixels += palette[3 * entry..<3 * entry + 3] + [entry < alphas.count ? alphas[entry] : 255]
            }
        }
        return pixels
    }

    static func draw(_ calls: [UInt8], width: Int, height: Int, threads: Int) -> Canvas {
        let canvas = Canvas(format: .png, width: width, height: height, fd: -1, threads: threads, compression: .fast)
        calls.withUnsafeBufferPointer { calls in
            var bytes = ByteReader(calls)
            var layers = 0
            while !bytes.isEmpty {
                switch bytes.byte() % 8 {
                case 0, 1, 2, 3:
                    let points = (0...(bytes.byte() % 24)).map { _ in bytes.pixel() }
                    canvas.stroke(points, colour: bytes.colour(), width: bytes.lineWidth())
                case 4:
                    let ring = (0...(bytes.byte() % 8)).map { _ in bytes.pixel() }
                    canvas.fill([ring], colour: bytes.colour())
                case 5:
                    canvas.marker(at: bytes.pixel(), radius: Double(bytes.byte() % 16), colour: bytes.colour())
                case 6 where layers < 3:
                    canvas.beginLayer()
                    layers += 1
                case 7 where layers > 0:
                    canvas.endLayer {}
                    layers -= 1
                default:
                    canvas.fillBackground(bytes.colour())
                }
            }
            while layers > 0 {
                canvas.endLayer {}
                layers -= 1
            }
        }
        return canvas
    }
}

/// The fuzzer's bytes read as values, zeros once they run out.
struct ByteReader {
    private let data: UnsafeBufferPointer<UInt8>
    private var offset = 0

    init(_ data: UnsafeBufferPointer<UInt8>) { self.data = data }

    var isEmpty: Bool { offset >= data.count }

    mutating func byte() -> UInt8 {
        guard offset < data.count else { return 0 }
        defer { offset += 1 }
        return data[offset]
    }

    /// A coordinate: mostly near the picture in 1/16 px steps, sometimes any double at all.
    mutating func coordinate() -> Double {
        let kind = byte()
        if kind < 224 { return Double(Int16(bitPattern: UInt16(byte()) << 8 | UInt16(byte()))) / 16 }
        var bits: UInt64 = 0
        for _ in 0..<8 { bits = bits << 8 | UInt64(byte()) }
        return Double(bitPattern: bits)
    }

    mutating func pixel() -> Pixel { Pixel(coordinate(), coordinate()) }

    /// A line width: 0–20 px in 1/8 px steps (the switch to cairo at 16 included), or any double.
    mutating func lineWidth() -> Double {
        let raw = byte()
        return raw < 161 ? Double(raw) / 8 : coordinate()
    }

    mutating func colour() -> Colour { Colour(red: byte(), green: byte(), blue: byte(), alpha: byte()) }
}
