#if canImport(Glibc)
import Glibc
#endif
import CommandKit
import Drawing
import Geodesy
import MapDrawing
import GeoJSON
import Geometry
import Records
import Styles

/// What `geo render` does to make a picture: fit the view (a first pass unless --bbox), draw every record through
/// the streaming engine (which reports bad records), draw the records that wait for their
/// z-index, and put the picture in place.
final class PictureRenderer {
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
        let drawingSettings = settings.drawing
        let stamps = try drawingSettings.loadStamps()
        let view = try fitView()
        var info = stat()
        let existed = stream.output.map { stat($0, &info) == 0 } ?? false
        let target = try stream.output.map { path throws(RunFailure) in try WholeFileOutput(path) } ?? WholeFileOutput()
        let canvas = Canvas(format: settings.format, width: settings.width, height: settings.height, fd: target.fd,
                            antialiasing: drawingSettings.antialiasing, threads: settings.stream.jobs)
        let painter = drawingSettings.painter(on: canvas, view: view, stamps: stamps)
        let stampNames = drawingSettings.stampNames
        let drawer = Drawer(painter: painter, stamps: stampNames)
        let handler = PreparingHandler(input: settings.input, stamps: stampNames, frame: view.frame,
                                       projections: ProjectionPool(copying: view.frame.projection))
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
        if status == .dataError && drawer.records == 0, let path = target.path {
            // Nothing could be used: the picture there stays rather than become a blank one.
            target.discard()
            printError("geo render: every record was bad; '\(path)' \(existed ? "left as it was" : "not written")\n")
            return status
        }
        try target.commit()
        if !painter.inked { warnBlank(records: drawer.records, allBad: status == .dataError) }
        return status
    }

    /// A picture with none of the shapes in it is written (exit 0), but never silently.
    func warnBlank(records: Int, allBad: Bool) {
        let outside = settings.box.map { box in
            "lies within --bbox \(number: box.west),\(number: box.south),\(number: box.east),\(number: box.north) (W,S,E,N: longitude first)"
        }
        printError("geo render: the picture shows no shape: "
                   + blankReason(records: records, allBad: allBad, outside: outside, otherwise: "is shown by the projection") + "\n")
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
            for _ in 1..<jobs { frames.append(Frame(projection: projection.copy(), centre: nil)) }
        }
        let model = settings.drawing.model, input = settings.input, allCurved = settings.drawing.allCurved
        let stamps = settings.drawing.stampNames
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
}
