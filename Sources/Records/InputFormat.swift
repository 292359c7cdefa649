/// What an input is, told by its first bytes (its magic number), never by its name: text to
/// read records from, gzip to decompress first, or a format geo does not read, named with the
/// ogr2ogr command that converts it. People hand geo what they have (a GPX track, a GeoPackage,
/// a zipped shapefile); one message saying so is worth more than a thousand lines of JSON errors.
enum InputFormat: Equatable {
    case text
    case gzip
    /// Another format: what to tell the user, once, before the file is skipped.
    case other(String)

    /// The format of an input that begins with `start`, or nil when `start` could still begin
    /// a recognised format and more bytes are needed (never at the end of the input). `path` is
    /// the input as named on the command line (`-`: standard input), for the fix.
    static func recognise(_ start: UnsafeBufferPointer<UInt8>, atEnd: Bool, path: String) -> InputFormat? {
        var undecided = false
        for signature in signatures {
            if start.count >= signature.magic.count {
                if matches(start, signature.magic) {
                    return signature.format(start).map { .other(message($0, path: path)) } ?? .gzip
                }
            } else if matches(start, signature.magic.prefix(start.count)) {
                undecided = true
            }
        }
        if undecided && !atEnd { return nil }
        if let xml = xml(start) { return .other(message(xml, path: path)) }
        if isBinary(start) { return .other(message(.binary, path: path)) }
        return .text
    }

    /// A format geo does not read, and the layer ogr2ogr should convert (nil: all of them).
    struct Foreign: Sendable {
        var name: String
        var layer: String? = nil
        /// The ogr2ogr path: `/vsizip/FILE` for a ZIP of files.
        var zipped = false
        /// GDAL reads it from standard input (`/vsistdin/`); a ZIP or a shapefile it cannot.
        var streams = true
        static let binary = Foreign(name: "a binary file (compressed, or in another format?)")
    }

    private static func message(_ format: Foreign, path: String) -> String {
        let saved = path == "-" && !format.streams
        let file = path == "-" ? (saved ? "FILE" : "/vsistdin/") : shellWord(path)
        let command = ["ogr2ogr -f GeoJSONSeq /vsistdout/", (format.zipped ? "/vsizip/" : "") + file, format.layer]
            .compactMap { $0 }.joined(separator: " ")
        let fix = saved ? "save it as FILE and convert that" : "convert it first"
        return "\(format.name), not GeoJSON text: \(fix) (\(command) | geo ...); the file is skipped"
    }

    /// A magic number: its bytes (nil: any byte), and the format it tells (nil: gzip).
    private struct Signature: Sendable {
        var magic: [UInt8?]
        var format: @Sendable (UnsafeBufferPointer<UInt8>) -> Foreign?
    }

    private static let signatures: [Signature] = [
        Signature(magic: [0x1F, 0x8B]) { _ in nil },
        Signature(magic: bytes("PK\u{3}\u{4}")) { start in
            // A KMZ's first file is its KML; anything else is most often a zipped shapefile.
            isKMZ(start) ? Foreign(name: "a KMZ file (zipped KML)", streams: false)
                : Foreign(name: "a ZIP archive (a zipped shapefile?)", zipped: true, streams: false)
        },
        Signature(magic: bytes("SQLite format 3\u{0}")) { start in
            // The application id at byte 68 (big-endian) tells a GeoPackage and an MBTiles file.
            let id = start.count >= 72 ? String(decoding: start[68..<72], as: UTF8.self) : ""
            let name = ["GPKG", "GP10", "GP11"].contains(id) ? "a GeoPackage (SQLite)"
                : id == "MPBX" ? "an MBTiles file (SQLite)" : "an SQLite database (a GeoPackage? MBTiles?)"
            return Foreign(name: name)
        },
        // A 4-byte big-endian length, then the first BlobHeader: field 1, 9 bytes, "OSMHeader".
        Signature(magic: [0, 0, nil, nil, 0x0A, 0x09] + bytes("OSMHeader")) { _ in Foreign(name: "an OpenStreetMap PBF file") },
        // The shapefile's file code, 9994 big-endian.
        Signature(magic: [0x00, 0x00, 0x27, 0x0A]) { _ in Foreign(name: "a shapefile (.shp)", streams: false) },
        Signature(magic: bytes("fgb\u{3}")) { _ in Foreign(name: "a FlatGeobuf file") },
        Signature(magic: bytes("PAR1")) { _ in Foreign(name: "a Parquet file (GeoParquet?)") },
    ]

    private static func bytes(_ text: String) -> [UInt8?] { text.utf8.map { $0 } }

    private static func matches<Magic: Collection>(_ start: UnsafeBufferPointer<UInt8>, _ magic: Magic) -> Bool where Magic.Element == UInt8? {
        zip(start, magic).allSatisfy { byte, expected in expected.map { $0 == byte } ?? true }
    }

    /// A ZIP whose first entry (its local header: the name's length at byte 26, the name at 30)
    /// is a `.kml` file.
    private static func isKMZ(_ start: UnsafeBufferPointer<UInt8>) -> Bool {
        guard start.count >= 30 else { return false }
        let length = Int(start[26]) | Int(start[27]) << 8
        guard start.count >= 30 + length else { return false }
        return String(decoding: start[30..<(30 + length)], as: UTF8.self).lowercased().hasSuffix(".kml")
    }

    /// XML (after a byte order mark and white space, a `<`): GPX and KML by their root element.
    private static func xml(_ start: UnsafeBufferPointer<UInt8>) -> Foreign? {
        var index = start.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while index < start.count, [0x20, 0x09, 0x0A, 0x0D].contains(start[index]) { index += 1 }
        guard index < start.count, start[index] == UInt8(ascii: "<") else { return nil }
        let text = String(decoding: start[index...], as: UTF8.self)
        if text.contains("<gpx") { return Foreign(name: "a GPX file (XML)", layer: "tracks") }
        if text.contains("<kml") { return Foreign(name: "a KML file (XML)") }
        return Foreign(name: "an XML file (GML? GPX? KML?)")
    }

    /// Control bytes that no text has (NUL, and the others but tab, line ends, form feed,
    /// escape and RS), a few of them in the first kilobyte of a file that does not begin as
    /// JSON records do: a binary file. Stray bytes in records are those records' problem, not
    /// the file's: its good records still come out.
    private static func isBinary(_ start: UnsafeBufferPointer<UInt8>) -> Bool {
        var first = start.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while first < start.count, [0x20, 0x09, 0x0A, 0x0D].contains(start[first]) { first += 1 }
        if first < start.count, [UInt8(ascii: "{"), UInt8(ascii: "["), recordSeparator].contains(start[first]) { return false }
        var controls = 0
        for byte in start.prefix(1024) where byte < 0x20 && ![0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x1B, 0x1E].contains(byte) {
            controls += 1
            if controls == 4 { return true }
        }
        return false
    }

    /// `path` as one word for a shell: as it is when it is plain, else in single quotes.
    private static func shellWord(_ path: String) -> String {
        let plain = !path.isEmpty && path.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || "/._-+,=:@%".utf8.contains(byte)
        }
        return plain ? path : "'" + path.map { $0 == "'" ? "'\\''" : String($0) }.joined() + "'"
    }
}
