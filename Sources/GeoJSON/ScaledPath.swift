/// A path whose coordinates are exact decimals, `integer / 10^scale`, as a decoded polyline's
/// are. It prints from the integers (`ByteBuffer.appendScaled`), skipping the search for the
/// shortest digits of a double, and prints the same text: a decimal of at most 15 significant
/// digits is the shortest text of the double nearest to it.
public struct ScaledPath: Sendable {
    /// Longitude, latitude, longitude, latitude, ... (GeoJSON's order).
    public var integers: [Int64] = []
    public let scale: Int

    public init(scale: Int) { self.scale = scale }

    public var count: Int { integers.count / 2 }
}
