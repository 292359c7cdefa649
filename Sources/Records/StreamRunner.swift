#if canImport(Glibc)
import Glibc
#endif
import JSONBytes

/// Runs a streaming command: reads every input in chunks, hands the chunks to `--jobs` workers,
/// and writes their results strictly in input order, with bounded memory (at most a few chunks in
/// flight), checked writes, error reports, rejects and progress.
public struct StreamRunner {
    let command: String
    let options: StreamConfiguration
    let processor: ChunkProcessor

    public init(command: String, options: StreamConfiguration, handler: any RecordHandler) {
        self.command = command
        self.options = options
        processor = ChunkProcessor(handler: handler, framing: options.framing,
                                   decimals: options.decimals, strict: options.strict)
    }

    /// Runs over one record given on the command line instead of the input files.
    public func run(literal record: [UInt8], source: String) -> ExitCode {
        run(ChunkReader(literal: record, source: source))
    }

    /// Runs to the end and returns the exit status (docs/records.md).
    public func run() -> ExitCode {
        run(ChunkReader(paths: options.inputs, readsJSON: processor.handler.readsJSON))
    }

    func run(_ reader: ChunkReader) -> ExitCode {
        if reader.readsFiles, let collision = OverwriteGuard.collision(inputs: options.inputs, output: options.output, rejects: options.rejects) {
            printError("geo \(command): \(collision)\nSee 'geo \(command) --help'.\n")
            return .usage
        }
        MallocTuning.apply()
        var writer: ResultWriter?
        do throws(RunFailure) {
            // Every input must open before anything is read or written: a typo costs nothing.
            if reader.readsFiles { try InputFiles.check(options.inputs) }
            let output = try ResultWriter(command: command, options: options)
            writer = output
            SignalGuard.install()
            try output.start()
            try pump(reader, into: output)
            return try output.finish()
        } catch {
            // What was written stays written: the framing is closed if it still can be.
            writer?.clearProgress()
            printError("geo \(command): \(error.message)\n")
            if let writer, !writer.broken { _ = try? writer.finish() }
            return error.status
        }
    }

    /// Moves every chunk from the reader through the handler into the writer, in order.
    private func pump(_ reader: ChunkReader, into writer: ResultWriter) throws(RunFailure) {
        if options.jobs <= 1 {
            var ratio = OutputRatio()
            while let chunk = try reader.next() {
                // Output that grows large is written in parts as it comes (ChunkProcessor).
                let bytesRead = reader.bytesRead
                var failure: RunFailure?, stopped = false
                let result = processor.process(chunk) { result in
                    do throws(RunFailure) {
                        if try writer.consume(result.takePart(), bytesRead: bytesRead) { return ChunkResult.partSize }
                        stopped = true
                    } catch {
                        failure = error
                    }
                    return nil
                }
                if let failure { throw failure }
                if stopped { return }
                ratio.record(result)
                reader.chunkSize = ratio.chunkSize
                guard try writer.consume(result, bytesRead: bytesRead) else { return }
            }
            return
        }
        // The workers write, one at a time and in order (OrderedPipeline); this thread waits.
        nonisolated(unsafe) var failure: RunFailure?
        let pipeline = OrderedPipeline(reader: reader, processor: processor, workers: options.jobs) { item in
            do throws(RunFailure) {
                switch item {
                case .result(let result, let bytesRead): return try writer.consume(result, bytesRead: bytesRead)
                case .failure(let error): throw error
                }
            } catch {
                failure = error
                return false
            }
        }
        pipeline.waitForEnd()
        if let failure { throw failure }
    }
}
