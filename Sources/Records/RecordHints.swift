/// What a user probably meant when a record fails, told once with the first such failure: the
/// mistakes people make in their first minutes (a gzip file, polylines given to a GeoJSON
/// command, JSON given to decode).
public enum RecordHints {
    /// A hint from the record's bytes alone. `readsJSON`: the command expected JSON;
    /// `pathFormats`: it takes `--from polyline` and `--from latlng`.
    public static func hint(for record: UnsafeBufferPointer<UInt8>, readsJSON: Bool, pathFormats: Bool) -> String? {
        guard let first = record.first else { return nil }
        if record.count >= 2 && first == 0x1F && record[1] == 0x8B {
            return "this looks like gzip: decompress it first (zcat FILE | geo ...)"
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
