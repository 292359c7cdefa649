import Geometry
import JSONBytes

/// One input Feature, as byte ranges into the record it was read from plus its parsed geometry.
/// Members geo does not interpret (`id`, `bbox`, foreign members) are kept as raw bytes, in
/// input order, so they pass through untouched.
public struct Feature: Sendable {
    public enum Role: Sendable { case type, geometry, properties, other }

    /// A member as it appeared: `key` spans the quoted name, `value` the raw value.
    public struct Member: Sendable {
        public var role: Role
        public var key: Range<Int>
        public var value: Range<Int>
    }

    /// The members in input order. Empty for a bare geometry or a decoded path (which become new
    /// Features).
    public var members: [Member]
    /// nil for `"geometry": null`.
    public var geometry: Geometry?
    /// The raw geometry value (an object or `null`); nil when the geometry was built, not read.
    public var geometryBytes: Range<Int>?
    /// The raw `properties` value (an object or `null`), if the member exists.
    public var propertiesBytes: Range<Int>?

    public init(geometry: Geometry?) {
        members = []
        self.geometry = geometry
    }

    init(members: [Member], geometry: Geometry?, geometryBytes: Range<Int>?, propertiesBytes: Range<Int>?) {
        self.members = members
        self.geometry = geometry
        self.geometryBytes = geometryBytes
        self.propertiesBytes = propertiesBytes
    }
}

extension Feature {
    /// The number in properties.NAME, or nil when it is missing or not a number.
    public func numberProperty(_ name: String, in source: UnsafeBufferPointer<UInt8>) throws -> Double? {
        guard let properties = propertiesBytes, source[properties.lowerBound] == UInt8(ascii: "{") else { return nil }
        var scanner = JSONScanner(source, position: properties.lowerBound)
        guard try scanner.enter(UInt8(ascii: "{"), UInt8(ascii: "}")) else { return nil }
        repeat {
            let key = try scanner.key()
            let next = scanner.peek()
            if scanner.text(key) == name, let next, next == UInt8(ascii: "-") || (next >= 48 && next <= 57) {
                return try scanner.number()
            }
            try scanner.skipValue()
        } while try scanner.next(UInt8(ascii: "}"))
        return nil
    }
}
