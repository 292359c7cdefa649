import CCairo
import Foundation
import Styles
import XCTest
@testable import Drawing

/// geo's PNG writer against libpng (cairo's PNG reader), the oracle: a picture in one colour
/// over a transparent background, however its lines overlap, is written as a palette and comes
/// back as the very pixels drawn; a picture of two colours that blend is written as RGBA and
/// comes back the same. Both compressions: the run deflater (tiles) and zlib (render).
final class PNGEncoderTests: XCTestCase {
    var seed: UInt64 = 20261206

    func next() -> Double {   // splitmix64 in [0, 1): the same cases every run
        seed &+= 0x9E3779B97F4A7C15
        var z = seed
        z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9
        z = (z ^ (z >> 27)) &* 0x94D049BB133111EB
        return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
    }

    /// `count` random lines, 2-12 points and 0.5-7 px wide, in the colours given in turn.
    func picture(_ colours: [Colour], lines count: Int, compression: PNGCompression) -> Canvas {
        let canvas = Canvas(format: .png, width: 96, height: 80, fd: -1, compression: compression)
        for line in 0..<count {
            let points = (0..<(2 + Int(next() * 11))).map { _ in Pixel(next() * 110 - 7, next() * 94 - 7) }
            canvas.stroke(points, colour: colours[line % colours.count], width: 0.5 + next() * 6.5)
        }
        return canvas
    }

    /// The PNG's pixels as libpng reads them, premultiplied by cairo (a round trip that gives
    /// back every validly premultiplied word exactly: each unpremultiplied channel is within ½
    /// of c·255/a, so premultiplying it again lands within ½·a/255 < ½ of c).
    func decoded(_ png: [UInt8]) throws -> [UInt32] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("geo-png-\(getpid()).png").path
        defer { unlink(path) }
        try Data(png).write(to: URL(fileURLWithPath: path))
        let image = cairo_image_surface_create_from_png(path)!
        defer { cairo_surface_destroy(image) }
        XCTAssertEqual(cairo_surface_status(image), CAIRO_STATUS_SUCCESS)
        let width = Int(cairo_image_surface_get_width(image)), height = Int(cairo_image_surface_get_height(image))
        let rowWords = Int(cairo_image_surface_get_stride(image)) / 4
        let pixels = UnsafeRawPointer(cairo_image_surface_get_data(image)!).assumingMemoryBound(to: UInt32.self)
        return (0..<height).flatMap { row in UnsafeBufferPointer(start: pixels + row * rowWords, count: width) }
    }

    /// PNG colour type (IHDR byte 9): 3 a palette, 6 RGBA.
    func colourType(_ png: [UInt8]) -> UInt8 { png[8 + 8 + 9] }

    func testOneColourIsWrittenAsAPaletteAndReadBackExactly() throws {
        for compression in [PNGCompression.fast, .compact] {
            for trial in 0..<16 {
                let alpha = trial % 4 == 0 ? 255 : UInt8(20 + next() * 235)
                let colour = Colour(red: UInt8(next() * 256), green: UInt8(next() * 256), blue: UInt8(next() * 256), alpha: alpha)
                let canvas = picture([colour], lines: 1 + trial * 3, compression: compression)
                let words = canvas.words()
                // Overlaps keep the colour: one word an alpha (what makes the palette possible).
                var byAlpha: [UInt32: UInt32] = [:]
                for word in words {
                    XCTAssertEqual(byAlpha[word >> 24, default: word], word, "trial \(trial): two words of alpha \(word >> 24)")
                    byAlpha[word >> 24] = word
                }
                try canvas.finish()
                XCTAssertEqual(colourType(canvas.encoded), 3, "trial \(trial), \(compression)")
                XCTAssertEqual(try decoded(canvas.encoded), words, "trial \(trial), \(compression)")
            }
        }
    }

    /// What cairo draws is not known to be one colour: the encoder reads every pixel to find
    /// out (geo_png_alpha_palette). Antialiased fills of one colour side by side over
    /// transparency are one word an alpha (a palette); where cairo lays one over another, its
    /// rounding makes more (RGBA), as another colour over them does.
    func testPicturesCairoDrewAreCheckedPixelByPixel() throws {
        let orange = Colour(red: 255, green: 127, blue: 14), purple = Colour(red: 148, green: 103, blue: 189, alpha: 160)
        func triangle(_ x: Double, _ y: Double) -> [Pixel] { [Pixel(x, y), Pixel(x + 21.3, y + 4.7), Pixel(x + 6.1, y + 17.9)] }
        for compression in [PNGCompression.fast, .compact] {
            let one = Canvas(format: .png, width: 60, height: 50, fd: -1, compression: compression)
            one.fill([triangle(2.3, 3.6)], colour: orange)
            one.fill([triangle(31.7, 25.2)], colour: orange)
            XCTAssertEqual(one.gate.contents, .unknown)
            try one.finish()
            XCTAssertEqual(colourType(one.encoded), 3, "\(compression)")
            XCTAssertEqual(try decoded(one.encoded), one.words(), "\(compression)")
            for second in [orange, purple] {
                let two = Canvas(format: .png, width: 60, height: 50, fd: -1, compression: compression)
                two.fill([triangle(2.3, 3.6)], colour: orange)
                two.fill([triangle(9.7, 6.2)], colour: second)
                try two.finish()
                XCTAssertEqual(colourType(two.encoded), 6, "\(compression), second \(second)")
                XCTAssertEqual(try decoded(two.encoded), two.words(), "\(compression)")
            }
        }
    }

    func testBlendedColoursAreWrittenAsRGBAAndReadBackExactly() throws {
        let red = Colour(red: 214, green: 39, blue: 40), blue = Colour(red: 31, green: 119, blue: 180, alpha: 200)
        for compression in [PNGCompression.fast, .compact] {
            let canvas = picture([red, blue], lines: 30, compression: compression)
            let words = canvas.words()
            try canvas.finish()
            XCTAssertEqual(colourType(canvas.encoded), 6, "\(compression)")
            XCTAssertEqual(try decoded(canvas.encoded), words, "\(compression)")
        }
    }
}

/// What a canvas knows of its pixels without reading them (CairoGate.contents): blank, lines of
/// one colour by geo's rasterizer, or unknown once cairo draws or a second colour comes; and
/// that what it knows agrees with its pixels.
final class CanvasContentsTests: XCTestCase {
    func testContentsFollowWhatIsDrawn() {
        let red = Colour(red: 214, green: 39, blue: 40), faint = Colour(red: 214, green: 39, blue: 40, alpha: 1)
        let canvas = Canvas(format: .png, width: 40, height: 30, fd: -1)
        XCTAssertEqual(canvas.gate.contents, .blank)
        XCTAssertEqual(canvas.gate.knownInk, false)
        XCTAssertTrue(canvas.isUniform(0))
        // A line so faint and thin that it lays no ink: known, and agreeing with the pixels.
        canvas.stroke([Pixel(5.3, 5.2), Pixel(30.1, 20.7)], colour: faint, width: 0.3)
        XCTAssertEqual(canvas.gate.contents, .lines(0xD62728))
        XCTAssertEqual(canvas.gate.knownInk, canvas.words().contains { $0 != 0 })
        canvas.stroke([Pixel(5, 25), Pixel(35, 3)], colour: red, width: 2)
        XCTAssertEqual(canvas.gate.knownInk, true)
        XCTAssertFalse(canvas.isUniform(0))
        // Another alpha of the same colour keeps it known; another colour does not.
        canvas.stroke([Pixel(1, 1), Pixel(39, 29)], colour: Colour(red: 214, green: 39, blue: 40, alpha: 90), width: 3)
        XCTAssertEqual(canvas.gate.contents, .lines(0xD62728))
        canvas.stroke([Pixel(1, 29), Pixel(39, 1)], colour: Colour(red: 0, green: 0, blue: 255), width: 3)
        XCTAssertEqual(canvas.gate.contents, .unknown)
        XCTAssertNil(canvas.gate.knownInk)

        // cairo drawing (a marker, a background) makes it unknown; reading the pixels does not.
        let marked = Canvas(format: .png, width: 40, height: 30, fd: -1)
        _ = marked.words()
        XCTAssertEqual(marked.gate.contents, .blank)
        marked.marker(at: Pixel(20, 15), radius: 4, colour: red)
        XCTAssertEqual(marked.gate.contents, .unknown)
        XCTAssertFalse(marked.isUniform(0))
        let painted = Canvas(format: .png, width: 40, height: 30, fd: -1)
        painted.fillBackground(Colour(red: 255, green: 255, blue: 255))
        XCTAssertEqual(painted.gate.contents, .unknown)
        XCTAssertFalse(painted.isUniform(0))
    }

    /// A canvas reset (a tile-drawing thread's, tile after tile) draws and encodes what a new one
    /// does, whatever was drawn on it before: cairo's drawing, a layer, a clip, lines of another colour.
    func testAResetCanvasIsANewOne() throws {
        let blue = Colour(red: 31, green: 119, blue: 180), red = Colour(red: 214, green: 39, blue: 40, alpha: 200)
        func draw(_ canvas: Canvas) {
            canvas.stroke([Pixel(3, 4), Pixel(50, 40), Pixel(10, 60)], colour: red, width: 2.5)
            canvas.stroke([Pixel(60, 5), Pixel(5, 30)], colour: red, width: 1)
        }
        let used = Canvas(format: .png, width: 64, height: 64, fd: -1, compression: .fast, workspace: PNGWorkspace())
        used.fillBackground(Colour(red: 255, green: 255, blue: 0, alpha: 128))
        used.beginLayer()
        used.marker(at: Pixel(30, 30), radius: 9, colour: blue)
        used.stroke([Pixel(0, 0), Pixel(64, 64)], colour: blue, width: 30)
        used.endLayer {}
        used.stroke([Pixel(0, 64), Pixel(64, 0)], colour: blue, width: 3)
        try used.finish()
        used.reset()
        XCTAssertEqual(used.gate.contents, .blank)
        XCTAssertTrue(used.encoded.isEmpty)
        draw(used)
        let fresh = Canvas(format: .png, width: 64, height: 64, fd: -1, compression: .fast, workspace: PNGWorkspace())
        draw(fresh)
        XCTAssertEqual(used.words(), fresh.words())
        XCTAssertEqual(used.gate.contents, fresh.gate.contents)
        try used.finish()
        try fresh.finish()
        XCTAssertEqual(used.encoded, fresh.encoded)
    }
}
