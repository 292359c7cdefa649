import CProj
import Foundation
import XCTest
import Geometry
@testable import Geodesy

/// Point in polygon, edges by kind: fixed cases, and seeded random rings against a winding-number
/// count (a different method from contains' ray crossings) over the rings densified along their
/// true edges (PROJ for geodesic edges, RhumbSolve for rhumb edges).
final class GeodesyContainsTests: XCTestCase {
    func testTheKindShapesTheEdge() {
        // An east–west geodesic at 60° N bulges poleward (to 73.9° on the way from −60° to 60°);
        // the rhumb line is the parallel, and so is the projected (Web Mercator) line.
        let triangle = [lonLat(-60, 60), lonLat(60, 60), lonLat(0, 30)]
        let between = lonLat(0, 62)
        XCTAssertTrue(EdgeModel(earth: .wgs84, kind: .geodesic).contains(polygon: [triangle], between))
        XCTAssertFalse(EdgeModel(earth: .wgs84, kind: .rhumb).contains(polygon: [triangle], between))
        XCTAssertFalse(EdgeModel(earth: .wgs84, kind: .projected).contains(polygon: [triangle], between))
        for kind in EdgeKind.allCases {
            let model = EdgeModel(earth: .wgs84, kind: kind)
            XCTAssertTrue(model.contains(polygon: [triangle], lonLat(0, 59)), "\(kind)")
            XCTAssertFalse(model.contains(polygon: [triangle], lonLat(0, 75)), "\(kind)")
            XCTAssertFalse(model.contains(polygon: [triangle], lonLat(0, 29)), "\(kind)")
            // Whichever way the ring runs.
            XCTAssertEqual(model.contains(polygon: [triangle.reversed()], between), model.contains(polygon: [triangle], between))
        }
    }

    func testHolesAndBoundaries() {
        let park = GeodesyAreaTests.hydePark
        for kind in EdgeKind.allCases {
            let model = EdgeModel(earth: .wgs84, kind: kind)
            let fountain = park[1]
            let inFountain = lonLat(fountain.map(\.longitude).reduce(0, +) / Double(fountain.count),
                                    fountain.map(\.latitude).reduce(0, +) / Double(fountain.count))
            XCTAssertTrue(model.contains(polygon: [park[0]], inFountain), "\(kind)")
            XCTAssertFalse(model.contains(polygon: park, inFountain), "\(kind)")
            XCTAssertTrue(model.contains(polygon: park, lonLat(151.2115, -33.8730)), "\(kind)")
            XCTAssertFalse(model.contains(polygon: park, lonLat(151.2, -33.8730)), "\(kind)")
            // Every vertex of every ring, and points along every edge, are on the boundary: inside.
            for ring in park {
                for index in 1..<ring.count {
                    XCTAssertTrue(model.contains(polygon: park, ring[index]), "\(kind) vertex \(ring[index])")
                    let edge = model.edge(ring[index - 1], ring[index])
                    for fraction in [0.1, 0.5, 0.77] {
                        let point = edge.position(atFraction: fraction)
                        XCTAssertTrue(model.contains(polygon: park, point), "\(kind) \(point) on \(ring[index - 1]) → \(ring[index])")
                        XCTAssertEqual(model.location(of: point, inRing: ring), .boundary, "\(kind)")
                    }
                }
            }
        }
    }

    func testJustInsideAndJustOutside() {
        // 1 µm either side of an edge, across the antimeridian, for every kind.
        let ring = [lonLat(170, -10), lonLat(-170, -10.5), lonLat(-165, 20), lonLat(175, 15)]
        let earth = Earth.wgs84
        for kind in EdgeKind.allCases {
            let model = EdgeModel(earth: earth, kind: kind)
            for index in ring.indices {
                let a = ring[index], b = ring[(index + 1) % ring.count]
                let edge = model.edge(a, b)
                let x = edge.position(atFraction: 0.4)
                let ahead = edge.position(atFraction: 0.4001)
                // Perpendicular to the edge, left (inside: the ring runs counter-clockwise) and right.
                var s12 = 0.0, azi1 = 0.0, azi2 = 0.0
                var geodesic = geod_geodesic()
                geod_init(&geodesic, earth.a, earth.f)
                geod_inverse(&geodesic, x.latitude, x.longitude, ahead.latitude, ahead.longitude, &s12, &azi1, &azi2)
                let offset = kind == .projected ? 1e-5 : 1e-6  // Web Mercator metres are 1/cos φ larger
                // (Not geodesicDirect: it rounds to 1e-10°, 1 cm.)
                var latitude = 0.0, longitude = 0.0
                geod_direct(&geodesic, x.latitude, x.longitude, azi1 - 90, offset, &latitude, &longitude, nil)
                let inside = lonLat(longitude, latitude)
                geod_direct(&geodesic, x.latitude, x.longitude, azi1 + 90, offset, &latitude, &longitude, nil)
                let outside = lonLat(longitude, latitude)
                XCTAssertTrue(model.contains(polygon: [ring], inside), "\(kind) edge \(index)")
                XCTAssertFalse(model.contains(polygon: [ring], outside), "\(kind) edge \(index)")
                XCTAssertEqual(model.location(of: x, inRing: ring), .boundary, "\(kind) edge \(index)")
            }
            XCTAssertTrue(model.contains(polygon: [ring], lonLat(180, 0)), "\(kind)")
            XCTAssertTrue(model.contains(polygon: [ring], lonLat(-179.9, 5)), "\(kind)")
            XCTAssertFalse(model.contains(polygon: [ring], lonLat(0, 0)), "\(kind)")
            XCTAssertFalse(model.contains(polygon: [ring], lonLat(160, 0)), "\(kind)")
        }
    }

    func testRingsAroundThePoles() {
        for kind in [EdgeKind.geodesic, .rhumb] {
            let model = EdgeModel(earth: .wgs84, kind: kind)
            let north = [lonLat(0, 80), lonLat(90, 80), lonLat(180, 80), lonLat(-90, 80)]
            for ring in [north, Array(north.reversed())] {
                XCTAssertTrue(model.contains(polygon: [ring], lonLat(10, 85)), "\(kind)")
                XCTAssertTrue(model.contains(polygon: [ring], lonLat(123, 90)), "\(kind): the pole")
                XCTAssertFalse(model.contains(polygon: [ring], lonLat(10, 70)), "\(kind)")
                XCTAssertFalse(model.contains(polygon: [ring], lonLat(10, -90)), "\(kind)")
                XCTAssertTrue(model.insideContainsNorthPole(ofRing: ring))
            }
            // Around the south pole the inside is the southern cap too (the smaller side, as the
            // area measures it; the Maps SDK would say the rest of the world).
            let south = north.map { lonLat($0.longitude, -80) }
            XCTAssertTrue(model.contains(polygon: [south], lonLat(10, -85)), "\(kind)")
            XCTAssertTrue(model.contains(polygon: [south], lonLat(0, -90)), "\(kind)")
            XCTAssertFalse(model.contains(polygon: [south], lonLat(10, 0)), "\(kind)")
            XCTAssertFalse(model.insideContainsNorthPole(ofRing: south))
            // circle-to-polygon's shape for a cap: along the circle, then over the pole.
            let cap = [lonLat(-180, 80), lonLat(-90, 80), lonLat(0, 80), lonLat(90, 80), lonLat(180, 80),
                       lonLat(180, 90), lonLat(-180, 90), lonLat(-180, 80)]
            XCTAssertTrue(model.contains(polygon: [cap], lonLat(10, 85)), "\(kind)")
            XCTAssertTrue(model.contains(polygon: [cap], lonLat(10, 90)), "\(kind)")
            XCTAssertFalse(model.contains(polygon: [cap], lonLat(10, 79)), "\(kind)")
            // A ring along 10° S running east has the larger side (59 %) on its left: its inside
            // is the southern side. Its geodesic edges bulge south between the vertices.
            let tropic = [lonLat(0, -10), lonLat(90, -10), lonLat(180, -10), lonLat(-90, -10)]
            XCTAssertLessThan(model.signedArea(ofRing: tropic), 0)
            XCTAssertTrue(model.contains(polygon: [tropic], lonLat(0, -20)), "\(kind)")
            XCTAssertFalse(model.contains(polygon: [tropic], lonLat(0, 0)), "\(kind)")
            XCTAssertFalse(model.contains(polygon: [tropic], lonLat(0, 89)), "\(kind)")
            XCTAssertEqual(model.contains(polygon: [tropic], lonLat(45, -12)), kind == .rhumb, "\(kind)")
        }
        // A projected ring round the world holds the top of the map.
        let projected = EdgeModel(earth: .wgs84, kind: .projected)
        let north = [lonLat(0, 80), lonLat(90, 80), lonLat(180, 80), lonLat(-90, 80)]
        XCTAssertTrue(projected.contains(polygon: [north], lonLat(10, 84)))
        XCTAssertFalse(projected.contains(polygon: [north], lonLat(10, 70)))
    }

    func testRandomRingsAgainstWindingNumbers() throws {
        var generator = SeededGenerator(seed: 51)
        let earth = Earth.wgs84
        var geodesic = geod_geodesic()
        geod_init(&geodesic, earth.a, earth.f)
        var checked = 0
        for kind in [EdgeKind.geodesic, .rhumb] {
            let model = EdgeModel(earth: earth, kind: kind)
            // Rings of 4 to 7 vertices a few hundred km across, some across ±180, some near a pole.
            var rings: [Path] = []
            for index in 0..<10 {
                let center = index % 3 == 0 ? lonLat(180, generator.coordinate(-60...60))
                    : index % 3 == 1 ? lonLat(generator.coordinate(-180...180), generator.coordinate(70...84) * (index % 2 == 0 ? 1 : -1))
                    : lonLat(generator.coordinate(-180...180), generator.coordinate(-60...60))
                let count = Int.random(in: 4...7, using: &generator)
                rings.append((0..<count).map { vertex in
                    let azimuth = 360 * Double(vertex) / Double(count) + generator.coordinate(-20...20)
                    return geodesicDirect(earth, from: center, azimuth: azimuth, distance: generator.coordinate(50_000...300_000))
                })
            }
            // Each ring densified along its true edges: geodesic pieces of 20 km (a geodesic piece
            // subtends less than 180° from any point off it), rhumb pieces of 2 km (which stray
            // less than 2 cm from their chords; points nearer the boundary than 1 m are skipped).
            let edges = rings.flatMap { ring in ring.indices.map { (ring[$0], ring[($0 + 1) % ring.count]) } }
            let azimuths = kind == .rhumb ? try GeodesyOracle.rhumbInverse(edges, earth: earth).map(\.azimuth) : []
            var requests: [(Position, Double, Double)] = []
            var dense: [[Position]] = []
            var edgeIndex = 0
            for ring in rings {
                var points: [Position] = []
                for index in ring.indices {
                    let a = ring[index], b = ring[(index + 1) % ring.count]
                    let length = model.length(a, b)
                    if kind == .geodesic {
                        let pieces = max(1, Int(length / 20_000))
                        let edge = model.edge(a, b)
                        for k in 0..<pieces { points.append(edge.position(atDistance: length * Double(k) / Double(pieces))) }
                    } else {
                        let pieces = max(1, Int(length / 2000))
                        for k in 0..<pieces { requests.append((a, azimuths[edgeIndex], length * Double(k) / Double(pieces))) }
                        points.append(lonLat(.nan, Double(pieces)))  // filled in below
                    }
                    edgeIndex += 1
                }
                dense.append(points)
            }
            if kind == .rhumb {
                var positions = try GeodesyOracle.rhumbDirect(requests, earth: earth)[...]
                dense = dense.map { placeholders in
                    placeholders.flatMap { placeholder -> [Position] in
                        let pieces = Int(placeholder.latitude)
                        defer { positions = positions.dropFirst(pieces) }
                        return Array(positions.prefix(pieces))
                    }
                }
            }
            for (ring, points) in zip(rings, dense) {
                // Points in and around the ring, and near its edges.
                var probes: [Position] = []
                let latitudes = ring.map(\.latitude)
                for _ in 0..<25 {
                    let base = ring[0].longitude
                    let offsets = ring.map { longitudeDifference(base, $0.longitude) }
                    probes.append(lonLat(normalizedLongitude(base + generator.coordinate((offsets.min()! - 1)...(offsets.max()! + 1))),
                                         generator.coordinate(max(-90, latitudes.min()! - 1)...min(90, latitudes.max()! + 1))))
                }
                for _ in 0..<12 {
                    let index = Int.random(in: ring.indices, using: &generator)
                    let x = model.edge(ring[index], ring[(index + 1) % ring.count]).position(atFraction: generator.coordinate(0...1))
                    probes.append(geodesicDirect(earth, from: x, azimuth: generator.coordinate(-180...180), distance: generator.coordinate(2...5000)))
                }
                for p in probes {
                    guard let nearest = model.nearestPoint(onPath: ring, closed: true, near: p), nearest.distance > 1 else { continue }
                    // Winding number of the densified ring around p (p's antipode, far outside these
                    // rings, is the point at infinity of the azimuths from p).
                    var turn = 0.0
                    var previous: Double?
                    var first: Double?
                    for x in points {
                        var s12 = 0.0, azi1 = 0.0, azi2 = 0.0
                        geod_inverse(&geodesic, p.latitude, p.longitude, x.latitude, x.longitude, &s12, &azi1, &azi2)
                        if let previous { turn += remainder(azi1 - previous, 360) } else { first = azi1 }
                        previous = azi1
                    }
                    turn += remainder(first! - previous!, 360)
                    let winds = abs(turn) > 180
                    XCTAssertEqual(model.contains(polygon: [ring], p), winds, "\(kind) \(ring) \(p) (\(nearest.distance) m from the edge)")
                    checked += 1
                }
            }
        }
        print("contains: \(checked) random points agree with the winding number")
    }

    func testSpeed() {
        let model = EdgeModel(earth: .wgs84, kind: .geodesic)
        let ring = (0..<100).map { index -> Position in
            let angle = 2 * Double.pi * Double(index) / 100
            return lonLat(10 + 2 * cos(angle), 50 + 2 * sin(angle))
        }
        for kind in EdgeKind.allCases {
            let model = EdgeModel(earth: .wgs84, kind: kind)
            var generator = SeededGenerator(seed: 9)
            let start = DispatchTime.now().uptimeNanoseconds
            var inside = 0
            for _ in 0..<200 where model.contains(polygon: [ring], lonLat(generator.coordinate(7...13), generator.coordinate(47...53))) { inside += 1 }
            let each = Double(DispatchTime.now().uptimeNanoseconds - start) / 200
            print("contains(polygon:_:) \(kind), 100-vertex ring: \(Int(each)) ns per call (\(inside) inside)")
        }
        _ = model
    }
}
