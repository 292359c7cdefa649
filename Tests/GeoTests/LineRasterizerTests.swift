import CCairo
import Foundation
import XCTest
@testable import Drawing
import Styles

/// geo's line rasterizer (Drawing/LineRasterizer.swift) pinned the way tiny-skia pins its own:
/// each edge case drawn into a tiny picture and compared pixel for pixel with a golden image in
/// Tests/Golden/rasterizer (premultiplied ARGB words as cairo holds them, "." for transparent).
/// A change that moves one pixel by one level fails here; when the change is meant, run with
/// GEO_UPDATE_GOLDEN=1 to rewrite the images, look at them, and commit them with the change.
/// Beside them: its coverage against exact area coverage, the bound its header states; its
/// memory; the order of drawing through the gate; and when it must leave lines to cairo.
final class LineRasterizerTests: XCTestCase {
    static let red = Colour(red: 255, green: 0, blue: 0)
    static let goldenFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Golden/rasterizer")

    /// Draws `lines` (points, width, colour) on a transparent picture and compares it with the
    /// golden image `name`.
    func assertGolden(_ name: String, _ caption: String, width: Int, height: Int,
                      _ lines: [(points: [Pixel], width: Double, colour: Colour)], file: StaticString = #filePath, line: UInt = #line) throws {
        let canvas = Canvas(format: .png, width: width, height: height, fd: -1)
        for drawn in lines { canvas.stroke(drawn.points, colour: drawn.colour, width: drawn.width) }
        var text = "# \(caption)\n# \(width)x\(height), premultiplied ARGB as cairo holds it; . is transparent\n"
        for y in 0..<height {
            text += (0..<width).map { x -> String in
                let word = canvas.word(x: x, y: y)!
                return word == 0 ? "........" : String(format: "%08X", word)
            }.joined(separator: " ") + "\n"
        }
        let url = LineRasterizerTests.goldenFolder.appendingPathComponent("\(name).txt")
        if ProcessInfo.processInfo.environment["GEO_UPDATE_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(at: LineRasterizerTests.goldenFolder, withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        let golden = try String(contentsOf: url, encoding: .utf8)
        guard golden != text else { return }
        let want = golden.split(separator: "\n"), got = text.split(separator: "\n")
        let row = zip(want, got).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(want.count, got.count)
        XCTFail("\(name): the picture differs from Tests/Golden/rasterizer/\(name).txt from line \(row + 1):\n"
                + "want \(row < want.count ? want[row] : "nothing")\ngot  \(row < got.count ? got[row] : "nothing")", file: file, line: line)
    }

    func testHorizontalLineOnAPixelBoundaryCoversTwoRowsByHalf() throws {
        try assertGolden("horizontal-boundary", "1 px line from (2, 4) to (14, 4): rows 3 and 4 half covered", width: 16, height: 8,
                         [([Pixel(2, 4), Pixel(14, 4)], 1, Self.red)])
    }

    func testHorizontalLineOnPixelCentresCoversOneRow() throws {
        try assertGolden("horizontal-centre", "1 px line from (2, 4.5) to (14, 4.5): row 4 covered whole", width: 16, height: 8,
                         [([Pixel(2, 4.5), Pixel(14, 4.5)], 1, Self.red)])
    }

    func testVerticalLine() throws {
        try assertGolden("vertical", "1 px line from (4.5, 2) to (4.5, 14)", width: 8, height: 16,
                         [([Pixel(4.5, 2), Pixel(4.5, 14)], 1, Self.red)])
    }

    func testHalfPixelDiagonal() throws {
        try assertGolden("diagonal-half", "0.5 px line from (2, 2) to (14, 13)", width: 16, height: 16,
                         [([Pixel(2, 2), Pixel(14, 13)], 0.5, Self.red)])
    }

    func testDotIsARoundCapPair() throws {
        try assertGolden("dot", "a zero-length line 4 px wide at (6, 6): a disc, its round caps", width: 12, height: 12,
                         [([Pixel(6, 6)], 4, Self.red), ([Pixel(2.5, 9.5), Pixel(2.5, 9.5)], 1, Self.red)])
    }

    func testLineClippedAtThePicturesEdge() throws {
        try assertGolden("clipped-edge", "3 px line from (-10, 3) to (30, 6), beyond both sides", width: 16, height: 8,
                         [([Pixel(-10, 3), Pixel(30, 6)], 3, Self.red)])
    }

    func testWidthSixteenIsGeosAndJustOverIsCairos() throws {
        let points = [Pixel(7, 7), Pixel(21, 19)]
        try assertGolden("width-16", "16 px line from (7, 7) to (21, 19): geo's rasterizer", width: 28, height: 28,
                         [(points, 16, Self.red)])
        try assertGolden("width-16.01", "16.01 px line from (7, 7) to (21, 19): cairo's stroker", width: 28, height: 28,
                         [(points, 16.01, Self.red)])
        // The two sides of the switch draw the same line: no pixel apart by more than the
        // rasterizer's bound (below) plus the 0.01 px of width.
        let geo = Canvas(format: .png, width: 28, height: 28, fd: -1), cairo = Canvas(format: .png, width: 28, height: 28, fd: -1)
        geo.stroke(points, colour: Self.red, width: 16)
        cairo.stroke(points, colour: Self.red, width: 16.01)
        for y in 0..<28 {
            for x in 0..<28 {
                let difference = abs(Int(geo.pixel(x: x, y: y)!.alpha) - Int(cairo.pixel(x: x, y: y)!.alpha))
                XCTAssertLessThanOrEqual(Double(difference) / 255, LineRasterizer.coverageErrorBound + 0.01, "pixel (\(x), \(y))")
            }
        }
    }

    func testHalfAlphaOverTransparent() throws {
        try assertGolden("half-alpha", "3 px line of rgba(255, 0, 0, 0.5) from (2, 3) to (14, 4.5) on a transparent picture",
                         width: 16, height: 8, [([Pixel(2, 3), Pixel(14, 4.5)], 3, Colour(red: 255, green: 0, blue: 0, alpha: 128))])
    }

    func testOverlappingSegmentsOfOneLineAreNotPaintedTwice() throws {
        try assertGolden("self-overlap", "half-alpha 2 px line doubling back on itself: one coat, as cairo strokes it",
                         width: 16, height: 8, [([Pixel(2, 4), Pixel(13, 4), Pixel(3, 4.5)], 2, Colour(red: 0, green: 0, blue: 255, alpha: 128))])
    }

    // MARK: Coverage against exact area

    /// The exact share of pixel (column, row) within `radius` of the segment a–b: the area of a
    /// capsule (convex) over the pixel, integrated over `samples` columns of the pixel, each
    /// crossing the capsule in one interval found exactly.
    static func exactCoverage(column: Int, row: Int, _ a: Pixel, _ b: Pixel, radius r: Double, samples: Int = 128) -> Double {
        let dx = b.x - a.x, dy = b.y - a.y, length = (dx * dx + dy * dy).squareRoot()
        var covered = 0.0
        for sample in 0..<samples {
            let x = Double(column) + (Double(sample) + 0.5) / Double(samples)
            var low = Double.infinity, high = -Double.infinity
            for centre in [a, b] {  // the two end discs
                let h = r * r - (x - centre.x) * (x - centre.x)
                if h >= 0 { low = min(low, centre.y - h.squareRoot()); high = max(high, centre.y + h.squareRoot()) }
            }
            if length > 0 {  // the band along the segment: 0 ≤ along ≤ length, |across| ≤ r, each linear in y
                let ux = dx / length, uy = dy / length, ox = x - a.x
                var from = -Double.infinity, to = Double.infinity
                func limit(_ value: Double, _ slope: Double, _ lower: Double, _ upper: Double) {  // lower ≤ value + slope·(y − a.y) ≤ upper
                    if abs(slope) < 1e-12 {
                        if value < lower || value > upper { from = .infinity; to = -.infinity }
                        return
                    }
                    let p = (lower - value) / slope, q = (upper - value) / slope
                    from = max(from, a.y + min(p, q))
                    to = min(to, a.y + max(p, q))
                }
                limit(ox * ux, uy, 0, length)
                limit(-ox * uy, ux, -r, r)
                if from <= to { low = min(low, from); high = max(high, to) }
            }
            covered += max(0, min(high, Double(row + 1)) - max(low, Double(row)))
        }
        return covered / Double(samples)
    }

    /// The largest difference between geo's coverage and the exact area over random lines of
    /// one segment: widths in `widths`, lengths in `lengths`, any direction and position.
    func largestCoverageError(widths: ClosedRange<Double>, lengths: ClosedRange<Double>, cases: Int, seed: UInt64) -> Double {
        var random = SeededGenerator(seed: seed)
        var worst = 0.0
        for _ in 0..<cases {
            let width = Double.random(in: widths, using: &random), length = Double.random(in: lengths, using: &random)
            let angle = Double.random(in: 0...(2 * Double.pi), using: &random)
            let a = Pixel(32 + Double.random(in: 0...1, using: &random), 32 + Double.random(in: 0...1, using: &random))
            let b = Pixel(a.x + length * cos(angle), a.y + length * sin(angle))
            let canvas = Canvas(format: .png, width: 64, height: 64, fd: -1)
            canvas.stroke(length == 0 ? [a] : [a, b], colour: Colour(red: 255, green: 255, blue: 255), width: width)
            let reach = Int(width / 2) + 2
            for row in (Int(min(a.y, b.y)) - reach)...(Int(max(a.y, b.y)) + reach) {
                for column in (Int(min(a.x, b.x)) - reach)...(Int(max(a.x, b.x)) + reach) {
                    let drawn = Double(canvas.pixel(x: column, y: row)!.alpha) / 255
                    worst = max(worst, abs(drawn - Self.exactCoverage(column: column, row: row, a, b, radius: width / 2)))
                }
            }
        }
        return worst
    }

    func testCoverageIsWithinTheStatedBoundOfTheExactArea() {
        // The exact-area reference itself, on shapes with known areas: a pixel inside a wide
        // band, half of one on a boundary, and a disc's quarter.
        XCTAssertEqual(Self.exactCoverage(column: 5, row: 5, Pixel(0, 5.5), Pixel(20, 5.5), radius: 3), 1, accuracy: 1e-12)
        XCTAssertEqual(Self.exactCoverage(column: 5, row: 5, Pixel(0, 5), Pixel(20, 5), radius: 0.5), 0.5, accuracy: 1e-12)
        XCTAssertEqual(Self.exactCoverage(column: 5, row: 5, Pixel(5, 5), Pixel(5, 5), radius: 1, samples: 4096), Double.pi / 4, accuracy: 1e-4)

        let wide = largestCoverageError(widths: 2...16, lengths: 0...12, cases: 60, seed: 1)
        let thin = max(largestCoverageError(widths: 0.25...2, lengths: 0...12, cases: 100, seed: 2),
                       largestCoverageError(widths: 0.25...2, lengths: 0...0, cases: 100, seed: 3))  // dots
        print("coverage error against exact area: \(wide) for lines 2–16 px wide, \(thin) for 0.25–2 px and dots")
        XCTAssertLessThanOrEqual(wide, LineRasterizer.coverageErrorBound)
        XCTAssertLessThanOrEqual(thin, LineRasterizer.thinCoverageErrorBound)
        // A bound far above what is measured would say nothing.
        XCTAssertGreaterThan(wide, LineRasterizer.coverageErrorBound - 0.02)
        XCTAssertGreaterThan(thin, LineRasterizer.thinCoverageErrorBound - 0.03)
    }

    /// A line's coverage of a pixel is that of its nearest segment (the union of its capsules),
    /// checked against every segment's distance worked out here, on random lines of many short
    /// segments turning sharply, as at low zooms: a segment after the first leaves the pixels
    /// before its start to the previous segment's end cap (geo_cover_segment), and that must lose
    /// no pixel on the outside of a turn nor at a line's first point.
    func testALinesCoverageIsItsNearestSegments() {
        var random = SeededGenerator(seed: 11)
        var worst = 0
        for _ in 0..<150 {
            let width = Double.random(in: 0.5...6, using: &random)
            var points = [Pixel(Double.random(in: 24...40, using: &random), Double.random(in: 24...40, using: &random))]
            for _ in 0..<Int.random(in: 1...30, using: &random) {
                // Steps of 0.15 px or more, most of them turning: few are thinned (PathThinning).
                let step = Double.random(in: 0.15...3, using: &random), angle = Double.random(in: 0...(2 * Double.pi), using: &random)
                let last = points[points.count - 1]
                points.append(Pixel(min(52, max(12, last.x + step * cos(angle))), min(52, max(12, last.y + step * sin(angle)))))
            }
            var kept = [points[0]]  // clamping can bring a point near the last: keep steps apart
            for point in points.dropFirst() where hypot(point.x - kept[kept.count - 1].x, point.y - kept[kept.count - 1].y) >= 0.15 {
                kept.append(point)
            }
            let canvas = Canvas(format: .png, width: 64, height: 64, fd: -1)
            canvas.stroke(kept, colour: Colour(red: 255, green: 255, blue: 255), width: width)
            // The kernel's coverage is the nearest segment's of the points it is given: those
            // the thinning keeps.
            points = PathThinning.thinned(kept)
            let half = width / 2
            for row in 0..<64 {
                for column in 0..<64 {
                    let centre = Pixel(Double(column) + 0.5, Double(row) + 0.5)
                    var nearest = Double.infinity
                    for index in points.indices.dropFirst() {
                        nearest = min(nearest, Self.distance(centre, points[index - 1], points[index]))
                    }
                    if points.count == 1 { nearest = hypot(centre.x - points[0].x, centre.y - points[0].y) }
                    let expected = max(0, min(1, min(nearest + 0.5, half) - max(nearest - 0.5, -half))) * 255
                    worst = max(worst, Int(abs(Double(canvas.pixel(x: column, y: row)!.alpha) - expected.rounded())))
                }
            }
        }
        // The coverage table samples d² in 4,096 steps: d moves by under 0.002 px between them.
        XCTAssertLessThanOrEqual(worst, 1, "levels of 255 between a pixel's coverage and its nearest segment's")
    }

    static func distance(_ p: Pixel, _ a: Pixel, _ b: Pixel) -> Double {
        let dx = b.x - a.x, dy = b.y - a.y, squared = dx * dx + dy * dy
        let t = squared > 0 ? max(0, min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / squared)) : 0
        return hypot(p.x - (a.x + t * dx), p.y - (a.y + t * dy))
    }

    // MARK: Memory, threads, order, and when cairo draws instead

    func testTheThreadsTogetherHoldOnePicturesCoverage() {
        for (width, height) in [(1000, 1000), (256, 256), (7, 3)] {
            let stripes = (height + Band.stripe - 1) / Band.stripe
            for threads in [1, 2, 3, 16] {
                let rasterizer = LineRasterizer(width: width, height: height, threads: threads)
                XCTAssertEqual(rasterizer.cells, stripes * Band.stripe * width, "\(width)x\(height), \(threads) threads")
            }
        }
    }

    func testEveryNumberOfThreadsDrawsTheSamePicture() {
        var random = SeededGenerator(seed: 7)
        var lines: [(points: [Pixel], width: Double, colour: Colour)] = []
        for _ in 0..<300 {
            let points = (0..<Int.random(in: 1...8, using: &random)).map { _ in
                Pixel(Double.random(in: -20...220, using: &random), Double.random(in: -20...170, using: &random))
            }
            let colour = Colour(red: UInt8.random(in: 0...255, using: &random), green: 90, blue: 200, alpha: UInt8.random(in: 1...255, using: &random))
            lines.append((points, Double.random(in: 0.3...16, using: &random), colour))
        }
        func draw(threads: Int) -> [UInt32] {
            let canvas = Canvas(format: .png, width: 200, height: 150, fd: -1, threads: threads)
            for line in lines { canvas.stroke(line.points, colour: line.colour, width: line.width) }
            let words = canvas.words()
            XCTAssertEqual(words.count, 200 * 150)
            XCTAssertEqual(words[75 * 200 + 120], canvas.word(x: 120, y: 75))
            return words
        }
        let one = draw(threads: 1)
        XCTAssertGreaterThan(one.filter { $0 != 0 }.count, 10_000)
        XCTAssertEqual(draw(threads: 2), one)
        XCTAssertEqual(draw(threads: 5), one)
    }

    func testWhatCairoDrawsNextGoesOverQueuedLines() {
        let canvas = Canvas(format: .png, width: 20, height: 20, fd: -1)
        canvas.stroke([Pixel(0, 10), Pixel(20, 10)], colour: Self.red, width: 4)  // queued
        canvas.fill([[Pixel(5, 5), Pixel(5, 15), Pixel(15, 15), Pixel(15, 5)]], colour: Colour(red: 0, green: 0, blue: 255))
        canvas.stroke([Pixel(10, 0), Pixel(10, 20)], colour: Colour(red: 0, green: 255, blue: 0), width: 2)  // queued after
        XCTAssertEqual(canvas.pixel(x: 2, y: 10), Self.red)
        XCTAssertEqual(canvas.pixel(x: 7, y: 10), Colour(red: 0, green: 0, blue: 255))
        XCTAssertEqual(canvas.pixel(x: 10, y: 12), Colour(red: 0, green: 255, blue: 0))
    }

    /// Sets cairo's state through the gate, draws a 4 px line from (0, 10) to (40, 10), and gives
    /// the picture's alpha at `probes`.
    func alphaAfter(_ state: (OpaquePointer) -> Void, background: Colour? = nil, colour: Colour = red, probes: [(Int, Int)]) -> [UInt8] {
        let canvas = Canvas(format: .png, width: 40, height: 20, fd: -1)
        if let background { canvas.fillBackground(background) }
        canvas.gate.draw(state)
        canvas.stroke([Pixel(0, 10), Pixel(40, 10)], colour: colour, width: 4)
        return probes.map { canvas.pixel(x: $0.0, y: $0.1)!.alpha }
    }

    func testUnderAClipCairoDrawsTheLine() {
        let alpha = alphaAfter({ cairo in
            cairo_rectangle(cairo, 0, 0, 20, 20)
            cairo_clip(cairo)
        }, probes: [(10, 10), (30, 10)])
        XCTAssertEqual(alpha, [255, 0])  // written straight into the pixels, the line would cross the clip
    }

    func testUnderAnotherMatrixCairoDrawsTheLine() {
        let alpha = alphaAfter({ cairo_translate($0, 0, 5) }, probes: [(10, 10), (10, 15)])
        XCTAssertEqual(alpha, [0, 255])
    }

    func testWithAnotherOperatorCairoDrawsTheLine() {
        // SOURCE replaces what is there: half-alpha red leaves half alpha on the white, where
        // source over would leave it opaque.
        let alpha = alphaAfter({ cairo_set_operator($0, CAIRO_OPERATOR_SOURCE) }, background: Colour(red: 255, green: 255, blue: 255),
                               colour: Colour(red: 255, green: 0, blue: 0, alpha: 128), probes: [(10, 10), (10, 2)])
        XCTAssertEqual(alpha, [128, 255])
    }

    func testWithNothingSetGeoDrawsTheLine() {
        let canvas = Canvas(format: .png, width: 40, height: 20, fd: -1)
        canvas.stroke([Pixel(0, 10), Pixel(40, 10)], colour: Self.red, width: 4)
        XCTAssertGreaterThan(canvas.gate.rasterizerCells, 0)
        let wide = Canvas(format: .png, width: 40, height: 20, fd: -1)
        wide.stroke([Pixel(0, 10), Pixel(40, 10)], colour: Self.red, width: 17)
        XCTAssertEqual(wide.gate.rasterizerCells, 0)
    }
}
