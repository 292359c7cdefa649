import XCTest
@testable import CommandKit

/// --jobs' default from the files the kernel shows (AvailableCores): the parsing, on the files of
/// machines unlike this one (cgroup v2 with a quota, a container's hierarchy, v1). The live
/// effect is Tests/EndToEnd/test_jobs_default.py.
final class AvailableCoresTests: XCTestCase {
    func testTheAffinityMaskIsCountedBitByBit() {
        XCTAssertEqual(AvailableCores.affinityCount(status: "Name:\tgeo\nCpus_allowed:\t3\nCpus_allowed_list:\t0-1\n"), 2)
        XCTAssertEqual(AvailableCores.affinityCount(status: "Cpus_allowed:\tffffffff,ffffffff,00000000,00000001\n"), 65)
        XCTAssertEqual(AvailableCores.affinityCount(status: "Cpus_allowed:\t1\n"), 1)
        XCTAssertNil(AvailableCores.affinityCount(status: "Name:\tgeo\n"))
    }

    let v2Mounts = "30 24 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate\n"

    func testCgroupV2TakesTheSmallestQuotaOnThePathRoundedDown() {
        let files = ["/sys/fs/cgroup/system.slice/geo.service/cpu.max": "250000 100000\n",
                     "/sys/fs/cgroup/system.slice/cpu.max": "150000 100000\n",
                     "/sys/fs/cgroup/cpu.max": "max 100000\n"]
        XCTAssertEqual(AvailableCores.cgroupQuota(cgroups: "0::/system.slice/geo.service\n", mounts: v2Mounts, read: { files[$0] }), 1)
        XCTAssertEqual(AvailableCores.cgroupQuota(cgroups: "0::/system.slice/geo.service\n", mounts: v2Mounts,
                                                  read: { $0.hasSuffix("geo.service/cpu.max") ? files[$0] : nil }), 2)
        // No quota anywhere; a quota below one CPU is still one.
        XCTAssertNil(AvailableCores.cgroupQuota(cgroups: "0::/user.slice\n", mounts: v2Mounts, read: { _ in "max 100000\n" }))
        XCTAssertEqual(AvailableCores.cgroupQuota(cgroups: "0::/\n", mounts: v2Mounts, read: { _ in "50000 100000\n" }), 1)
    }

    func testCgroupV1InAContainerWhoseMountShowsItsOwnCgroupAtTheRoot() {
        let mounts = "40 30 0:35 /docker/abc /sys/fs/cgroup/cpu,cpuacct ro,nosuid - cgroup cgroup rw,cpu,cpuacct\n"
        let files = ["/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us": "400000\n", "/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us": "100000\n"]
        let cgroups = "12:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n0::/\n"
        XCTAssertEqual(AvailableCores.cgroupQuota(cgroups: cgroups, mounts: mounts, read: { files[$0] }), 4)
        // -1: no quota.
        XCTAssertNil(AvailableCores.cgroupQuota(cgroups: cgroups, mounts: mounts, read: { $0.hasSuffix("quota_us") ? "-1\n" : "100000\n" }))
    }
}
