#if canImport(Glibc)
import Glibc
#endif

/// How many threads this process can keep busy: `--jobs`' default. As Rust's
/// `available_parallelism` (which ripgrep uses) counts them: the CPUs the process may run on
/// (its affinity mask, as `taskset` or a container's cpuset sets it), capped by a CPU quota of
/// its cgroup (cgroup v2 `cpu.max`, v1 `cpu.cfs_quota_us` over `cpu.cfs_period_us`, the smallest
/// along the path to the root, rounded down, at least 1). A container given 1.5 CPUs of a
/// 64-core host gets 1 worker, not 64 that the quota would throttle in turn.
enum AvailableCores {
    static func count() -> Int {
        let cpus = affinityCount(status: read("/proc/self/status") ?? "") ?? Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        let quota = cgroupQuota(cgroups: read("/proc/self/cgroup") ?? "", mounts: read("/proc/self/mountinfo") ?? "", read: read)
        return max(1, min(cpus, quota ?? cpus))
    }

    /// The CPUs in the process's affinity mask: the mask sched_getaffinity returns, which
    /// /proc/self/status shows as "Cpus_allowed:" in hexadecimal words separated by commas
    /// (Swift's Glibc module leaves sched_getaffinity out). nil when it is not there.
    static func affinityCount(status: String) -> Int? {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed:") }) else { return nil }
        var count = 0
        for character in line.dropFirst("Cpus_allowed:".count) where character != "," && character != " " && character != "\t" {
            guard let digit = character.hexDigitValue else { return nil }
            count += digit.nonzeroBitCount
        }
        return count > 0 ? count : nil
    }

    /// The whole CPUs the cgroup quotas allow, or nil for no quota. `cgroups` is
    /// /proc/self/cgroup, `mounts` /proc/self/mountinfo; `read` reads a file of the hierarchy.
    static func cgroupQuota(cgroups: String, mounts: String, read: (String) -> String?) -> Int? {
        var limits: [Int] = []
        for line in cgroups.split(separator: "\n") {
            // hierarchy-ID:controllers:path
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            let path = String(fields[2])
            if fields[0] == "0" && fields[1].isEmpty {
                // cgroup v2: "max 100000" (no quota) or "150000 100000".
                guard let (mount, root) = mountPoint(mounts, type: "cgroup2", controller: nil) else { continue }
                limits += directories(of: path, mountedAt: mount, root: root).compactMap { directory in
                    guard let words = read(directory + "/cpu.max")?.split(separator: " "), words.count == 2,
                          let quota = Int(words[0]), let period = Int(words[1].trimmingNewline) else { return nil }
                    return whole(quota, period)
                }
            } else if fields[1].split(separator: ",").contains("cpu") {
                // cgroup v1: the quota -1 is no quota.
                guard let (mount, root) = mountPoint(mounts, type: "cgroup", controller: "cpu") else { continue }
                limits += directories(of: path, mountedAt: mount, root: root).compactMap { directory in
                    guard let quota = read(directory + "/cpu.cfs_quota_us").flatMap({ Int($0.trimmingNewline) }),
                          let period = read(directory + "/cpu.cfs_period_us").flatMap({ Int($0.trimmingNewline) }) else { return nil }
                    return whole(quota, period)
                }
            }
        }
        return limits.min()
    }

    /// quota/period rounded down, at least 1; nil when there is no quota.
    static func whole(_ quota: Int, _ period: Int) -> Int? {
        guard quota > 0, period > 0 else { return nil }
        return max(1, quota / period)
    }

    /// Where the hierarchy is mounted, and which of its directories that mount shows at its
    /// root, from mountinfo ("ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS ... - TYPE SOURCE SUPEROPTIONS").
    static func mountPoint(_ mounts: String, type: String, controller: String?) -> (mount: String, root: String)? {
        for line in mounts.split(separator: "\n") {
            let halves = line.split(separator: " - ", maxSplits: 1).map { $0.split(separator: " ") }
            guard halves.count == 2, halves[0].count >= 5, halves[1].count >= 3, halves[1][0] == type else { continue }
            if let controller, !halves[1][2].split(separator: ",").contains(Substring(controller)) { continue }
            return (String(halves[0][4]), String(halves[0][3]))
        }
        return nil
    }

    /// The cgroup's directory and each above it up to the mount's root, as paths under `mount`.
    static func directories(of path: String, mountedAt mount: String, root: String) -> [String] {
        var relative = path
        if root != "/" {
            guard relative.hasPrefix(root) else { return [] }
            relative = String(relative.dropFirst(root.count))
        }
        var parts = relative.split(separator: "/").map(String.init)
        var found: [String] = []
        while true {
            found.append(mount + (parts.isEmpty ? "" : "/" + parts.joined(separator: "/")))
            if parts.isEmpty { return found }
            parts.removeLast()
        }
    }

    static func read(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var text = [CChar](repeating: 0, count: 4096)
        var result = ""
        while fgets(&text, Int32(text.count), file) != nil {
            result += String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return result
    }
}

extension Substring {
    fileprivate var trimmingNewline: Substring { hasSuffix("\n") ? dropLast() : self }
}

extension String {
    fileprivate var trimmingNewline: Substring { Substring(self).trimmingNewline }
}
