#!/usr/bin/env python3
"""A pretty-printed FeatureCollection of any size streams through geo in flat memory.

Writes bench/out/documents/collection.geojson: the corpus' features (bench/out/corpus/
paths.ndjson, made by ../shared/bench/make_corpus.py, as bench/run.py makes it) repeated and
pretty-printed as one FeatureCollection with json.dumps(indent=2), the way geojson.io writes
files, until it is --size-mb MB (default 2048). Then times `geo length` over it (-j2 and -j1)
and over the same features as NDJSON, reads each run's peak RSS from GNU time, checks that both
give the same lengths, and prints a markdown table.

The corpus generator lives in the project's workspace (../shared/bench/make_corpus.py); a plain
clone does not have it: give --corpus DIR holding a paths.ndjson of GeoJSON features instead.

usage: python3 bench/documents.py [--size-mb N] [--geo PATH] [--corpus DIR] [--keep]
"""
import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from benchcorpus import corpus_paths

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
OUT = BENCH / "out" / "documents"
MB = 1 << 20


def write_inputs(lines, size_mb):
    """The collection (pretty) and the same features as NDJSON, both about size_mb MB."""
    OUT.mkdir(parents=True, exist_ok=True)
    pretty, seq = OUT / "collection.geojson", OUT / "features.ndjson"
    target = size_mb * MB
    if pretty.exists() and abs(pretty.stat().st_size - target) < 64 * MB and seq.exists():
        return pretty, seq
    texts = [json.dumps(json.loads(l), indent=2) for l in lines]
    with open(pretty, "w") as doc, open(seq, "w") as nd:
        doc.write('{\n  "type": "FeatureCollection",\n  "name": "corpus",\n  "features": [\n')
        written, first, i = 0, True, 0
        while written < target:
            text = texts[i % len(texts)]
            doc.write(("" if first else ",\n") + text)
            nd.write(lines[i % len(lines)] + "\n")
            written += len(text) + 2
            first = False
            i += 1
        doc.write("\n  ]\n}\n")
    return pretty, seq


def measure(args):
    """Seconds and peak RSS (MB) of one run. The peak comes from GNU time: a child's ru_maxrss
    read by this process would include the Python image it was forked from."""
    start = time.perf_counter()
    with open(OUT / "out.ndjson", "wb") as out:
        proc = subprocess.run(["/usr/bin/time", "-f", "%M", *args], stdout=out, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    err = proc.stderr.decode()
    if proc.returncode != 0:
        sys.exit(f"{' '.join(map(str, args))} failed: {err}")
    return elapsed, int(err.split()[-1]) / 1024


def lengths():
    return [json.loads(l)["properties"]["length_m"] for l in open(OUT / "out.ndjson")]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size-mb", type=int, default=2048)
    ap.add_argument("--geo", default=str(REPO / ".build" / "release" / "geo"))
    ap.add_argument("--corpus", type=Path, default=BENCH / "out" / "corpus")
    ap.add_argument("--keep", action="store_true", help="keep the generated inputs")
    a = ap.parse_args()
    pretty, seq = write_inputs(corpus_paths(a.corpus).read_text().splitlines(), a.size_mb)
    size = pretty.stat().st_size / MB
    rows = []
    for name, path, jobs in (("pretty FeatureCollection", pretty, "2"), ("pretty FeatureCollection", pretty, "1"),
                             ("the same features as NDJSON", seq, "2")):
        elapsed, rss = measure([a.geo, "length", "-j", jobs, str(path)])
        rows.append((name, path.stat().st_size / MB, jobs, elapsed, rss))
        if name.startswith("pretty") and jobs == "2":
            from_document = lengths()
    if lengths() != from_document:
        sys.exit("the document and the NDJSON gave different lengths")
    print(f"geo length over a {size:,.0f} MB pretty-printed FeatureCollection ({len(from_document):,} features)\n")
    print("| input | MB | -j | seconds | MB/s | peak RSS (MB) |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, mb, jobs, elapsed, rss in rows:
        print(f"| {name} | {mb:,.0f} | {jobs} | {elapsed:.2f} | {mb / elapsed:,.0f} | {rss:.1f} |")
    print("\nSame lengths from both inputs: yes")
    if not a.keep:
        for path in (pretty, seq, OUT / "out.ndjson"):
            path.unlink()
    return 0 if all(r[4] < 64 for r in rows[:2]) else 2


if __name__ == "__main__":
    sys.exit(main())
