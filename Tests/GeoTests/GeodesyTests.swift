import XCTest
import Geometry
@testable import Geodesy
@testable import GeoJSON

/// Properties of the geodesy module that hold whatever the implementation; the oracle comparisons
/// (GeodSolve, RhumbSolve, Planimeter, pyproj) are in Tests/EndToEnd/test_geodesy_*.py.
final class GeodesyTests: XCTestCase {
    func p(_ lon: Double, _ lat: Double) -> Position { Position(longitude: lon, latitude: lat) }
    let sphere = Earth.sphere(radius: 6371009)

    func testEllipsoidsComeFromPROJ() throws {
        let wgs84 = try Earth(ellipsoid: "WGS84")
        XCTAssertEqual(wgs84.a, 6378137)
        XCTAssertEqual(1 / wgs84.f, 298.257223563, accuracy: 1e-9)
        let intl = try Earth(ellipsoid: "intl")
        XCTAssertEqual(intl.a, 6378388)
        XCTAssertEqual(1 / intl.f, 297, accuracy: 1e-9)
        XCTAssertTrue(Earth.ellipsoidNames.contains("GRS80"))
        XCTAssertThrowsError(try Earth(ellipsoid: "wgs-84"))
    }

    func testMapsSDKSphere() {
        let model = EdgeModel(earth: sphere, kind: .geodesic)
        XCTAssertEqual(model.length(p(-122.4194, 37.7749), p(-74.0060, 40.7128)), 4_129_091.998, accuracy: 1e-3)
        // A quarter meridian and a quarter of the equator are both πR/2 on a sphere, every kind
        // but projected agreeing along the equator.
        XCTAssertEqual(model.length(p(0, 0), p(0, 90)), .pi * 6371009 / 2, accuracy: 1e-6)
        for kind in [EdgeKind.geodesic, .rhumb] {
            XCTAssertEqual(EdgeModel(earth: sphere, kind: kind).length(p(10, 0), p(100, 0)), .pi * 6371009 / 2, accuracy: 1e-6)
        }
    }

    func testRhumbAlongAParallelIsTheParallelArc() {
        let model = EdgeModel(earth: .wgs84, kind: .rhumb)
        let e2 = Earth.wgs84.e2
        for latitude in [0.0, 30, 60, 89.9, -45] {
            let radius = 6378137 * cos(latitude * .pi / 180) / sqrt(1 - e2 * pow(sin(latitude * .pi / 180), 2))
            XCTAssertEqual(model.length(p(170, latitude), p(-170, latitude)), radius * 20 * .pi / 180,
                           accuracy: 1e-8 * max(1, radius / 1e6), "\(latitude)")
        }
    }

    func testRhumbIsContinuousNearlyEastWest() {
        // Nearly east-west, a rhumb line is the arc of the mean parallel: no jump between the
        // exactly-east-west, quadrature and m12/ψ12 branches as Δφ shrinks.
        let model = EdgeModel(earth: .wgs84, kind: .rhumb)
        let rhumb = RhumbMath(earth: .wgs84, geodesic: Geodesic(.wgs84))
        for delta in [1e-12, 1e-9, 1e-7, 1e-6] {
            let expected = rhumb.parallelRadius(45 + delta / 2) * 10 * .pi / 180
            XCTAssertEqual(model.length(p(0, 45), p(10, 45 + delta)), expected, accuracy: 1e-6, "\(delta)")
        }
    }

    func testRhumbToAPoleIsTheMeridian() {
        let rhumb = EdgeModel(earth: .wgs84, kind: .rhumb)
        let geodesic = EdgeModel(earth: .wgs84, kind: .geodesic)
        XCTAssertEqual(rhumb.length(p(30, 10), p(120, 90)), geodesic.length(p(30, 10), p(30, 90)), accuracy: 1e-8)
    }

    func testProjectedIsWebMercator() {
        let model = EdgeModel(earth: .wgs84, kind: .projected)
        let a = 6378137.0
        let y = { (latitude: Double) in a * log(tan(.pi / 4 + latitude * .pi / 360)) }
        XCTAssertEqual(model.length(p(0, 0), p(0, 60)), y(60), accuracy: 1e-6)
        // The short way across the antimeridian.
        XCTAssertEqual(model.length(p(179, 0), p(-179, 0)), a * 2 * .pi / 180, accuracy: 1e-6)
        XCTAssertThrowsError(try model.validate([p(0, 90)]))
    }

    func testPositionsAlongEdgesStayOnThemForEveryKind() {
        for kind in EdgeKind.allCases {
            let model = EdgeModel(earth: .wgs84, kind: kind)
            for (a, b) in [(p(-122.4194, 37.7749), p(-74.006, 40.7128)), (p(179.5, -16), p(-179.5, -17)),
                           (p(10, 80), p(50, 80.000001)), (p(5, 5), p(5, 5))] {
                let edge = model.edge(a, b)
                for fraction in [0.0, 0.25, 0.5, 0.9, 1.0] {
                    let point = edge.position(atFraction: fraction)
                    XCTAssertTrue((-180...180).contains(point.longitude))
                    // Distances along the edge add up: start→point + point→end = the edge.
                    let before = model.length(a, point), after = model.length(point, b)
                    XCTAssertEqual(before, fraction * edge.length, accuracy: 1e-6, "\(kind) \(fraction)")
                    XCTAssertEqual(before + after, edge.length, accuracy: 1e-6, "\(kind) \(fraction)")
                }
            }
        }
    }

    func testCompensatedSumKeepsWhatNaiveSummationLoses() {
        var sum = CompensatedSum()
        var naive = 0.0
        sum.add(1e16)
        naive += 1e16
        for _ in 0..<1000 { sum.add(1); naive += 1 }
        XCTAssertEqual(sum.value, 1e16 + 1000)
        XCTAssertNotEqual(naive, 1e16 + 1000)
    }

    func testAngles() {
        XCTAssertEqual(sincosDegrees(90).sin, 1)
        XCTAssertEqual(sincosDegrees(90).cos, 0)
        XCTAssertEqual(sincosDegrees(-270).sin, 1)
        XCTAssertEqual(normalizedLongitude(180), 180)
        XCTAssertEqual(normalizedLongitude(-180), -180)
        XCTAssertEqual(normalizedLongitude(190), -170)
        XCTAssertEqual(normalizedLongitude(540), 180)
    }
}
