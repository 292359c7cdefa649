#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Threads

/// SIGINT and SIGTERM end geo at once, as usual, except in the middle of writing output: then
/// the write completes first, so that `-o FILE` never ends in half a record. Worker threads block
/// both signals, so they reach the thread that started the run; a write may be under way on a
/// worker meanwhile (the workers write in turn, OrderedPipeline). Sequentially consistent atomics
/// make the two sides meet: the handler records the signal and then looks for a write, a write
/// is announced and then looks for a signal, so at least one of them sees the other and ends geo,
/// either before the write starts or once it is done.
enum SignalGuard {
    static let writing = Atomic<Bool>(false)
    static let pending = Atomic<Int32>(0)

    static func install() {
        // Touched here, before any handler can run, so that the handler never initialises them.
        _ = writing.load(ordering: .sequentiallyConsistent)
        _ = pending.load(ordering: .sequentiallyConsistent)
        for signal in [SIGINT, SIGTERM] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { signal in
                SignalGuard.pending.store(signal, ordering: .sequentiallyConsistent)
                if !SignalGuard.writing.load(ordering: .sequentiallyConsistent) { SignalGuard.die(signal) }
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(signal, &action, nil)
        }
    }

    /// Before a write: a signal that has come already ends geo instead.
    static func startWriting() {
        writing.store(true, ordering: .sequentiallyConsistent)
        let signal = pending.load(ordering: .sequentiallyConsistent)
        if signal != 0 { die(signal) }
    }

    /// After a write: a signal that came during it takes effect now.
    static func finishedWriting() {
        writing.store(false, ordering: .sequentiallyConsistent)
        let signal = pending.load(ordering: .sequentiallyConsistent)
        if signal != 0 { die(signal) }
    }

    /// Ends the process by the signal itself, so the parent sees what happened (128 + N), after
    /// removing the temporary files still registered. On a worker, which blocks the signal, it is
    /// let through first.
    static func die(_ signal: Int32) {
        TemporaryFiles.removeAll()
        Glibc.signal(signal, SIG_DFL)
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, signal)
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
        raise(signal)
    }
}

/// Files that must not outlive geo (a picture being written before its rename): removed when
/// SIGINT or SIGTERM ends geo. Paths are kept as C strings made in advance, so that the signal
/// handler only calls unlink(2), which is async-signal-safe.
public enum TemporaryFiles {
    static let capacity = 16
    // Unsafe by hand: written only by `add` and `remove`, with `lock` held (tile threads write
    // files at once); read by the signal handler, which passes the pointers to unlink.
    nonisolated(unsafe) static let paths = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: capacity)
    nonisolated(unsafe) static var initialised = false
    static let lock = Monitor()

    /// Registers `path` for removal on a signal or an early exit(), and makes SIGINT and SIGTERM
    /// remove it. (An exit() is how a missing library ends geo: SystemLibraries' lazy loading.)
    public static func add(_ path: String) {
        lock.lock()
        defer { lock.unlock() }
        initialise()
        guard let free = (0..<capacity).first(where: { paths[$0] == nil }) else { return }
        paths[free] = strdup(path)
    }

    /// Sets up the table, the signal handlers and the exit hook, once; `lock` held.
    private static func initialise() {
        guard !initialised else { return }
        paths.initialize(repeating: nil, count: capacity)
        initialised = true
        SignalGuard.install()
        atexit { TemporaryFiles.removeAll() }
    }

    /// Makes SIGINT and SIGTERM remove the registered files, before any is registered.
    static func installHandlers() {
        lock.lock()
        defer { lock.unlock() }
        initialise()
    }

    /// Forgets `path` (it was renamed or removed).
    public static func remove(_ path: String) {
        lock.lock()
        defer { lock.unlock() }
        guard initialised else { return }
        for index in 0..<capacity {
            if let entry = paths[index], String(cString: entry) == path {
                paths[index] = nil
                free(entry)
            }
        }
    }

    static func removeAll() {
        guard initialised else { return }
        for index in 0..<capacity { if let entry = paths[index] { unlink(entry) } }
    }
}

/// A whole output built beside its name over a long run (a tile pyramid in a folder of its own):
/// from `hold()` on, SIGINT and SIGTERM only mark the run `interrupted`, which it asks between
/// tiles; it then removes what it built, a tree no signal handler could safely walk, and
/// `release()` ends geo by the signal, as the signal would have ended it (128 + N).
public enum HeldSignals {
    public static func hold() {
        TemporaryFiles.installHandlers()
        SignalGuard.startWriting()
    }

    public static var interrupted: Bool { SignalGuard.pending.load(ordering: .sequentiallyConsistent) != 0 }

    public static func release() { SignalGuard.finishedWriting() }
}
