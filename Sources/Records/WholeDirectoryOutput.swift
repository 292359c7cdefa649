#if canImport(Glibc)
import Glibc
#endif
import CMalloc

/// A folder of files that must appear whole or not at all (a tile pyramid), as WholeFileOutput
/// is for one file: built in a temporary folder beside its name (`building`), then put in place
/// in one step, so that a reader (a tile server, an app syncing the folder) sees the old folder
/// or the new one, never a mix, and nothing of an earlier run is left in it. A run that fails
/// or is interrupted removes what it built and leaves the name as it was.
///
/// The name is followed when it is a symbolic link (the link stays, its target is replaced).
/// An existing folder is exchanged with the new one (renameat2's RENAME_EXCHANGE) and then
/// removed; on a file system without the exchange it is moved aside first, for an instant.
public final class WholeDirectoryOutput {
    /// The name the user gave.
    public let path: String
    /// The temporary folder the files are written into.
    public let building: String
    private let destination: String

    public init(_ path: String) throws(RunFailure) {
        self.path = path
        var info = stat()
        let exists = stat(path, &info) == 0
        if exists && (info.st_mode & S_IFMT) != S_IFDIR {
            throw RunFailure("cannot create '\(path)': \(systemReason(ENOTDIR))", status: .cannotCreate)
        }
        var target = exists ? WholeFileOutput.realPath(path) : WholeFileOutput.linkTarget(path)
        while target.count > 1 && target.hasSuffix("/") { target.removeLast() }
        destination = target
        let slash = target.lastIndex(of: "/")
        let directory = slash.map { String(target[...$0]) } ?? ""
        let name = slash.map { String(target[target.index(after: $0)...]) } ?? target
        var template = Array("\(directory).\(name).geo-XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw RunFailure("cannot create '\(path)': \(systemReason())", status: .cannotCreate)
        }
        building = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        // mkdtemp makes the folder private: the pyramid gets the mode the old one had, or what
        // any new folder gets.
        chmod(building, exists ? info.st_mode & 0o7777 : 0o777 & ~WholeFileOutput.fileCreationMask)
    }

    /// Puts the finished folder in place of the name, replacing what was there whole.
    public func commit() throws(RunFailure) {
        var info = stat()
        guard lstat(destination, &info) == 0 else {
            guard rename(building, destination) == 0 else { throw failure() }
            return
        }
        if geo_exchange_names(building, destination) == 0 {
            WholeDirectoryOutput.removeTree(building)
            return
        }
        guard errno == EINVAL || errno == ENOSYS else { throw failure() }
        // No exchange on this file system: the old folder goes aside, the new one takes its name.
        let aside = building + ".old"
        guard rename(destination, aside) == 0 else { throw failure() }
        guard rename(building, destination) == 0 else {
            let reason = failure()
            rename(aside, destination)
            throw reason
        }
        WholeDirectoryOutput.removeTree(aside)
    }

    private func failure() -> RunFailure {
        let reason = RunFailure("cannot create '\(path)': \(systemReason())", status: .cannotCreate)
        discard()
        return reason
    }

    /// Removes what was built; the name stays as it was.
    public func discard() { WholeDirectoryOutput.removeTree(building) }

    /// Removes a folder and everything in it, links not followed.
    static func removeTree(_ path: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            unlink(path)
            return
        }
        if let folder = opendir(path) {
            var names: [String] = []
            while let entry = readdir(folder) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
                if name != "." && name != ".." { names.append(name) }
            }
            closedir(folder)
            for name in names { removeTree("\(path)/\(name)") }
        }
        rmdir(path)
    }
}
