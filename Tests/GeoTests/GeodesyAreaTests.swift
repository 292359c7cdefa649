import Foundation
import XCTest
import Geometry
@testable import Geodesy
import Polyline

/// Ring and polygon areas for every kind, against GeographicLib's Planimeter (geodesic, and
/// `-R` for rhumb lines) on fixed and seeded random rings, and against closed forms.
final class GeodesyAreaTests: XCTestCase {
    let mapsSphere = Earth.sphere(radius: 6371009)

    /// The Maps SDK shapes guide's "hollow polygon": Hyde Park, Sydney, with the Archibald
    /// Fountain and the Pool of Reflection as holes, every ring clockwise.
    static let hydePark: [Path] = [
        #"tpwmEkd|y[QVe@Pk@BsHe@mGc@iNaAKMaBIYIq@qAMo@Eo@@[Fe@DoALu@HUb@c@XUZS^ELGxOhAd@@ZB`@J^BhFRlBN\BZ@`AFrATAJAR?rAE\C~BIpD"#,
        "tlvmEqq|y[NNCXSJQOB[TI",
        "bewmEwk|y[Dm@zAPEj@{AO",
    ].map { try! Polyline.decode($0).map { Position(longitude: $0.1, latitude: $0.0) } }

    func testTheMapsSDKHollowPolygon() throws {
        let wgs84 = EdgeModel(earth: .wgs84, kind: .geodesic)
        let sphere = EdgeModel(earth: mapsSphere, kind: .geodesic)
        XCTAssertEqual(wgs84.area(ofPolygon: Self.hydePark), 178_056.5, accuracy: 0.05)
        XCTAssertEqual(sphere.area(ofPolygon: Self.hydePark), 178_112.9, accuracy: 0.05)
        // Every ring runs clockwise: the signed sum adds the holes' negative areas.
        for ring in Self.hydePark { XCTAssertLessThan(wgs84.signedArea(ofRing: ring), 0) }
        let rings = Self.hydePark.map { wgs84.signedArea(ofRing: $0) }
        XCTAssertEqual(wgs84.signedArea(ofPolygon: Self.hydePark), rings.reduce(0, +), accuracy: 1e-9)
        // Reversed rings (RFC 7946 winding) give the same area.
        XCTAssertEqual(wgs84.area(ofPolygon: Self.hydePark.map { $0.reversed() }), 178_056.5, accuracy: 0.05)
        // Each ring as Planimeter measures it.
        for (earth, model) in [(Earth.wgs84, wgs84), (mapsSphere, sphere)] {
            let oracle = try GeodesyOracle.planimeter(Self.hydePark, earth: earth, rhumb: false)
            for (ring, expected) in zip(Self.hydePark, oracle) {
                XCTAssertEqual(model.signedArea(ofRing: ring), expected, accuracy: 1e-4)
            }
        }
        // Rhumb and projected figures of so small a park are the geodesic one to a few m² and
        // 1/cos²φ of it (the Mercator scale at 33.87° S), respectively.
        let rhumb = EdgeModel(earth: .wgs84, kind: .rhumb).area(ofPolygon: Self.hydePark)
        XCTAssertEqual(rhumb, 178_056.5, accuracy: 0.5)
        let projected = EdgeModel(earth: .wgs84, kind: .projected).area(ofPolygon: Self.hydePark)
        XCTAssertEqual(projected * pow(cos(33.874 * .pi / 180), 2), 178_056.5, accuracy: 0.004 * 178_056.5)
    }

    func testTheMapsSDKSphericalFormula() {
        // GMSGeometrySignedArea is the spherical excess, summed as android-maps-utils'
        // SphericalUtil.computeSignedArea does it (polar triangles from the south pole):
        // --sphere 6371009 --kind geodesic must reproduce it.
        func sdkSignedArea(_ ring: Path, radius: Double) -> Double {
            var total = 0.0
            var previous = ring.last!
            for point in ring {
                let tan1 = tan((.pi / 2 - point.latitude * .pi / 180) / 2)
                let tan2 = tan((.pi / 2 - previous.latitude * .pi / 180) / 2)
                let deltaLongitude = (point.longitude - previous.longitude) * .pi / 180
                let t = tan1 * tan2
                total += 2 * atan2(t * sin(deltaLongitude), 1 + t * cos(deltaLongitude))
                previous = point
            }
            return total * radius * radius
        }
        var generator = SeededGenerator(seed: 7)
        let model = EdgeModel(earth: mapsSphere, kind: .geodesic)
        for _ in 0..<50 {
            let center = lonLat(generator.coordinate(-170...170), generator.coordinate(-70...70))
            let size = [0.001, 0.1, 5][Int.random(in: 0..<3, using: &generator)]
            let ring = (0..<Int.random(in: 3...9, using: &generator)).map { index in
                let angle = 2 * Double.pi * Double(index) / 9
                return lonLat(center.longitude + size * cos(angle) * generator.coordinate(0.5...1),
                              center.latitude + size * sin(angle) * generator.coordinate(0.5...1))
            }
            let expected = sdkSignedArea(ring, radius: 6371009)
            XCTAssertEqual(model.signedArea(ofRing: ring), expected, accuracy: 1e-3 + 1e-11 * abs(expected))
        }
    }

    func testDegenerateRingsHaveNoArea() {
        for kind in EdgeKind.allCases {
            let model = EdgeModel(earth: .wgs84, kind: kind)
            XCTAssertEqual(model.signedArea(ofRing: []), 0)
            XCTAssertEqual(model.signedArea(ofRing: [lonLat(1, 2)]), 0)
            XCTAssertEqual(model.signedArea(ofRing: [lonLat(1, 2), lonLat(3, 4)]), 0)
            XCTAssertEqual(model.signedArea(ofRing: [lonLat(1, 2), lonLat(3, 4), lonLat(1, 2)]), 0)
            XCTAssertEqual(model.signedArea(ofRing: [lonLat(1, 2), lonLat(1, 2), lonLat(3, 4), lonLat(3, 4)]), 0)
            XCTAssertEqual(model.area(ofPolygon: []), 0)
            // The closing vertex repeated or not, consecutive repeats: the same ring.
            let ring = [lonLat(0, 0), lonLat(1, 0), lonLat(1, 1), lonLat(0, 1)]
            let area = model.signedArea(ofRing: ring)
            XCTAssertGreaterThan(area, 0, "\(kind)")
            XCTAssertEqual(model.signedArea(ofRing: ring + [ring[0]]), area, "\(kind)")
            XCTAssertEqual(model.signedArea(ofRing: [ring[0], ring[0], ring[1], ring[2], ring[2], ring[3], ring[0]]), area, "\(kind)")
            XCTAssertEqual(model.signedArea(ofRing: ring.reversed()), -area, accuracy: 1e-6 * area, "\(kind)")
            // A hole wound either way subtracts; the signed sum honours the winding.
            let hole = [lonLat(0.25, 0.25), lonLat(0.75, 0.25), lonLat(0.75, 0.75), lonLat(0.25, 0.75)]
            let holeArea = model.signedArea(ofRing: hole)
            for (outer, inner) in [(ring, hole), (Array(ring.reversed()), hole), (ring, Array(hole.reversed()))] {
                XCTAssertEqual(model.area(ofPolygon: [outer, inner]), area - holeArea, accuracy: 1e-6, "\(kind)")
            }
            XCTAssertEqual(model.signedArea(ofPolygon: [ring, hole]), area + holeArea, accuracy: 1e-6, "\(kind)")
        }
    }

    func testGeodesicRingsAgreeWithPlanimeter() throws {
        for earth in [Earth.wgs84, mapsSphere, Earth(name: "intl", a: 6378388, f: 1 / 297.0)] {
            var generator = SeededGenerator(seed: 11)
            let rings = Self.randomRings(count: 80, using: &generator)
            let oracle = try GeodesyOracle.planimeter(rings, earth: earth, rhumb: false)
            let model = EdgeModel(earth: earth, kind: .geodesic)
            for (ring, expected) in zip(rings, oracle) {
                let area = model.signedArea(ofRing: ring)
                XCTAssertEqual(area, expected, accuracy: 0.1 + 1e-9 * abs(expected), "\(earth.name) \(ring)")
            }
        }
    }

    func testRhumbRingsAgreeWithPlanimeter() throws {
        var worst = 0.0
        for earth in [Earth.wgs84, mapsSphere, Earth(name: "intl", a: 6378388, f: 1 / 297.0),
                      Earth(name: "flat", a: 6378137, f: 1 / 50.0), Earth(name: "prolate", a: 6378137, f: -1 / 150.0)] {
            var generator = SeededGenerator(seed: 13)
            let rings = Self.randomRings(count: 150, using: &generator)
            let oracle = try GeodesyOracle.planimeter(rings, earth: earth, rhumb: true)
            let model = EdgeModel(earth: earth, kind: .rhumb)
            for (ring, expected) in zip(rings, oracle) {
                let area = model.signedArea(ofRing: ring)
                let tolerance = 0.1 + 1e-9 * abs(expected)
                worst = max(worst, abs(area - expected) / tolerance)
                XCTAssertEqual(area, expected, accuracy: tolerance, "\(earth.name) \(ring)")
            }
        }
        print("rhumb area vs Planimeter -R: worst error / tolerance \(worst)")
    }

    /// Rings of every shape the tests want: anywhere on the globe, small (1°, 1 km, 1 m), across
    /// the antimeridian, around either pole either way, nearly east–west and self-crossing.
    static func randomRings(count: Int, using generator: inout SeededGenerator) -> [Path] {
        (0..<count).map { index in
            let vertices = Int.random(in: 3...8, using: &generator)
            switch index % 7 {
            case 0:  // anywhere
                return (0..<vertices).map { _ in lonLat(generator.coordinate(-180...180), generator.coordinate(-89.9...89.9)) }
            case 1, 2:  // small: 1°, 1 km or 1 m across
                let size = [1.0, 0.01, 1e-5][Int.random(in: 0..<3, using: &generator)]
                let center = lonLat(generator.coordinate(-180...180), generator.coordinate(-88...88))
                return (0..<vertices).map { _ in
                    lonLat(center.longitude + generator.coordinate(-size...size), center.latitude + generator.coordinate(-size...size))
                }
            case 3:  // around a pole, eastward or westward
                let latitude = generator.coordinate(50...89.99) * (Bool.random(using: &generator) ? 1 : -1)
                let west = Bool.random(using: &generator)
                let ring = (0..<vertices).map { vertex in
                    lonLat(-180 + 360 * Double(vertex) / Double(vertices) + generator.coordinate(0...20),
                           latitude + generator.coordinate(-0.5...0.5) * (90 - abs(latitude)))
                }
                return west ? ring.reversed() : ring
            case 4:  // across the antimeridian
                return (0..<vertices).map { _ in
                    lonLat(normalizedLongitude(180 + generator.coordinate(-10...10)), generator.coordinate(-60...60))
                }
            case 5:  // nearly east-west edges
                let latitude = generator.coordinate(-85...85)
                let box = (0..<vertices).map { vertex in
                    lonLat(generator.coordinate(-180...180), latitude + (vertex % 2 == 0 ? 0 : generator.coordinate(-1e-6...1e-6)))
                }
                return box
            default:  // large, across the equator
                return (0..<vertices).map { vertex in
                    let angle = 2 * Double.pi * Double(vertex) / Double(vertices)
                    return lonLat(generator.coordinate(-30...30) + 60 * cos(angle), 50 * sin(angle))
                }
            }
        }
    }

    func testRhumbRectanglesAreZonesOfTheAuthalicSphere() {
        // Parallels and meridians are rhumb lines: a rhumb "rectangle" is a zone of the
        // ellipsoid, c²·Δλ·(sin ξ2 − sin ξ1), computed here from q(φ) directly.
        for earth in [Earth.wgs84, mapsSphere] {
            let model = EdgeModel(earth: earth, kind: .rhumb)
            let e2 = earth.e2, e = e2.squareRoot()
            func q(_ latitude: Double) -> Double {
                let s = sin(latitude * .pi / 180)
                return e2 == 0 ? 2 * s : (1 - e2) * (s / (1 - e2 * s * s) + atanh(e * s) / e)
            }
            let c2 = earth.a * earth.a * q(90) / 2
            for (south, north, west, east) in [(10.0, 20.0, 0.0, 10.0), (-80, 80, 170, -170), (89, 89.999999, -60, 60), (-45, -44.9999, 5, 6)] {
                let ring = [lonLat(west, south), lonLat(east, south), lonLat(east, north), lonLat(west, north)]
                let width = longitudeDifference(west, east) * .pi / 180
                let expected = c2 * width * (q(north) - q(south)) / q(90)
                // q(north) − q(south) cancels in the test's own formula: tolerate its rounding, a
                // few ulps of c²·Δλ.
                XCTAssertEqual(model.signedArea(ofRing: ring), expected, accuracy: 1e-3 + 1e-15 * c2 * abs(width), "\(earth.name) \(ring)")
            }
        }
    }

    func testPolarRings() throws {
        // A ring along 80° N: eastward it encloses the cap (positive), westward the cap too
        // (negative), as Planimeter; with vertices at the pole it is the same cap.
        for kind in [EdgeKind.rhumb, .geodesic] {
            let model = EdgeModel(earth: .wgs84, kind: kind)
            let east = [lonLat(0, 80), lonLat(90, 80), lonLat(180, 80), lonLat(-90, 80)]
            let cap = model.signedArea(ofRing: east)
            XCTAssertGreaterThan(cap, 0)
            XCTAssertLessThan(cap, model.surfaceArea / 2)
            XCTAssertEqual(model.signedArea(ofRing: east.reversed()), -cap, accuracy: 1e-3)
            let south = east.map { lonLat($0.longitude, -80) }
            XCTAssertEqual(model.signedArea(ofRing: south), -cap, accuracy: 1e-3)
            let oracle = try GeodesyOracle.planimeter([east, Array(east.reversed()), south], earth: .wgs84, rhumb: kind == .rhumb)
            XCTAssertEqual(cap, oracle[0], accuracy: 0.1 + 1e-9 * cap)
            XCTAssertEqual(-cap, oracle[1], accuracy: 0.1 + 1e-9 * cap)
            XCTAssertEqual(-cap, oracle[2], accuracy: 0.1 + 1e-9 * cap)
            // The same cap as circle-to-polygon writes it: through (±180, 80) and over the pole.
            let overThePole = [lonLat(-180, 80), lonLat(-90, 80), lonLat(0, 80), lonLat(90, 80), lonLat(180, 80),
                               lonLat(180, 90), lonLat(-180, 90), lonLat(-180, 80)]
            XCTAssertEqual(model.signedArea(ofRing: overThePole), cap, accuracy: 1e-3, "\(kind)")
            // An octant: two meridians meeting at a vertex on the pole, and the equator. Exactly
            // an eighth of the ellipsoid, for both kinds.
            let octant = [lonLat(0, 0), lonLat(90, 0), lonLat(45, 90)]
            XCTAssertEqual(model.signedArea(ofRing: octant), model.surfaceArea / 8, accuracy: 1e-3, "\(kind)")
        }
        // Projected: a ring round the world is closed along the top of the Web Mercator square.
        let projected = EdgeModel(earth: .wgs84, kind: .projected)
        let a = 6378137.0
        let y80 = a * asinh(tan(80 * .pi / 180))
        let east = [lonLat(0, 80), lonLat(90, 80), lonLat(180, 80), lonLat(-90, 80)]
        let expected = 2 * .pi * a * (.pi * a - y80)  // 1.8e14 m²: a few ulps is 1 m²
        XCTAssertEqual(projected.signedArea(ofRing: east), expected, accuracy: 1e-14 * expected)
        XCTAssertEqual(projected.signedArea(ofRing: east.reversed()), -expected, accuracy: 1e-14 * expected)
    }

    func testProjectedIsTheWebMercatorShoelace() {
        let model = EdgeModel(earth: .wgs84, kind: .projected)
        let a = 6378137.0
        let y = { (latitude: Double) in a * asinh(tan(latitude * .pi / 180)) }
        // A rectangle across the antimeridian, 20° wide: a·Δλ·Δy.
        let ring = [lonLat(170, 10), lonLat(-170, 10), lonLat(-170, 40), lonLat(170, 40)]
        XCTAssertEqual(model.signedArea(ofRing: ring), a * 20 * .pi / 180 * (y(40) - y(10)), accuracy: 1e-3)
        // A triangle: half the cross product.
        let triangle = [lonLat(0, 0), lonLat(10, 0), lonLat(0, 10)]
        XCTAssertEqual(model.signedArea(ofRing: triangle), a * 10 * .pi / 180 * y(10) / 2, accuracy: 1e-3)
        XCTAssertEqual(model.signedArea(ofRing: triangle.reversed()), -a * 10 * .pi / 180 * y(10) / 2, accuracy: 1e-3)
        // A self-crossing figure 8 sums its loops: they cancel.
        let eight = [lonLat(0, 0), lonLat(1, 1), lonLat(1, 0), lonLat(0, 1)]
        XCTAssertEqual(model.signedArea(ofRing: eight), 0, accuracy: 1e-3)
    }

    func testSpeed() {
        // Rough cost per vertex (debug builds are several times slower than release).
        var generator = SeededGenerator(seed: 3)
        let ring = (0..<2000).map { index -> Position in
            let angle = 2 * Double.pi * Double(index) / 2000
            return lonLat(10 + 5 * cos(angle) + generator.coordinate(0...0.01), 50 + 5 * sin(angle))
        }
        for kind in EdgeKind.allCases {
            let model = EdgeModel(earth: .wgs84, kind: kind)
            let start = DispatchTime.now().uptimeNanoseconds
            var area = 0.0
            for _ in 0..<5 { area += model.signedArea(ofRing: ring) }
            let perVertex = Double(DispatchTime.now().uptimeNanoseconds - start) / 5 / Double(ring.count)
            print("signedArea(ofRing:) \(kind): \(Int(perVertex)) ns per vertex (area \(area / 5))")
        }
    }
}
