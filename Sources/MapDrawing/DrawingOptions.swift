import CommandKit
import Drawing
import GeoCommandLine
import Geodesy
import GeodesyOptions
import Records
import Styles

/// The options that say how records are drawn, whatever the picture is: render's one picture and
/// tiles' pyramid take them from here, so that they parse, check and document them alike. The
/// group owns its parsing (`DrawingSettings(arguments)`) and the drawing it sets up
/// (`loadStamps`, `painter`).
package enum DrawingOptions {
    package static let geodesic = Flag("geodesic", help: "Draw every edge as its geodesic (rhumb line with --kind rhumb), not only those of records whose properties.geodesic is true.")
    package static let stamp = Option(custom: "stamp", valueName: "NAME=IMAGE.png", help: "Register the PNG image as the stamp NAME, for the styles sprite(NAME) and texture(NAME).", parse: parseStamp).repeatable()
    package static let graticule = Option(number: "graticule", valueName: "DEG", check: { $0 >= 0.01 && $0 <= 90 ? nil : "degrees from 0.01 to 90" },
                                          help: "Draw meridians and parallels every DEG degrees under the shapes.")
    package static let antialias = Option(choice: "antialias", of: Antialiasing.self, help: "PNG edges of what cairo draws (fills, markers, gradients, stamps, lines over 16 px): its best antialiasing, or its fast one (17 levels of coverage instead of 256). geo draws thinner lines itself, antialiased either way.")
        .defaulting(to: .good)
    /// render paints white by default (a picture to look at), tiles nothing (tiles lie over a
    /// base map): one option, two defaults.
    package static let whiteBackground = background(default: Colour(red: 255, green: 255, blue: 255), shown: "white")
    package static let clearBackground = background(default: Colour(red: 0, green: 0, blue: 0, alpha: 0), shown: "none")

    /// Every drawing option, with the background `background` (one of the two above).
    package static func options(background: DefaultedOption<Colour>) -> [any OptionDeclaration] {
        [geodesic, GeodesyOptions.kind, GeodesyOptions.ellps, GeodesyOptions.sphere, stamp, graticule, background, antialias]
    }

    private static func background(default colour: Colour, shown: String) -> DefaultedOption<Colour> {
        Option(custom: "background", valueName: "COLOR", suggestions: ["none", "white"],
               help: "The background colour, or none (transparent).", parse: parseBackground).defaulting(to: colour, shown: shown)
    }

    /// --bbox W,S,E,N in degrees (render's view, tiles' region).
    @Sendable package static func parseRegion(_ text: String) throws(UsageError) -> (west: Double, south: Double, east: Double, north: Double) {
        let parts: [Double?] = text.split(separator: ",", omittingEmptySubsequences: false).map { Double(String($0).trimmingSpaces()) }
        guard parts.count == 4, let west = parts[0], let south = parts[1], let east = parts[2], let north = parts[3],
              [west, south, east, north].allSatisfy(\.isFinite) else {
            throw UsageError("--bbox takes W,S,E,N in degrees (like -0.2,51.4,0.1,51.6), not '\(text)'")
        }
        guard -90...90 ~= south, -90...90 ~= north, south < north else {
            throw UsageError("--bbox \(text): latitudes must be within [-90, 90], south below north (W,S,E,N: longitude first)")
        }
        guard west != east else { throw UsageError("--bbox \(text): west and east are the same meridian") }
        return (west, south, east, north)
    }

    @Sendable static func parseStamp(_ text: String) throws(UsageError) -> (name: String, path: String) {
        guard let equals = text.firstIndex(of: "=") else { throw UsageError("--stamp takes NAME=IMAGE.png, not '\(text)'") }
        let name = String(text[..<equals]), path = String(text[text.index(after: equals)...])
        guard isStampName(name) else { throw UsageError("--stamp \(text): a stamp's NAME is 1 to 64 letters, digits, _ and -") }
        guard !path.isEmpty else { throw UsageError("--stamp \(text): no image file after '='") }
        return (name, path)
    }

    @Sendable static func parseBackground(_ text: String) throws(UsageError) -> Colour {
        if text.lowercased() == "none" { return Colour(red: 0, green: 0, blue: 0, alpha: 0) }
        guard let colour = Colour(text) else { throw UsageError("--background '\(text)' is not a colour: use a name, #RRGGBB[AA], rgba(R,G,B,A) or none") }
        return colour
    }
}

/// What the drawing options say, checked. Sendable by hand: built before any thread starts and
/// only read after.
package struct DrawingSettings: @unchecked Sendable {
    /// --geodesic: every edge drawn as its curve.
    package var allCurved = false
    package var model = EdgeModel(earth: .wgs84, kind: .geodesic)
    /// --stamp, by name (sorted, each name once).
    package var stamps: [(name: String, path: String)] = []
    package var graticule: Double?
    package var background = Colour(red: 255, green: 255, blue: 255)
    package var antialiasing = Antialiasing.good

    package init() {}

    package init(_ arguments: ParsedArguments, background: DefaultedOption<Colour>) throws(UsageError) {
        allCurved = arguments[DrawingOptions.geodesic]
        model = try GeodesyOptions.model(arguments)
        var byName: [String: String] = [:]
        for (name, path) in arguments.all(DrawingOptions.stamp) {
            if byName[name] != nil { throw UsageError("--stamp \(name) is given twice") }
            byName[name] = path
        }
        stamps = byName.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        graticule = arguments[DrawingOptions.graticule]
        self.background = arguments[background]
        antialiasing = arguments[DrawingOptions.antialias]
    }

    package var stampNames: Set<String> { Set(stamps.map(\.name)) }

    /// Reads every --stamp image (exit 66 when one cannot be read).
    package func loadStamps() throws(RunFailure) -> [(String, Stamp)] {
        var loaded: [(String, Stamp)] = []
        for (name, path) in stamps {
            do { loaded.append((name, try Stamp(png: path))) } catch {
                throw RunFailure("--stamp \(name): \(error.message)", status: .noInput)
            }
        }
        return loaded
    }

    /// A painter for `canvas` showing `view`, the stamps registered, the background and the
    /// graticule drawn.
    package func painter(on canvas: Canvas, view: View, stamps: [(String, Stamp)], pixelRatio: Double = 1) -> Painter {
        for (name, stamp) in stamps { canvas.register(stamp, as: name) }
        let painter = Painter(canvas: canvas, tracer: Tracer(view: view, model: model), allCurved: allCurved, pixelRatio: pixelRatio)
        if background.alpha > 0 { canvas.fillBackground(background) }
        if let graticule { painter.drawGraticule(every: graticule) }
        return painter
    }
}

/// Why a run drew nothing, for the line it prints (a blank result is never silent): "every
/// record was bad", "the input held no record to draw", or, with `records` features read,
/// `outside` ("lies within --bbox ...") or `otherwise` (each given "none of the N features").
package func blankReason(records: Int, allBad: Bool, outside: String?, otherwise: String) -> String {
    if records == 0 { return allBad ? "every record was bad" : "the input held no record to draw" }
    let features = "none of the \(count: records) feature\(records == 1 ? "" : "s")"
    return "\(features) \(outside ?? otherwise)"
}
