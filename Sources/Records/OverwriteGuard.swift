#if canImport(Glibc)
import Glibc
#endif

/// A streaming filter cannot do what `sort -o` does (read everything, then write): opening `-o`
/// for writing truncates it before a byte of it is read, and standard output appending to an
/// input (`geo length f >> f`) makes geo read its own output for ever. So before anything is
/// opened for writing, every input (files and standard input) is compared by device and inode
/// with the output (standard output when there is no `-o`) and the rejects file, and a match is
/// refused, as cat refuses "input file is output file".
public enum OverwriteGuard {
    /// The first output (`--output`, standard output or `--rejects`) that is also an input, as a
    /// message naming both; nil when none is. Outputs that do not exist yet, and outputs that are
    /// not regular files (`/dev/null`, a FIFO, a terminal), cannot lose data this way.
    public static func collision(inputs: [String], output: String?, rejects: String?) -> String? {
        var inputFiles: [(name: String, file: stat)] = []
        for path in inputs {
            var info = stat()
            let found = path == "-" ? fstat(0, &info) == 0 : stat(path, &info) == 0
            if found { inputFiles.append((path == "-" ? "standard input" : "'\(path)'", info)) }
        }
        var standardOutput = stat()
        if output == nil, fstat(1, &standardOutput) == 0, (standardOutput.st_mode & S_IFMT) == S_IFREG,
           let input = inputFiles.first(where: { $0.file.st_dev == standardOutput.st_dev && $0.file.st_ino == standardOutput.st_ino }) {
            // `geo length f > f`: the shell truncated f when it opened it, before geo started, so
            // the records are already gone; saying only "would read for ever" hides that.
            let appending = fcntl(1, F_GETFL) & O_APPEND != 0
            if !appending && standardOutput.st_size == 0 {
                return "standard output is the input \(input.name), which the shell emptied when it opened it "
                    + "for writing (>), before geo started: its records are already lost. Write to another file, then rename it"
            }
            return "standard output is the input \(input.name): geo would read what it writes for ever. "
                + "Write to another file, then rename it"
        }
        for (option, path) in [("-o", output), ("--rejects", rejects)] {
            guard let path else { continue }
            var info = stat()
            guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            if let input = inputFiles.first(where: { $0.file.st_dev == info.st_dev && $0.file.st_ino == info.st_ino }) {
                let what = input.name == "'\(path)'" ? "is also an input" : "is the same file as the input \(input.name)"
                return "\(option) '\(path)' \(what): writing it would empty it before it is read. "
                    + "Write to another file, then rename it"
            }
        }
        if let output, let rejects {
            var outputInfo = stat(), rejectsInfo = stat()
            if stat(output, &outputInfo) == 0, stat(rejects, &rejectsInfo) == 0,
               outputInfo.st_dev == rejectsInfo.st_dev, outputInfo.st_ino == rejectsInfo.st_ino,
               (outputInfo.st_mode & S_IFMT) == S_IFREG {
                return "-o '\(output)' and --rejects '\(rejects)' are the same file"
            }
        }
        return nil
    }
}
