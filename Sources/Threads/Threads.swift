#if canImport(Glibc)
import Glibc
#endif

// geo's thread primitives, in a leaf so that the engine (Records) and the picture model
// (Drawing) share them.

/// A mutex with one condition variable: all the synchronisation the ordered pipeline and the
/// tile threads need, on pthreads directly so that geo does not load Foundation (and ICU) just
/// for a lock.
/// Sendable by hand: the pthread mutex and condition are made for use from many threads, and
/// the pointers to them never change after init.
public final class Monitor: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    public init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }
    public func unlock() { pthread_mutex_unlock(mutex) }
    /// Waits for a broadcast; call with the lock held.
    public func wait() { pthread_cond_wait(condition, mutex) }
    public func broadcast() { pthread_cond_broadcast(condition) }
}

private final class ThreadBody {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}

/// Starts a detached thread running `body`, with a stack deep enough for bounded JSON recursion:
/// geo's one way to start a thread (the engine's workers, the tile threads, the rasterizer's bands).
public func startThread(_ body: @escaping @Sendable () -> Void) {
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    pthread_attr_setstacksize(&attributes, 8 << 20)
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    let context = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
    var thread = pthread_t()
    let status = pthread_create(&thread, &attributes, { context in
        // SIGINT and SIGTERM go to the thread that started the run (Records' SignalGuard, which
        // holds them back while output is written).
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        Unmanaged<ThreadBody>.fromOpaque(context!).takeRetainedValue().run()
        return nil
    }, context)
    precondition(status == 0, "cannot start a thread: \(String(cString: strerror(status)))")
    pthread_attr_destroy(&attributes)
}
