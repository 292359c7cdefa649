#!/usr/bin/env python3
"""geo area and geo locate side by side with what a Python user would run.

area: the corpus' 20,000 paths (bench/out/corpus/paths.ndjson, made by
../shared/bench/make_corpus.py as bench/run.py makes it) closed as rings, `geo area` against
pyproj's Geod.polygon_area_perimeter with orjson for the JSON (the fastest Python peer). Checks
that every area agrees (to 0.1 m² + 1e-9 relative), then times both.

locate: --shapes of 100,000 shapes (the 20,000 corpus paths and 80,000 circles of 2 km made by
`geo circle-to-polygon` around corpus vertices) against --points Points near them (default
1,000,000), `geo locate --shapes --within 1000`, against shapely 2 on the same data: an STRtree
over the shapes in degrees, `query(points, predicate="dwithin", distance=D°)` with D° = 1000 m
in degrees of latitude, then `distance` and `contains` on the pairs, vectorised (planar, in
degrees: not exact, but the fastest thing a Python user has). Reports points per second and
peak RSS (GNU time's %M).

The corpus generator lives in the project's workspace (../shared/bench/make_corpus.py); a plain
clone does not have it: give --corpus DIR holding a paths.ndjson of LineString features.

usage: python3 bench/area_locate.py [--geo PATH] [--corpus DIR] [--points N] [--runs N] [--only area,locate]
"""
import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchcorpus import corpus_paths

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
OUT = BENCH / "out" / "area_locate"
PEER_AREA = r'''
import sys, orjson
from pyproj import Geod
g = Geod(ellps="WGS84")
out = sys.stdout.buffer
with open(sys.argv[1], "rb") as f:
    for line in f:
        feat = orjson.loads(line)
        cs = feat["geometry"]["coordinates"]
        area, _ = g.polygon_area_perimeter([c[0] for c in cs], [c[1] for c in cs])
        feat["properties"]["area_m2"] = abs(area)
        out.write(orjson.dumps(feat) + b"\n")
'''
PEER_LOCATE = r'''
import sys, numpy as np, orjson, shapely
from shapely import STRtree
def geometry(line):
    value = orjson.loads(line)
    return value.get("geometry", value)
shapes = [shapely.geometry.shape(geometry(l)) for l in open(sys.argv[1], "rb")]
points = np.array([geometry(l)["coordinates"] for l in open(sys.argv[2], "rb")])
degrees = float(sys.argv[3]) / 111_320.0
tree = STRtree(shapes)
geoms = shapely.points(points)
pairs = tree.query(geoms, predicate="dwithin", distance=degrees)
shape_array = np.array(shapes, dtype=object)
distance = shapely.distance(geoms[pairs[0]], shape_array[pairs[1]])
inside = shapely.contains(shape_array[pairs[1]], geoms[pairs[0]])
order = np.lexsort((pairs[1], np.where(inside, 0.0, distance), pairs[0]))
out = sys.stdout.buffer
start = 0
for i in range(len(points)):
    stop = start
    while stop < len(order) and pairs[0][order[stop]] == i:
        stop += 1
    matches = [{"shape": int(pairs[1][k]), "distance": float(distance[k]), "inside": bool(inside[k])} for k in order[start:stop]]
    out.write(orjson.dumps({"type": "Feature", "properties": {"locate": matches}, "geometry": {"type": "Point", "coordinates": points[i].tolist()}}) + b"\n")
    start = stop
'''


def timed(args, stdin=None, output=None):
    """Seconds and peak RSS (MB) of one run, its output in `output`."""
    start = time.perf_counter()
    with open(output or "/dev/null", "wb") as out, open(stdin or "/dev/null", "rb") as inp:
        proc = subprocess.run(["/usr/bin/time", "-f", "%M", *map(str, args)], stdin=inp, stdout=out, stderr=subprocess.PIPE)
    if proc.returncode not in (0, 65):
        sys.exit(f"{' '.join(map(str, args))} failed: {proc.stderr.decode()[-2000:]}")
    return time.perf_counter() - start, int(proc.stderr.decode().split()[-1]) / 1024


def median_runs(args, runs, stdin=None, output=None):
    results = [timed(args, stdin, output) for _ in range(runs)]
    seconds = [r[0] for r in results]
    return statistics.median(seconds), min(seconds), max(seconds), max(r[1] for r in results)


def summary(results):
    """Median, min, max of single-run results from median_runs, and the largest peak RSS."""
    seconds = [r[0] for r in results]
    return statistics.median(seconds), min(seconds), max(seconds), max(r[3] for r in results)


def bench_area(geo, paths, runs):
    OUT.mkdir(parents=True, exist_ok=True)
    peer_out, geo_out = OUT / "area-peer.ndjson", OUT / "area-geo.ndjson"
    (OUT / "peer_area.py").write_text(PEER_AREA)
    # Interleaved, so that a noisy stretch of the machine falls on both sides alike.
    peer_runs, two_runs = [], []
    for _ in range(runs):
        peer_runs.append(median_runs([sys.executable, OUT / "peer_area.py", paths], 1, output=peer_out))
        two_runs.append(median_runs([geo, "area", "-j2", paths], 1, output=geo_out))
    peer, two = (summary(r) for r in (peer_runs, two_runs))
    one = median_runs([geo, "area", "-j1", paths], runs)
    worst = 0.0
    for a, b in zip(open(geo_out), open(peer_out)):
        got, want = json.loads(a)["properties"]["area_m2"], json.loads(b)["properties"]["area_m2"]
        worst = max(worst, abs(got - want) / (0.1 + 1e-9 * abs(want)))
    print("## geo area: 20,000 corpus paths closed as rings, WGS84\n")
    print("| | median s (min–max) | peak RSS MB | speed-up |")
    print("|---|---:|---:|---:|")
    print(f"| pyproj polygon_area_perimeter + orjson | {peer[0]:.2f} ({peer[1]:.2f}–{peer[2]:.2f}) | {peer[3]:.0f} | 1× |")
    print(f"| geo area, 2 cores | {two[0]:.3f} ({two[1]:.3f}–{two[2]:.3f}) | {two[3]:.0f} | {peer[0] / two[0]:.1f}× |")
    print(f"| geo area, 1 core | {one[0]:.3f} ({one[1]:.3f}–{one[2]:.3f}) | {one[3]:.0f} | {peer[0] / one[0]:.1f}× |")
    print(f"\nEvery area agrees with pyproj's: worst difference {worst:.3f} of the tolerance (0.1 m² + 1e-9 relative).\n")
    return worst <= 1


def make_locate_inputs(geo, paths, points):
    shapes, pts = OUT / "shapes.ndjson", OUT / f"points-{points}.ndjson"
    rng = random.Random(7)
    vertices = []
    lines = paths.read_text().splitlines()
    for line in lines:
        vertices.extend(json.loads(line)["geometry"]["coordinates"])
    if not shapes.exists():
        centres = OUT / "centres.ndjson"
        with open(centres, "w") as f:
            for _ in range(80_000):
                lon, lat = rng.choice(vertices)
                f.write(json.dumps({"type": "Point", "coordinates": [lon, lat]}) + "\n")
        with open(shapes, "w") as f:
            f.write("\n".join(lines) + "\n")
        with open(shapes, "ab") as f:
            subprocess.run([geo, "circle-to-polygon", "--radius", "2000", "--segments", "32", centres], stdout=f, check=True)
    if not pts.exists():
        with open(pts, "w") as f:
            for _ in range(points):
                lon, lat = rng.choice(vertices)
                lon = (lon + rng.gauss(0, 0.01) + 180) % 360 - 180
                lat = max(-89.9, min(89.9, lat + rng.gauss(0, 0.01)))
                f.write(json.dumps({"type": "Point", "coordinates": [lon, lat]}) + "\n")
    return shapes, pts


def bench_locate(geo, paths, points, runs):
    OUT.mkdir(parents=True, exist_ok=True)
    shapes, pts = make_locate_inputs(geo, paths, points)
    (OUT / "peer_locate.py").write_text(PEER_LOCATE)
    geo_out, peer_out = OUT / "locate-geo.ndjson", OUT / "locate-peer.ndjson"
    peer = median_runs([sys.executable, OUT / "peer_locate.py", shapes, pts, 1000], 1, output=peer_out)
    two = median_runs([geo, "locate", "--shapes", shapes, "--within", "1000", "-j2", pts], runs, output=geo_out)
    one = median_runs([geo, "locate", "--shapes", shapes, "--within", "1000", "-j1", pts], 1)
    load = median_runs([geo, "locate", "--shapes", shapes, "--within", "1000", "/dev/null"], 1)
    found = sum(len(json.loads(l)["properties"]["locate"]) for l in open(geo_out))
    print(f"## geo locate --shapes: {points:,} Points against 100,000 shapes (20,000 paths, 80,000 circles of 2 km), --within 1000\n")
    print("| | median s (min–max) | points/s | peak RSS MB |")
    print("|---|---:|---:|---:|")
    print(f"| shapely 2 STRtree dwithin + distance + contains (planar degrees) | {peer[0]:.1f} | {points / peer[0]:,.0f} | {peer[3]:.0f} |")
    print(f"| geo locate, 2 cores (exact, WGS84) | {two[0]:.1f} ({two[1]:.1f}–{two[2]:.1f}) | {points / two[0]:,.0f} | {two[3]:.0f} |")
    print(f"| geo locate, 1 core | {one[0]:.1f} | {points / one[0]:,.0f} | {one[3]:.0f} |")
    print(f"| geo: loading and indexing the shapes alone | {load[0]:.1f} | | {load[3]:.0f} |")
    print(f"\ngeo found {found:,} matches; speed-up over shapely on two cores: {peer[0] / two[0]:.1f}×\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--geo", default=str(REPO / ".build" / "release" / "geo"))
    ap.add_argument("--corpus", type=Path, default=BENCH / "out" / "corpus")
    ap.add_argument("--points", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--only", default="area,locate")
    a = ap.parse_args()
    paths = corpus_paths(a.corpus)
    ok = True
    if "area" in a.only:
        ok = bench_area(a.geo, paths, a.runs) and ok
    if "locate" in a.only:
        bench_locate(a.geo, paths, a.points, a.runs)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
