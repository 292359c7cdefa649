/// Runs chunks through `workers` threads and hands their results back in input order.
///
/// Each worker reads its own next chunk (one at a time: the input has one position) and then
/// processes it, so the chunk's bytes are already in the cache of the core that parses them;
/// with a reader thread of its own, every input byte was written by one core and read by
/// another (decode and encode used 4-5 % more CPU that way). At most `limit` chunks are in
/// flight (read but not yet written), which keeps memory flat whatever the input size.
final class OrderedPipeline: @unchecked Sendable {
    enum Item {
        case result(ChunkResult, bytesRead: Int)
        case failure(RunFailure)
    }

    /// Guards the results and the flow control below.
    private let condition = Monitor()
    private var finished: [Int: Item] = [:]
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
                let result = processor.process(chunk)
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

    private func finish(_ sequence: Int, _ item: Item) {
        condition.lock()
        finished[sequence] = item
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
            if let item = finished.removeValue(forKey: nextToWrite) {
                nextToWrite += 1
                inFlight -= 1
                if case .result(let result, _) = item {
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
