import XCTest
import Geometry
import Geodesy
@testable import SimplifyCommand

/// The conformal bound Douglas–Peucker uses to skip exact distances: that it holds, and that
/// simplifying with it keeps exactly the vertices that measuring every vertex exactly keeps.
final class SimplifyBoundTests: XCTestCase {
    let model = EdgeModel(earth: .wgs84, kind: .geodesic)

    /// A random walk of `count` vertices, steps of about `step` metres turning by up to `turn`
    /// degrees, from `start`.
    func walk(_ count: Int, step: Double, turn: Double, from start: Position, _ generator: inout SeededGenerator) -> Path {
        var path = [start], azimuth = generator.coordinate(-180...180)
        while path.count < count {
            azimuth += generator.coordinate(-turn...turn)
            path.append(geodesicDirect(.wgs84, from: path[path.count - 1], azimuth: azimuth, distance: step * generator.coordinate(0.2...1.8)))
        }
        return path
    }

    func anywhere(_ generator: inout SeededGenerator) -> Position {
        switch Int.random(in: 0..<6, using: &generator) {
        case 0: return lonLat(generator.coordinate(179.9...180), generator.coordinate(-60...60))  // at ±180
        case 1: return lonLat(generator.coordinate(-180...180), generator.coordinate(89.5...89.999))  // by a pole
        default: return lonLat(generator.coordinate(-180...180), generator.coordinate(-85...85))
        }
    }

    /// For random edges from a centimetre to 15,000 km and points near and far, the exact
    /// distance lies within the bounds.
    func testTheBoundHoldsForEdgesOfEveryLength() throws {
        let bound = try XCTUnwrap(ConformalBound(model: model))
        var generator = SeededGenerator(seed: 44)
        var checked = 0, tightest = Double.infinity
        for index in 0..<3000 {
            let a = anywhere(&generator)
            let length = [0.01, 1, 30, 1000, 50_000, 1e6, 5e6, 1.4e7][index % 8] * generator.coordinate(0.5...1)
            let b = geodesicDirect(.wgs84, from: a, azimuth: generator.coordinate(-180...180), distance: length)
            let along = model.edge(a, b).position(atFraction: generator.coordinate(-0.2...1.2))
            let away = [0.0, 0.001, 0.5, 10, 1000, 100_000, 2e6][Int.random(in: 0..<7, using: &generator)]
            let p = geodesicDirect(.wgs84, from: along, azimuth: generator.coordinate(-180...180), distance: away)
            guard let arc = bound.edge(bound.vertex(a), bound.vertex(b)) else { continue }
            let q = arc.chordSquared(bound.vertex(p))
            let spherical = arc.distance(chordSquared: q)
            guard let rho = arc.rho(spherical) else { continue }
            let (low, high) = arc.bounds(distance: spherical, inverseScale: bound.vertex(p).w, rho: rho)
            let exact = model.nearestPoint(onEdgeFrom: a, to: b, near: p).distance
            XCTAssert(low <= exact && exact <= high, "edge \(a) → \(b), point \(p): \(exact) m not in [\(low), \(high)]")
            XCTAssertLessThanOrEqual(arc.chordSquared(distance: spherical), q * (1 + 1e-12) + 1e-30)
            if exact > 100 { tightest = min(tightest, (high - low) / exact) }
            checked += 1
        }
        XCTAssertGreaterThan(checked, 2900)
        // It is a bound worth having: far tighter than the ellipsoid's flattening.
        XCTAssertLessThan(tightest, 1e-5)
    }

    /// Douglas–Peucker with the bound and without it (every vertex measured exactly) keeps the
    /// same vertices, at tolerances and at every step of the importance order.
    func testDouglasPeuckerKeepsWhatExactDistancesKeep() {
        var generator = SeededGenerator(seed: 45)
        var compared = 0
        for index in 0..<160 {
            let step = [0.5, 5, 50, 2000, 200_000][index % 5]
            var path = walk(Int.random(in: 3...70, using: &generator), step: step, turn: [5.0, 60, 170][index % 3], from: anywhere(&generator), &generator)
            if index % 7 == 0 {
                // Mirror images about the middle, so that distances tie or nearly do.
                path = path + path.reversed().dropFirst().map { lonLat($0.longitude + 1e-7, $0.latitude) }
            }
            let parts = [Part(positions: path, isRing: false)]
            let withBound = DouglasPeucker(parts: parts, distance: .edge(model), model: model, bound: ConformalBound(model: model))
            let exact = DouglasPeucker(parts: parts, distance: .edge(model), model: model, bound: nil)
            for tolerance in [step / 10, step, step * 5] {
                func kept(_ dp: DouglasPeucker) -> [Bool] {
                    var flags = [[Bool](repeating: false, count: path.count)]
                    flags[0][0] = true
                    flags[0][path.count - 1] = true
                    var heap = dp.start([0], kept: &flags, floor: tolerance)
                    dp.cut(&heap, kept: &flags, over: tolerance)
                    return flags[0]
                }
                XCTAssertEqual(kept(withBound), kept(exact), "walk \(index) at \(tolerance) m")
                compared += 1
            }
            // The order of importance (--keep, --max-points): keys are exact there.
            func order(_ dp: DouglasPeucker) -> [Int] {
                var flags = [[Bool](repeating: false, count: path.count)]
                var heap = dp.start([0], kept: &flags, floor: 0)
                var vertices: [Int] = []
                dp.expand(&heap, kept: &flags, floor: 0) { _, _, _, vertex, _ in vertices.append(vertex); return true }
                return vertices
            }
            XCTAssertEqual(order(withBound), order(exact), "walk \(index), importance order")
        }
        XCTAssertEqual(compared, 480)
    }
}
