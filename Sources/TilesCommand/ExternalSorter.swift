#if canImport(Glibc)
import Glibc
#endif
import Records

/// Fixed-size records sorted at flat memory, whatever their number: runs of `runLength` sorted in
/// memory and spilled to temporary files, then merged (a heap of each run's next record). The
/// partition sorts its entries by tile with it; the PMTiles writer sorts its tile records with it,
/// three times, instead of holding them. `Record` must be plain data (no references): runs are
/// written and read as bytes.
final class ExternalSorter<Record> {
    /// Records sorted in memory at a time: 32 MB of 32-byte records.
    static var defaultRunLength: Int { (32 << 20) / MemoryLayout<Record>.stride }
    private let runLength: Int
    private let inOrder: (Record, Record) -> Bool
    /// Sorts a run in memory (by `inOrder`, unless the owner knows a faster way).
    private let sortRun: (inout [Record]) -> Void
    private let purpose: String
    private var records: [Record] = []
    private var runs: [(fd: Int32, count: Int)] = []
    /// How many records were added.
    private(set) var count = 0

    /// `inOrder(a, b)`: a comes before b; `sortRun`, if given, sorts a run in that order.
    /// `purpose` names the temporary files in messages.
    init(purpose: String, runLength: Int = ExternalSorter.defaultRunLength, sortRun: ((inout [Record]) -> Void)? = nil,
         by inOrder: @escaping (Record, Record) -> Bool) {
        self.purpose = purpose
        self.runLength = runLength
        self.inOrder = inOrder
        self.sortRun = sortRun ?? { $0.sort(by: inOrder) }
    }

    deinit {
        for run in runs { close(run.fd) }
    }

    func add(_ record: Record) throws(RunFailure) {
        records.append(record)
        count += 1
        if records.count >= runLength { try spill() }
    }

    private func spill() throws(RunFailure) {
        sortRun(&records)
        let fd = try temporaryFile(purpose: purpose)
        runs.append((fd, records.count))
        try writeTemporary(fd, records, what: purpose)
        records.removeAll(keepingCapacity: true)
    }

    /// Every record, sorted, when they all fit in one run (nothing spilled); the sorter is then
    /// empty. Nil when runs were spilled: read them with `forEachSorted`.
    func sortedInMemory() -> [Record]? {
        guard runs.isEmpty else { return nil }
        sortRun(&records)
        defer { records = [] }
        return records
    }

    /// Hands every record to `body` in order, once; the sorter is then empty.
    func forEachSorted(_ body: (Record) throws(RunFailure) -> Void) throws(RunFailure) {
        defer {
            for run in runs { close(run.fd) }
            runs = []
            records = []
        }
        if let sorted = sortedInMemory() {
            for record in sorted { try body(record) }
            return
        }
        if !records.isEmpty { try spill() }
        records = []
        var readers = runs.map { RecordReader<Record>(fd: $0.fd, count: $0.count, purpose: purpose) }
        var heap: [(record: Record, run: Int)] = []
        func siftDown(_ start: Int) {
            var i = start
            while true {
                let l = 2 * i + 1, r = l + 1
                var m = i
                if l < heap.count && inOrder(heap[l].record, heap[m].record) { m = l }
                if r < heap.count && inOrder(heap[r].record, heap[m].record) { m = r }
                if m == i { return }
                heap.swapAt(i, m)
                i = m
            }
        }
        for index in readers.indices {
            if let record = try readers[index].next() { heap.append((record, index)) }
        }
        for index in stride(from: heap.count / 2, through: 0, by: -1) { siftDown(index) }
        while let top = heap.first {
            try body(top.record)
            if let next = try readers[top.run].next() {
                heap[0] = (next, top.run)
            } else {
                heap[0] = heap[heap.count - 1]
                heap.removeLast()
            }
            siftDown(0)
        }
    }
}

/// A spilled run read back a block at a time.
private struct RecordReader<Record> {
    let fd: Int32
    let count: Int
    let purpose: String
    var done = 0
    var buffer: [Record] = []
    var position = 0

    init(fd: Int32, count: Int, purpose: String) {
        self.fd = fd
        self.count = count
        self.purpose = purpose
    }

    mutating func next() throws(RunFailure) -> Record? {
        if position == buffer.count {
            guard done < count else { return nil }
            let block = min(4096, count - done)
            var reason: String?
            let at = off_t(done * MemoryLayout<Record>.stride)
            buffer = [Record](unsafeUninitializedCapacity: block) { records, initialized in
                reason = readAll(fd, UnsafeMutableRawBufferPointer(records), at: at)
                initialized = block
            }
            if let reason { throw RunFailure(temporaryFileFailure(purpose, reason), status: .ioError) }
            done += block
            position = 0
        }
        defer { position += 1 }
        return buffer[position]
    }
}
