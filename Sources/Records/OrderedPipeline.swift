/// Runs chunks through `workers` threads and hands their results back in input order.
/// Chunks flow reader → workers → this thread, in sequence; the reader waits while `limit` chunks
/// are in flight, which keeps memory flat whatever the input size.
final class OrderedPipeline: @unchecked Sendable {
    enum Item {
        case result(ChunkResult, bytesRead: Int)
        case failure(RunFailure)
    }

    private let condition = Monitor()
    /// Chunks waiting for a worker; a taken slot is emptied at once, so its chunk is freed as soon
    /// as its worker is done with it, not when the array is next compacted.
    private var queue: [(Int, Chunk, Int)?] = []
    private var queueHead = 0
    private var finished: [Int: Item] = [:]
    private var produced = 0
    private var readerDone = false
    private var nextToWrite = 0
    private var inFlight = 0
    /// Set by the writer from the output it sees, taken up by the reader (ChunkReader.chunkSize).
    private var chunkSize = ChunkReader.firstChunkSize
    private var ratio = OutputRatio()
    private let limit: Int
    private let reader: ChunkReader
    private let processor: ChunkProcessor

    init(reader: ChunkReader, processor: ChunkProcessor, workers: Int) {
        self.reader = reader
        self.processor = processor
        limit = workers * 2 + 2
        startThread { [self] in readLoop() }
        for _ in 0..<workers { startThread { [self] in workLoop() } }
    }

    private func readLoop() {
        while true {
            condition.lock()
            while inFlight >= limit { condition.wait() }
            inFlight += 1
            reader.chunkSize = chunkSize
            condition.unlock()
            let item: Result<Chunk?, RunFailure>
            do { item = .success(try reader.next()) } catch { item = .failure(error) }
            condition.lock()
            switch item {
            case .success(let chunk?):
                queue.append((produced, chunk, reader.bytesRead))
            case .success(nil):
                inFlight -= 1
                readerDone = true
            case .failure(let error):
                finished[produced] = .failure(error)
                readerDone = true
            }
            produced += 1
            let done = readerDone
            condition.broadcast()
            condition.unlock()
            if done { return }
        }
    }

    private func workLoop() {
        while true {
            condition.lock()
            while queueHead == queue.count && !readerDone { condition.wait() }
            guard queueHead < queue.count else { condition.unlock(); return }
            let (sequence, chunk, bytesRead) = queue[queueHead]!
            queue[queueHead] = nil
            queueHead += 1
            if queueHead > 64 && queueHead * 2 > queue.count {
                queue.removeFirst(queueHead)
                queueHead = 0
            }
            condition.unlock()
            let result = processor.process(chunk)
            condition.lock()
            finished[sequence] = .result(result, bytesRead: bytesRead)
            condition.broadcast()
            condition.unlock()
        }
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
            // The reader's last sequence number is its end marker (or its failure, returned above).
            if readerDone && nextToWrite >= produced - 1 { return nil }
            condition.wait()
        }
    }
}
