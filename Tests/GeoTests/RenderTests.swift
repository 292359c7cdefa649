import XCTest
@testable import Drawing
@testable import GeoJSON
@testable import Geodesy
import Geometry
import JSONBytes
@testable import RenderCommand
@testable import MapDrawing
import Styles

/// geo render's pure logic: styles from properties, the view's fit, the antimeridian, span
/// slices and gradient measures, and the canvas's clipping (docs/render.md).
final class RenderTests: XCTestCase {
    // MARK: Styles

    func testStampStylesAreNamesNeverPaths() {
        XCTAssertEqual(Style("sprite(arrow)"), .sprite("arrow"))
        XCTAssertEqual(Style(" texture(rail-2) "), .texture("rail-2"))
        XCTAssertNil(Style("sprite(../etc/passwd)"))
        XCTAssertNil(Style("texture(a.png)"))
        XCTAssertNil(Style("sprite()"))
        XCTAssertEqual(Style("gradient(red,rgba(0,0,1,0.5))"), .gradient(Colour(red: 255, green: 0, blue: 0), Colour(red: 0, green: 0, blue: 255, alpha: 128)))
    }

    func style(_ properties: String, stamps: Set<String> = []) throws -> FeatureStyle {
        let text = Array("{\"type\":\"Feature\",\"properties\":\(properties),\"geometry\":null}".utf8)
        return try text.withUnsafeBufferPointer { bytes in
            var result: FeatureStyle?
            try GeoJSONReader.readFeatures(bytes) { feature in result = try FeatureStyle(feature, in: bytes, stamps: stamps) }
            return result!
        }
    }

    func testSimplestyleDefaultsAndBothNamings() throws {
        let plain = try style("{}")
        XCTAssertEqual(plain.stroke, .colour(Colour(red: 0x55, green: 0x55, blue: 0x55)))
        XCTAssertEqual(plain.strokeWidth, 2)
        XCTAssertEqual(plain.fill.alpha, 153)
        let sdk = try style(##"{"strokeColor":"red","strokeWidth":5,"fillColor":"blue","zIndex":3,"geodesic":true}"##)
        let simple = try style(##"{"stroke":"red","stroke-width":5,"fill":"blue","z-index":3,"geodesic":true}"##)
        XCTAssertEqual(sdk, simple)
        XCTAssertEqual(sdk.zIndex, 3)
        XCTAssertTrue(sdk.geodesic)
        XCTAssertEqual(sdk.fill, Colour(red: 0, green: 0, blue: 255, alpha: 153))
    }

    func testOwnAlphaIsKeptAndOpacityMultiplies() throws {
        XCTAssertEqual(try style(##"{"fill":"#0000ff80"}"##).fill.alpha, 128)
        XCTAssertEqual(try style(##"{"fill":"#0000ff80","fill-opacity":0.5}"##).fill.alpha, 64)
        XCTAssertEqual(try style(##"{"fill":"rgba(0,0,1,0.2)"}"##).fill.alpha, 51)
        XCTAssertEqual(try style(##"{"fill":"blue","fill-opacity":1}"##).fill.alpha, 255)
    }

    func testSpansStrokeEndAndStamps() throws {
        let spans = try style(##"{"spans":[{"style":"red","segments":1.5},{"style":"gradient(red,yellow)"}]}"##)
        XCTAssertEqual(spans.spans(ofPart: 0).count, 2)
        XCTAssertEqual(spans.spans(ofPart: 0)[0].segments, 1.5)
        XCTAssertEqual(spans.spans(ofPart: 0)[1].segments, 1)
        XCTAssertEqual(spans.spans(ofPart: 3).count, 2, "one list is drawn along every part")
        // A MultiLineString's list per part, as geo spans writes it; an empty part's list is empty.
        let perPart = try style(##"{"spans":[[{"style":"red","segments":2}],[],[{"style":"blue"}]]}"##)
        XCTAssertEqual(perPart.spans(ofPart: 0).map(\.segments), [2])
        XCTAssertTrue(perPart.spans(ofPart: 1).isEmpty)
        XCTAssertEqual(perPart.spans(ofPart: 2).map(\.style), [.solid(Colour(red: 0, green: 0, blue: 255))])
        XCTAssertTrue(perPart.spans(ofPart: 3).isEmpty)
        XCTAssertNotEqual(perPart, try style(##"{"spans":[{"style":"red","segments":2}]}"##))
        XCTAssertThrowsError(try style(##"{"spans":[[{"style":"red"}],[3]]}"##))
        XCTAssertEqual(try style(##"{"stroke":"#0000ff","stroke-end":"#ff0000"}"##).stroke,
                       .ramp(Colour(red: 0, green: 0, blue: 255), Colour(red: 255, green: 0, blue: 0)))
        XCTAssertEqual(try style(##"{"stroke":"sprite(arrow)"}"##, stamps: ["arrow"]).stroke, .style(.sprite("arrow")))
        XCTAssertThrowsError(try style(##"{"stroke":"sprite(arrow)"}"##))
        XCTAssertThrowsError(try style(##"{"spans":[{"style":"texture(x)"}]}"##))
    }

    func testBadStylesAreBadRecords() {
        for properties in [##"{"stroke":"blurple"}"##, ##"{"stroke-width":-1}"##, ##"{"stroke-width":"NaN"}"##, ##"{"stroke-opacity":1.5}"##,
                           ##"{"fill-opacity":"x"}"##, ##"{"zIndex":null}"##, ##"{"marker-size":"huge"}"##, ##"{"geodesic":"yes"}"##,
                           ##"{"spans":[{"segments":1}]}"##, ##"{"spans":[{"style":"red","segments":0}]}"##, ##"{"spans":{}}"##,
                           ##"{"stroke":5}"##] {
            XCTAssertThrowsError(try style(properties), properties)
        }
    }

    func testTheStyleCacheGivesWhatReadingGives() throws {
        // Alternating properties, more of them than the cache keeps, one that cannot be read
        // (defaults), and one longer than it keeps: each answer equals a fresh reading.
        let cache = StyleCache(stamps: [])
        let long = "{" + (0..<400).map { ##""k\##($0)":"\##(String(repeating: "x", count: 12))""## }.joined(separator: ",") + ##","stroke":"blue"}"##
        var cases = [##"{"stroke":"red","stroke-width":3}"##, ##"{"stroke":"blurple"}"##, long, "{}"]
        cases += (0..<5000).map { ##"{"stroke-width":\##(1 + $0 % 4500)}"## }
        for round in 0..<2 {
            for properties in cases {
                let fresh = (try? style(properties)) ?? FeatureStyle()
                let cached = Array(properties.utf8).withUnsafeBufferPointer { cache.style($0) }
                XCTAssertEqual(cached, fresh, "round \(round): \(properties.prefix(60))")
            }
        }
        XCTAssertEqual(cache.style(nil), FeatureStyle())
    }

    // MARK: The view

    func testFitKeepsTheAspectAndCentres() throws {
        let frame = Frame(projection: try Projection(crs: "EPSG:3857"), centre: nil)
        var bounds = Bounds()
        bounds.add(x: 0, y: 0)
        bounds.add(x: 200, y: 100)
        let view = View(frame: frame, width: 400, height: 400, bounds: bounds, padding: 0)
        XCTAssertEqual(view.scale, 2)
        XCTAssertEqual(view.pixel(x: 0, y: 0), Pixel(0, 300))
        XCTAssertEqual(view.pixel(x: 200, y: 100), Pixel(400, 100))
        let padded = View(frame: frame, width: 400, height: 400, bounds: bounds, padding: 20)
        XCTAssertEqual(padded.pixel(x: 0, y: 50).x, 20, accuracy: 1e-9)
        XCTAssertEqual(padded.pixel(x: 0, y: 50).y, 200, accuracy: 1e-9)
    }

    func testTheBandOfMeridiansCrossesTheAntimeridianWhenThatIsNarrower() {
        var cover = LongitudeCover()
        cover.add(Position(longitude: 139.69, latitude: 35.69))
        cover.add(Position(longitude: -122.42, latitude: 37.77))
        cover.addEdge(Position(longitude: 139.69, latitude: 35.69), Position(longitude: -122.42, latitude: 37.77), latitudes: 35.69...48)
        let band = cover.band!
        XCTAssertEqual(band.west, 139.69)
        XCTAssertEqual(band.east, -122.42)
        XCTAssertEqual(cover.latitudes.north, 48)
        var europe = LongitudeCover()
        europe.add(Position(longitude: -10, latitude: 50))
        europe.add(Position(longitude: 20.5, latitude: 40))
        XCTAssertEqual(europe.band!.west, -10)
        XCTAssertEqual(europe.band!.east, 20.5)
    }

    func testWebMercatorIsTornAtTheAntimeridianAndAGlobeIsNot() throws {
        XCTAssertTrue(Frame.isTorn(try Projection(crs: "EPSG:3857")))
        XCTAssertFalse(Frame.isTorn(try Projection(crs: "+proj=ortho +lat_0=0 +lon_0=180")))
        XCTAssertThrowsError(try Projection(crs: "EPSG:999999"))
        XCTAssertNil(try Projection(crs: "+proj=ortho +lat_0=0 +lon_0=0").forward(Position(longitude: 120, latitude: 0)))
    }

    /// A copy (PROJ's clone, for another thread) projects exactly as the original, for a CRS of
    /// one operation, a PROJ string, and a national grid that PROJ reaches by several candidate
    /// operations (kept with their areas of use); and it stands alone once the original is gone.
    func testACopyOfAProjectionProjectsAsTheOriginal() throws {
        let positions = stride(from: -60.0, through: 60, by: 7.5).flatMap { latitude in
            stride(from: -170.0, through: 170, by: 17).map { Position(longitude: $0, latitude: latitude) }
        } + [Position(longitude: -1.5, latitude: 52.5), Position(longitude: 0.1, latitude: 51.5)]
        for crs in ["EPSG:3857", "+proj=ortho +lat_0=40 +lon_0=-100", "EPSG:27700"] {
            var original: Projection? = try Projection(crs: crs)
            let copy = original!.copy()
            let expected = positions.map { original!.forward($0).map { [$0.x, $0.y] } }
            original = nil
            XCTAssertEqual(positions.map { copy.forward($0).map { [$0.x, $0.y] } }, expected, crs)
            XCTAssertEqual(copy.crs, crs)
        }
    }

    /// EPSG:3857 worked out in Swift gives PROJ's own numbers bit for bit: random positions over
    /// the whole globe and past it (longitudes to ±540°, latitudes to ±95°), a grid every 0.5°,
    /// and the edges (±180, ±90, the Mercator limit, -0, subnormals, NaN, infinities).
    func testWebMercatorWorkedOutHereIsPROJsBitForBit() throws {
        let ours = try Projection(crs: "EPSG:3857"), projs = try Projection(crs: "EPSG:3857", throughPROJ: true)
        var generator = SystemRandomNumberGenerator()
        var longitudes: [Double] = [], latitudes: [Double] = []
        for _ in 0..<200_000 {
            longitudes.append(Double.random(in: -540...540, using: &generator))
            latitudes.append(Double.random(in: -95...95, using: &generator))
        }
        for longitude in stride(from: -180.0, through: 180, by: 0.5) {
            for latitude in stride(from: -90.0, through: 90, by: 0.5) {
                longitudes.append(longitude)
                latitudes.append(latitude)
            }
        }
        let edges: [Double] = [0, -0.0, 180, -180, 180.0.nextUp, (-180.0).nextDown, 179.99999999999997, 360, -360, 540, 572.9577951308232, -572.9577951308233, 573, 1e6,
                               90, -90, 90.0.nextUp, (-90.0).nextDown, 85.051128779806592, -85.051128779806592,
                               1e-300, -5e-324, .nan, .infinity, -.infinity]
        for a in edges {
            for b in edges {
                longitudes.append(a)
                latitudes.append(b)
            }
        }
        func project(_ projection: Projection) -> [(x: Double, y: Double)] {
            var x = longitudes, y = latitudes
            x.withUnsafeMutableBufferPointer { x in
                y.withUnsafeMutableBufferPointer { y in projection.forward(x: x.baseAddress!, y: y.baseAddress!, count: x.count) }
            }
            return Array(zip(x, y))
        }
        let mine = project(ours), theirs = project(projs)
        var differing: [String] = []
        for index in longitudes.indices {
            let a = mine[index], b = theirs[index]
            if a.x.bitPattern != b.x.bitPattern || a.y.bitPattern != b.y.bitPattern {
                differing.append("(\(longitudes[index]), \(latitudes[index])): \(a) against PROJ's \(b)")
            }
        }
        XCTAssertEqual(differing.count, 0, differing.prefix(5).joined(separator: "; "))
        XCTAssertEqual(ours.copy().forward(Position(longitude: 10, latitude: 50))!.x, projs.forward(Position(longitude: 10, latitude: 50))!.x)
    }

    /// The one Web Mercator: the tile grid's metres are PROJ's projection of the held position,
    /// bit for bit, and the measures' well-conditioned y agrees with PROJ's to a·ulp/cos φ.
    func testTheTileGridAndTheMeasuresUseTheDrawingsWebMercator() throws {
        let projs = try Projection(crs: "EPSG:3857", throughPROJ: true)
        var generator = SystemRandomNumberGenerator()
        var positions = (0..<100_000).map { _ in
            Position(longitude: Double.random(in: -540...540, using: &generator), latitude: Double.random(in: -90...90, using: &generator))
        }
        positions += [Position(longitude: 180, latitude: 85.051128779806592), Position(longitude: -180, latitude: -90),
                      Position(longitude: 0, latitude: 0), Position(longitude: -0.0, latitude: 45), Position(longitude: 179.99999999999997, latitude: 89.99999999)]
        for position in positions {
            let held = Position(longitude: normalizedLongitude(position.longitude),
                                latitude: min(max(position.latitude, -WebMercator.latitudeLimit), WebMercator.latitudeLimit))
            let theirs = projs.forward(held)!, mine = WebMercator.metres(position)
            XCTAssertEqual(mine.x.bitPattern, theirs.x.bitPattern, "\(position)")
            XCTAssertEqual(mine.y.bitPattern, theirs.y.bitPattern, "\(position)")
            let phi = held.latitude * .pi / 180
            let bound = 4 * WebMercator.radius * Double.ulpOfOne / cos(phi) + 4 * abs(mine.y).ulp
            XCTAssertLessThanOrEqual(abs(WebMercator.measuredY(latitude: held.latitude, radius: WebMercator.radius) - mine.y), bound, "\(position)")
        }
        XCTAssertEqual(WebMercator.y(latitude: WebMercator.latitudeLimit), WebMercator.half, accuracy: 1e-6)
    }

    // MARK: Spans and gradients

    func testSliceInterpolatesItsEnds() {
        let stretch = Stretch(points: [Pixel(0, 0), Pixel(10, 0), Pixel(10, 20)], t: [0, 1, 2])
        let slice = stretch.slice(0.5, 1.5)!
        XCTAssertEqual(slice.points, [Pixel(5, 0), Pixel(10, 0), Pixel(10, 10)])
        XCTAssertEqual(slice.t, [0.5, 1, 1.5])
        XCTAssertNil(stretch.slice(2, 3))
        XCTAssertEqual(stretch.slice(0, 2)!.points, stretch.points)
    }

    func testGradientMeasureWeighsEdgesByLength() {
        let measure = Measure(lengths: [10, 30], span: 0.5...2)
        XCTAssertEqual(measure.fraction(0.5), 0)
        XCTAssertEqual(measure.fraction(1), 5.0 / 35)
        XCTAssertEqual(measure.fraction(1.5), 20.0 / 35)
        XCTAssertEqual(measure.fraction(2), 1)
    }

    // MARK: The display list

    /// The painter strokes the straight solid lines of a display list from their bytes
    /// (`draw(_: ShapeBytes, ...)`), everything else decoded: both ways must give the same
    /// pixels and the same word on ink, for the cases that take the fast path and each that must
    /// leave it (an edge across ±180, a vertex the globe hides, curves, spans, ramps, polygons,
    /// points, empty and one-point lines, lines of mixed paths), in Web Mercator and on a globe,
    /// at one and two device pixels per pixel.
    func testTheEncodedFastPathDrawsWhatTheDecodedShapeDraws() throws {
        let features = [
            ##"{"type":"Feature","properties":{"stroke":"#d62728","stroke-width":3},"geometry":{"type":"LineString","coordinates":[[-10,40],[5,52],[20,45],[30,60]]}}"##,
            ##"{"type":"Feature","properties":{"stroke-opacity":0.5},"geometry":{"type":"LineString","coordinates":[[170,-20],[-170,-10],[-150,0]]}}"##,
            ##"{"type":"Feature","properties":{"stroke-width":9},"geometry":{"type":"LineString","coordinates":[[100,10]]}}"##,
            ##"{"type":"Feature","properties":{},"geometry":{"type":"LineString","coordinates":[]}}"##,
            ##"{"type":"Feature","properties":{"stroke":"blue"},"geometry":{"type":"MultiLineString","coordinates":[[[0,0],[60,30]],[[175,5],[-175,8]],[],[[-120,-60],[-60,-30],[-10,-50]]]}}"##,
            ##"{"type":"Feature","properties":{"geodesic":true},"geometry":{"type":"LineString","coordinates":[[-70,40],[20,50]]}}"##,
            ##"{"type":"Feature","properties":{"spans":[{"segments":1,"style":"red"},{"segments":1,"style":"gradient(yellow,blue)"}]},"geometry":{"type":"LineString","coordinates":[[-100,-10],[-80,10],[-60,-10]]}}"##,
            ##"{"type":"Feature","properties":{"stroke":"gradient(red,green)","stroke-width":5},"geometry":{"type":"LineString","coordinates":[[40,-40],[80,-20],[120,-40]]}}"##,
            ##"{"type":"Feature","properties":{"fill":"#00ff0080"},"geometry":{"type":"Polygon","coordinates":[[[-20,-20],[20,-20],[20,20],[-20,20],[-20,-20]]]}}"##,
            ##"{"type":"Feature","properties":{"marker-size":"large"},"geometry":{"type":"MultiPoint","coordinates":[[0,70],[170,0]]}}"##,
        ]
        for crs in ["EPSG:3857", "+proj=ortho +lat_0=20 +lon_0=10"] {
            let projection = try Projection(crs: crs)
            let frame = Frame(projection: projection, centre: nil)
            let list = ByteBuffer()
            var scratch: [Double] = []
            for text in features {
                let record = Array(text.utf8)
                try record.withUnsafeBufferPointer { bytes in
                    try GeoJSONReader.readFeatures(bytes) { feature in
                        DisplayList.write(properties: feature.propertiesBytes.map { UnsafeBufferPointer(rebasing: bytes[$0]) },
                                          geometry: feature.geometry, frame: frame, projection: projection, to: list, scratch: &scratch)
                    }
                }
            }
            let reach = crs == "EPSG:3857" ? 2.1e7 : 6.4e6
            var bounds = Bounds()
            bounds.add(x: -reach, y: -reach)
            bounds.add(x: reach, y: reach)
            for pixelRatio in [1.0, 2.0] {
                let size = Int(200 * pixelRatio)
                let view = View(frame: frame, width: size, height: size, bounds: bounds, padding: 0)
                func painter() -> Painter {
                    Painter(canvas: Canvas(format: .png, width: size, height: size, fd: -1), tracer: Tracer(view: view, model: EdgeModel(earth: .wgs84, kind: .geodesic)),
                            allCurved: false, pixelRatio: pixelRatio)
                }
                let fast = painter(), decoded = painter()
                let styles = StyleCache(stamps: [])
                var encodedPaths = 0, decodedPaths = 0
                DisplayList.forEachFeature(UnsafeBufferPointer(start: list.base, count: list.count)) { _, properties, shape in
                    let style = styles.style(properties)
                    shape.forEachLinePath { _ in encodedPaths += 1 }
                    switch shape.shape {
                    case .line: decodedPaths += 1
                    case .lines(let paths): decodedPaths += paths.count
                    default: XCTAssertFalse(shape.isLines)
                    }
                    fast.draw(shape, style: style)
                    decoded.draw(shape.shape, style: style)
                    XCTAssertEqual(fast.inked, decoded.inked, crs)
                }
                XCTAssertEqual(encodedPaths, decodedPaths, "every line's paths are found in the bytes")
                XCTAssertEqual(encodedPaths, 11)
                var differing = 0, inked = 0
                for y in 0..<size {
                    for x in 0..<size {
                        let a = fast.canvas.pixel(x: x, y: y), b = decoded.canvas.pixel(x: x, y: y)
                        if a != b { differing += 1 }
                        if (b?.alpha ?? 0) > 0 { inked += 1 }
                    }
                }
                XCTAssertEqual(differing, 0, "\(crs) at \(pixelRatio)x")
                XCTAssertGreaterThan(inked, 1000, "\(crs): the shapes were drawn")
            }
        }
    }

    // MARK: The canvas

    func testFarCoordinatesAreClippedNotWrapped() {
        let canvas = Canvas(format: .png, width: 100, height: 100, fd: -1)
        canvas.fillBackground(Colour(red: 255, green: 255, blue: 255))
        canvas.stroke([Pixel(-1e12, 50), Pixel(1e12, 50)], colour: Colour(red: 255, green: 0, blue: 0), width: 10)
        XCTAssertEqual(canvas.pixel(x: 50, y: 50), Colour(red: 255, green: 0, blue: 0))
        XCTAssertEqual(canvas.pixel(x: 50, y: 20), Colour(red: 255, green: 255, blue: 255))
        let pieces = canvas.clipLine([Pixel(-1e9, 0), Pixel(50, 50), Pixel(1e9, 1e9)])
        XCTAssertEqual(pieces.count, 1)
        XCTAssertTrue(pieces[0].allSatisfy { abs($0.x) < 2000 && abs($0.y) < 2000 })
    }

    func testRingsFillWithHolesOpen() {
        let canvas = Canvas(format: .png, width: 100, height: 100, fd: -1)
        let outer = [Pixel(10, 10), Pixel(90, 10), Pixel(90, 90), Pixel(10, 90)]  // clockwise on screen... as given
        let hole = [Pixel(40, 60), Pixel(60, 60), Pixel(60, 40), Pixel(40, 40)]  // the other way
        canvas.fill([outer, hole], colour: Colour(red: 0, green: 0, blue: 255))
        XCTAssertEqual(canvas.pixel(x: 20, y: 20)?.blue, 255)
        XCTAssertEqual(canvas.pixel(x: 50, y: 50)?.alpha, 0)
    }
}
