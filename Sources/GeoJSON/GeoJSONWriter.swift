#if canImport(Glibc)
import Glibc
#endif
import Geometry
import JSONBytes

/// A small JSON value for what commands add to `properties` (a polyline, a length, a list of holes).
/// Not `indirect`: its arrays already hold their elements out of line, and an indirect case is a
/// heap box per value, a malloc for every number of a list (`geo heading`'s two million).
public enum JSONValue: Sendable {
    case null
    case bool(Bool)
    case number(Double)
    /// A longitude or latitude outside the geometry (locate's nearest point): printed as the
    /// geometry's are, rounded to `decimals` when --digits gives them.
    case coordinate(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])
    /// Pre-rendered JSON text, written as is.
    case raw(String)
}

/// Writes GeoJSON into a ByteBuffer. Coordinates are printed shortest-exact or rounded to
/// `decimals`; everything geo did not change is copied byte for byte from the input record.
public struct GeoJSONWriter {
    public var decimals: Int?

    public init(decimals: Int? = nil) { self.decimals = decimals }

    /// What a Feature's geometry becomes in the output.
    public enum GeometryOutput {
        /// The input geometry bytes, untouched (or the parsed one re-written for a bare geometry).
        case unchanged
        case replaced(Geometry?)
        /// A decoded path of exact decimals: a LineString, a Point for one position, null for none.
        case scaled(ScaledPath)
    }

    /// Writes `feature` (from `source`) as one Feature object: members in input order, the
    /// geometry as `geometry` says, and `added` set in `properties` (replacing same-named ones).
    public func write(_ feature: Feature, from source: UnsafeBufferPointer<UInt8>,
                      geometry: GeometryOutput = .unchanged,
                      adding added: [(String, JSONValue)] = [], to out: ByteBuffer) {
        if feature.members.isEmpty {
            out.append("{\"type\":\"Feature\",\"properties\":")
            writeProperties(feature.propertiesBytes, from: source, adding: added, to: out)
            out.append(",\"geometry\":")
            switch geometry {
            case .unchanged:
                if let raw = feature.geometryBytes { out.appendRaw(source, raw) } else { write(feature.geometry, to: out) }
            case .replaced(let replacement): write(replacement, to: out)
            case .scaled(let path): write(path, to: out)
            }
            out.append(UInt8(ascii: "}"))
            return
        }
        out.append(UInt8(ascii: "{"))
        var first = true
        var wroteProperties = false
        for member in feature.members {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            out.appendRaw(source, member.key)
            out.append(UInt8(ascii: ":"))
            switch (member.role, geometry) {
            case (.geometry, .replaced(let replacement)):
                write(replacement, to: out)
            case (.geometry, .scaled(let path)):
                write(path, to: out)
            case (.properties, _):
                writeProperties(feature.propertiesBytes, from: source, adding: added, to: out)
                wroteProperties = true
            default:
                out.appendRaw(source, member.value)
            }
        }
        if !wroteProperties && !added.isEmpty {
            out.append(",\"properties\":")
            writeProperties(nil, from: source, adding: added, to: out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// `properties`: the input's members (raw, minus any that `added` replaces), then `added`.
    func writeProperties(_ existing: Range<Int>?, from source: UnsafeBufferPointer<UInt8>,
                         adding added: [(String, JSONValue)], to out: ByteBuffer) {
        if added.isEmpty, let existing {
            out.appendRaw(source, existing)
            return
        }
        out.append(UInt8(ascii: "{"))
        var first = true
        if let existing, source[existing.lowerBound] == UInt8(ascii: "{") {
            // Already validated by the reader: this walk cannot fail.
            var scanner = JSONScanner(source, position: existing.lowerBound)
            if (try? scanner.enter(UInt8(ascii: "{"), UInt8(ascii: "}"))) == true {
                repeat {
                    scanner.skipWhitespace()
                    let keyStart = scanner.position
                    guard let key = try? scanner.key(), let value = try? scanner.skipValue() else { break }
                    let name = scanner.text(key)
                    if added.contains(where: { $0.0 == name }) { continue }
                    if !first { out.append(UInt8(ascii: ",")) }
                    first = false
                    out.appendRaw(source, keyStart..<(key.content.upperBound + 1))
                    out.append(UInt8(ascii: ":"))
                    out.appendRaw(source, value)
                } while (try? scanner.next(UInt8(ascii: "}"))) == true
            }
        }
        for (name, value) in added {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            out.appendJSONString(name)
            out.append(UInt8(ascii: ":"))
            write(value, to: out)
        }
        out.append(UInt8(ascii: "}"))
    }

    public func write(_ value: JSONValue, to out: ByteBuffer) {
        switch value {
        case .null: out.append("null")
        case .bool(let flag): out.append(flag ? "true" : "false")
        case .number(let number):
            if number.isFinite { out.appendNumber(number) } else { out.append("null") }
        case .coordinate(let number):
            if number.isFinite { out.appendNumber(number, decimals: decimals) } else { out.append("null") }
        case .string(let text): out.appendJSONString(text)
        case .raw(let text): out.append(text)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                write(element, to: out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (index, (name, element)) in members.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                out.appendJSONString(name)
                out.append(UInt8(ascii: ":"))
                write(element, to: out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    // MARK: Geometry

    public func write(_ geometry: Geometry?, to out: ByteBuffer) {
        guard let geometry else { out.append("null"); return }
        out.append("{\"type\":\"")
        out.append(geometry.typeName)
        if case .geometryCollection(let members) = geometry {
            out.append("\",\"geometries\":[")
            for (index, member) in members.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                write(member, to: out)
            }
            out.append("]}")
            return
        }
        out.append("\",\"coordinates\":")
        switch geometry {
        case .point(let position): write(position, to: out)
        case .multiPoint(let path), .lineString(let path): write(path, to: out)
        case .multiLineString(let paths), .polygon(let paths): write(paths, to: out)
        case .multiPolygon(let polygons):
            out.append(UInt8(ascii: "["))
            for (index, polygon) in polygons.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                write(polygon, to: out)
            }
            out.append(UInt8(ascii: "]"))
        case .geometryCollection: break
        }
        out.append(UInt8(ascii: "}"))
    }

    func write(_ paths: [Path], to out: ByteBuffer) {
        out.append(UInt8(ascii: "["))
        for (index, path) in paths.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            write(path, to: out)
        }
        out.append(UInt8(ascii: "]"))
    }

    @inline(__always)
    public func write(_ path: Path, to out: ByteBuffer) {
        out.append(UInt8(ascii: "["))
        var first = true
        for position in path {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            write(position, to: out)
        }
        out.append(UInt8(ascii: "]"))
    }

    /// A decoded path as `write(Geometry.path(...))` would write its doubles, digit for digit.
    public func write(_ path: ScaledPath, to out: ByteBuffer) {
        switch path.count {
        case 0:
            out.append("null")
        case 1:
            out.append("{\"type\":\"Point\",\"coordinates\":[")
            out.appendScaled(path.integers[0], scale: path.scale, decimals: decimals)
            out.append(UInt8(ascii: ","))
            out.appendScaled(path.integers[1], scale: path.scale, decimals: decimals)
            out.append("]}")
        default:
            out.append("{\"type\":\"LineString\",\"coordinates\":[")
            path.integers.withUnsafeBufferPointer { out.appendScaledPairs($0, scale: path.scale, decimals: decimals) }
            out.append("]}")
        }
    }

    @inline(__always)
    public func write(_ position: Position, to out: ByteBuffer) {
        out.append(UInt8(ascii: "["))
        out.appendNumber(position.longitude, decimals: decimals)
        out.append(UInt8(ascii: ","))
        out.appendNumber(position.latitude, decimals: decimals)
        out.append(UInt8(ascii: "]"))
    }
}

extension ByteBuffer {
    /// Copies raw JSON from the input. Line breaks outside strings are white space (inside strings
    /// they are invalid), so dropping them keeps a text that spanned lines (RFC 8142 input) valid
    /// and on one output line; everything else is copied byte for byte.
    @inline(__always)
    func appendRaw(_ source: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
        let base = source.baseAddress! + range.lowerBound
        if memchr(base, 0x0A, range.count) == nil && memchr(base, 0x0D, range.count) == nil {
            append(source, range)
            return
        }
        for byte in source[range] where byte != 0x0A && byte != 0x0D { append(byte) }
    }
}
