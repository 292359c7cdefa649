#if canImport(Glibc)
import Glibc
#endif
import Geometry

/// `geo decode: 1,204,000 records  512.0 MB  180.3 MB/s` on standard error, redrawn in place at
/// most five times a second. Only when asked for or when stderr is a terminal; never on stdout.
final class ProgressLine {
    let command: String
    /// Redraw one line in place on a terminal; elsewhere (a forced --progress into a log file)
    /// write plain lines, at most one a second.
    let redraw: Bool
    private var records = 0
    private var start = ProgressLine.now()
    private lazy var lastDraw = start
    private var drawn = false
    private var bytes = 0

    init(command: String, redraw: Bool) {
        self.command = command
        self.redraw = redraw
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
        if time - lastDraw >= (redraw ? 0.2 : 1) { draw(time) }
    }

    private func draw(_ time: Double) {
        lastDraw = time
        let elapsed = max(time - start, 1e-9)
        let megabytes = Double(bytes) / 1e6
        let rate = megabytes / elapsed
        let line = "geo \(command): \(count: records) records  \(oneDecimal(megabytes)) MB  \(oneDecimal(rate)) MB/s"
        printError(redraw ? "\r\u{1B}[K" + line : line + "\n")
        drawn = redraw
    }

    /// Erases the line so that an error message starts on a clean line.
    func clear() {
        if drawn { printError("\r\u{1B}[K") }
        drawn = false
        lastDraw = 0
    }

    func finish() {
        draw(ProgressLine.now())
        if redraw { printError("\n") }
    }
}

func oneDecimal(_ value: Double) -> String {
    let tenths = Int((value * 10).rounded())
    return "\(tenths / 10).\(tenths % 10)"
}
