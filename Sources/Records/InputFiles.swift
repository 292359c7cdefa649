#if canImport(Glibc)
import Glibc
#endif

/// Inputs as users' systems have them. A regular file can be opened as often as a run needs;
/// anything else can be read once: a FIFO, a pipe behind `<(…)` or `/dev/stdin`, a device.
/// Opening such an input only to see that it opens, and closing it again, would lose what its
/// writer had sent and leave the real read waiting for ever. So every input that is not a
/// regular file is opened once, before anything is read, and held here; the reader takes the
/// held descriptor instead of opening the name again. A command that reads its input twice
/// (render and tiles fit the view first) copies each held input to a temporary file instead,
/// which the reader then reads from its start as often as it is asked.
///
/// The table is filled before any reading thread starts and only read afterwards.
public enum InputFiles {
    private struct Held {
        var fd: Int32
        /// A temporary copy: every read starts at its beginning.
        var rewinds: Bool
    }
    nonisolated(unsafe) private static var held: [String: Held] = [:]

    /// Opens every input once to check it (66 for one that cannot be read), holding those that
    /// are not regular files for the one read they allow. `-` is standard input, held as it is.
    public static func check(_ paths: [String]) throws(RunFailure) {
        for path in paths where held[path] == nil {
            if path == "-" { continue }
            let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw RunFailure("cannot open '\(path)': \(systemReason())", status: .noInput) }
            var info = stat()
            guard fstat(fd, &info) == 0 else {
                close(fd)
                throw RunFailure("cannot read '\(path)': \(systemReason())", status: .noInput)
            }
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                close(fd)
                throw RunFailure("cannot read '\(path)': \(systemReason(EISDIR))", status: .noInput)
            case S_IFREG:
                close(fd)
            default:
                held[path] = Held(fd: fd, rewinds: false)
            }
        }
    }

    /// For commands that read their inputs more than once: `check`, then every input that is
    /// not a regular file (standard input included) is copied to a temporary file, removed from
    /// its folder at once so that nothing is left behind however geo ends.
    public static func keepForRereading(_ paths: [String]) throws(RunFailure) {
        try check(paths)
        for path in Set(paths) {
            let source: Int32
            if path == "-" {
                var info = stat()
                if fstat(0, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG && lseek(0, 0, SEEK_CUR) == 0 {
                    held[path] = Held(fd: 0, rewinds: true)  // a file given with `<`: it rewinds itself
                    continue
                }
                source = 0
            } else if let kept = held[path], !kept.rewinds {
                source = kept.fd
            } else {
                continue
            }
            let copy = try temporaryFile(purpose: "keep \(ChunkReader.displayName(path)) to read it twice")
            try copyAll(from: source, to: copy, name: ChunkReader.displayName(path))
            if source != 0 { close(source) }
            held[path] = Held(fd: copy, rewinds: true)
        }
    }

    /// A descriptor to read `path` from: the held one (from its start, for a copy) or a new one.
    static func open(_ path: String) throws(RunFailure) -> Int32 {
        if let kept = held[path] {
            let fd = dup(kept.fd)
            guard fd >= 0 else { throw RunFailure("cannot read '\(ChunkReader.displayName(path))': \(systemReason())", status: .noInput) }
            if kept.rewinds { lseek(fd, 0, SEEK_SET) }
            return fd
        }
        if path == "-" { return 0 }
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw RunFailure("cannot open '\(path)': \(systemReason())", status: .noInput) }
        var info = stat()
        if fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR {
            close(fd)
            throw RunFailure("cannot read '\(path)': \(systemReason(EISDIR))", status: .noInput)
        }
        return fd
    }

    private static func copyAll(from source: Int32, to copy: Int32, name: String) throws(RunFailure) {
        let size = 1 << 20
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: size)
        defer { buffer.deallocate() }
        while true {
            let count = read(source, buffer, size)
            if count < 0 {
                if errno == EINTR { continue }
                throw RunFailure("error reading '\(name)': \(systemReason())", status: .ioError)
            }
            if count == 0 { return }
            try writeTemporary(copy, UnsafeRawBufferPointer(start: buffer, count: count), what: "keep '\(name)'")
        }
    }
}

/// Where temporary files go: $TMPDIR, or /tmp.
public var temporaryDirectory: String {
    getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
}

/// The message for a temporary file that cannot be written or read: which folder, so that a
/// user whose /tmp is full knows where to point TMPDIR instead.
public func temporaryFileFailure(_ what: String, _ reason: String) -> String {
    "cannot \(what) in a temporary file in \(temporaryDirectory): \(reason) (TMPDIR chooses the folder)"
}

/// Writes all of `bytes` to a temporary file, or throws saying what it was for and where.
public func writeTemporary(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, what: String) throws(RunFailure) {
    do throws(WriteFailure) { try writeAll(fd, UnsafeBufferPointer(start: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), count: bytes.count)) } catch {
        throw RunFailure(temporaryFileFailure(what, error.reason), status: .ioError)
    }
}

/// Writes the bytes of all of `items` to a temporary file (Array's withUnsafeBytes does not
/// carry a typed error through).
public func writeTemporary<Element>(_ fd: Int32, _ items: [Element], what: String) throws(RunFailure) {
    let failure: RunFailure? = items.withUnsafeBytes { bytes in
        do throws(RunFailure) { try writeTemporary(fd, bytes, what: what) } catch { return error }
        return nil
    }
    if let failure { throw failure }
}

/// A temporary file in $TMPDIR (or /tmp), removed from its folder as soon as it is made: it lives
/// while geo holds it open and goes away however geo ends.
public func temporaryFile(purpose: String) throws(RunFailure) -> Int32 {
    let directory = temporaryDirectory
    var template = Array("\(directory)/geo-XXXXXX".utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard fd >= 0 else {
        throw RunFailure("cannot make a temporary file in \(directory) to \(purpose): \(systemReason())", status: .cannotCreate)
    }
    template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
    return fd
}
