import GeoCommandLine
import GeoJSON
import JSONBytes

/// Where a command writes the output of the records in one chunk. Records are framed here
/// (newline, RS, or collection commas) so that chunks can be concatenated in order.
public struct RecordOutput {
    public let buffer: ByteBuffer
    public let framing: StreamOptions.Framing
    /// Writes GeoJSON with the run's `--digits`.
    public let geoJSON: GeoJSONWriter

    init(buffer: ByteBuffer, framing: StreamOptions.Framing, decimals: Int?) {
        self.buffer = buffer
        self.framing = framing
        geoJSON = GeoJSONWriter(decimals: decimals)
    }

    /// Opens one output record: an RS for RFC 8142 sequences, a comma inside a collection (the
    /// writer drops the very first one).
    @inline(__always)
    public func beginRecord() {
        switch framing {
        case .lines: break
        case .recordSeparators: buffer.append(0x1E)
        case .collection: buffer.append(UInt8(ascii: ","))
        }
    }

    @inline(__always)
    public func endRecord() { buffer.append(UInt8(ascii: "\n")) }

    /// Writes one Feature as a whole output record.
    public func write(_ feature: Feature, from source: UnsafeBufferPointer<UInt8>,
                      geometry: GeoJSONWriter.GeometryOutput = .unchanged,
                      adding added: [(String, JSONValue)] = []) {
        beginRecord()
        geoJSON.write(feature, from: source, geometry: geometry, adding: added, to: buffer)
        endRecord()
    }
}

/// What a command does with each input record. Called from several threads at once: keep it
/// immutable. Throwing rejects the whole input record (its partial output is taken back).
public protocol RecordHandler: Sendable {
    func handle(_ record: UnsafeBufferPointer<UInt8>, into output: RecordOutput) throws
    /// Records are JSON texts (GeoJSON Features, geometries, collections): a file whose first
    /// text spans lines is then read as a document, and a collection's features one by one.
    var readsJSON: Bool { get }
}

extension RecordHandler {
    public var readsJSON: Bool { true }
}

/// A command that streams records: its shared options and its handler are all `run()` needs.
public protocol StreamingCommand: GeoCommand {
    associatedtype Handler: RecordHandler
    var options: StreamOptions { get }
    var handler: Handler { get }
}

extension StreamingCommand {
    public func run() -> Int32 {
        StreamRunner(command: Self.description.name, options: options, handler: handler).run()
    }
}
