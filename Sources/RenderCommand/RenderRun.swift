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
        for path in settings.inputs where path != "-" {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw RunFailure("cannot open '\(path)': \(reason())", status: .noInput) }
            var info = stat()
            let isDirectory = fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
            close(fd)
            if isDirectory { throw RunFailure("cannot read '\(path)': \(String(cString: strerror(EISDIR)))", status: .noInput) }
        }
        var stamps: [(String, Stamp)] = []
        for (name, path) in settings.stamps {
            do { stamps.append((name, try Stamp(png: path))) } catch {
                throw RunFailure("--stamp \(name): \(error.message)", status: .noInput)
            }
        }
        let view = try fitView()
        let target = try OutputFile(settings.output, format: settings.format)
        let canvas = Canvas(format: settings.format, width: settings.width, height: settings.height, fd: target.fd,
                            antialiasing: settings.antialiasing, threads: settings.stream.jobs)
        for (name, stamp) in stamps { canvas.register(stamp, as: name) }
        let painter = Painter(canvas: canvas, tracer: Tracer(view: view, model: settings.model), allCurved: settings.allCurved)
        if settings.background.alpha > 0 { canvas.fillBackground(settings.background) }
        if let step = settings.graticule { drawGraticule(step, painter) }

        let stampNames = Set(settings.stamps.map(\.name))
        let drawer = Drawer(painter: painter, stamps: stampNames)
        let handler = PreparingHandler(input: settings.input, stamps: stampNames, frame: view.frame, crs: settings.projection.crs)
        var stream = settings.stream
        stream.consumer = { bytes in drawer.consume(bytes) }
        canvas.beginLayer()
        let status = StreamRunner(command: "render", options: stream, handler: handler).run()
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
            throw target.writeFailure(error.message)
        } catch {
            target.discard()
            throw error as! RunFailure
        }
        try target.commit()
        return status
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
        try spoolStandardInput()
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
        for path in settings.inputs {
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
            if path == "-" { lseek(0, 0, SEEK_SET) }
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

    /// Standard input is read twice: it is copied first to a temporary file (removed as soon as
    /// it is made, so nothing is left behind whatever happens), which then stands in for it.
    func spoolStandardInput() throws(RunFailure) {
        guard settings.inputs.contains("-") else { return }
        let spool = try makeTemporaryFile()
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: 1 << 20)
        defer { buffer.deallocate() }
        while true {
            let count = read(0, buffer, 1 << 20)
            if count < 0 {
                if errno == EINTR { continue }
                throw RunFailure("error reading '<stdin>': \(reason())", status: .ioError)
            }
            if count == 0 { break }
            var written = 0
            while written < count {
                let n = write(spool, buffer + written, count - written)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw RunFailure("cannot keep standard input in a temporary file: \(reason())", status: .ioError)
                }
                written += n
            }
        }
        lseek(spool, 0, SEEK_SET)
        dup2(spool, 0)
        close(spool)
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

/// A temporary file, removed from its directory as soon as it is made: it lives while geo holds
/// it open, and goes away however geo ends.
func makeTemporaryFile() throws(RunFailure) -> Int32 {
    let directory = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    var template = Array("\(directory)/geo-render-XXXXXX".utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard fd >= 0 else { throw RunFailure("cannot make a temporary file in \(directory): \(reason())", status: .cannotCreate) }
    template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
    return fd
}

/// Where the picture goes: standard output, or a temporary file beside -o FILE, renamed to FILE
/// when the picture is whole (and removed otherwise, also when a signal ends geo).
final class OutputFile {
    let path: String?
    let temporary: String?
    let fd: Int32

    init(_ path: String?, format: ImageFormat) throws(RunFailure) {
        self.path = path
        guard let path else {
            temporary = nil
            fd = 1
            return
        }
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        var template = Array("\(directory).\(name).geo-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw RunFailure("cannot create '\(path)': \(reason())", status: .cannotCreate) }
        let temporary = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        TemporaryFiles.add(temporary)
        // mkstemp makes the file private; the picture gets what a new file gets.
        let mask = umask(0)
        umask(mask)
        fchmod(fd, 0o666 & ~mask)
        self.temporary = temporary
        self.fd = fd
    }

    func writeFailure(_ message: String) -> RunFailure {
        if path == nil && message == String(cString: strerror(EPIPE)) { exit(ExitCode.brokenPipe.rawValue) }
        return RunFailure("cannot write \(path.map { "'\($0)'" } ?? "standard output"): \(message)", status: .ioError)
    }

    /// Removes the temporary file.
    func discard() {
        guard let temporary else { return }
        close(fd)
        unlink(temporary)
        TemporaryFiles.remove(temporary)
    }

    /// Puts the finished picture in place.
    func commit() throws(RunFailure) {
        guard let path, let temporary else { return }
        if fsync(fd) != 0 && errno != EINVAL || close(fd) != 0 {
            let failure = reason()
            unlink(temporary)
            TemporaryFiles.remove(temporary)
            throw RunFailure("cannot write '\(path)': \(failure)", status: .ioError)
        }
        if rename(temporary, path) != 0 {
            let failure = reason()
            unlink(temporary)
            TemporaryFiles.remove(temporary)
            throw RunFailure("cannot create '\(path)': \(failure)", status: .cannotCreate)
        }
        TemporaryFiles.remove(temporary)
    }
}

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

    init(painter: Painter, stamps: Set<String>) {
        self.painter = painter
        self.stamps = stamps
    }

    func consume(_ bytes: UnsafeBufferPointer<UInt8>) {
        DisplayList.forEachFeature(bytes) { whole, properties, shape in
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
                fd = try makeTemporaryFile()
                files[z] = fd
            } else {
                if overflow < 0 { overflow = try makeTemporaryFile() }
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
