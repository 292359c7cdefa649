import Foundation
import RunDeflate
import XCTest
@testable import Drawing

/// geo's run deflater (Sources/RunDeflate) against zlib's own inflate, the oracle: random data
/// of the shapes tiles have (noise, sparse ink, pixel runs, repeated rows), cut into blocks of
/// random sizes, must come back byte for byte with a good adler-32, never past the stated
/// bound; and the PNG rows' unpremultiplication equals cairo's formula for every alpha and
/// channel.
final class RunDeflateTests: XCTestCase {
    typealias Uncompress = @convention(c) (UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt>?, UnsafePointer<UInt8>?, UInt) -> Int32

    /// zlib's `uncompress`, loaded here: geo itself only deflates.
    static let uncompress: Uncompress = {
        guard let library = dlopen("libz.so.1", RTLD_NOW), let symbol = dlsym(library, "uncompress") else { fatalError("no libz.so.1") }
        return unsafeBitCast(symbol, to: Uncompress.self)
    }()

    /// Deflates `data` in blocks of `batch` bytes (rows `row` bytes long, pixels `pixel` bytes);
    /// returns the stream.
    func deflate(_ data: [UInt8], row: Int, pixel: Int = 4, batch: Int) -> [UInt8] {
        var state = geo_run_deflate()
        geo_run_deflate_start(&state, row, Int32(pixel))
        var tokens = [UInt32](repeating: 0, count: max(1, batch))
        var stream: [UInt8] = []
        var out = [UInt8](repeating: 0, count: geo_run_deflate_bound(batch))
        var start = 0
        repeat {
            let size = min(batch, data.count - start)
            let produced = data.withUnsafeBufferPointer { bytes in
                geo_run_deflate_block(&state, bytes.baseAddress! + start, size, min(start, row), &tokens, &out)
            }
            XCTAssertLessThanOrEqual(produced, geo_run_deflate_bound(size) - 8)
            stream += out[0..<produced]
            start += size
        } while start < data.count
        let produced = geo_run_deflate_finish(&state, &out)
        stream += out[0..<produced]
        return stream
    }

    func testRandomDataComesBackThroughZlib() {
        var seed: UInt64 = 20261205
        func next() -> Int {   // splitmix64: the same cases every run
            seed &+= 0x9E3779B97F4A7C15
            var z = seed
            z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9
            z = (z ^ (z >> 27)) &* 0x94D049BB133111EB
            return Int(truncatingIfNeeded: (z ^ (z >> 31)) >> 1)
        }
        for trial in 0..<400 {
            let size = trial < 8 ? trial : next() % 140_000 + 1
            // Rows under a pixel, and over deflate's 32 KiB window (no matches one row up), too.
            let row = trial % 9 < 3 ? trial % 9 + 1 : trial % 9 == 3 ? 40_000 + next() % 1000 : 1 + next() % 3000
            let batch = 1 + next() % 70_000
            let pixel = trial % 2 == 0 ? 4 : 1   // RGBA rows, palette rows
            var data = [UInt8](repeating: 0, count: size)
            let kind = trial % 5
            for i in 0..<size {
                switch kind {
                case 0: data[i] = UInt8(truncatingIfNeeded: next())                                        // noise: stored blocks
                case 1: data[i] = next() % 10 == 0 ? UInt8(truncatingIfNeeded: next()) : 0                // sparse ink
                case 2: data[i] = i >= pixel && next() % 5 != 0 ? data[i - pixel] : UInt8(next() % 3)     // pixel runs
                case 3: data[i] = i >= row && next() % 20 != 0 ? data[i - row] : UInt8(truncatingIfNeeded: next())  // rows
                default: data[i] = 7                                                                        // one value
                }
            }
            let stream = deflate(data, row: row, pixel: pixel, batch: batch)
            var back = [UInt8](repeating: 0, count: size + 1)
            var length = UInt(back.count)
            let status = stream.withUnsafeBufferPointer { RunDeflateTests.uncompress(&back, &length, $0.baseAddress, UInt($0.count)) }
            XCTAssertEqual(status, 0, "trial \(trial): kind \(kind), \(size) bytes, rows of \(row), pixels of \(pixel), blocks of \(batch)")
            XCTAssertEqual(Array(back[0..<Int(length)]), data, "trial \(trial)")
            if status != 0 { return }
        }
    }

    func testMostlyTransparentRowsCompressWell() {
        // 256 rows of a 256-px tile, one line of ink across: a few hundred bytes.
        let row = 1 + 4 * 256
        var data = [UInt8](repeating: 0, count: 256 * row)
        for x in 0..<256 { data[100 * row + 1 + 4 * x..<100 * row + 5 + 4 * x] = [214, 39, 40, 255] }
        let stream = deflate(data, row: row, batch: 63 * row)
        XCTAssertLessThan(stream.count, 400)
    }

    func testUnpremultiplicationIsCairosForEveryAlphaAndChannel() {
        var words: [UInt32] = []
        for alpha in UInt32(0)...255 {
            for channel in UInt32(0)...255 { words.append(alpha << 24 | channel << 16 | (255 - channel) << 8 | channel / 2) }
        }
        let width = 256, rows = 256
        var out = [UInt8](repeating: 0, count: rows * (1 + 4 * width))
        geo_png_rows(words, width, rows, width, &out)
        for (index, word) in words.enumerated() {
            let y = index / width, x = index % width
            let at = y * (1 + 4 * width) + 1 + 4 * x
            XCTAssertEqual(Array(out[at..<at + 4]), PNGEncoder.unpremultiply(word), String(format: "%08X", word))
            if x == 0 { XCTAssertEqual(out[at - 1], 0) }
        }
    }
}
