/// What a command does with each input record. Called from several threads at once: keep it
/// immutable. Throwing rejects the whole input record (its partial output is taken back).
public protocol RecordHandler: Sendable {
    func handle(_ record: UnsafeBufferPointer<UInt8>, into output: RecordWriter) throws
    /// Records are JSON texts (GeoJSON Features, geometries, collections): a file whose first
    /// text spans lines is then read as a document, and a collection's features one by one.
    var readsJSON: Bool { get }
    /// What the user probably meant, for a record that failed (see RecordHints).
    func hint(for record: UnsafeBufferPointer<UInt8>) -> String?
}

extension RecordHandler {
    public var readsJSON: Bool { true }

    public func hint(for record: UnsafeBufferPointer<UInt8>) -> String? {
        RecordHints.hint(for: record, readsJSON: readsJSON, pathFormats: false)
    }
}
