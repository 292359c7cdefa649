import Records

/// A record handler that reads paths in any of `--from`'s formats: its input format answers for
/// it whether the records are JSON texts and what a failed one probably meant.
public protocol PathHandler: RecordHandler {
    var input: PathInputFormat { get }
}

extension PathHandler {
    public var readsJSON: Bool { input.readsJSON }

    public func hint(for record: UnsafeBufferPointer<UInt8>) -> String? { input.hint(for: record) }
}
