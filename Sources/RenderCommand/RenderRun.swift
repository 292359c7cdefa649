#if canImport(Glibc)
import Glibc
#endif
import CommandKit
import Drawing
import Geodesy
import GeoJSON
import Geometry
import Records
import Styles

/// One run of `geo render`: fit the view (a first pass unless --bbox), draw every record through
/// the streaming engine (which reports bad records), draw the records that wait for their
/// z-index, and put the picture in place.
final class RenderRun {
    let settings: RenderSettings

    init(_ settings: RenderSettings) { self.settings = settings }

    func run() throws(RunFailure) -> ExitCode {
        let stream = settings.stream
        if let collision = OverwriteGuard.collision(inputs: stream.inputs, output: stream.output, rejects: stream.rejects) {
            throw RunFailure("\(collision)\nSee 'geo render --help'.", status: .usage)
        }
        if stream.output == nil && settings.format != .svg && isatty(1) != 0 && !settings.outputAsked {
            throw RunFailure("a \(settings.format.rawValue.uppercased()) picture would garble the terminal: give -o FILE, "
                             + "or -o - to write it to standard output anyway\nSee 'geo render --help'.", status: .usage)
        }
        // Read twice (to fit the view, then to draw) unless --bbox fixes the view.
        if settings.box == nil {
            try InputFiles.keepForRereading(stream.inputs)
        } else {
            try InputFiles.check(stream.inputs)
        }
        var stamps: [(String, Stamp)] = []
        for (name, path) in settings.stamps {
            do { stamps.append((name, try Stamp(png: path))) } catch {
                throw RunFailure("--stamp \(name): \(error.message)", status: .noInput)
            }
        }
        let view = try fitView()
        let target = try stream.output.map { path throws(RunFailure) in try WholeFileOutput(path) } ?? WholeFileOutput()
        let canvas = Canvas(format: settings.format, width: settings.width, height: settings.height, fd: target.fd,
                            antialiasing: settings.antialiasing, threads: settings.stream.jobs)
        for (name, stamp) in stamps { canvas.register(stamp, as: name) }
        let painter = Painter(canvas: canvas, tracer: Tracer(view: view, model: settings.model), allCurved: settings.allCurved)
        if settings.background.alpha > 0 { canvas.fillBackground(settings.background) }
        if let step = settings.graticule { drawGraticule(step, painter) }

        let stampNames = Set(settings.stamps.map(\.name))
        let drawer = Drawer(painter: painter, stamps: stampNames)
        let handler = PreparingHandler(input: settings.input, stamps: stampNames, frame: view.frame, crs: settings.projection.crs)
        var drawing = stream
        drawing.consumer = { bytes in drawer.consume(bytes) }
        canvas.beginLayer()
        let status = StreamRunner(command: "render", options: drawing, handler: handler).run()
        let spools = drawer.spools
        guard status == .success || status == .dataError else {
            target.discard()
            return status
        }
        do {
            try canvas.endLayer { () throws(RunFailure) in try spools.draw(below: true, with: drawer) }
            try spools.draw(below: false, with: drawer)
            if let failure = spools.failure { throw failure }
            try canvas.finish()
        } catch let error as DrawingError {
            target.discard()
            if target.path == nil && error.message == String(cString: strerror(EPIPE)) { exit(ExitCode.brokenPipe.rawValue) }
            throw RunFailure("cannot write \(target.path.map { "'\($0)'" } ?? "standard output"): \(error.message)", status: .ioError)
        } catch {
            target.discard()
            throw error as! RunFailure
        }
        try target.commit()
        if !painter.inked { warnBlank(records: drawer.records, allBad: status == .dataError) }
        return status
    }

    /// A picture with none of the shapes in it is written (exit 0), but never silently.
    func warnBlank(records: Int, allBad: Bool) {
        var text = "geo render: the picture shows no shape: "
        if records == 0 && allBad {
            text += "every record was bad"
        } else if records == 0 {
            text += "the input held no record to draw"
        } else if let box = settings.box {
            text += "none of the \(count: records) feature\(records == 1 ? "" : "s") lies within --bbox "
                + "\(number: box.west),\(number: box.south),\(number: box.east),\(number: box.north) (W,S,E,N: longitude first)"
        } else {
            text += "the projection shows none of the \(count: records) feature\(records == 1 ? "" : "s")"
        }
        printError(text + "\n")
    }

    // MARK: The view

    /// The view: --bbox's region, or every shape's extent (a first pass over the input).
    func fitView() throws(RunFailure) -> View {
        let projection = settings.projection!
        if let box = settings.box {
            let west = normalizedLongitude(box.west), east = normalizedLongitude(box.east)
            let crossing = east < west
            let frame = Frame(projection: projection, centre: crossing ? normalizedLongitude(west + (east + 360 - west) / 2) : nil)
            let bounds = Bounds.ofRegion(west: west, south: box.south, east: east, north: box.north, frame: frame)
            guard !bounds.isEmpty else { throw RunFailure("--bbox: the projection shows nothing of that region", status: .usage) }
            return View(frame: frame, width: settings.width, height: settings.height, bounds: bounds, padding: 0)
        }
        let flat = Frame(projection: projection, centre: nil)
        // A projection torn at ±180 (Web Mercator, cylindrical ones) is fitted to the box of
        // meridians and parallels the shapes cover (exact for cylindrical projections, where x
        // follows the longitude and y the latitude): nothing needs projecting in this pass.
        let boxOnly = flat.torn
        // The pass runs on --jobs threads, each with its own extent (and PROJ object, if it
        // projects), merged at the end: the extent does not depend on the order.
        let jobs = max(1, settings.stream.jobs)
        var frames = [flat]
        if !boxOnly {
            for _ in 1..<jobs {
                do { frames.append(Frame(projection: try Projection(crs: projection.crs), centre: nil)) } catch {
                    throw RunFailure("--projection: \(error.message)", status: .usage)
                }
            }
        }
        let model = settings.model, input = settings.input, allCurved = settings.allCurved
        let stamps = Set(settings.stamps.map(\.name))
        var extent = ShapeExtent(frame: flat, model: model, projects: !boxOnly)
        for path in settings.stream.inputs {
            var next = 0
            let parts = try foldRecordsConcurrently(in: path, readsJSON: input.readsJSON, jobs: jobs, makeState: { () -> ShapeExtent in
                defer { next += 1 }
                return ShapeExtent(frame: frames[next % frames.count], model: model, projects: !boxOnly)
            }) { extent, record in
                try? input.readFeatures(record) { feature in
                    let style = try FeatureStyle(feature, in: record, stamps: stamps)
                    extent.add(feature.geometry, curved: allCurved || style.geodesic)
                }
            }
            for part in parts { extent.merge(part) }
        }
        let cover = extent.cover
        var bounds = extent.bounds
        let padding = settings.padding
        if boxOnly, let band = cover.band {
            // Across the antimeridian: the projection about the band's middle meridian.
            let crossing = band.east < band.west
            let frame = crossing ? Frame(projection: projection, centre: normalizedLongitude(band.west + (band.east + 360 - band.west) / 2)) : flat
            let region = Bounds.ofRegion(west: band.west, south: cover.latitudes.south, east: band.east, north: cover.latitudes.north,
                                         frame: frame, edgesOnly: true)
            if !region.isEmpty { return View(frame: frame, width: settings.width, height: settings.height, bounds: region, padding: padding) }
        } else if boxOnly, cover.latitudes.south <= cover.latitudes.north {
            // Every longitude: the world, between the shapes' parallels.
            bounds = Bounds.ofRegion(west: -180, south: cover.latitudes.south, east: 180, north: cover.latitudes.north, frame: flat, edgesOnly: true)
        }
        if bounds.isEmpty {
            // Nothing to fit: the world as far as the projection shows it.
            bounds = Bounds.ofRegion(west: -180, south: -85, east: 180, north: 85, frame: flat)
        }
        return View(frame: flat, width: settings.width, height: settings.height, bounds: bounds, padding: padding)
    }

    // MARK: The graticule

    func drawGraticule(_ step: Double, _ painter: Painter) {
        let frame = painter.tracer.frame
        let centre = frame.centre ?? 0
        let colour = Colour(red: 0xBB, green: 0xBB, blue: 0xBB)
        var runs: [Run] = []
        var longitude = (-180 / step).rounded(.up) * step
        while longitude < 180 {
            runs += painter.tracer.traceGraticuleLine(from: Position(longitude: longitude, latitude: -89.9),
                                                      to: Position(longitude: longitude, latitude: 89.9))
            longitude += step
        }
        var latitude = (-90 / step).rounded(.down) * step + step
        while latitude < 90 {
            runs += painter.tracer.traceGraticuleLine(from: Position(longitude: centre - 180, latitude: latitude),
                                                      to: Position(longitude: centre + 180, latitude: latitude))
            latitude += step
        }
        for run in runs { painter.canvas.stroke(run.points, colour: colour, width: 1) }
    }
}

func reason(_ code: Int32 = errno) -> String { String(cString: strerror(code)) }

/// What the --jobs workers do with each record: read it and its style (a bad one is reported
/// like any bad record), and project every vertex (the costly part), into the display list the
/// drawing thread draws in input order.
final class PreparingHandler: RecordHandler, @unchecked Sendable {
    let input: PathInputFormat
    let stamps: Set<String>
    let frame: Frame
    let projections: ProjectionPool

    init(input: PathInputFormat, stamps: Set<String>, frame: Frame, crs: String) {
        self.input = input
        self.stamps = stamps
        self.frame = frame
        projections = ProjectionPool(crs: crs)
    }

    var readsJSON: Bool { input.readsJSON }
    func hint(for record: UnsafeBufferPointer<UInt8>) -> String? { input.hint(for: record) }

    func handle(_ record: UnsafeBufferPointer<UInt8>, into output: RecordWriter) throws {
        // Every feature of the record is read before any is drawn: a bad one rejects the record
        // (a collection on one line is then tried feature by feature) without half drawing it.
        var features: [Feature] = []
        try input.readFeatures(record) { feature in
            _ = try FeatureStyle(feature, in: record, stamps: stamps)
            features.append(feature)
        }
        let projection = projections.borrow()
        defer { projections.giveBack(projection) }
        var scratch: [Double] = []
        for feature in features {
            DisplayList.write(properties: feature.propertiesBytes.map { UnsafeBufferPointer(rebasing: record[$0]) },
                              geometry: feature.geometry, frame: frame, projection: projection, to: output.buffer, scratch: &scratch)
        }
    }
}

/// One projection object per worker thread at a time (a PROJ context is not shared).
final class ProjectionPool: @unchecked Sendable {
    let crs: String
    private var free: [Projection] = []
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    init(crs: String) {
        self.crs = crs
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func borrow() -> Projection {
        pthread_mutex_lock(mutex)
        let projection = free.popLast()
        pthread_mutex_unlock(mutex)
        // The CRS was checked when the options were read: it makes a projection again.
        return projection ?? (try! Projection(crs: crs))
    }

    func giveBack(_ projection: Projection) {
        pthread_mutex_lock(mutex)
        free.append(projection)
        pthread_mutex_unlock(mutex)
    }
}

/// The drawing thread: draws each prepared feature as it comes, in input order, or keeps it
/// for later when its z-index is not 0.
final class Drawer: @unchecked Sendable {
    let painter: Painter
    let stamps: Set<String>
    let spools = LayerSpools()
    /// Features read and prepared, drawn now or kept for their z-index.
    private(set) var records = 0

    init(painter: Painter, stamps: Set<String>) {
        self.painter = painter
        self.stamps = stamps
    }

    func consume(_ bytes: UnsafeBufferPointer<UInt8>) {
        DisplayList.forEachFeature(bytes) { whole, properties, shape in
            records += 1
            // The workers read this style already: it cannot fail here.
            let style = (try? FeatureStyle(properties: properties, stamps: stamps)) ?? FeatureStyle()
            if style.zIndex == 0 {
                painter.draw(shape, style: style)
            } else {
                spools.keep(whole, z: style.zIndex)
            }
        }
    }

    /// Draws a feature kept in a spool.
    func redraw(_ bytes: UnsafeBufferPointer<UInt8>) {
        DisplayList.forEachFeature(bytes) { _, properties, shape in
            painter.draw(shape, style: (try? FeatureStyle(properties: properties, stamps: stamps)) ?? FeatureStyle())
        }
    }
}

/// Records whose z-index is not 0, kept in temporary files until their turn: one file per
/// z-index (the first 256 values), the rest in one more file read once per value it holds.
/// Memory holds the z-index values, never the records.
final class LayerSpools {
    static let maximumFiles = 256
    private var files: [Double: Int32] = [:]
    private var overflow: Int32 = -1
    private var overflowValues: Set<Double> = []
    private(set) var failure: RunFailure?

    func keep(_ record: UnsafeBufferPointer<UInt8>, z: Double) {
        guard failure == nil else { return }
        do throws(RunFailure) {
            var fd: Int32
            if let known = files[z] {
                fd = known
            } else if files.count < LayerSpools.maximumFiles {
                fd = try temporaryFile(purpose: "keep records until their z-index")
                files[z] = fd
            } else {
                if overflow < 0 { overflow = try temporaryFile(purpose: "keep records until their z-index") }
                fd = overflow
                overflowValues.insert(z)
            }
            var header: (Double, UInt32, UInt32) = (z, 0, UInt32(record.count))
            try withUnsafeBytes(of: &header) { bytes throws(RunFailure) in try writeAll(fd, UnsafeRawBufferPointer(rebasing: bytes[0..<16])) }
            try writeAll(fd, UnsafeRawBufferPointer(record))
        } catch {
            failure = error
        }
    }

    private func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(RunFailure) {
        var written = 0
        while written < bytes.count {
            let count = write(fd, bytes.baseAddress! + written, bytes.count - written)
            if count < 0 {
                if errno == EINTR { continue }
                throw RunFailure("cannot keep records in a temporary file: \(reason())", status: .ioError)
            }
            written += count
        }
    }

    /// Draws the kept records below 0 (`below`) or above it, by z-index, then input order.
    func draw(below: Bool, with drawer: Drawer) throws(RunFailure) {
        let values = (Set(files.keys).union(overflowValues)).filter { below ? $0 < 0 : $0 > 0 }.sorted()
        for z in values {
            try replay(files[z] ?? overflow, z: z, with: drawer)
        }
    }

    private func replay(_ fd: Int32, z: Double, with drawer: Drawer) throws(RunFailure) {
        lseek(fd, 0, SEEK_SET)
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var header = [UInt8](repeating: 0, count: 16)
        while try readExactly(fd, &header, 16) {
            let (value, length) = header.withUnsafeBytes {
                ($0.loadUnaligned(fromByteOffset: 0, as: Double.self), $0.loadUnaligned(fromByteOffset: 12, as: UInt32.self))
            }
            if buffer.count < Int(length) { buffer = [UInt8](repeating: 0, count: Int(length)) }
            guard try readExactly(fd, &buffer, Int(length)) else { break }
            if value == z {
                buffer.withUnsafeBufferPointer { drawer.redraw(UnsafeBufferPointer(rebasing: $0[0..<Int(length)])) }
            }
        }
    }

    private func readExactly(_ fd: Int32, _ buffer: inout [UInt8], _ count: Int) throws(RunFailure) -> Bool {
        var got = 0
        while got < count {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + got, count - got) }
            if n < 0 {
                if errno == EINTR { continue }
                throw RunFailure("cannot read records back from a temporary file: \(reason())", status: .ioError)
            }
            if n == 0 { return false }
            got += n
        }
        return true
    }
}
