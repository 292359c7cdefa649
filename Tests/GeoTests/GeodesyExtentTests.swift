import Foundation
import XCTest
import Geometry
@testable import Geodesy

/// The latitudes and longitudes an edge covers (for a spatial index), against dense sampling
/// along the edge and Clairaut's closed form on the sphere.
final class GeodesyExtentTests: XCTestCase {
    func testGeodesicVertexOnTheSphere() {
        // On a sphere, the geodesic from (−60°, 60°) to (60°, 60°) peaks at tan φ0 = tan 60°/cos 60°.
        let model = EdgeModel(earth: .sphere(radius: 6371009), kind: .geodesic)
        let range = model.latitudeRange(ofEdgeFrom: lonLat(-60, 60), to: lonLat(60, 60))
        XCTAssertEqual(range.lowerBound, 60)
        XCTAssertEqual(range.upperBound, atan(tan(60 * Double.pi / 180) / cos(60 * Double.pi / 180)) * 180 / .pi, accuracy: 1e-12)
        // Mirrored in the south, and none when the edge heads the same way at both ends.
        let south = model.latitudeRange(ofEdgeFrom: lonLat(60, -60), to: lonLat(-60, -60))
        XCTAssertEqual(south.lowerBound, -range.upperBound, accuracy: 1e-12)
        XCTAssertEqual(model.latitudeRange(ofEdgeFrom: lonLat(0, 10), to: lonLat(20, 40)), 10...40)
        // Over a pole.
        XCTAssertEqual(model.latitudeRange(ofEdgeFrom: lonLat(0, 80), to: lonLat(180, 70)).upperBound, 90)
        // Rhumb lines and projected edges: their ends.
        for kind in [EdgeKind.rhumb, .projected] {
            XCTAssertEqual(EdgeModel(earth: .wgs84, kind: kind).latitudeRange(ofEdgeFrom: lonLat(-60, 60), to: lonLat(60, 60)), 60...60)
        }
    }

    func testRangesHoldEverySampledPoint() {
        var generator = SeededGenerator(seed: 61)
        for kind in EdgeKind.allCases {
            let model = EdgeModel(earth: .wgs84, kind: kind)
            var tightest = 0.0
            for index in 0..<40 {
                let a = lonLat(generator.coordinate(-180...180), generator.coordinate(-85...85))
                let b = index % 3 == 0 ? lonLat(normalizedLongitude(a.longitude + generator.coordinate(100...179)), a.latitude + generator.coordinate(-5...5))
                    : lonLat(generator.coordinate(-180...180), generator.coordinate(-85...85))
                let range = model.latitudeRange(ofEdgeFrom: a, to: b)
                let span = model.longitudeSpan(ofEdgeFrom: a, to: b)
                let edge = model.edge(a, b)
                // Sampled every 1/2000 of the edge, then the extremes refined by ternary search.
                let samples = 2000
                var latitudes: [Double] = []
                for k in 0...samples {
                    let point = edge.position(atFraction: Double(k) / Double(samples))
                    latitudes.append(point.latitude)
                    XCTAssertTrue(span.contains(point.longitude), "\(kind) \(a) \(b) \(point) \(span)")
                }
                func refine(_ sign: Double) -> Double {
                    let k = latitudes.indices.max { sign * latitudes[$0] < sign * latitudes[$1] }!
                    var low = Double(max(0, k - 1)) / Double(samples), high = Double(min(samples, k + 1)) / Double(samples)
                    for _ in 0..<80 {
                        let m1 = low + (high - low) / 3, m2 = high - (high - low) / 3
                        if sign * edge.position(atFraction: m1).latitude < sign * edge.position(atFraction: m2).latitude { low = m1 } else { high = m2 }
                    }
                    return max(sign * latitudes[k], sign * edge.position(atFraction: (low + high) / 2).latitude) * sign
                }
                let highest = refine(1), lowest = refine(-1)
                XCTAssertLessThanOrEqual(range.upperBound, highest + 1e-11, "\(kind) \(a) \(b)")
                XCTAssertGreaterThanOrEqual(range.upperBound, highest - 1e-12, "\(kind) \(a) \(b)")
                XCTAssertGreaterThanOrEqual(range.lowerBound, lowest - 1e-11, "\(kind) \(a) \(b)")
                XCTAssertLessThanOrEqual(range.lowerBound, lowest + 1e-12, "\(kind) \(a) \(b)")
                tightest = max(tightest, range.upperBound - highest, lowest - range.lowerBound)
            }
            print("latitudeRange \(kind): beyond the sampled extremes by at most \(tightest)°")
        }
    }

    func testLongitudeSpans() {
        for kind in EdgeKind.allCases {
            let model = EdgeModel(earth: .wgs84, kind: kind)
            let across = model.longitudeSpan(ofEdgeFrom: lonLat(170, 0), to: lonLat(-170, 10))
            XCTAssertEqual(across.west, 170)
            XCTAssertEqual(across.width, 20, accuracy: 1e-12)
            XCTAssertEqual(across.east, -170, accuracy: 1e-12)
            XCTAssertTrue(across.crossesAntimeridian)
            XCTAssertTrue(across.contains(180) && across.contains(-180) && across.contains(-175) && across.contains(535))
            XCTAssertFalse(across.contains(0) || across.contains(169) || across.contains(-169))
            // Westward edges span the same longitudes.
            XCTAssertEqual(model.longitudeSpan(ofEdgeFrom: lonLat(-170, 10), to: lonLat(170, 0)), across)
            let plain = model.longitudeSpan(ofEdgeFrom: lonLat(-10, 0), to: lonLat(20, 10))
            XCTAssertFalse(plain.crossesAntimeridian)
            XCTAssertTrue(plain.contains(0) && plain.contains(-10) && plain.contains(20))
        }
        // An edge that reaches a pole covers every longitude (there).
        for kind in [EdgeKind.geodesic, .rhumb] {
            XCTAssertEqual(EdgeModel(earth: .wgs84, kind: kind).longitudeSpan(ofEdgeFrom: lonLat(10, 80), to: lonLat(50, 90)), .all)
        }
        XCTAssertEqual(EdgeModel(earth: .wgs84, kind: .geodesic).longitudeSpan(ofEdgeFrom: lonLat(10, 80), to: lonLat(-170, 80)), .all)
        XCTAssertTrue(LongitudeSpan.all.contains(123))
    }
}
