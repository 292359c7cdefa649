#!/usr/bin/env python3
"""geo render side by side with what a Python or GDAL user would run to draw the corpus.

The corpus' 20,000 paths (2 M points; bench/out/corpus/paths.ndjson, made by
../shared/bench/make_corpus.py as bench/run.py makes it) drawn as a 2048x1536 PNG:

- geo: `geo render --size 2048x1536 -o out.png paths.ndjson` (Web Mercator, antialiased, the view
  fitted to the data: the input is read twice), with cairo's good and fast antialiasing, and
  with --bbox (one pass: the peak memory of drawing as records are read).
- matplotlib: the GeoJSONSeq read with json, every path projected to EPSG:3857 by pyproj, one
  LineCollection (antialiased), savefig to PNG at 2048x1536.
- gdal_rasterize -ts 2048 1536 on the same GeoJSONSeq (burns lines into a GeoTIFF, in degrees,
  not antialiased, not projected: the fastest thing GDAL has, not the same picture).

Reports for each: the median, min and max wall time of --runs runs, user+system CPU seconds,
and peak RSS (GNU time's %M). The machine is shared: run it when it is quiet and look at the
spread.

usage: python3 bench/render.py [--geo PATH] [--corpus DIR] [--runs N] [--only geo,matplotlib,gdal]
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


def runs(name, args, count):
    results = [timed(args) for _ in range(count)]
    walls = [r[0] for r in results]
    row = (name, statistics.median(walls), min(walls), max(walls), statistics.median(r[1] for r in results), max(r[2] for r in results))
    print(f"| {row[0]} | {row[1]:.2f} s | {row[2]:.2f}–{row[3]:.2f} s | {row[4]:.2f} s | {row[5]:.0f} MB |", flush=True)
    return row


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
    print("| what | median wall | min–max | CPU (user+sys) | peak RSS |")
    print("|---|---|---|---|---|")
    if "geo" in only:
        geo = options.geo
        runs("geo render (fit, 2 passes)", [geo, "render", "--size", "2048x1536", "-o", OUT / "geo.png", paths], options.runs)
        runs("geo render --antialias fast", [geo, "render", "--size", "2048x1536", "--antialias", "fast", "-o", OUT / "geo-fast.png", paths], options.runs)
        runs("geo render -j1 --antialias fast", [geo, "render", "-j1", "--size", "2048x1536", "--antialias", "fast", "-o", OUT / "geo-fast-j1.png", paths], options.runs)
        runs("geo render --bbox (1 pass)", [geo, "render", "--size", "2048x1536", "--bbox", "-180,-85,180,85", "-o", OUT / "geo-bbox.png", paths], options.runs)
    if "matplotlib" in only:
        (OUT / "peer_matplotlib.py").write_text(MATPLOTLIB)
        runs("matplotlib LineCollection + pyproj", [sys.executable, OUT / "peer_matplotlib.py", paths, OUT / "matplotlib.png"], options.runs)
    if "gdal" in only:
        tif = OUT / "gdal.tif"
        if tif.exists():
            tif.unlink()
        runs("gdal_rasterize -ts 2048 1536", ["sh", "-c", f"rm -f {tif}; exec gdal_rasterize -q -burn 255 -ts 2048 1536 -ot Byte GeoJSONSeq:{paths} {tif}"], options.runs)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
