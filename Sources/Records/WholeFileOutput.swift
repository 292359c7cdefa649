#if canImport(Glibc)
import Glibc
#endif

/// An output that must appear whole or not at all (a picture, a tile, an MBTiles file), written
/// through whatever the user named (SPEC section 3):
/// - a new name, or an existing regular file: written to a temporary file beside it and renamed
///   into place when complete, keeping an existing file's permissions (and owner, where geo may);
///   a symbolic link is followed, so the rename lands on its target and the link stays a link;
/// - anything else (`/dev/null`, a FIFO, a terminal, `/dev/stdout`, `/dev/fd/N` from `>(…)`):
///   written directly, never replaced. So is a regular file reached through `/dev/fd/N`,
///   `/dev/std*` or `/proc`, which names a descriptor the shell opened, not a place to rename to.
/// Temporary files are registered with `TemporaryFiles`, so SIGINT and SIGTERM leave none behind.
public final class WholeFileOutput {
    /// The name the user gave; nil for standard output.
    public let path: String?
    public let fd: Int32
    /// The temporary file and the name it is renamed to, when writing goes through a rename.
    private let replacing: (temporary: String, destination: String)?

    /// Standard output.
    public init() {
        path = nil
        fd = 1
        replacing = nil
    }

    public init(_ path: String) throws(RunFailure) {
        self.path = path
        var info = stat()
        let exists = stat(path, &info) == 0
        let kind = info.st_mode & S_IFMT
        if exists && kind == S_IFDIR {
            throw RunFailure("cannot create '\(path)': \(systemReason(EISDIR))", status: .cannotCreate)
        }
        let namesDescriptor = ["/dev/", "/proc/"].contains { path.hasPrefix($0) }
        if exists && (kind != S_IFREG || namesDescriptor) {
            let fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)
            guard fd >= 0 else { throw RunFailure("cannot write '\(path)': \(systemReason())", status: .cannotCreate) }
            self.fd = fd
            replacing = nil
            return
        }
        let destination = exists ? WholeFileOutput.realPath(path) : WholeFileOutput.linkTarget(path)
        let slash = destination.lastIndex(of: "/")
        let directory = slash.map { String(destination[...$0]) } ?? ""
        let name = slash.map { String(destination[destination.index(after: $0)...]) } ?? destination
        var template = Array("\(directory).\(name).geo-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw RunFailure("cannot create '\(path)': \(systemReason())", status: .cannotCreate) }
        let temporary = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        TemporaryFiles.add(temporary)
        if exists {
            // The replacement keeps what the user had set: permissions, and the owner when geo
            // runs as root or as that owner (a failure to keep the owner leaves geo's).
            fchmod(fd, info.st_mode & 0o7777)
            _ = fchown(fd, info.st_uid, info.st_gid)
        } else {
            // mkstemp makes the file private; a new picture gets what any new file gets.
            fchmod(fd, 0o666 & ~WholeFileOutput.fileCreationMask)
        }
        self.fd = fd
        replacing = (temporary, destination)
    }

    /// Leaves things as they were: a temporary file is removed (what was written directly to a
    /// device or FIFO stays written).
    public func discard() {
        guard let (temporary, _) = replacing else { return }
        close(fd)
        unlink(temporary)
        TemporaryFiles.remove(temporary)
    }

    /// The temporary file being written, when the output goes through a rename (a writer that
    /// opens files by name, as SQLite does, writes there).
    public var temporaryPath: String? { replacing?.temporary }

    /// Puts the finished output in place (flushed and checked; for a file, renamed onto its
    /// name). `durable: false` skips the flush to disk (the rename still shows the file whole
    /// or not at all): for the thousands of small files of a tile directory.
    public func commit(durable: Bool = true) throws(RunFailure) {
        guard let path else { return }
        let name = "'\(path)'"
        guard let (temporary, destination) = replacing else {
            if close(fd) != 0 { throw RunFailure("cannot write \(name): \(systemReason())", status: .ioError) }
            return
        }
        if durable && fsync(fd) != 0 && errno != EINVAL || close(fd) != 0 {
            let failure = systemReason()
            unlink(temporary)
            TemporaryFiles.remove(temporary)
            throw RunFailure("cannot write \(name): \(failure)", status: .ioError)
        }
        if rename(temporary, destination) != 0 {
            let failure = systemReason()
            unlink(temporary)
            TemporaryFiles.remove(temporary)
            throw RunFailure("cannot create \(name): \(failure)", status: .cannotCreate)
        }
        TemporaryFiles.remove(temporary)
    }

    /// The process's umask, read without setting it: umask(2) can only be read by setting it and
    /// setting it back, and while it is 0 another thread (tile threads make directories) would
    /// make a world-writable one. Linux shows it in /proc/self/status since 4.7.
    static let fileCreationMask: mode_t = {
        if let status = fopen("/proc/self/status", "r") {
            defer { fclose(status) }
            var line = [CChar](repeating: 0, count: 256)
            while fgets(&line, Int32(line.count), status) != nil {
                let text = String(cString: line)
                if text.hasPrefix("Umask:"), let mask = mode_t(String(text.dropFirst(6).filter { ("0"..."7").contains($0) }), radix: 8) {
                    return mask
                }
            }
        }
        let mask = umask(0o022)  // an older kernel: the only way, once, for the first file
        umask(mask)
        return mask
    }()

    /// An existing file's own name, every link resolved.
    static func realPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Where a name that does not exist yet will be made: itself, or, for a link that points
    /// nowhere yet, the name its chain of links ends at.
    static func linkTarget(_ path: String) -> String {
        var current = path
        for _ in 0..<40 {
            var info = stat()
            guard lstat(current, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK else { return current }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlink(current, &buffer, buffer.count - 1)
            guard count > 0 else { return current }
            let target = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if target.hasPrefix("/") {
                current = target
            } else {
                let slash = current.lastIndex(of: "/")
                current = (slash.map { String(current[...$0]) } ?? "") + target
            }
        }
        return current
    }
}
