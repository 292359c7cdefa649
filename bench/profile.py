#!/usr/bin/env python3
"""Where geo's time goes, per job: `perf record` on one core, samples grouped by what the code
does (scanning JSON, parsing numbers, formatting numbers, the polyline codec, geodesy, copying,
memory, starting up, waiting), as a markdown table of percentages of the run's CPU samples.

    python3 bench/profile.py [--geo PATH] [--corpus DIR] [--jobs decode,encode,length,area] [--threads 1]

Needs `perf` (Debian: linux-perf) and the corpus that bench/run.py makes (bench/out/corpus, from
../shared/bench/make_corpus.py, or give --corpus DIR with paths.ndjson and polylines.txt).
--threads 2 profiles `-j2`, where the reader, the workers and the writer share two cores.
Sampling is by CPU clock (no hardware counters in a VM): shares are exact to a percent or so;
run twice to see the spread.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent

JOBS = {
    "decode": (["decode"], "polylines.txt"),
    "encode": (["encode"], "paths.ndjson"),
    "length": (["length"], "paths.ndjson"),
    "area": (["area"], "paths.ndjson"),
}

# (category, pattern on "dso symbol"), first match wins; the order matters.
CATEGORIES = [
    ("startup (loader, relocations)", r"^ld-linux|_dl_|do_lookup_x|check_match"),
    ("number parsing", r"JSONScanner.*number|slowNumber|strtod|plainDecimal|compactPair|readDigits"),
    ("JSON scanning", r"JSONScanner|JSONReader|GeoJSONReader|JSONBytes.*string"),
    ("number formatting", r"appendNumber|appendScaled|appendDigits|writeDigits|DecimalNumber|decimalDigitCount|ScaledPath|JSONWriter|GeoJSONWriter"),
    ("polyline codec", r"Polyline|PolylineEncoder|appendPolyline|writePolyline|decodePath|scaledPath|PathInputFormat"),
    ("geodesy: PROJ", r"^libproj"),
    ("geodesy: hypot", r"hypot"),
    ("geodesy: libm (sincos, atan2, remainder)", r"^libm"),
    ("geodesy: geo's own", r"Geodesy|EdgeModel|CompensatedSum|Area"),
    ("copying and I/O (read, write, memchr, memmove)", r"copy_to_iter|copy_page|copy_folio|copy_user|memmove|memcpy|memchr|filemap|vfs_|ksys_|pipe_|_copy_from"),
    ("memory (malloc, page faults, retain/release)", r"malloc|_int_free|free|page_fault|clear_page|handle_mm|do_anonymous|folio|swift_retain|swift_release|swift_isUniquely|swift_bridgeObject|ContiguousArray|swift_allocObject|swift_dealloc|mmap|munmap|vma"),
    ("threads and waiting (futex, scheduling)", r"futex|schedule|finish_task_switch|spin_unlock|try_to_wake|Monitor|pthread_cond|pthread_mutex|OrderedPipeline"),
]


def categorise(dso, symbol):
    text = f"{dso} {symbol}"
    for name, pattern in CATEGORIES:
        if re.search(pattern, text):
            return name
    return "other"


def profile(geo, args, threads):
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "perf.data"
        subprocess.run(["perf", "record", "-q", "-F", "10000", "-o", str(data), "--", geo, *args, f"-j{threads}"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        report = subprocess.run(["perf", "report", "-i", str(data), "--no-children", "--sort", "dso,symbol",
                                 "--stdio", "-g", "none", "--percentage", "relative"],
                                capture_output=True, text=True, check=True).stdout
    shares = defaultdict(float)
    for line in report.splitlines():
        # "  9.12%  geo  [.] hypot  -  -": perf pads, and adds empty columns when not on a terminal.
        m = re.match(r"\s*([\d.]+)%\s+(\S+)\s+\[[.k]\]\s+(.*?)(?:\s+-\s+-)?\s*$", line)
        if m:
            shares[categorise(m.group(2), m.group(3).strip())] += float(m.group(1))
    return shares


def cpu_seconds(geo, args, threads, runs=5):
    """The least CPU time (user + system) of a few runs without perf."""
    best = float("inf")
    for _ in range(runs):
        process = subprocess.Popen([geo, *args, f"-j{threads}"], stdout=subprocess.DEVNULL)
        _, _, usage = os.wait4(process.pid, 0)
        best = min(best, usage.ru_utime + usage.ru_stime)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--geo", default=str(REPO / ".build" / "release" / "geo"))
    ap.add_argument("--corpus", default=str(BENCH / "out" / "corpus"))
    ap.add_argument("--jobs", default=",".join(JOBS))
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    corpus = Path(a.corpus)
    if not (corpus / "paths.ndjson").exists():
        sys.exit(f"profile.py: no corpus in {corpus}: run bench/run.py once (it needs ../shared/bench/make_corpus.py) or give --corpus")
    jobs = a.jobs.split(",")
    arguments = {job: [*JOBS[job][0], str(corpus / JOBS[job][1])] for job in jobs}
    results = {job: profile(a.geo, arguments[job], a.threads) for job in jobs}
    names = [name for name, _ in CATEGORIES] + ["other"]
    print(f"| share of CPU samples, -j{a.threads} | " + " | ".join(jobs) + " |")
    print("|---|" + "---:|" * len(jobs))
    print("| CPU seconds (least of 5, no perf) | " + " | ".join(f"{cpu_seconds(a.geo, arguments[job], a.threads):.3f}" for job in jobs) + " |")
    for name in names:
        row = [results[job].get(name, 0.0) for job in jobs]
        if max(row) >= 0.5:
            print(f"| {name} | " + " | ".join(f"{v:.0f}%" for v in row) + " |")


if __name__ == "__main__":
    main()
