#if canImport(Glibc)
import Glibc
#endif
import GeoCommandLine
import JSONBytes

/// Runs a streaming command: reads every input in chunks, hands the chunks to `--jobs` workers,
/// and writes their results strictly in input order, with bounded memory (at most a few chunks in
/// flight), checked writes, error reports, rejects and progress.
public struct StreamRunner {
    let command: String
    let options: StreamOptions
    let processor: ChunkProcessor

    public init(command: String, options: StreamOptions, handler: any RecordHandler) {
        self.command = command
        self.options = options
        processor = ChunkProcessor(handler: handler, framing: options.framing,
                                   decimals: options.decimals, strict: options.strict)
    }

    /// Runs over one record given on the command line instead of the input files.
    public func run(literal record: [UInt8], source: String) -> Int32 {
        run(ChunkReader(literal: record, source: source))
    }

    /// Runs to the end and returns the exit status (SPEC §3).
    public func run() -> Int32 {
        run(ChunkReader(paths: options.inputs, readsJSON: processor.handler.readsJSON))
    }

    func run(_ reader: ChunkReader) -> Int32 {
        // Every input must open before anything is read or written: a typo costs nothing.
        for path in options.inputs where path != "-" && reader.readsFiles {
            do { close(try ChunkReader.open(path)) } catch {
                printError("geo \(command): \(error.message)\n")
                return error.status
            }
        }
        if reader.readsFiles, let collision = OverwriteGuard.collision(inputs: options.inputs, output: options.output, rejects: options.rejects) {
            printError("geo \(command): \(collision)\nSee 'geo \(command) --help'.\n")
            return ExitCode.usage
        }
        let sink: OutputSink
        do { sink = try OutputSink(command: command, options: options) } catch {
            printError("geo \(command): \(error.message)\n")
            return error.status
        }
        SignalGuard.install()
        if let status = sink.start() { return status }
        if options.jobs <= 1 {
            var ratio = OutputRatio()
            while true {
                let chunk: Chunk?
                do { chunk = try reader.next() } catch { return sink.fail(error) }
                guard let chunk else { break }
                let result = processor.process(chunk)
                ratio.record(result)
                reader.chunkSize = ratio.chunkSize
                if let status = sink.consume(result, bytesRead: reader.bytesRead) { return status }
            }
        } else {
            let pipeline = OrderedPipeline(reader: reader, processor: processor, workers: options.jobs)
            while let item = pipeline.nextResult() {
                switch item {
                case .result(let result, let bytesRead):
                    if let status = sink.consume(result, bytesRead: bytesRead) { return status }
                case .failure(let error):
                    return sink.fail(error)
                }
            }
        }
        return sink.finish()
    }
}

/// Chunks flow reader → workers → this thread, in sequence; the reader waits while `limit` chunks
/// are in flight, which keeps memory flat whatever the input size.
final class OrderedPipeline: @unchecked Sendable {
    enum Item {
        case result(ChunkResult, bytesRead: Int)
        case failure(InputFailure)
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
            let item: Result<Chunk?, InputFailure>
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
