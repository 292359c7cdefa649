"""--jobs' default is the CPUs geo may use, not the machine's (Sources/CommandKit/AvailableCores.swift):
its affinity (taskset, a container's cpuset) and its cgroup's CPU quota. Seen from outside as the
threads of a run: with one job, records are processed on the reading thread and there is one;
with N, N workers besides it."""
import os
import shutil
import subprocess
import time
import uuid

import pytest

from conftest import geo_bin

LINE = b'{"type":"LineString","coordinates":[[0,0],[1,1]]}\n'


def most_threads(prefix, extra=()):
    """The most threads `geo length` has while it waits for more input."""
    process = subprocess.Popen(prefix + [geo_bin(), "length", *extra], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdin.write(LINE * 10)
    process.stdin.flush()
    most = 0
    for _ in range(20):
        time.sleep(0.05)
        try:
            most = max(most, len(os.listdir(f"/proc/{process.pid}/task")))
        except FileNotFoundError:
            break
    out, err = process.communicate(timeout=30)
    assert process.returncode == 0 and len(out.splitlines()) == 10, err
    return most


def usable_cpus():
    return sorted(os.sched_getaffinity(0))


@pytest.mark.skipif(not shutil.which("taskset"), reason="needs taskset (util-linux)")
def test_one_cpu_by_affinity_is_one_job():
    cpu = usable_cpus()[0]
    assert most_threads(["taskset", "-c", str(cpu)]) == 1
    # -j still overrides it.
    assert most_threads(["taskset", "-c", str(cpu)], ["-j2"]) == 3


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2 or not shutil.which("taskset"), reason="needs two CPUs")
def test_two_cpus_by_affinity_are_two_jobs():
    assert most_threads(["taskset", "-c", ",".join(map(str, usable_cpus()[:2]))]) == 3


def write_existing(path, text):
    """Writes a control file of a cgroup, never creating one (os.O_CREAT left out)."""
    descriptor = os.open(path, os.O_WRONLY)
    try:
        os.write(descriptor, text.encode())
    finally:
        os.close(descriptor)


def cpu_cgroup_with_quota(quota, period):
    """A new cgroup limited to quota/period CPUs; None when this machine does not let us make
    one (not root, no cpu controller). Only a directory whose control files the kernel made is
    used: /sys/fs/cgroup may be a plain tmpfs above the hierarchies."""
    name = f"geo-test-{uuid.uuid4().hex[:8]}"
    for root, settings in [("/sys/fs/cgroup", {"cpu.max": f"{quota} {period}"}),
                           ("/sys/fs/cgroup/unified", {"cpu.max": f"{quota} {period}"}),
                           ("/sys/fs/cgroup/cpu", {"cpu.cfs_period_us": str(period), "cpu.cfs_quota_us": str(quota)}),
                           ("/sys/fs/cgroup/cpu,cpuacct", {"cpu.cfs_period_us": str(period), "cpu.cfs_quota_us": str(quota)})]:
        if not os.path.isfile(os.path.join(root, "cgroup.procs")):
            continue
        path = os.path.join(root, name)
        try:
            os.mkdir(path)
        except OSError:
            continue
        try:
            for control, value in settings.items():
                write_existing(os.path.join(path, control), value)
            return path
        except OSError:
            os.rmdir(path)
    return None


def test_a_cgroup_quota_of_one_and_a_half_cpus_is_one_job():
    path = cpu_cgroup_with_quota(150000, 100000)
    if path is None:
        pytest.skip("cannot make a cgroup with a CPU quota here (needs root and the cpu controller)")
    try:
        join = f'echo $$ > {path}/cgroup.procs && exec "$0" "$@"'
        assert most_threads(["sh", "-c", join]) == 1
        assert most_threads(["sh", "-c", join], ["-j2"]) == 3
    finally:
        os.rmdir(path)
