#if canImport(Glibc)
import Glibc
#endif
import Geometry

/// `geo length: 42% 1,204,000 records  512.0 MB  180.3 MB/s  ETA 0:12` on standard error, or for
/// work counted in items of a known number, `geo tiles: 42% 12,000 of 28,571 tiles  3,100
/// tiles/s  ETA 0:05`. On a terminal it appears only once a run has lasted a second, is redrawn
/// in place at most five times a second, and is erased at the end, so that a run that succeeds
/// leaves nothing behind; forced into a file or pipe (`--progress`), it is plain lines, one a
/// second. Never on stdout.
public final class ProgressLine {
    let command: String
    /// Redraw one line in place (stderr is a terminal); else plain lines.
    let redraw: Bool
    /// The total size of the inputs when every one is a regular file: a percentage and an ETA.
    let totalBytes: Int?
    /// Items of a known number (`tiles`), counted instead of records and bytes.
    let items: (name: String, total: Int)?
    private var records = 0
    private let start = ProgressLine.now()
    private var lastDraw = 0.0
    private var drawn = false
    private var bytes = 0

    init(command: String, redraw: Bool, totalBytes: Int?) {
        self.command = command
        self.redraw = redraw
        self.totalBytes = totalBytes
        items = nil
    }

    /// A line that counts `total` items called `name` (plural), redrawn in place on a terminal.
    public init(command: String, counting name: String, of total: Int) {
        self.command = command
        redraw = isatty(2) != 0
        totalBytes = nil
        items = (name, total)
    }

    /// Whether a run shows progress by itself: only when standard error is a terminal, and not
    /// one that standard output is writing to (lines would mix), and not turned off by
    /// GEO_PROGRESS=0 (for a whole pipeline).
    public static func wanted(writingStandardOutput: Bool) -> Bool {
        guard isatty(2) != 0, getenv("GEO_PROGRESS").map({ String(cString: $0) }) != "0" else { return false }
        return !writingStandardOutput || isatty(1) == 0
    }

    /// The total size of `paths` when each is a regular file ("-": standard input), else nil.
    static func totalSize(of paths: [String]) -> Int? {
        var total = 0
        for path in paths {
            var info = stat()
            guard (path == "-" ? fstat(0, &info) : stat(path, &info)) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
            total += Int(info.st_size)
        }
        return total
    }

    public static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    func update(records more: Int, bytes total: Int) {
        records += more
        bytes = total
        let time = ProgressLine.now()
        // Quiet for the first second: short runs show nothing at all.
        guard time - start >= 1, time - lastDraw >= (redraw ? 0.2 : 1) else { return }
        draw(time)
    }

    /// Items done so far, of `items.total`.
    public func update(done: Int) {
        records = done
        let time = ProgressLine.now()
        guard time - start >= 1, time - lastDraw >= (redraw ? 0.2 : 1) else { return }
        draw(time)
    }

    /// The time since the line was made, in seconds.
    public var elapsed: Double { ProgressLine.now() - start }

    private func draw(_ time: Double) {
        lastDraw = time
        let elapsed = max(time - start, 1e-9)
        if let (name, total) = items {
            var line = "geo \(command): \(total > 0 ? Int(Double(records) / Double(total) * 100) : 100)% \(count: records) of \(count: total) \(name)"
            line += "  \(count: Int(Double(records) / elapsed)) \(name)/s"
            if records > 0, records < total { line += "  ETA " + ProgressLine.clock(elapsed * Double(total - records) / Double(records)) }
            printError(redraw ? "\r\u{1B}[K" + line : line + "\n")
            drawn = redraw
            return
        }
        let megabytes = Double(bytes) / 1e6
        var line = "geo \(command): "
        if let totalBytes, totalBytes > 0 {
            let done = min(1, Double(bytes) / Double(totalBytes))
            line += "\(Int(done * 100))% "
        }
        line += "\(count: records) records  \(oneDecimal(megabytes)) MB  \(oneDecimal(megabytes / elapsed)) MB/s"
        if let totalBytes, bytes > 0, bytes < totalBytes {
            line += "  ETA " + ProgressLine.clock(elapsed * Double(totalBytes - bytes) / Double(bytes))
        }
        printError(redraw ? "\r\u{1B}[K" + line : line + "\n")
        drawn = redraw
    }

    /// Seconds as M:SS.
    static func clock(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded(.up))
        return "\(whole / 60):\(whole % 60 < 10 ? "0" : "")\(whole % 60)"
    }

    /// Erases the line so that a message starts on a clean line.
    func clear() {
        if drawn { printError("\r\u{1B}[K") }
        drawn = false
    }

    /// The end: a terminal's line is erased; plain lines end with the totals.
    public func finish() {
        if redraw { clear() } else { draw(ProgressLine.now()) }
    }
}

public func oneDecimal(_ value: Double) -> String {
    let tenths = Int((value * 10).rounded())
    return "\(tenths / 10).\(tenths % 10)"
}
