#if canImport(Glibc)
import Glibc
#endif
import Geometry

/// `geo length: 42% 1,204,000 records  512.0 MB  180.3 MB/s  ETA 0:12` on standard error. On a
/// terminal it appears only once a run has lasted a second, is redrawn in place at most five
/// times a second, and is erased at the end, so that a run that succeeds leaves nothing behind;
/// forced into a file or pipe (`--progress`), it is plain lines, one a second. Never on stdout.
public final class ProgressLine {
    let command: String
    /// Redraw one line in place (stderr is a terminal); else plain lines.
    let redraw: Bool
    /// The total size of the inputs when every one is a regular file: a percentage and an ETA.
    let totalBytes: Int?
    private var records = 0
    private let start = ProgressLine.now()
    private var lastDraw = 0.0
    private var drawn = false
    private var bytes = 0

    init(command: String, redraw: Bool, totalBytes: Int?) {
        self.command = command
        self.redraw = redraw
        self.totalBytes = totalBytes
    }

    /// Whether a run shows progress by itself: only when standard error is a terminal that
    /// standard output is not writing to (lines would mix), and not turned off by GEO_PROGRESS=0
    /// (for a whole pipeline).
    public static var wanted: Bool {
        guard isatty(2) != 0, getenv("GEO_PROGRESS").map({ String(cString: $0) }) != "0" else { return false }
        return isatty(1) == 0
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

    static func now() -> Double {
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

    private func draw(_ time: Double) {
        lastDraw = time
        let elapsed = max(time - start, 1e-9)
        let megabytes = Double(bytes) / 1e6
        var line = "geo \(command): "
        if let totalBytes, totalBytes > 0 {
            let done = min(1, Double(bytes) / Double(totalBytes))
            line += "\(Int(done * 100))% "
        }
        line += "\(count: records) records  \(oneDecimal(megabytes)) MB  \(oneDecimal(megabytes / elapsed)) MB/s"
        if let totalBytes, bytes > 0, bytes < totalBytes {
            let remaining = Int(elapsed * Double(totalBytes - bytes) / Double(bytes))
            line += "  ETA \(remaining / 60):\(remaining % 60 < 10 ? "0" : "")\(remaining % 60)"
        }
        printError(redraw ? "\r\u{1B}[K" + line : line + "\n")
        drawn = redraw
    }

    /// Erases the line so that a message starts on a clean line.
    func clear() {
        if drawn { printError("\r\u{1B}[K") }
        drawn = false
    }

    /// The end: a terminal's line is erased; plain lines end with the totals.
    func finish() {
        if redraw { clear() } else { draw(ProgressLine.now()) }
    }
}

func oneDecimal(_ value: Double) -> String {
    let tenths = Int((value * 10).rounded())
    return "\(tenths / 10).\(tenths % 10)"
}
