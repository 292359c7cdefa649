import Foundation
import XCTest
import Geometry
@testable import Geodesy

/// The nearest point on an edge, against a brute-force oracle run at test time:
/// Tests/oracles/nearest_point.py (python geographiclib for geodesic edges and every distance,
/// GeographicLib's RhumbSolve for positions along rhumb edges; dense sampling refined to 1e-5 m).
final class GeodesyNearestTests: XCTestCase {
    /// Random edges and points of every awkward kind (seeded).
    static func randomCases(kind: EdgeKind, earth: Earth, count: Int, seed: UInt64) -> [(Position, Position, Position)] {
        var generator = SeededGenerator(seed: seed)
        let model = EdgeModel(earth: earth, kind: kind)
        func anywhere() -> Position { lonLat(generator.coordinate(-180...180), generator.coordinate(-89.9...89.9)) }
        /// A point `distance` from `x` in a random direction.
        func offset(_ x: Position, by distance: Double) -> Position {
            geodesicDirect(earth, from: x, azimuth: generator.coordinate(-180...180), distance: distance)
        }
        return (0..<count).map { index -> (Position, Position, Position) in
            switch index % 9 {
            case 0:  // anywhere
                return (anywhere(), anywhere(), anywhere())
            case 1:  // short edges, p nearby
                let a = anywhere()
                let length = [1.0, 100, 10_000][Int.random(in: 0..<3, using: &generator)]
                let b = offset(a, by: length)
                return (a, b, offset(a, by: length * generator.coordinate(0...2)))
            case 2, 3:  // p near (or on) a point inside the edge
                let a = anywhere(), b = anywhere()
                let edge = model.edge(a, b)
                let x = edge.position(atFraction: generator.coordinate(0.05...0.95))
                let away = [0.0, 1e-3, 1, 1000, 100_000][Int.random(in: 0..<5, using: &generator)]
                return (a, b, away == 0 ? x : offset(x, by: away))
            case 4:  // p beyond an end
                let a = anywhere(), b = anywhere()
                // Onward from b, in the edge's direction there.
                let azimuth = kind == .rhumb ? model.rhumb.inverse(a.latitude, a.longitude, b.latitude, b.longitude).azimuth * 180 / .pi
                    : geodesicEndAzimuth(earth, a, b)
                return (a, b, geodesicDirect(earth, from: b, azimuth: azimuth, distance: generator.coordinate(1...500_000)))
            case 5:  // across the antimeridian
                let a = lonLat(generator.coordinate(170...180), generator.coordinate(-60...60))
                let b = lonLat(generator.coordinate(-180 ... -170), generator.coordinate(-60...60))
                return (a, b, lonLat(normalizedLongitude(180 + generator.coordinate(-15...15)), generator.coordinate(-70...70)))
            case 6:  // near a pole
                let north = Bool.random(using: &generator) ? 1.0 : -1.0
                let a = lonLat(generator.coordinate(-180...180), north * generator.coordinate(80...89.9))
                let b = lonLat(generator.coordinate(-180...180), north * generator.coordinate(80...89.9))
                let p = Bool.random(using: &generator) ? lonLat(0, 90 * north)
                    : lonLat(generator.coordinate(-180...180), north * generator.coordinate(75...90))
                return (a, b, p)
            case 7:  // nearly east–west at high latitude, p between the edge and the parallel
                let latitude = generator.coordinate(50...85) * (Bool.random(using: &generator) ? 1 : -1)
                let west = generator.coordinate(-180...180), width = generator.coordinate(5...170)
                let a = lonLat(west, latitude), b = lonLat(normalizedLongitude(west + width), latitude + generator.coordinate(-1e-6...1e-6))
                let p = lonLat(normalizedLongitude(west + width * generator.coordinate(0...1)),
                               latitude + generator.coordinate(-2...2))
                return (a, b, p)
            default:  // long: up to 19,000 km
                let a = anywhere()
                let b = geodesicDirect(earth, from: a, azimuth: generator.coordinate(-180...180), distance: generator.coordinate(5e6...1.9e7))
                return (a, b, anywhere())
            }
        }
    }

    func check(kind: EdgeKind, earth: Earth, cases: [(Position, Position, Position)], file: StaticString = #filePath, line: UInt = #line) throws {
        let model = EdgeModel(earth: earth, kind: kind)
        let geodesic = EdgeModel(earth: earth, kind: .geodesic)
        let answers = cases.map { model.nearestPoint(onEdgeFrom: $0.0, to: $0.1, near: $0.2) }
        let oracle = try GeodesyOracle.nearest(zip(cases, answers).map { edge, answer in
            GeodesyOracle.NearestCase(kind: kind.rawValue, a: [edge.0.latitude, edge.0.longitude], b: [edge.1.latitude, edge.1.longitude],
                                      p: [edge.2.latitude, edge.2.longitude], along: answer.along)
        }, earth: earth)
        var worstDistance = 0.0, worstPosition = 0.0, worstSharpAlong = 0.0
        for ((edge, answer), expected) in zip(zip(cases, answers), oracle) {
            let label = "\(kind) \(earth.name) a=\(edge.0) b=\(edge.1) p=\(edge.2) → \(answer)"
            // The distance: within 1 mm of the brute force (and never worse than it).
            XCTAssertEqual(answer.distance, expected.distance, accuracy: 1e-3, label, file: file, line: line)
            XCTAssertLessThanOrEqual(answer.distance, expected.distance + 1e-6, label, file: file, line: line)
            worstDistance = max(worstDistance, abs(answer.distance - expected.distance))
            // `along` and `position` consistent: the oracle's own point at `along` is `position`,
            // at `distance` from p.
            let there = lonLat(expected.position_at_along[1], expected.position_at_along[0])
            let gap = geodesic.length(there, answer.position)
            XCTAssertLessThanOrEqual(gap, 1e-3, label, file: file, line: line)
            XCTAssertEqual(expected.distance_at_along, answer.distance, accuracy: 1e-3, label, file: file, line: line)
            worstPosition = max(worstPosition, gap)
            // `along` itself: near the minimum d(s) ≈ d0 + d″·(s − s0)²/2, so distances good to
            // ε (1e-9 m from python geographiclib, 3e-8 m for RhumbSolve's points) fix s0 only to
            // √(2ε/d″). Within 1 mm plus that (d″ from geo's own edge, by finite differences).
            let edgeLength = model.length(edge.0, edge.1)
            if answer.along > 0 && answer.along < edgeLength {
                let walker = model.edge(edge.0, edge.1)
                let h = max(1, min(1000, answer.along / 2, (edgeLength - answer.along) / 2))
                let around = [answer.along - h, answer.along, answer.along + h].map { geodesic.length(walker.position(atDistance: $0), edge.2) }
                let curvature = max((around[0] + around[2] - 2 * around[1]) / (h * h), 1e-15)
                let epsilon = kind == .rhumb ? 5e-8 : 2e-9
                let conditioning = (2 * epsilon / curvature).squareRoot()
                XCTAssertEqual(answer.along, expected.along, accuracy: 1e-3 + conditioning, label, file: file, line: line)
            } else {
                XCTAssertEqual(answer.along, expected.along, accuracy: 1e-3, label, file: file, line: line)
            }
            if answer.distance < 1 { worstSharpAlong = max(worstSharpAlong, abs(expected.along - answer.along)) }
            XCTAssertTrue((-180...180).contains(answer.position.longitude), label, file: file, line: line)
        }
        print("nearest \(kind) \(earth.name), \(cases.count) cases: distance within \(worstDistance) m of the brute force, "
              + "position within \(worstPosition) m of the oracle's point at `along`, `along` within \(worstSharpAlong) m where p is within 1 m")
    }

    func testGeodesicEdgesAgainstTheBruteForce() throws {
        try check(kind: .geodesic, earth: .wgs84, cases: Self.randomCases(kind: .geodesic, earth: .wgs84, count: 45, seed: 21))
        let sphere = Earth.sphere(radius: 6371009)
        try check(kind: .geodesic, earth: sphere, cases: Self.randomCases(kind: .geodesic, earth: sphere, count: 18, seed: 22))
    }

    func testRhumbEdgesAgainstTheBruteForce() throws {
        try check(kind: .rhumb, earth: .wgs84, cases: Self.randomCases(kind: .rhumb, earth: .wgs84, count: 45, seed: 23))
        let sphere = Earth.sphere(radius: 6371009)
        try check(kind: .rhumb, earth: sphere, cases: Self.randomCases(kind: .rhumb, earth: sphere, count: 18, seed: 24))
    }

    func testClosedForms() {
        let geodesic = EdgeModel(earth: .wgs84, kind: .geodesic)
        let rhumb = EdgeModel(earth: .wgs84, kind: .rhumb)
        let meridian = { (from: Double, to: Double) in geodesic.length(lonLat(0, from), lonLat(0, to)) }
        // The equator: the nearest point is straight south (meridians cross it at right angles).
        for kind in [EdgeKind.geodesic, .rhumb] {
            let model = EdgeModel(earth: .wgs84, kind: kind)
            let found = model.nearestPoint(onEdgeFrom: lonLat(-10, 0), to: lonLat(150, 0), near: lonLat(90, 45))
            XCTAssertEqual(found.distance, meridian(0, 45), accuracy: 1e-8, "\(kind)")
            XCTAssertEqual(found.along, 6378137 * 100 * .pi / 180, accuracy: 1e-7, "\(kind)")
            XCTAssertEqual(found.position.longitude, 90, accuracy: 1e-12)
            XCTAssertEqual(found.position.latitude, 0, accuracy: 1e-12)
        }
        // A parallel (a rhumb line): by symmetry, the nearest point to p on the middle meridian is
        // straight south of it.
        let parallel = rhumb.nearestPoint(onEdgeFrom: lonLat(0, 60), to: lonLat(40, 60), near: lonLat(20, 61))
        XCTAssertEqual(parallel.distance, meridian(60, 61), accuracy: 1e-8)
        XCTAssertEqual(parallel.along, rhumb.length(lonLat(0, 60), lonLat(20, 60)), accuracy: 1e-6)
        // A meridian: the nearest point to p is at p's latitude or an end.
        let side = geodesic.nearestPoint(onEdgeFrom: lonLat(30, -10), to: lonLat(30, 50), near: lonLat(30.001, 20))
        XCTAssertEqual(side.position.latitude, 20, accuracy: 1e-6)
        XCTAssertEqual(side.along, meridian(-10, 20), accuracy: 1e-3)
        // Edges with an end at a pole run along the other end's meridian, for both kinds,
        // whatever longitude the pole is written with.
        let onMeridian = geodesic.nearestPoint(onEdgeFrom: lonLat(30, 10), to: lonLat(30, 90), near: lonLat(35, 50))
        for (kind, a, b) in [(EdgeKind.rhumb, lonLat(30, 10), lonLat(120, 90)), (.rhumb, lonLat(-77, 90), lonLat(30, 10)),
                             (.geodesic, lonLat(30, 10), lonLat(120, 90)), (.geodesic, lonLat(-77, 90), lonLat(30, 10))] {
            let found = EdgeModel(earth: .wgs84, kind: kind).nearestPoint(onEdgeFrom: a, to: b, near: lonLat(35, 50))
            XCTAssertEqual(found.distance, onMeridian.distance, accuracy: 1e-7, "\(kind) \(a) \(b)")
            XCTAssertEqual(found.position.longitude, 30, accuracy: 1e-9, "\(kind) \(a) \(b)")
            XCTAssertEqual(found.position.latitude, onMeridian.position.latitude, accuracy: 1e-9, "\(kind) \(a) \(b)")
            let fromStart = a.latitude == 90 ? meridian(onMeridian.position.latitude, 90) : meridian(10, onMeridian.position.latitude)
            XCTAssertEqual(found.along, fromStart, accuracy: 1e-6, "\(kind) \(a) \(b)")
        }
        // Ends: beyond either end the nearest point is the end, exactly as given.
        for kind in EdgeKind.allCases {
            let model = EdgeModel(earth: .wgs84, kind: kind)
            let before = model.nearestPoint(onEdgeFrom: lonLat(10, 10), to: lonLat(20, 20), near: lonLat(5, 5))
            XCTAssertEqual(before.position, lonLat(10, 10), "\(kind)")
            XCTAssertEqual(before.along, 0, "\(kind)")
            let after = model.nearestPoint(onEdgeFrom: lonLat(10, 10), to: lonLat(20, 20), near: lonLat(25, 25))
            XCTAssertEqual(after.position, lonLat(20, 20), "\(kind)")
            XCTAssertEqual(after.along, model.length(lonLat(10, 10), lonLat(20, 20)), accuracy: 1e-9, "\(kind)")
            // A degenerate edge is its point.
            let point = model.nearestPoint(onEdgeFrom: lonLat(190, 10), to: lonLat(190, 10), near: lonLat(-170, 11))
            XCTAssertEqual(point.position, lonLat(-170, 10), "\(kind)")
        }
    }

    func testPointsOnTheEdgeAreFoundThere() {
        // p on the edge (as Edge walks it): distance 0 to rounding, at its own `along`.
        var generator = SeededGenerator(seed: 31)
        for kind in EdgeKind.allCases {
            let model = EdgeModel(earth: .wgs84, kind: kind)
            var worst = 0.0, worstAlong = 0.0
            for _ in 0..<40 {
                let a = lonLat(generator.coordinate(-180...180), generator.coordinate(-85...85))
                let b = lonLat(generator.coordinate(-180...180), generator.coordinate(-85...85))
                let edge = model.edge(a, b)
                let s = edge.length * generator.coordinate(0.01...0.99)
                let found = model.nearestPoint(onEdgeFrom: a, to: b, near: edge.position(atDistance: s))
                worst = max(worst, found.distance)
                worstAlong = max(worstAlong, abs(found.along - s))
                XCTAssertLessThanOrEqual(found.distance, 1e-7, "\(kind) \(a) \(b) \(s)")
                XCTAssertEqual(found.along, s, accuracy: 1e-6, "\(kind) \(a) \(b)")
            }
            print("nearest \(kind), p on the edge: distance ≤ \(worst) m, along within \(worstAlong) m")
        }
    }

    func testProjectedIsPlanarWebMercator() {
        // Against a brute force in the plane (dense sampling of the segment, every world copy).
        let model = EdgeModel(earth: .wgs84, kind: .projected)
        let a = 6378137.0
        func xy(_ p: Position, unrolledFrom origin: Double) -> (Double, Double) {
            (a * (origin + longitudeDifference(origin, p.longitude)) * .pi / 180, a * asinh(tan(p.latitude * .pi / 180)))
        }
        var generator = SeededGenerator(seed: 41)
        for _ in 0..<60 {
            let start = lonLat(generator.coordinate(-180...180), generator.coordinate(-80...80))
            let end = lonLat(generator.coordinate(-180...180), generator.coordinate(-80...80))
            let p = lonLat(generator.coordinate(-180...180), generator.coordinate(-80...80))
            let (x1, y1) = xy(start, unrolledFrom: start.longitude)
            let x2 = x1 + a * longitudeDifference(start.longitude, end.longitude) * .pi / 180, y2 = xy(end, unrolledFrom: end.longitude).1
            var best = Double.infinity
            for copy in [-1.0, 0, 1] {
                let (xp0, yp) = xy(p, unrolledFrom: start.longitude)
                let xp = xp0 + copy * 2 * .pi * a
                for k in 0...20_000 {
                    let t = Double(k) / 20_000
                    best = min(best, hypot(x1 + t * (x2 - x1) - xp, y1 + t * (y2 - y1) - yp))
                }
            }
            let found = model.nearestPoint(onEdgeFrom: start, to: end, near: p)
            // The sampling step is at most 2e7/20000 = 1 km; the error of the sampled minimum is
            // second order except where the foot is an end.
            XCTAssertLessThanOrEqual(found.distance, best + 1e-6)
            XCTAssertEqual(found.distance, best, accuracy: 1e3)
            // The point is on the segment at `along`.
            let edge = model.edge(start, end)
            let there = edge.position(atDistance: found.along)
            XCTAssertEqual(there.latitude, found.position.latitude, accuracy: 1e-9)
            XCTAssertEqual(longitudeDifference(there.longitude, found.position.longitude), 0, accuracy: 1e-9)
        }
    }

    func testSpeed() {
        var generator = SeededGenerator(seed: 5)
        let cases = (0..<300).map { _ -> (Position, Position, Position) in
            let a = lonLat(generator.coordinate(-10...10), generator.coordinate(40...50))
            let b = lonLat(a.longitude + generator.coordinate(-0.1...0.1), a.latitude + generator.coordinate(-0.1...0.1))
            let p = lonLat(a.longitude + generator.coordinate(-0.1...0.1), a.latitude + generator.coordinate(-0.1...0.1))
            return (a, b, p)
        }
        for kind in EdgeKind.allCases {
            let model = EdgeModel(earth: .wgs84, kind: kind)
            let start = DispatchTime.now().uptimeNanoseconds
            var sum = 0.0
            for (a, b, p) in cases { sum += model.nearestPoint(onEdgeFrom: a, to: b, near: p).distance }
            let each = Double(DispatchTime.now().uptimeNanoseconds - start) / Double(cases.count)
            print("nearestPoint(onEdgeFrom:to:near:) \(kind), 10 km edges: \(Int(each)) ns per call (\(sum))")
        }
    }
}
