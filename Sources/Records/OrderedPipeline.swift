import Threads

/// Runs chunks through `workers` threads and hands their results, in input order, to `consume`.
///
/// Each worker reads its own next chunk (one at a time: the input has one position) and then
/// processes it, so the chunk's bytes are already in the cache of the core that parses them;
/// with a reader thread of its own, every input byte was written by one core and read by
/// another (decode and encode used 4-5 % more CPU that way). At most `limit` chunks are in
/// flight (read but not yet written), which keeps memory flat whatever the input size.
///
/// There is no writer thread either: the worker that finishes the chunk next in order (or hands
/// over a part of it) takes the writing turn and consumes every result that is then ready, in
/// order, while the other workers go on. With a writer thread of its own, a third thread on two
/// cores was woken for every chunk and preempted a worker 190-240 times a run, and encode and
/// decode -j2 took 4-7 % longer. The thread that started the run only waits for the end
/// (`waitForEnd`).
///
/// Output is bounded too, whatever a record writes. Every worker hands its chunk's output over
/// in parts of about `ChunkResult.partSize` as it grows (`offer`): the worker on the chunk next
/// to be written with one part at most waiting to be written, workers ahead of it while the
/// parts and finished chunks waiting come to at most `aheadLimit` bytes, after which they wait
/// for their turn. Records that each write megabytes (spans --split under a short pattern) had
/// piled up whole in finished chunks behind a slow one; in parts, no buffer grows past the
/// part size (or one record's output, until that record commits).
/// Sendable by hand: every mutable member is touched only with `condition` locked.
final class OrderedPipeline: @unchecked Sendable {
    enum Item {
        /// A chunk's result, or a part of it handed over before the chunk was done.
        case result(ChunkResult, bytesRead: Int)
        case failure(RunFailure)
    }

    /// Output that may wait for the writer. Less makes workers ahead wait more often: on 5,000
    /// corpus paths under spans --split at 5 km with -j2, they waited 15 s in all (of ~52 s of
    /// work, on a loaded machine) at 2 MiB, 10 s at 3 MiB, 5 s at 4 MiB, 0.3 s at 8 MiB, which
    /// peaked 2 MB higher (bench/README.md, Memory, step 5).
    static let aheadLimit = 8 * ChunkReader.outputPerChunk

    /// Guards the results and the flow control below.
    private let condition = Monitor()
    private var finished: [Int: Item] = [:]
    /// Parts of chunks not done yet, by sequence, in order.
    private var parts: [Int: [Item]] = [:]
    /// Output bytes in `finished` and `parts`.
    private var held = 0
    private var nextToWrite = 0
    private var inFlight = 0
    /// How many items there are, once the input has ended (a read failure is the last item).
    private var total: Int?
    /// Set by the writer from the output it sees, taken up by the next read (ChunkReader.chunkSize).
    private var chunkSize = ChunkReader.firstChunkSize
    private var ratio = OutputRatio()
    private let limit: Int

    /// Guards the reader and the sequence numbers it hands out, in read order.
    private let readLock = Monitor()
    private let reader: ChunkReader
    private var nextSequence = 0
    private var exhausted = false

    private let processor: ChunkProcessor

    /// Takes each result in order, on whichever worker has the writing turn; false stops the run.
    private let consume: (Item) -> Bool
    /// A worker is consuming (outside the lock): no other may.
    private var writing = false
    /// `consume` said stop: nothing more is consumed.
    private var stopped = false
    /// Wakes the thread in `waitForEnd` only, at the end: on `condition` it was woken for every
    /// chunk.
    private let end = Monitor()
    private var ended = false

    init(reader: ChunkReader, processor: ChunkProcessor, workers: Int, consume: @escaping (Item) -> Bool) {
        self.reader = reader
        self.processor = processor
        self.consume = consume
        limit = workers * 2 + 2
        for _ in 0..<workers { startThread { [self] in workLoop() } }
    }

    private func workLoop() {
        while true {
            condition.lock()
            while inFlight >= limit { condition.wait() }
            inFlight += 1
            let size = chunkSize
            condition.unlock()

            readLock.lock()
            if exhausted {
                readLock.unlock()
                release()
                return
            }
            reader.chunkSize = size
            let sequence = nextSequence
            nextSequence += 1
            let item: Result<Chunk?, RunFailure>
            do { item = .success(try reader.next()) } catch { item = .failure(error) }
            let bytesRead = reader.bytesRead
            if case .success(.some) = item {} else { exhausted = true }
            readLock.unlock()

            switch item {
            case .success(let chunk?):
                let result = processor.process(chunk) { [self] in offer($0, sequence: sequence, bytesRead: bytesRead) }
                finish(sequence, .result(result, bytesRead: bytesRead))
            case .success(nil):
                condition.lock()
                total = sequence
                consumeReady()
                condition.unlock()
                release()
                return
            case .failure(let error):
                condition.lock()
                total = sequence + 1
                condition.unlock()
                finish(sequence, .failure(error))
                return
            }
        }
    }

    /// Chunk `sequence` has written `result.output` so far (PartSink): it becomes a part once
    /// the chunk's earlier parts are written, if the chunk is next to be written, or else within
    /// `aheadLimit`; until then the worker waits.
    private func offer(_ result: ChunkResult, sequence: Int, bytesRead: Int) -> Int? {
        condition.lock()
        defer { condition.unlock() }
        while sequence == nextToWrite ? parts[sequence] != nil : held + result.output.count > OrderedPipeline.aheadLimit {
            condition.wait()
        }
        let part = result.takePart()
        held += part.output.count
        parts[sequence, default: []].append(.result(part, bytesRead: bytesRead))
        if sequence == nextToWrite { consumeReady() }  // else it waits for its turn
        return ChunkResult.partSize
    }

    private func finish(_ sequence: Int, _ item: Item) {
        condition.lock()
        finished[sequence] = item
        if case .result(let result, _) = item { held += result.output.count }
        consumeReady()
        condition.broadcast()
        condition.unlock()
    }

    /// Gives back a slot that carried no chunk.
    private func release() {
        condition.lock()
        inFlight -= 1
        condition.broadcast()
        condition.unlock()
    }

    /// Takes the writing turn, unless a worker has it, and consumes every result ready in order,
    /// unlocking while `consume` runs; then marks the end if that was the last. Call with the
    /// lock held. A worker that has the turn sees what others finish meanwhile, when it locks
    /// again, so nothing ready is left behind when it gives the turn up. (Called again after
    /// the end, it consumes nothing and only says so again.)
    private func consumeReady() {
        guard !writing else { return }
        writing = true
        while !stopped, let item = nextReady() {
            condition.unlock()
            let goOn = consume(item)
            condition.lock()
            if !goOn { stopped = true }
        }
        writing = false
        if stopped || (total.map { nextToWrite >= $0 } ?? false) {
            end.lock()
            ended = true
            end.broadcast()
            end.unlock()
        }
    }

    /// The next result in input order if it is there (a part before its chunk's rest).
    private func nextReady() -> Item? {
        if var waiting = parts.removeValue(forKey: nextToWrite) {
            let item = waiting.removeFirst()
            if !waiting.isEmpty { parts[nextToWrite] = waiting }
            if case .result(let part, _) = item { held -= part.output.count }
            condition.broadcast()
            return item
        }
        if let item = finished.removeValue(forKey: nextToWrite) {
            nextToWrite += 1
            inFlight -= 1
            if case .result(let result, _) = item {
                held -= result.output.count
                ratio.record(result)
                chunkSize = ratio.chunkSize
            }
            condition.broadcast()
            return item
        }
        return nil
    }

    /// Returns once every result has been consumed, or `consume` said stop and no worker is in
    /// it any more: after that nothing is consumed.
    func waitForEnd() {
        end.lock()
        while !ended { end.wait() }
        end.unlock()
    }
}
