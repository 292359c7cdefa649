"""What the side-by-side scripts share for running contenders: the common options, one timed
run, peak memory, and how a list of times is summarised."""
import os
import resource
import statistics
import subprocess
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent


def add_common_arguments(parser, runs=5):
    """--geo, --corpus and --runs, as every corpus benchmark takes them."""
    parser.add_argument("--geo", default=str(REPO / ".build" / "release" / "geo"))
    parser.add_argument("--corpus", type=Path, default=BENCH / "out" / "corpus")
    parser.add_argument("--runs", type=int, default=runs)


def timed(command, output):
    """Wall seconds, standard output and CPU seconds (user + system) of one run. Its output file
    is removed first: truncating the last run's would make ext4 write it back inside the timed
    run. CPU time is what other work on a shared machine disturbs least."""
    if os.path.exists(output):
        os.unlink(output)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(list(map(str, command)), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(map(str, command))}\n{proc.stderr.decode()}")
    return elapsed, proc.stdout.decode(), cpu


def peak_rss(command):
    """Peak RSS of one run, MB (GNU time's %M)."""
    proc = subprocess.run(["/usr/bin/time", "-f", "%M", *map(str, command)], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, check=True)
    return int(proc.stderr.strip().splitlines()[-1]) / 1024


def summary(times):
    """median (min-max)"""
    return f"{statistics.median(times):.3f} ({min(times):.3f}-{max(times):.3f})"


def load_note():
    """The machine's load averages (1, 5, 15 min), which count the benchmark's own processes too:
    on a shared machine they say how much the times can be trusted."""
    return "load averages " + " ".join(f"{value:.1f}" for value in os.getloadavg())
