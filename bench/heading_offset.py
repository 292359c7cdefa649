#!/usr/bin/env python3
"""geo heading and geo offset against pyproj's Geod.inv and Geod.fwd with orjson, end to end.

The bench corpus' 20,000 paths, 2 M points (bench/out/corpus/paths.ndjson, as bench/run.py makes
it), on WGS84:
- heading: `geo heading` (properties.headings, each segment's initial azimuth in [0, 360), null
  for a segment of length 0) against a script reading each line with orjson, calling
  `Geod.inv` on the path's segments as arrays, and writing the same Feature with orjson;
- offset: `geo offset --distance 1000 --heading 45` (every position moved 1 km north-east on the
  geodesic) against `Geod.fwd` on the path's positions as arrays, likewise.
Both sides are whole processes from start to the last byte written to a file: reading, parsing,
the geodesics, formatting, writing. Their outputs are checked against each other first
(headings within 1e-9°, or within 15 nm sideways over the segment, the geodesic algorithm's own
accuracy: on short segments geo's fast hypot moves azimuths by up to ~3e-8°; positions within
1e-9°; everything else equal), then timed in rounds
that alternate the contenders: median (min-max) of --runs, and peak RSS (GNU time's %M).

usage: python3 bench/heading_offset.py [--geo PATH] [--corpus DIR] [--runs N] [--only heading,offset]
"""
import argparse
import json
import math
import statistics
import sys
import tempfile
from pathlib import Path

from benchcorpus import corpus_paths
from benchrun import add_common_arguments, load_note, peak_rss, summary, timed
from pyproj import Geod

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent

PEER = r'''
import sys, numpy as np, orjson
from pyproj import Geod
job, source, output = sys.argv[1:4]
g = Geod(ellps="WGS84")
with open(source, "rb") as lines, open(output, "wb") as out:
    for line in lines:
        feature = orjson.loads(line)
        c = np.asarray(feature["geometry"]["coordinates"], dtype=float)
        if job == "heading":
            azimuth, _, distance = g.inv(c[:-1, 0], c[:-1, 1], c[1:, 0], c[1:, 1])
            azimuth = np.mod(azimuth, 360.0)
            azimuth[azimuth >= 360.0] = 0.0
            feature["properties"]["headings"] = [None if d == 0 else float(a) for a, d in zip(azimuth, distance)]
        else:
            lon, lat, _ = g.fwd(c[:, 0], c[:, 1], np.full(len(c), 45.0), np.full(len(c), 1000.0))
            feature["geometry"]["coordinates"] = np.column_stack([lon, lat])
        out.write(orjson.dumps(feature, option=orjson.OPT_SERIALIZE_NUMPY) + b"\n")
'''

GEOD = Geod(ellps="WGS84")
GEO = {"heading": ["heading"], "offset": ["offset", "--distance", "1000", "--heading", "45"]}


def angle_difference(a, b):
    return abs((a - b + 180) % 360 - 180)


def check(job, geo_output, peer_output, source):
    """Every line of both outputs agrees (see the docstring); the largest difference, degrees."""
    worst = 0.0
    with open(geo_output) as ours, open(peer_output) as theirs, open(source) as inputs:
        for number, (mine, other, line) in enumerate(zip(ours, theirs, inputs, strict=True), 1):
            mine, other = json.loads(mine), json.loads(other)
            if job == "heading":
                a, b = mine["properties"].pop("headings"), other["properties"].pop("headings")
                assert len(a) == len(b) and all((x is None) == (y is None) for x, y in zip(a, b)), f"line {number}: nulls differ"
                path = json.loads(line)["geometry"]["coordinates"]
                for k, (x, y) in enumerate(zip(a, b)):
                    if x is None:
                        continue
                    difference = angle_difference(x, y)
                    sideways = math.radians(difference) * GEOD.inv(*path[k], *path[k + 1])[2]
                    assert difference <= 1e-9 or sideways <= 1.5e-8, f"line {number}, segment {k}: {x} against {y}"
                    worst = max(worst, difference)
            else:
                a, b = mine["geometry"].pop("coordinates"), other["geometry"].pop("coordinates")
                assert len(a) == len(b), f"line {number}: position counts differ"
                worst = max([worst] + [max(angle_difference(p[0], q[0]), abs(p[1] - q[1])) for p, q in zip(a, b)])
                assert worst <= 1e-9, f"line {number}: positions differ by {worst}°"
            assert mine == other, f"line {number}: {mine} != {other}"
    return worst


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_common_arguments(parser)
    parser.add_argument("--only", default="heading,offset")
    args = parser.parse_args()
    source = corpus_paths(args.corpus)
    with tempfile.TemporaryDirectory(dir=BENCH / "out") as folder:
        work = Path(folder)
        for job in args.only.split(","):
            contenders = {
                f"geo {' '.join(GEO[job])}": [args.geo, *GEO[job], source, "-o"],
                f"geo {' '.join(GEO[job])} -j1": [args.geo, *GEO[job], "-j1", source, "-o"],
                f"pyproj Geod.{'inv' if job == 'heading' else 'fwd'} + orjson": [sys.executable, "-c", PEER, job, source],
            }
            outputs = {name: work / f"{job}-{index}.ndjson" for index, name in enumerate(contenders)}
            times = {name: [] for name in contenders}
            cpus = {name: [] for name in contenders}
            for _ in range(args.runs):
                for name, command in contenders.items():
                    elapsed, _, cpu = timed(command + [outputs[name]], outputs[name])
                    times[name].append(elapsed)
                    cpus[name].append(cpu)
            names = list(contenders)
            worst = check(job, outputs[names[0]], outputs[names[2]], source)
            print(f"{job}: {source}, median (min-max) of {args.runs} runs, seconds; geo and pyproj agree to {worst:.1e}° at most; {load_note()}")
            medians = {name: statistics.median(values) for name, values in times.items()}
            for name, command in contenders.items():
                rss = peak_rss(command + [work / "rss.ndjson"])
                print(f"  {name:44} {summary(times[name])}  CPU {summary(cpus[name])}  peak RSS {rss:.1f} MB"
                      f"  {medians[names[2]] / medians[name]:.1f}x pyproj")


if __name__ == "__main__":
    main()
