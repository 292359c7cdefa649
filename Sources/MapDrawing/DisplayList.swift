import Geodesy
import Geometry
import JSONBytes

/// A path with each vertex also projected (x, y in the projection's units; infinity where the
/// projection shows nothing).
package struct ProjectedPath {
    package var positions: Path
    package var x: [Double]
    package var y: [Double]
}

/// A geometry ready to draw: what the workers make of a record, and what the drawing thread
/// draws, in input order.
package indirect enum Shape {
    case points([ProjectedPath])
    case line(ProjectedPath)
    case lines([ProjectedPath])
    case polygons([[ProjectedPath]])
    case collection([Shape])
}

/// The bytes a worker hands the drawing thread for each feature of a record (in the stream's
/// ordered output): the feature's properties as they were (the style is read from them again,
/// cheaply, where it is drawn) and its geometry with every vertex projected (the costly part,
/// done in parallel). Self-contained, so that records waiting for their z-index are kept as
/// these bytes too.
///
///     feature  := u32 size, u32 properties size, properties, shape
///     shape    := u8 tag, ...   (0 none, 1 points, 2 line, 3 lines, 4 polygons, 5 collection)
///     path     := u32 n, n × (longitude, latitude, x, y) as f64, the path's boxes (PathIndex)
package enum DisplayList {
    /// A shape's first byte: what follows it.
    enum Tag: UInt8 { case noShape, points, line, lines, polygons, collection }

    package static func write(properties: UnsafeBufferPointer<UInt8>?, geometry: Geometry?, frame: Frame, projection: Projection,
                      to buffer: ByteBuffer, scratch: inout [Double]) {
        let start = buffer.count
        put(UInt32(0), buffer)
        put(UInt32(properties?.count ?? 0), buffer)
        if let properties { buffer.append(properties) }
        write(geometry, frame: frame, projection: projection, buffer, &scratch)
        UnsafeMutableRawPointer(buffer.base + start).storeBytes(of: UInt32(buffer.count - start), as: UInt32.self)
    }

    private static func write(_ geometry: Geometry?, frame: Frame, projection: Projection, _ buffer: ByteBuffer, _ scratch: inout [Double]) {
        func path(_ path: Path) {
            put(UInt32(path.count), buffer)
            let count = path.count
            if scratch.count < 2 * count { scratch = [Double](repeating: 0, count: 2 * count) }
            scratch.withUnsafeMutableBufferPointer { s in
                for index in 0..<count {
                    s[index] = path[index].longitude
                    s[count + index] = path[index].latitude
                }
                frame.project(x: s.baseAddress!, y: s.baseAddress! + count, count: count, using: projection)
                // The buffer holds bytes: its doubles are stored unaligned, as they are read.
                let out = UnsafeMutableRawPointer(buffer.reserve(32 * count))
                for index in 0..<count {
                    out.storeBytes(of: path[index].longitude, toByteOffset: 32 * index, as: Double.self)
                    out.storeBytes(of: path[index].latitude, toByteOffset: 32 * index + 8, as: Double.self)
                    out.storeBytes(of: s[index], toByteOffset: 32 * index + 16, as: Double.self)
                    out.storeBytes(of: s[count + index], toByteOffset: 32 * index + 24, as: Double.self)
                }
                buffer.count += 32 * count
                let indexSize = PathIndex.size(vertices: count)
                if indexSize > 0 {
                    PathIndex.write(longitude: { path[$0].longitude }, x: s.baseAddress!, y: s.baseAddress! + count, count: count, to: UnsafeMutableRawPointer(buffer.reserve(indexSize)))
                    buffer.count += indexSize
                }
            }
        }
        func paths(_ list: [Path]) {
            put(UInt32(list.count), buffer)
            for item in list { path(item) }
        }
        switch geometry {
        case nil:
            buffer.append(Tag.noShape.rawValue)
        case .point(let position):
            buffer.append(Tag.points.rawValue)
            paths([[position]])
        case .multiPoint(let positions):
            buffer.append(Tag.points.rawValue)
            paths(positions.map { [$0] })
        case .lineString(let line):
            buffer.append(Tag.line.rawValue)
            path(line)
        case .multiLineString(let lines):
            buffer.append(Tag.lines.rawValue)
            paths(lines)
        case .polygon(let rings):
            buffer.append(Tag.polygons.rawValue)
            put(UInt32(1), buffer)
            paths(rings)
        case .multiPolygon(let polygons):
            buffer.append(Tag.polygons.rawValue)
            put(UInt32(polygons.count), buffer)
            for rings in polygons { paths(rings) }
        case .geometryCollection(let members):
            buffer.append(Tag.collection.rawValue)
            put(UInt32(members.count), buffer)
            for member in members { write(member, frame: frame, projection: projection, buffer, &scratch) }
        }
    }

    @inline(__always)
    package static func put(_ value: UInt32, _ buffer: ByteBuffer) {
        withUnsafeBytes(of: value) { buffer.append($0.bindMemory(to: UInt8.self)) }
    }

    /// Reads the features in `bytes`, calling `body` with each one's whole bytes, properties and
    /// shape (still as bytes: decoded only where it is asked for).
    package static func forEachFeature(_ bytes: UnsafeBufferPointer<UInt8>,
                               _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>, ShapeBytes) -> Void) {
        var reader = Reader(bytes: bytes)
        while reader.position + 8 <= bytes.count {
            let start = reader.position
            let size = Int(reader.u32())
            let propertiesSize = Int(reader.u32())
            let properties = UnsafeBufferPointer(rebasing: bytes[reader.position..<(reader.position + propertiesSize)])
            let shape = ShapeBytes(bytes: UnsafeBufferPointer(rebasing: bytes[(reader.position + propertiesSize)..<(start + size)]))
            body(UnsafeBufferPointer(rebasing: bytes[start..<(start + size)]), properties, shape)
            reader.position = start + size
        }
    }

    /// A feature's shape as the display list holds it. A map tile draws some ten thousand lines
    /// a second on each thread, most of them short: decoding each into arrays (`shape`) cost
    /// more than drawing it, so the painter reads a line's vertices where they lie
    /// (`forEachLinePath`).
    package struct ShapeBytes {
        let bytes: UnsafeBufferPointer<UInt8>

        /// The shape, decoded.
        package var shape: Shape? {
            var reader = Reader(bytes: bytes)
            return reader.shape()
        }

        /// Whether the shape is a line or lines (and nothing else).
        package var isLines: Bool { bytes[0] == Tag.line.rawValue || bytes[0] == Tag.lines.rawValue }

        /// Whether the shape is a polygon or polygons.
        package var isPolygons: Bool { bytes[0] == Tag.polygons.rawValue }

        /// The rings of each polygon, read in place; nothing for any other shape.
        package func forEachPolygon(_ body: ([PathBytes]) -> Void) {
            guard isPolygons else { return }
            var reader = Reader(bytes: bytes)
            reader.position = 1
            for _ in 0..<Int(reader.u32()) { body((0..<Int(reader.u32())).map { _ in reader.pathBytes() }) }
        }

        /// Every path of the shape, read in place, and whether its vertices are joined by edges
        /// (not for points), members of a collection included.
        package func forEachPath(_ body: (PathBytes, _ hasEdges: Bool) -> Void) {
            var reader = Reader(bytes: bytes)
            reader.forEachPath(body)
        }

        /// Each path of a line or lines, read in place; nothing for any other shape.
        package func forEachLinePath(_ body: (PathBytes) -> Void) {
            var reader = Reader(bytes: bytes)
            reader.position = 1
            switch Tag(rawValue: bytes[0]) {
            case .line: body(reader.pathBytes())
            case .lines: for _ in 0..<Int(reader.u32()) { body(reader.pathBytes()) }
            default: return
            }
        }
    }

    /// A path as the display list holds it: n × (longitude, latitude, x, y), unaligned doubles,
    /// and its boxes when it has them.
    package struct PathBytes {
        let base: UnsafeRawPointer
        package let count: Int
        let index: UnsafeRawPointer?

        @inline(__always) package func longitude(_ index: Int) -> Double { base.loadUnaligned(fromByteOffset: 32 * index, as: Double.self) }
        @inline(__always) package func latitude(_ index: Int) -> Double { base.loadUnaligned(fromByteOffset: 32 * index + 8, as: Double.self) }
        @inline(__always) package func x(_ index: Int) -> Double { base.loadUnaligned(fromByteOffset: 32 * index + 16, as: Double.self) }
        @inline(__always) package func y(_ index: Int) -> Double { base.loadUnaligned(fromByteOffset: 32 * index + 24, as: Double.self) }

        /// The path, decoded.
        package var decoded: ProjectedPath {
            var result = ProjectedPath(positions: [], x: [], y: [])
            result.positions.reserveCapacity(count)
            result.x.reserveCapacity(count)
            result.y.reserveCapacity(count)
            for index in 0..<count {
                result.positions.append(Position(longitude: longitude(index), latitude: latitude(index)))
                result.x.append(x(index))
                result.y.append(y(index))
            }
            return result
        }
    }

    package struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        mutating func u32() -> UInt32 {
            defer { position += 4 }
            return UnsafeRawPointer(bytes.baseAddress! + position).loadUnaligned(as: UInt32.self)
        }

        mutating func pathBytes() -> PathBytes {
            let count = Int(u32())
            let indexSize = PathIndex.size(vertices: count)
            defer { position += 32 * count + indexSize }
            let base = UnsafeRawPointer(bytes.baseAddress! + position)
            return PathBytes(base: base, count: count, index: indexSize > 0 ? base + 32 * count : nil)
        }

        mutating func path() -> ProjectedPath { pathBytes().decoded }

        /// The paths of the shape here, read in place, as `ShapeBytes.forEachPath` gives them.
        mutating func forEachPath(_ body: (PathBytes, Bool) -> Void) {
            let tag = Tag(rawValue: bytes[position])
            position += 1
            switch tag {
            case .points: for _ in 0..<Int(u32()) { body(pathBytes(), false) }
            case .line: body(pathBytes(), true)
            case .lines: for _ in 0..<Int(u32()) { body(pathBytes(), true) }
            case .polygons: for _ in 0..<Int(u32()) { for _ in 0..<Int(u32()) { body(pathBytes(), true) } }
            case .collection: for _ in 0..<Int(u32()) { forEachPath(body) }
            case .noShape, nil: return
            }
        }

        mutating func paths() -> [ProjectedPath] {
            (0..<Int(u32())).map { _ in path() }
        }

        mutating func shape() -> Shape? {
            let tag = Tag(rawValue: bytes[position])
            position += 1
            switch tag {
            case .points: return .points(paths())
            case .line: return .line(path())
            case .lines: return .lines(paths())
            case .polygons: return .polygons((0..<Int(u32())).map { _ in paths() })
            case .collection: return .collection((0..<Int(u32())).compactMap { _ in shape() })
            case .noShape, nil: return nil
            }
        }
    }
}
