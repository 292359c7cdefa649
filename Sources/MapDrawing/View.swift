#if canImport(Glibc)
import Glibc
#endif
import Drawing
import Geodesy
import Geometry

/// How positions reach the projection: longitudes as they are, or, when the view spans the
/// antimeridian and the projection is cut there (Web Mercator is), recentred on the view's
/// middle meridian so that the picture is the projection about that meridian (exact for
/// cylindrical projections such as Web Mercator, where recentring only moves x).
package struct Frame {
    package let projection: Projection
    /// The view's middle meridian when longitudes are recentred.
    package let centre: Double?
    /// The projection tears at ±180 (x jumps from one side to the other).
    package let torn: Bool
    /// Latitudes are held within ±this: Web Mercator's area of use (±85.0511°, where the world
    /// is square), for a projection whose y runs to infinity at the poles, as web maps do.
    package let latitudeLimit: Double

    package init(projection: Projection, centre: Double?) {
        self.projection = projection
        torn = Frame.isTorn(projection)
        self.centre = torn ? centre : nil
        latitudeLimit = Frame.runsToInfinityAtThePoles(projection) ? WebMercator.latitudeLimit : 90
    }

    /// Whether y grows without bound towards the poles (Mercator and its kin): y at 89.999° is
    /// more than twice x at 180° (Web Mercator: 3.7 times; equirectangular: 0.5; Miller: 0.6).
    package static func runsToInfinityAtThePoles(_ projection: Projection) -> Bool {
        guard let pole = projection.forward(Position(longitude: 0, latitude: 89.999)),
              let equator = projection.forward(Position(longitude: 0, latitude: 0)),
              let east = projection.forward(Position(longitude: 179.999, latitude: 0)) else { return false }
        return abs(pole.y - equator.y) > 2 * abs(east.x - equator.x)
    }

    /// Whether the projection sends the two sides of the antimeridian far apart.
    package static func isTorn(_ projection: Projection) -> Bool {
        for latitude in [0.0, 30, -30] {
            guard let east = projection.forward(Position(longitude: 179.999, latitude: latitude)),
                  let west = projection.forward(Position(longitude: -179.999, latitude: latitude)),
                  let a = projection.forward(Position(longitude: 0.001, latitude: latitude)),
                  let b = projection.forward(Position(longitude: -0.001, latitude: latitude)) else { continue }
            let seam = hypot(east.x - west.x, east.y - west.y), unit = hypot(a.x - b.x, a.y - b.y)
            if seam > 1000 * max(unit, 1e-300) { return true }
        }
        return false
    }

    /// The longitude given to the projection: within ±180 of the centre, ±180 kept as given.
    @inline(__always)
    package func longitude(_ longitude: Double) -> Double {
        guard let centre else { return normalizedLongitude(longitude) }
        return normalizedLongitude(longitude - centre)
    }

    /// Projects in place: longitudes (as given) in x, latitudes in y; `using` another
    /// projection object of the same CRS (each thread has its own).
    package func project(x: UnsafeMutablePointer<Double>, y: UnsafeMutablePointer<Double>, count: Int, using other: Projection? = nil) {
        for index in 0..<count {
            x[index] = longitude(x[index])
            y[index] = latitude(y[index])
        }
        (other ?? projection).forward(x: x, y: y, count: count)
    }

    package func project(_ position: Position) -> (x: Double, y: Double)? {
        projection.forward(Position(longitude: longitude(position.longitude), latitude: latitude(position.latitude)))
    }

    /// The latitude given to the projection: within the projection's area of use.
    @inline(__always)
    package func latitude(_ latitude: Double) -> Double { min(max(latitude, -latitudeLimit), latitudeLimit) }
}

/// Projected coordinates to pixels: a scale and the projected point at the top left corner.
package struct View {
    package let frame: Frame
    package let width: Int
    package let height: Int
    /// Pixels per projected unit.
    package let scale: Double
    package let left: Double
    package let top: Double

    @inline(__always)
    package func pixel(x: Double, y: Double) -> Pixel { Pixel((x - left) * scale, (top - y) * scale) }

    /// The view with its top left corner at (`left`, `top`) and `scale` pixels per unit: a map
    /// tile, whose bounds are exact.
    package init(frame: Frame, width: Int, height: Int, left: Double, top: Double, scale: Double) {
        self.frame = frame
        self.width = width
        self.height = height
        self.left = left
        self.top = top
        self.scale = scale
    }

    /// The view that shows the projected box, fitted inside the picture less `padding` on each
    /// side, keeping the projection's aspect, centred. A box of no size (one point) is shown
    /// 1 km wide, as far as the projection's units are metres.
    package init(frame: Frame, width: Int, height: Int, bounds: Bounds, padding: Double) {
        self.frame = frame
        self.width = width
        self.height = height
        let availableWidth = Double(width) - 2 * padding, availableHeight = Double(height) - 2 * padding
        var dx = bounds.maxX - bounds.minX, dy = bounds.maxY - bounds.minY
        if dx <= 0 && dy <= 0 { dx = 1000; dy = 1000 }
        let scaleX = dx > 0 ? availableWidth / dx : .infinity, scaleY = dy > 0 ? availableHeight / dy : .infinity
        scale = min(scaleX, scaleY)
        let centreX = (bounds.minX + bounds.maxX) / 2, centreY = (bounds.minY + bounds.maxY) / 2
        left = centreX - Double(width) / 2 / scale
        top = centreY + Double(height) / 2 / scale
    }
}

/// A projected bounding box being grown.
package struct Bounds {
    package var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
    package var isEmpty: Bool { minX > maxX }

    @inline(__always)
    package mutating func add(x: Double, y: Double) {
        guard x.isFinite && y.isFinite else { return }
        minX = min(minX, x); maxX = max(maxX, x)
        minY = min(minY, y); maxY = max(maxY, y)
    }

    package mutating func merge(_ other: Bounds) {
        minX = min(minX, other.minX); maxX = max(maxX, other.maxX)
        minY = min(minY, other.minY); maxY = max(maxY, other.maxY)
    }

    /// The projected extent of the region west...east (eastward, maybe across ±180), south...north,
    /// its edges densified.
    package static func ofRegion(west: Double, south: Double, east: Double, north: Double, frame: Frame, edgesOnly: Bool = false) -> Bounds {
        var bounds = Bounds()
        let width = east >= west ? east - west : east + 360 - west
        let steps = 256
        for i in 0...steps {
            let f = Double(i) / Double(steps)
            let longitude = west + f * width, latitude = south + f * (north - south)
            for position in [Position(longitude: longitude, latitude: south), Position(longitude: longitude, latitude: north),
                             Position(longitude: west, latitude: latitude), Position(longitude: west + width, latitude: latitude)] {
                if let p = frame.project(position) { bounds.add(x: p.x, y: p.y) }
            }
        }
        // Inside too: a projection may show the region's middle and not its edges (a globe).
        if edgesOnly { return bounds }
        // At least every degree: a globe's limb is then found to a few millionths of its radius.
        let columns = max(128, min(720, Int(width.rounded(.up)))), rows = max(128, min(360, Int((north - south).rounded(.up))))
        for i in 0...columns {
            for j in 0...rows {
                let position = Position(longitude: west + Double(i) / Double(columns) * width,
                                        latitude: south + Double(j) / Double(rows) * (north - south))
                if let p = frame.project(position) { bounds.add(x: p.x, y: p.y) }
            }
        }
        return bounds
    }
}

/// Which longitudes a set of shapes covers, in bins of a tenth of a degree, with the exact
/// extreme longitudes in each bin: enough to find the narrowest band of meridians that holds
/// every shape (across ±180 when that is narrower), in fixed memory.
/// What the fit's first pass gathers from the shapes: the meridians and parallels they cover
/// and, for a projection not torn at ±180, their projected extent (geodesic and rhumb edges
/// sampled every 100 km). One a thread, merged.
package struct ShapeExtent {
    package private(set) var cover = LongitudeCover()
    package private(set) var bounds = Bounds()
    package let frame: Frame
    package let model: EdgeModel
    /// Whether the bounds are wanted (not for torn projections: the cover fits those).
    package let projects: Bool
    private var xs: [Double] = [], ys: [Double] = []

    package init(frame: Frame, model: EdgeModel, projects: Bool) {
        self.frame = frame
        self.model = model
        self.projects = projects
    }

    package mutating func add(_ geometry: Geometry?, curved: Bool) {
        switch geometry {
        case nil: return
        case .point(let p): add([p], curved: curved, closed: false)
        case .multiPoint(let points): for p in points { add([p], curved: curved, closed: false) }
        case .lineString(let path): add(path, curved: curved, closed: false)
        case .multiLineString(let paths): for path in paths { add(path, curved: curved, closed: false) }
        case .polygon(let rings): if let outer = rings.first { add(outer, curved: curved, closed: true) }
        case .multiPolygon(let polygons): for rings in polygons { if let outer = rings.first { add(outer, curved: curved, closed: true) } }
        case .geometryCollection(let members): for member in members { add(member, curved: curved) }
        }
    }

    private mutating func add(_ path: Path, curved: Bool, closed: Bool) {
        guard !path.isEmpty else { return }
        xs.removeAll(keepingCapacity: true)
        ys.removeAll(keepingCapacity: true)
        var previous: Position?
        for position in path + (closed ? [path[0]] : []) {
            cover.add(position)
            if projects {
                xs.append(position.longitude)
                ys.append(position.latitude)
            }
            if let a = previous {
                cover.addEdge(a, position, latitudes: curved ? model.latitudeRange(ofEdgeFrom: a, to: position)
                              : min(a.latitude, position.latitude)...max(a.latitude, position.latitude))
                let length = curved && projects ? model.length(a, position) : 0
                if length > 100_000 {
                    let edge = model.edge(a, position), steps = min(256, Int(length / 100_000) + 1)
                    for step in 1..<steps {
                        let p = edge.position(atFraction: Double(step) / Double(steps))
                        xs.append(p.longitude)
                        ys.append(p.latitude)
                    }
                }
            }
            previous = position
        }
        guard projects else { return }
        let count = xs.count
        xs.withUnsafeMutableBufferPointer { x in
            ys.withUnsafeMutableBufferPointer { y in frame.project(x: x.baseAddress!, y: y.baseAddress!, count: count) }
        }
        for index in 0..<count { bounds.add(x: xs[index], y: ys[index]) }
    }

    package mutating func merge(_ other: ShapeExtent) {
        cover.merge(other.cover)
        bounds.merge(other.bounds)
    }
}

package struct LongitudeCover {
    package static let bins = 3600
    private var west = [Double](repeating: .infinity, count: bins)
    private var east = [Double](repeating: -.infinity, count: bins)
    private var covered = [Bool](repeating: false, count: bins)
    package private(set) var latitudes = (south: Double.infinity, north: -Double.infinity)

    package init() {}

    @inline(__always)
    package static func bin(_ longitude: Double) -> Int {
        min(bins - 1, max(0, Int((normalizedLongitude(longitude) + 180) * 10)))
    }

    package mutating func add(_ position: Position) {
        let longitude = normalizedLongitude(position.longitude)
        let bin = LongitudeCover.bin(longitude)
        covered[bin] = true
        west[bin] = min(west[bin], longitude)
        east[bin] = max(east[bin], longitude)
        latitudes.south = min(latitudes.south, position.latitude)
        latitudes.north = max(latitudes.north, position.latitude)
    }

    package mutating func merge(_ other: LongitudeCover) {
        for bin in 0..<LongitudeCover.bins where other.covered[bin] {
            covered[bin] = true
            west[bin] = min(west[bin], other.west[bin])
            east[bin] = max(east[bin], other.east[bin])
        }
        latitudes.south = min(latitudes.south, other.latitudes.south)
        latitudes.north = max(latitudes.north, other.latitudes.north)
    }

    /// An edge from `a` to `b` covers the longitudes between them the short way (every kind of
    /// edge is monotonic in longitude), and the latitudes `latitudes`.
    package mutating func addEdge(_ a: Position, _ b: Position, latitudes: ClosedRange<Double>) {
        let delta = longitudeDifference(a.longitude, b.longitude)
        let start = delta >= 0 ? a.longitude : b.longitude
        var bin = LongitudeCover.bin(start)
        let last = LongitudeCover.bin(start + abs(delta))
        while bin != last {
            covered[bin] = true
            bin = (bin + 1) % LongitudeCover.bins
        }
        covered[last] = true
        self.latitudes.south = min(self.latitudes.south, latitudes.lowerBound)
        self.latitudes.north = max(self.latitudes.north, latitudes.upperBound)
    }

    /// The band of meridians holding every shape, west to east (east < west when it spans ±180),
    /// or nil when there is nothing or no gap of a tenth of a degree anywhere.
    package var band: (west: Double, east: Double)? {
        guard covered.contains(true), covered.contains(false) else { return nil }
        // The longest run of uncovered bins, round the circle.
        var bestStart = 0, bestLength = 0, index = 0
        let n = LongitudeCover.bins
        let firstCovered = covered.firstIndex(of: true)!
        var runStart = -1, runLength = 0
        for step in 1...n {
            index = (firstCovered + step) % n
            if !covered[index] {
                if runStart < 0 { runStart = index; runLength = 0 }
                runLength += 1
                if runLength > bestLength { bestLength = runLength; bestStart = runStart }
            } else {
                runStart = -1
            }
        }
        let westBin = (bestStart + bestLength) % n, eastBin = (bestStart - 1 + n) % n
        // A bin an edge only passes through has no vertex: the band's ends always do.
        let westLongitude = west[westBin].isFinite ? west[westBin] : Double(westBin) / 10 - 180
        let eastLongitude = east[eastBin].isFinite ? east[eastBin] : Double(eastBin + 1) / 10 - 180
        return (westLongitude, eastLongitude)
    }
}
