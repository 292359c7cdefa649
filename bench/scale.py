#!/usr/bin/env python3
"""Scale: every command streams a multi-gigabyte input in flat memory, --jobs N gives the same
bytes as --jobs 1, and a slow consumer neither grows geo's memory nor loses data.

    python3 bench/scale.py [--gb 5] [--check-gb 1] [--geo PATH] [--only decode,length,...]
                           [--slow-seconds S] [--remove-inputs]

Inputs are built once in bench/out/ by repeating the shared corpus (bench/out/corpus, made by
bench/run.py or ../shared/bench/make_corpus.py). Peak RSS comes from GNU time (%M, the command's
own wait4 figure) and must stay under 32 MB (issue 15). Output goes into a hash, so the disk
does not set the pace. Commands that write 20-30 bytes per input byte (interpolate --densify
10000, spans --split, circle-to-polygon) read a fifth or a tenth as much, and the spans pattern
of 5 km (~55 bytes out per byte in, thousands of spans for a long path) a tenth. Prints a
markdown table.
"""
import argparse
import hashlib
import json
import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "bench" / "out"

RSS_LIMIT_MB = 32

# name: (geo arguments, input kind, share of --gb)
JOBS = {
    "decode": (["decode"], "polylines", 1.0),
    "encode": (["encode"], "paths", 1.0),
    "length": (["length", "--cumulative"], "paths", 1.0),
    "area": (["area"], "paths", 1.0),
    "locate": (["locate", "--point", "48.8566,2.3522"], "paths", 1.0),
    "interpolate": (["interpolate", "--densify", "10000"], "paths", 0.2),
    "spans": (["spans", "--style", "red", "--style", "blue", "--length", "5000"], "paths", 0.1),
    "spans-split": (["spans", "--split", "--style", "red", "--style", "gradient(red,blue)", "--length", "50000"], "paths", 0.1),
    "circle-to-polygon": (["circle-to-polygon", "--radius", "2000"], "points", 0.1),
    # Issue 44's commands. locate --join: the corpus' first 200 paths as shapes (SHAPES), every
    # property joined into each Point's matches within 1 km. The index's size is the shapes', not
    # the stream's: the whole corpus as shapes (2 M vertices) takes ~140 MB, and nearest shapes
    # without --within cost ~40 µs a Point against these, hours for 5 GB.
    "simplify": (["simplify", "--tolerance", "10"], "paths", 1.0),
    "bbox": (["bbox", "--geodesic"], "paths", 1.0),
    "bbox-all": (["bbox", "--all"], "paths", 1.0),
    "heading": (["heading", "--final"], "paths", 1.0),
    "offset": (["offset", "--distance", "1000", "--heading", "45"], "paths", 1.0),
    # --origin: the secant method on the arrival azimuth, a direct problem a step (~5.5x
    # offset's time; it was Newton's method, 25x, and ran on a twentieth of --gb).
    "offset-origin": (["offset", "--origin", "--distance", "1000", "--heading", "45"], "paths", 1.0),
    "locate-join": (["locate", "--shapes", str(OUT / "scale-shapes.ndjson"), "--within", "1000", "--join", "*"], "points", 1.0),
}


def build_input(kind, size_bytes):
    """bench/out/scale-KIND-NNNmb: the corpus repeated (points: one Point per path start)."""
    path = OUT / f"scale-{kind}-{size_bytes >> 20}mb"
    if path.exists() and path.stat().st_size >= size_bytes:
        return path
    corpus = OUT / "corpus"
    if not (corpus / "paths.ndjson").exists():
        subprocess.run([sys.executable, str(REPO.parent / "shared/bench/make_corpus.py"), str(corpus)], check=True)
    if kind == "points":
        lines = []
        for line in open(corpus / "paths.ndjson"):
            feature = json.loads(line)
            lon, lat = feature["geometry"]["coordinates"][0]
            lines.append(json.dumps({"type": "Feature", "properties": feature["properties"],
                                     "geometry": {"type": "Point", "coordinates": [lon, lat]}}, separators=(",", ":")))
        block = ("\n".join(lines) + "\n").encode()
    else:
        block = (corpus / ("polylines.txt" if kind == "polylines" else "paths.ndjson")).read_bytes()
    tmp = path.with_suffix(".tmp")
    with open(tmp, "wb") as f:
        written = 0
        while written < size_bytes:
            f.write(block)
            written += len(block)
    tmp.rename(path)
    return path


SHAPES = 200


def build_shapes():
    """bench/out/scale-shapes.ndjson: the corpus' first SHAPES paths, for locate --shapes."""
    with open(OUT / "corpus" / "paths.ndjson") as corpus, open(OUT / "scale-shapes.ndjson", "w") as shapes:
        for _, line in zip(range(SHAPES), corpus):
            shapes.write(line)


def run_hashed(geo, args, source, consumer_delay=0.0, sample_rss=False):
    """Runs geo ARGS SOURCE; returns (seconds, peak RSS MB, sha256 of stdout, RSS samples MB)."""
    stats = OUT / "scale-time.txt"
    start = time.monotonic()
    process = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", str(stats), geo, *args, str(source)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    samples = []
    stop = threading.Event()

    def sample():
        # /usr/bin/time's child is geo: follow it and read its resident set while it runs.
        while not stop.is_set():
            try:
                children = Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text().split()
                for child in children:
                    for line in Path(f"/proc/{child}/status").read_text().splitlines():
                        if line.startswith("VmRSS:"):
                            samples.append(int(line.split()[1]) / 1024)
            except OSError:
                pass
            time.sleep(0.5)

    sampler = threading.Thread(target=sample) if sample_rss else None
    if sampler:
        sampler.start()
    digest = hashlib.sha256()
    while True:
        chunk = process.stdout.read(1 << 16)
        if not chunk:
            break
        digest.update(chunk)
        if consumer_delay:
            time.sleep(consumer_delay)
    err = process.stderr.read().decode()
    process.wait()
    stop.set()
    if sampler:
        sampler.join()
    seconds = time.monotonic() - start
    if process.returncode != 0:
        raise SystemExit(f"FAIL: geo {' '.join(args)} exited {process.returncode}: {err[-500:]}")
    peak = int(stats.read_text().split()[-1]) / 1024
    return seconds, peak, digest.hexdigest(), samples


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gb", type=float, default=5, help="input size for the memory runs (GiB)")
    parser.add_argument("--check-gb", type=float, default=1, help="input size for the --jobs 1 / N comparison (GiB)")
    parser.add_argument("--geo", default=str(REPO / ".build/release/geo"))
    parser.add_argument("--only", default=",".join(JOBS))
    parser.add_argument("--slow-seconds", type=float, default=30, help="how long the slow-consumer run lasts (0: no such run)")
    parser.add_argument("--remove-inputs", action="store_true", help="delete the repeated inputs at the end (they take --gb each)")
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    try:
        return measure(args)
    finally:
        if args.remove_inputs:
            for made in [*OUT.glob("scale-*mb"), *OUT.glob("scale-shapes.ndjson")]:
                made.unlink()


def measure(args):
    rows = []
    failed = False
    for name in args.only.split(","):
        geo_args, kind, share = JOBS[name]
        if name == "locate-join":
            build_shapes()
        big = build_input(kind, int(args.gb * share * (1 << 30)))
        seconds, peak, _, _ = run_hashed(args.geo, geo_args, big)
        mb = big.stat().st_size / (1 << 20)
        check = build_input(kind, int(args.check_gb * share * (1 << 30)))
        _, peak1, hash1, _ = run_hashed(args.geo, geo_args + ["-j1"], check)
        _, peakn, hashn, _ = run_hashed(args.geo, geo_args + ["-j2"], check)
        same = hash1 == hashn
        failed |= not same or max(peak, peak1, peakn) >= RSS_LIMIT_MB
        rows.append((name, mb, seconds, mb / seconds, peak, check.stat().st_size / (1 << 20), same, max(peak1, peakn)))
        print(f"[{name}] {mb:.0f} MB in {seconds:.1f} s, peak {peak:.1f} MB; -j1 == -j2 on {rows[-1][5]:.0f} MB: {same}"
              f" (peak {max(peak1, peakn):.1f} MB)", flush=True)
    print("\n| command | input MB | seconds | MB/s | peak RSS MB | -j1 vs -j2 (input MB) | peak RSS there |")
    print("|---|---:|---:|---:|---:|---|---:|")
    for name, mb, seconds, rate, peak, check_mb, same, check_peak in rows:
        print(f"| {name} | {mb:.0f} | {seconds:.1f} | {rate:.0f} | {peak:.1f} | {'identical' if same else 'DIFFERENT'} ({check_mb:.0f}) | {check_peak:.1f} |")

    if args.slow_seconds <= 0:
        return 1 if failed else 0
    # A slow consumer: geo must block on the pipe, its memory flat, the data whole.
    source = build_input("polylines", int(args.check_gb * (1 << 30)))
    expected = run_hashed(args.geo, ["decode"], source)[2]
    start = time.monotonic()
    slow = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", str(OUT / "scale-slow.txt"), args.geo, "decode", str(source)],
                            stdout=subprocess.PIPE)
    digest = hashlib.sha256()
    read = 0
    rss = []
    while True:
        chunk = slow.stdout.read(1 << 16)
        if not chunk:
            break
        digest.update(chunk)
        read += len(chunk)
        if time.monotonic() - start < args.slow_seconds:
            time.sleep(0.02)  # ~3 MB/s while slow, then at full speed to finish
            try:
                child = Path(f"/proc/{slow.pid}/task/{slow.pid}/children").read_text().split()[0]
                for line in Path(f"/proc/{child}/status").read_text().splitlines():
                    if line.startswith("VmRSS:"):
                        rss.append(int(line.split()[1]) / 1024)
            except (OSError, IndexError):
                pass
    slow.wait()
    slow_peak = int((OUT / "scale-slow.txt").read_text().split()[-1]) / 1024
    whole = digest.hexdigest() == expected
    failed |= not whole or slow_peak >= RSS_LIMIT_MB
    print(f"\nSlow consumer (~3 MB/s for {args.slow_seconds:.0f} s, then full speed): {read / (1 << 20):.0f} MB received, "
          f"{'identical to a fast run' if whole else 'DIFFERENT from a fast run'}; geo's RSS while throttled "
          f"{min(rss, default=0):.1f}-{max(rss, default=0):.1f} MB, peak {slow_peak:.1f} MB")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
