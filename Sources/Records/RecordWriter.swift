import GeoJSON
import JSONBytes

/// What a handler writes a record's output through: the chunk's output buffer, with the run's
/// framing (newline, RS, or collection commas, so that chunks concatenate in order) and the
/// GeoJSON writer at the run's `--digits`.
public struct RecordWriter {
    public let buffer: ByteBuffer
    public let framing: OutputFraming
    /// Writes GeoJSON with the run's `--digits`.
    public let geoJSON: GeoJSONWriter
    let flow: OutputFlow

    init(buffer: ByteBuffer, framing: OutputFraming, decimals: Int?, flow: OutputFlow) {
        self.buffer = buffer
        self.framing = framing
        geoJSON = GeoJSONWriter(decimals: decimals)
        self.flow = flow
    }

    /// Says that the record being handled can no longer fail: nothing the handler does for it
    /// after this throws. Its output so far and from now on may then be written out before the
    /// record ends, output record by output record, so that a record that writes much (spans
    /// --split: thousands of Features) is not held whole in memory. Without it a record's output
    /// is held until the record succeeds, so that a record that fails writes nothing. A record
    /// that holds several features (a FeatureCollection) commits only in its last one.
    public func commit() {
        guard flow.mayCommit else { return }
        flow.committed = true
        flow.mayHandOut()
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
    public func endRecord() {
        buffer.append(UInt8(ascii: "\n"))
        if flow.committed { flow.mayHandOut() }
    }

    /// Writes one Feature as a whole output record.
    public func write(_ feature: Feature, from source: UnsafeBufferPointer<UInt8>,
                      geometry: GeoJSONWriter.GeometryOutput = .unchanged,
                      adding added: [(String, JSONValue)] = []) {
        beginRecord()
        geoJSON.write(feature, from: source, geometry: geometry, adding: added, to: buffer)
        endRecord()
    }
}

