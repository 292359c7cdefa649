#!/usr/bin/env python3
"""geo render side by side with what a Python or GDAL user would run to draw the corpus.

The corpus' 20,000 paths (2 M points; bench/out/corpus/paths.ndjson, made by
../shared/bench/make_corpus.py as bench/run.py makes it) drawn as a 2048x1536 PNG:

- geo: `geo render --size 2048x1536 -o out.png paths.ndjson` (Web Mercator, antialiased, the view
  fitted to the data: the input is read twice), on all cores and on one, and with --bbox (one
  pass: the peak memory of drawing as records are read).
- matplotlib: the GeoJSONSeq read with json, every path projected to EPSG:3857 by pyproj, one
  LineCollection (antialiased), savefig to PNG at 2048x1536.
- gdal_rasterize -ts 2048 1536 on the same GeoJSONSeq (burns lines into a GeoTIFF, in degrees,
  not antialiased, not projected: the fastest thing GDAL has, not the same picture).

Reports for each: the median, min and max wall time of --runs runs, user+system CPU seconds,
and peak RSS (GNU time's %M). The machine is shared: run it when it is quiet and look at the
spread.

usage: python3 bench/render.py [--geo PATH] [--corpus DIR] [--runs N] [--only geo,matplotlib,gdal]

The contenders run in turn, once a round, --runs rounds: side by side on a machine that drifts.
"""
import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

from benchcorpus import corpus_paths

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
OUT = BENCH / "out" / "render"

MATPLOTLIB = r'''
import sys, json
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.collections import LineCollection
from pyproj import Transformer
import numpy as np
t = Transformer.from_crs("EPSG:4326", "EPSG:3857", always_xy=True)
lines = []
for line in open(sys.argv[1]):
    c = np.array(json.loads(line)["geometry"]["coordinates"])
    x, y = t.transform(c[:, 0], c[:, 1])
    lines.append(np.column_stack([x, y]))
fig = plt.figure(figsize=(20.48, 15.36), dpi=100)
ax = fig.add_axes([0, 0, 1, 1])
ax.add_collection(LineCollection(lines, linewidths=1.5, colors="#555555", antialiased=True))
ax.autoscale()
ax.set_axis_off()
fig.savefig(sys.argv[2], dpi=100)
'''


def timed(args):
    """Wall seconds, CPU seconds and peak RSS (MB) of one run."""
    proc = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M", *map(str, args)], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(map(str, args))} failed ({proc.returncode}): {proc.stderr.decode()[-2000:]}")
    wall, user, system, rss = proc.stderr.decode().split()[-4:]
    return float(wall), float(user) + float(system), int(rss) / 1024


def interleaved(contenders, count):
    """Runs every contender once a round, `count` rounds (the machine drifts from minute to
    minute: side by side, not one after the other), and prints a row each: median, min and max
    wall, median CPU, peak RSS, and how many times geo's first row the median wall is."""
    results = {name: [] for name, _ in contenders}
    for _ in range(count):
        for name, args in contenders:
            results[name].append(timed(args))
    first = None
    for name, _ in contenders:
        walls = [r[0] for r in results[name]]
        median = statistics.median(walls)
        first = first or median
        print(f"| {name} | {median:.2f} s | {min(walls):.2f}–{max(walls):.2f} s | "
              f"{statistics.median(r[1] for r in results[name]):.2f} s | {max(r[2] for r in results[name]):.0f} MB | "
              f"{median / first:.1f}× |", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--geo", default=str(REPO / ".build" / "release" / "geo"))
    parser.add_argument("--corpus", default=str(BENCH / "out" / "corpus"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", default="geo,matplotlib,gdal")
    options = parser.parse_args()
    paths = corpus_paths(Path(options.corpus))
    OUT.mkdir(parents=True, exist_ok=True)
    only = options.only.split(",")
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    print("| what | median wall | min–max | CPU (user+sys) | peak RSS | wall ÷ geo's |")
    print("|---|---|---|---|---|---|")
    contenders = []
    if "geo" in only:
        geo = options.geo
        contenders += [
            ("geo render (fit: 2 passes)", [geo, "render", "--size", "2048x1536", "-o", OUT / "geo.png", paths]),
            ("geo render -j1", [geo, "render", "-j1", "--size", "2048x1536", "-o", OUT / "geo-j1.png", paths]),
            ("geo render --bbox (1 pass, the whole world)",
             [geo, "render", "--size", "2048x1536", "--bbox", "-180,-85,180,85", "-o", OUT / "geo-bbox.png", paths]),
        ]
    if "matplotlib" in only:
        (OUT / "peer_matplotlib.py").write_text(MATPLOTLIB)
        contenders.append(("matplotlib LineCollection + pyproj", [sys.executable, OUT / "peer_matplotlib.py", paths, OUT / "matplotlib.png"]))
    if "gdal" in only:
        tif = OUT / "gdal.tif"
        contenders.append(("gdal_rasterize -ts 2048 1536",
                           ["sh", "-c", f"rm -f {tif}; exec gdal_rasterize -q -burn 255 -ts 2048 1536 -ot Byte GeoJSONSeq:{paths} {tif}"]))
    interleaved(contenders, options.runs)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
