import XCTest
@testable import Drawing

/// PathThinning, the one rule by which points are left out before drawing: the line drawn and the
/// path stay within 1/8 px of each other both ways, on random paths dense, straight, turning and
/// doubling back; the ends and the anchors of a path drawn in parts are kept.
final class PathThinningTests: XCTestCase {
    /// The distance from `p` to the polyline through `points`.
    static func distance(_ p: Pixel, to points: [Pixel]) -> Double {
        guard points.count > 1 else { return hypot(p.x - points[0].x, p.y - points[0].y) }
        return points.indices.dropFirst().map { LineRasterizerTests.distance(p, points[$0 - 1], points[$0]) }.min()!
    }

    /// The points of a polyline every `step` along each segment, and its vertices.
    static func samples(_ points: [Pixel], step: Double = 0.04) -> [Pixel] {
        var out = [points[0]]
        for index in points.indices.dropFirst() {
            let a = points[index - 1], b = points[index]
            let n = max(1, Int((hypot(b.x - a.x, b.y - a.y) / step).rounded(.up)))
            for k in 1...n { out.append(Pixel(a.x + (b.x - a.x) * Double(k) / Double(n), a.y + (b.y - a.y) * Double(k) / Double(n))) }
        }
        return out
    }

    func testTheLineDrawnAndThePathStayWithinAnEighthOfAPixel() {
        var random = SeededGenerator(seed: 5)
        var left = 0, total = 0
        for trial in 0..<200 {
            // Steps from a hundredth of a pixel to 3 px; some paths straight, some doubling back.
            let scale = [0.01, 0.05, 0.2, 1, 3][trial % 5]
            var points = [Pixel(50, 50)]
            var heading = Double.random(in: 0...(2 * Double.pi), using: &random)
            for _ in 0..<Int.random(in: 1...120, using: &random) {
                heading += trial % 3 == 0 ? 0 : Double.random(in: -1.5...1.5, using: &random) * (trial % 7 == 0 ? 2 : 0.3)
                let step = scale * Double.random(in: 0.2...1, using: &random)
                let last = points[points.count - 1]
                points.append(Pixel(last.x + step * cos(heading), last.y + step * sin(heading)))
            }
            let thinned = PathThinning.thinned(points)
            XCTAssertEqual(thinned.first, points.first)
            XCTAssertEqual(thinned.last, points.last)
            if points.count > 1 { XCTAssertGreaterThanOrEqual(thinned.count, 2) }
            let tolerance = PathThinning.tolerance + 1e-9
            for p in Self.samples(points) { XCTAssertLessThan(Self.distance(p, to: thinned), tolerance, "trial \(trial): the path strays") }
            for p in Self.samples(thinned) { XCTAssertLessThan(Self.distance(p, to: points), tolerance, "trial \(trial): the line strays") }
            left += points.count - thinned.count
            total += points.count
        }
        // Not a rule that keeps everything: dense and straight paths lose most of their points.
        XCTAssertGreaterThan(Double(left) / Double(total), 0.3)
    }

    func testAStraightRunKeepsAPointAWindow() {
        let points = (0...1000).map { Pixel(Double($0) * 0.01, 5) }
        let thinned = PathThinning.thinned(points)
        XCTAssertEqual(thinned.count, (points.count - 2) / PathThinning.window + 2)  // a point every window, and the ends
        XCTAssertEqual(thinned.last, points.last)
    }

    func testASpikeWithinTheToleranceGoesAndOneBeyondItStays() {
        let small = [Pixel(0, 0), Pixel(5, 0), Pixel(5.1, 0.1), Pixel(10, 0)]
        XCTAssertEqual(PathThinning.thinned(small), [Pixel(0, 0), Pixel(10, 0)])
        let large = [Pixel(0, 0), Pixel(5, 0), Pixel(5, 0.2), Pixel(10, 0)]
        XCTAssertEqual(PathThinning.thinned(large).count, 4)
    }

    func testPointsThatAreNotFiniteAreLeftOut() {
        let points = [Pixel(0, 0), Pixel(.nan, 3), Pixel(5, 0.5), Pixel(.infinity, 0), Pixel(10, 0)]
        XCTAssertEqual(PathThinning.thinned(points), [Pixel(0, 0), Pixel(5, 0.5), Pixel(10, 0)])
    }

    /// Anchors are kept, and each part between anchors is thinned as a path of its own: a tile
    /// that draws some parts of a long path keeps the points the whole path keeps there.
    func testAnchoredPartsAreThinnedAsPathsOfTheirOwn() {
        var random = SeededGenerator(seed: 9)
        for _ in 0..<100 {
            var points = [Pixel(0, 0)]
            for _ in 0..<300 {
                let last = points[points.count - 1]
                points.append(Pixel(last.x + Double.random(in: -0.1...0.3, using: &random), last.y + Double.random(in: -0.2...0.2, using: &random)))
            }
            let anchors = [0] + stride(from: 64, to: points.count, by: 64).map { $0 }
            let whole = PathThinning.thinned(points, anchors: anchors)
            var parts: [Pixel] = []
            for (k, start) in anchors.enumerated() {
                let end = k + 1 < anchors.count ? anchors[k + 1] : points.count - 1
                let part = PathThinning.thinned(Array(points[start...end]))
                parts += parts.isEmpty ? part : Array(part.dropFirst())
            }
            XCTAssertEqual(whole, parts)
            for anchor in anchors { XCTAssertTrue(whole.contains(points[anchor])) }
        }
    }
}
