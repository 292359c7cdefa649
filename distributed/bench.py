#!/usr/bin/env python3
"""Throughput of `geo length` on one machine three ways: --jobs, GNU parallel, Spark local[N].

    python3 distributed/bench.py [--corpus DIR] [--runs 5] [--jobs 2] [--geo PATH]

DIR holds paths.ndjson from shared/bench/make_corpus.py (default: bench/out/corpus, made if
missing). Every variant's output is checked against `geo length` alone, byte for byte. Times
are wall-clock medians; Spark's include starting its JVM, so the script also times a
one-record run: Spark's fixed cost per job.
"""

import argparse
import hashlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


def timed(cmd, stdin=None, env=None, out=None):
    """Wall time of CMD with stdout to a file (like a real run), and that output."""
    out = out or Path(tempfile.mkstemp(prefix="geo-dist-bench-out-")[1])
    with open(out, "wb") as f:
        start = time.perf_counter()
        proc = subprocess.run(cmd, stdin=stdin, stdout=f, stderr=subprocess.PIPE, env=env)
        elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"failed ({proc.returncode}): {' '.join(map(str, cmd))}\n"
                 f"{proc.stderr.decode(errors='replace')[-2000:]}")
    data = out.read_bytes()
    out.unlink()
    return elapsed, data


def digest(data):
    return hashlib.sha256(data).hexdigest()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default=str(REPO / "bench" / "out" / "corpus"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--block", default="4M")
    ap.add_argument("--geo", default=str(REPO / ".build" / "release" / "geo"))
    opts = ap.parse_args()

    corpus = Path(opts.corpus)
    src = corpus / "paths.ndjson"
    if not src.exists():
        subprocess.run([sys.executable, str(REPO.parent / "shared" / "bench" / "make_corpus.py"),
                        str(corpus)], check=True)
    size_mb = src.stat().st_size / 1e6
    records = sum(1 for _ in open(src, "rb"))
    geo, j = opts.geo, opts.jobs
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    work = Path(tempfile.mkdtemp(prefix="geo-dist-bench-"))
    tiny = work / "tiny.ndjson"
    with open(src, "rb") as f:
        tiny.write_bytes(f.readline())

    _, reference = timed([geo, "length", "-j1", str(src)])
    ref = digest(reference)

    def spark(input_path, name):
        out = work / name
        shutil.rmtree(out, ignore_errors=True)
        t, _ = timed([sys.executable, str(HERE / "geo_spark.py"), "--master", f"local[{j}]",
                      "--conf", "spark.ui.enabled=false", "--input", str(input_path),
                      "--output", str(out), "--geo", geo, "--", "length"], env=env)
        data = b"".join(p.read_bytes() for p in sorted(out.glob("part-*")))
        return t, data

    variants = {
        f"geo length --jobs {j}": lambda: timed([geo, "length", "--jobs", str(j), str(src)]),
        "geo length --jobs 1": lambda: timed([geo, "length", "--jobs", "1", str(src)]),
        f"parallel -j{j} --pipe --block {opts.block}": lambda: timed(
            ["parallel", "--will-cite", f"-j{j}", "--pipe", "--keep-order", "--block", opts.block,
             geo, "length", "-j1"], stdin=open(src, "rb")),  # noqa: SIM115
        f"parallel -j{j} --pipepart --block {opts.block}": lambda: timed(
            ["parallel", "--will-cite", f"-j{j}", "--pipepart", "-a", str(src), "--keep-order",
             "--block", opts.block, geo, "length", "-j1"]),
        f"Spark local[{j}] (end to end)": lambda: spark(src, "out"),
        f"Spark local[{j}], 1 record (fixed cost)": lambda: spark(tiny, "tiny"),
    }
    print(f"corpus: {src} ({records} paths, {size_mb:.1f} MB); {opts.runs} runs each, "
          f"interleaved; load average before: {os.getloadavg()[0]:.2f}")
    times = {name: [] for name in variants}
    for _ in range(opts.runs):  # round-robin, so that background load hits every variant alike
        for name, fn in variants.items():
            t, data = fn()
            if "1 record" not in name and digest(data) != ref:
                sys.exit(f"{name}: output differs from geo length alone")
            times[name].append(t)
    print("| variant | median s | min s | MB/s (median) | paths/s (median) |")
    print("|---|---:|---:|---:|---:|")
    for name, ts in times.items():
        med = statistics.median(ts)
        if "1 record" in name:
            print(f"| {name} | {med:.2f} | {min(ts):.2f} | | |")
        else:
            print(f"| {name} | {med:.2f} | {min(ts):.2f} | {size_mb / med:.0f} | "
                  f"{records / med:,.0f} |")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
