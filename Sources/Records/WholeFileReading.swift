import Threads

/// Reading a file's records whole, outside the streaming runner (two-pass commands: render's
/// fit, locate's shapes): on this thread in order, or on several threads in no order.

/// Reads every record of the file at `path` ("-": standard input) on this thread, as the
/// streaming runner would (framing, documents, line numbers), and calls `body` with each. A
/// record that cannot be one (a document cut short) or that `body` throws for stops the reading
/// as a LocatedBadRecord, with its line and, in a collection, `features[K]`; a file that cannot
/// be read is a RunFailure. With `skippingBad`, bad records are passed over silently instead
/// (a first pass whose second pass reports them).
public func forEachRecord(in path: String, readsJSON: Bool, skippingBad: Bool = false,
                          _ body: (UnsafeBufferPointer<UInt8>) throws -> Void) throws {
    let reader = ChunkReader(paths: [path], readsJSON: readsJSON, chunkSize: ChunkReader.defaultChunkSize)
    while let chunk = try reader.next() {
        var failure: (any Error)?
        chunk.forEachRecord { record, line, feature, problem, _ in
            do {
                if let problem { throw LocatedBadRecord(line: line, message: RecordFailure.naming(feature, problem)) }
                try body(record)
                return true
            } catch let located as LocatedBadRecord {
                failure = located
            } catch {
                failure = LocatedBadRecord(line: line, message: RecordFailure.naming(feature, "\(error)"))
            }
            if skippingBad { failure = nil }
            return skippingBad
        }
        if let failure { throw failure }
    }
}

/// A bad record found while reading a file whole (`forEachRecord`), with its line.
public struct LocatedBadRecord: Error, CustomStringConvertible {
    public var line: Int
    public var message: String
    public init(line: Int, message: String) {
        self.line = line
        self.message = message
    }
    public var description: String { message }
}

/// Reads every record of the file at `path` ("-": standard input) as `forEachRecord(in:
/// skippingBad: true)` does, but on `jobs` threads at once (this one and jobs − 1 more) and in
/// no particular order: for a first pass whose result does not depend on the order, such as a
/// union of extents. Each thread folds its records into a state of its own, made by
/// `makeState` (on this thread, before any reading), and the states are returned to be merged.
/// Bad records are passed over (a second pass reports them); a file that cannot be read is a
/// RunFailure.
public func foldRecordsConcurrently<State>(in path: String, readsJSON: Bool, jobs: Int, makeState: () -> State,
                                           _ fold: @escaping @Sendable (inout State, UnsafeBufferPointer<UInt8>) -> Void)
    throws(RunFailure) -> [State] {
    let shared = ConcurrentFold(ChunkReader(paths: [path], readsJSON: readsJSON, chunkSize: ChunkReader.defaultChunkSize))
    let slots = (0..<max(1, jobs)).map { _ in FoldSlot(makeState()) }
    @Sendable func work(_ slot: FoldSlot<State>) {
        while true {
            shared.monitor.lock()
            var chunk: Chunk?
            if shared.failure == nil {
                do { chunk = try shared.reader.next() } catch { shared.failure = error }
            }
            shared.monitor.unlock()
            guard let chunk else { return }
            chunk.forEachRecord { record, _, _, problem, _ in
                if problem == nil { fold(&slot.state, record) }
                return true
            }
        }
    }
    shared.running = slots.count - 1
    for slot in slots.dropFirst() {
        startThread {
            work(slot)
            shared.monitor.lock()
            shared.running -= 1
            shared.monitor.broadcast()
            shared.monitor.unlock()
        }
    }
    work(slots[0])
    shared.monitor.lock()
    while shared.running > 0 { shared.monitor.wait() }
    let failure = shared.failure
    shared.monitor.unlock()
    if let failure { throw failure }
    return slots.map(\.state)
}

/// The reader and the outcome that `foldRecordsConcurrently`'s threads share.
/// Sendable by hand: `reader`, `failure` and `running` are touched only with `monitor` locked.
private final class ConcurrentFold: @unchecked Sendable {
    let monitor = Monitor()
    let reader: ChunkReader
    var failure: RunFailure?
    var running = 0
    init(_ reader: ChunkReader) { self.reader = reader }
}

/// One thread's state in `foldRecordsConcurrently`. Sendable by hand: only its thread touches
/// `state` until that thread has ended, which the caller waits for (under the monitor) before
/// reading it.
private final class FoldSlot<State>: @unchecked Sendable {
    var state: State
    init(_ state: State) { self.state = state }
}
