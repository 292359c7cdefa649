/// What a user probably meant when a record fails, told once with the first such failure: the
/// mistakes people make in their first minutes (a gzip file, polylines given to a GeoJSON
/// command, JSON given to decode). Hints that take more than the record's bytes to tell (a
/// polyline's precision) come with the error instead, as `BadRecord.hint`.
public enum RecordHints {
    /// A hint from the record's bytes alone. `readsJSON`: the command expected JSON;
    /// `pathFormats`: it takes `--from polyline` and `--from latlng`.
    public static func hint(for record: UnsafeBufferPointer<UInt8>, readsJSON: Bool, pathFormats: Bool) -> String? {
        guard let first = record.first else { return nil }
        if record.count >= 2 && first == 0x1F && record[1] == 0x8B {
            return "this looks like gzip: decompress it first (zcat FILE | geo ...)"
        }
        if !record.contains(0) && !isUTF8(record) && looksLikeLatin1(record) {
            return "not UTF-8 (Latin-1?): convert it first (iconv -f latin1 -t utf-8 FILE | geo ...)"
        }
        if record.contains(0) || !isUTF8(record) {
            return "this looks like a binary file, not text (is it compressed, or a shapefile? ogr2ogr -f GeoJSONSeq converts)"
        }
        guard readsJSON, first != UInt8(ascii: "{"), first != UInt8(ascii: "[") else { return nil }
        if pathFormats && record.allSatisfy({ (63...126).contains($0) }) {
            return "is it an encoded polyline? use --from polyline"
        }
        if pathFormats && record.allSatisfy({ ($0 >= 48 && $0 <= 57) || ", .-+\t".utf8.contains($0) }) && record.contains(UInt8(ascii: ",")) {
            return "is it a path of LAT,LNG pairs? use --from latlng"
        }
        return nil
    }

    /// A hint for a record of a FeatureCollection whose `crs` member names `crs`: nil for
    /// WGS84's longitude and latitude (CRS84, EPSG:4326), what geo reads.
    public static func hint(forCRS crs: String) -> String? {
        let name = crs.uppercased()
        guard !name.hasSuffix("CRS84"), !name.hasSuffix(":4326") else { return nil }
        return "the FeatureCollection's crs is \(crs), but geo reads longitude and latitude (WGS84): "
            + "reproject it first (ogr2ogr -t_srs EPSG:4326 -f GeoJSONSeq OUT.geojsonl FILE)"
    }

    /// Text in a one-byte encoding: printable ASCII, tabs and line ends, and bytes from 0x80 up
    /// (Latin-1's letters, Windows-1252's quotes), no other control bytes.
    static func looksLikeLatin1(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.allSatisfy { $0 >= 0x20 && $0 != 0x7F || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
    }

    static func isUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var decoder = UTF8()
        var iterator = bytes.makeIterator()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }
}
