/// Finds the records in JSON texts that span lines: the usual GeoJSON file on disk is one
/// pretty-printed FeatureCollection (`ogr2ogr -f GeoJSON`, QGIS, geojson.io, `geo --collection`).
/// Each element of a top-level object's `features` array is a record of its own, found while the
/// bytes stream past, so a collection of any size is read in constant memory. Any other JSON text
/// (a Feature, a bare geometry) is one record; texts may follow one another (`jq .` output).
///
/// Only structure is tracked here (brackets, strings, the top-level keys `features` and `type`);
/// whether a record is valid JSON and GeoJSON is for the record reader to say, so that a bad
/// feature is reported as that feature, with the line where it starts.
struct DocumentSplitter {
    enum Event {
        /// A whole record: the bytes at `range` (offsets count every byte scanned), from `line`;
        /// `feature` is its index in a FeatureCollection's `features`, `crs` the name in the
        /// collection's `crs` member, when it has one.
        case record(Range<Int>, line: Int, feature: Int?, crs: String? = nil)
        /// What cannot be a record: the input ended inside a text, or a document is malformed.
        case problem(Range<Int>, line: Int, feature: Int?, message: String)
    }

    /// Bytes scanned so far, and the 1-based line the next byte is on.
    private(set) var offset = 0
    private(set) var line = 1

    private var depth = 0
    private var inString = false
    private var escaped = false
    /// The open top-level text, unless it has turned out to be a FeatureCollection.
    private var top: (start: Int, line: Int)?
    private var topIsObject = false
    /// Garbage between texts (a stray scalar or bracket): a record to the end of its line.
    private var junk: (start: Int, line: Int)?

    // Keys of the top-level object, to find "features" and "type".
    private var expectingKey = false
    private var key: [UInt8] = []
    private var capturingKey = false
    private var lastKey: [UInt8] = []
    private var typeValue: [UInt8]?
    private var capturingType = false
    // The top-level "crs" member (GeoJSON 2008; ogr2ogr writes it for a layer not in WGS84):
    // its last string is the name in {"type": "name", "properties": {"name": N}}.
    private var inCRS = false
    private var capturingCRS = false
    private var crsName: [UInt8] = []
    private var crs: String?

    // Inside `features`: elements at depth 2 are records.
    private var isCollection = false
    private var inFeatures = false
    private var collectionLine = 0
    private var featureIndex = 0
    private var element: (start: Int, line: Int, scalar: Bool)?

    /// The earliest offset whose bytes an event may still refer to; bytes before it can go.
    var keepFrom: Int? {
        if let element { return element.start }
        if let junk { return junk.start }
        if let top, !isCollection { return top.start }
        return nil
    }

    /// Scans the next bytes of the input.
    mutating func scan(_ bytes: UnsafeBufferPointer<UInt8>, _ emit: (Event) -> Void) {
        guard let base = bytes.baseAddress else { return }
        var index = 0
        let count = bytes.count
        while index < count {
            let byte = base[index]
            let at = offset + index
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                    endString()
                } else if capturingKey || capturingType || capturingCRS {
                    if capturingKey && key.count < 16 { key.append(byte) }
                    if capturingType && typeValue!.count < 32 { typeValue!.append(byte) }
                    if capturingCRS && crsName.count < 128 { crsName.append(byte) }
                }
                if byte == 0x0A { line += 1 }
                index += 1
                // The plain run of a string that nothing captures is skipped quickly.
                if inString && !escaped && !capturingKey && !capturingType && !capturingCRS {
                    while index < count, base[index] != UInt8(ascii: "\""), base[index] != UInt8(ascii: "\\"),
                          base[index] != 0x0A { index += 1 }
                }
                continue
            }
            if junk != nil {
                if byte == 0x0A {
                    emit(.record(junk!.start..<at, line: junk!.line, feature: nil))
                    junk = nil
                    line += 1
                }
                index += 1
                continue
            }
            switch byte {
            case 0x0A:
                line += 1
                endScalarElement(at, emit)
            case 0x20, 0x09, 0x0D:
                endScalarElement(at, emit)
            case UInt8(ascii: "\""):
                startValue(at, isBracket: false)
                if depth == 0 { junk = (at, line) } else {
                    inString = true
                    if depth == 1 && topIsObject && expectingKey {
                        capturingKey = true
                        key.removeAll(keepingCapacity: true)
                    } else if depth == 1 && topIsObject && lastKey == Array("type".utf8) && typeValue == nil {
                        capturingType = true
                        typeValue = []
                    } else if inCRS {
                        capturingCRS = true
                        crsName.removeAll(keepingCapacity: true)
                    }
                }
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                if depth == 0 {
                    top = (at, line)
                    topIsObject = byte == UInt8(ascii: "{")
                    expectingKey = topIsObject
                } else if depth == 1 && topIsObject && byte == UInt8(ascii: "[") && lastKey == Array("features".utf8)
                            && !isCollection {
                    // The top-level object is a FeatureCollection: its other members are not needed.
                    isCollection = true
                    inFeatures = true
                    collectionLine = top!.line
                } else {
                    if depth == 1 && topIsObject && lastKey == Array("crs".utf8) { inCRS = true }
                    startValue(at, isBracket: true)
                }
                lastKey = depth == 1 ? [] : lastKey
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard depth > 0 else { junk = (at, line); break }
                depth -= 1
                if depth == 1 && inCRS {
                    inCRS = false
                    crs = String(decoding: crsName, as: UTF8.self)
                }
                if depth == 2 && inFeatures, let open = element {
                    emit(.record(open.start..<(at + 1), line: open.line, feature: featureIndex, crs: crs))
                    element = nil
                    featureIndex += 1
                } else if depth == 2 && inFeatures {
                    endScalarElement(at, emit)
                } else if depth == 1 && inFeatures {
                    endScalarElement(at, emit)
                    inFeatures = false
                } else if depth == 0 {
                    endTop(at + 1, emit)
                }
            case UInt8(ascii: ","):
                endScalarElement(at, emit)
                if depth == 1 {
                    expectingKey = topIsObject
                    lastKey = []
                }
            case UInt8(ascii: ":"):
                if depth == 1 { expectingKey = false }
            default:
                if depth == 0 { junk = (at, line) } else { startValue(at, isBracket: false) }
            }
            index += 1
        }
        offset += count
    }

    /// The end of the input: whatever is still open is a problem.
    mutating func finish(_ emit: (Event) -> Void) {
        if let open = junk {
            emit(.record(open.start..<offset, line: open.line, feature: nil))
        } else if let open = element {
            emit(.problem(open.start..<offset, line: open.line, feature: featureIndex,
                          message: "the input ends inside this feature: is the file cut short?"))
        } else if isCollection {
            emit(.problem(offset..<offset, line: line, feature: nil,
                          message: "the input ends inside the FeatureCollection that starts on line \(collectionLine): is the file cut short?"))
        } else if let open = top {
            emit(.problem(open.start..<offset, line: open.line, feature: nil,
                          message: "the input ends inside this JSON text: is the file cut short?"))
        }
        self = DocumentSplitter()
    }

    /// A value starting at depth 2 of `features` opens an element (brackets count their own depth).
    private mutating func startValue(_ at: Int, isBracket: Bool) {
        if depth == 2 && inFeatures && element == nil { element = (at, line, !isBracket) }
    }

    /// A scalar element (`null`, `3`, `"x"`) ends at the first separator after it.
    private mutating func endScalarElement(_ at: Int, _ emit: (Event) -> Void) {
        guard depth == 2, inFeatures, let open = element, open.scalar else { return }
        emit(.record(open.start..<at, line: open.line, feature: featureIndex, crs: crs))
        element = nil
        featureIndex += 1
    }

    private mutating func endString() {
        if capturingKey {
            capturingKey = false
            lastKey = key
        }
        capturingType = false
        capturingCRS = false
    }

    private mutating func endTop(_ end: Int, _ emit: (Event) -> Void) {
        guard let open = top else { return }
        if !isCollection {
            emit(.record(open.start..<end, line: open.line, feature: nil))
        } else if let type = typeValue, type != Array("FeatureCollection".utf8) {
            emit(.problem(open.start..<open.start, line: open.line, feature: nil,
                          message: "an object with \"features\" is read as a FeatureCollection, but its type is \"\(String(decoding: type, as: UTF8.self))\""))
        }
        let (offset, line) = (self.offset, self.line)
        self = DocumentSplitter()
        self.offset = offset
        self.line = line
    }
}
