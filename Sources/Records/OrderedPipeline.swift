/// Runs chunks through `workers` threads and hands their results back in input order.
///
/// Each worker reads its own next chunk (one at a time: the input has one position) and then
/// processes it, so the chunk's bytes are already in the cache of the core that parses them;
/// with a reader thread of its own, every input byte was written by one core and read by
/// another (decode and encode used 4-5 % more CPU that way). At most `limit` chunks are in
/// flight (read but not yet written), which keeps memory flat whatever the input size.
///
/// Output is bounded too, whatever a record writes. Every worker hands its chunk's output over
/// in parts of about `ChunkResult.partSize` as it grows (`offer`): the worker on the chunk next
/// to be written with one part at most waiting for the writer, workers ahead of it while the
/// parts and finished chunks waiting come to at most `aheadLimit` bytes, after which they wait
/// for their turn. Records that each write megabytes (spans --split under a short pattern) had
/// piled up whole in finished chunks behind a slow one; in parts, no buffer grows past the
/// part size (or one record's output, until that record commits).
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

    init(reader: ChunkReader, processor: ChunkProcessor, workers: Int) {
        self.reader = reader
        self.processor = processor
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
        if sequence == nextToWrite { condition.broadcast() }  // else no one waits for it
        return ChunkResult.partSize
    }

    private func finish(_ sequence: Int, _ item: Item) {
        condition.lock()
        finished[sequence] = item
        if case .result(let result, _) = item { held += result.output.count }
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

    /// The next result in input order, or nil at the end.
    func nextResult() -> Item? {
        condition.lock()
        defer { condition.unlock() }
        while true {
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
            if let total, nextToWrite >= total { return nil }
            condition.wait()
        }
    }
}
