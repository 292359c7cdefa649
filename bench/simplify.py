#!/usr/bin/env python3
"""geo simplify against shapely's simplify (GEOS Douglas-Peucker, preserve_topology=False) on
the same paths projected to metres.

Two paths of N vertices (default 1,000,000): a GPS-like track (a random walk of 4-6 m steps, its
heading drifting) and a spiral (Douglas-Peucker's slow case: every range is cut one vertex from
its end). geo simplifies the GeoJSON LineString on WGS84 with exact geodesic distances; shapely
gets the coordinates already projected to a local transverse Mercator (pyproj), timed from the
array in memory to the simplified array, so its figure leaves out reading and projecting, which
geo's includes. Reports seconds, vertices kept, the ratio, and peak RSS (GNU time's %M for geo,
ru_maxrss of a child process for shapely).

usage: python3 bench/simplify.py [--geo PATH] [--vertices N] [--tolerance D] [--runs N]
"""
import argparse
import math
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

PEER = r'''
import json, sys, time, resource
import numpy as np
import shapely
from pyproj import Transformer
coordinates = np.array(json.load(open(sys.argv[1]))["coordinates"])
lon0, lat0 = coordinates[0]
to_metres = Transformer.from_crs("EPSG:4326", f"+proj=tmerc +lon_0={lon0} +lat_0={lat0} +ellps=WGS84", always_xy=True)
x, y = to_metres.transform(coordinates[:, 0], coordinates[:, 1])
line = shapely.linestrings(np.column_stack([x, y]))
start = time.perf_counter()
result = shapely.simplify(line, float(sys.argv[2]), preserve_topology=False)
elapsed = time.perf_counter() - start
print(elapsed, shapely.get_num_coordinates(result), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
'''


def track(count, seed=11):
    rng = random.Random(seed)
    lon, lat, heading = 8.0, 47.0, 0.0
    for _ in range(count):
        yield lon, lat
        heading += rng.gauss(0, 10)
        lon += 0.00005 * math.sin(math.radians(heading))
        lat += 0.00004 * math.cos(math.radians(heading))


def spiral(count):
    for t in range(count):
        yield 8 + 0.5 * t / count * math.cos(t / 500), 47 + 0.4 * t / count * math.sin(t / 500)


def write(path, points):
    path.write_text('{"type":"LineString","coordinates":[' + ",".join(f"[{x:.7f},{y:.7f}]" for x, y in points) + "]}\n")


def run_geo(geo, path, tolerance):
    command = ["/usr/bin/time", "-f", "%M", geo, "simplify", "--tolerance", str(tolerance), str(path)]
    start = time.perf_counter()
    proc = subprocess.run(command, capture_output=True, text=True, check=True)
    elapsed = time.perf_counter() - start
    kept = proc.stdout.count("],[") + 1
    return elapsed, kept, int(proc.stderr.strip().splitlines()[-1])


def run_shapely(path, tolerance):
    proc = subprocess.run([sys.executable, "-c", PEER, str(path), str(tolerance)], capture_output=True, text=True, check=True)
    elapsed, kept, rss = proc.stdout.split()
    return float(elapsed), int(kept), int(rss)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--geo", default=str(REPO / ".build" / "release" / "geo"))
    parser.add_argument("--vertices", type=int, default=1_000_000)
    parser.add_argument("--tolerance", type=float, default=5)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        for name, points in [("track", track(args.vertices)), ("spiral", spiral(args.vertices))]:
            path = Path(folder) / f"{name}.geojson"
            write(path, points)
            geo = [run_geo(args.geo, path, args.tolerance) for _ in range(args.runs)]
            peer = [run_shapely(path, args.tolerance) for _ in range(args.runs)]
            geo_time, peer_time = statistics.median(r[0] for r in geo), statistics.median(r[0] for r in peer)
            print(f"{name}: {args.vertices:,} vertices, tolerance {args.tolerance} m")
            print(f"  geo simplify      {geo_time:7.2f} s  kept {geo[0][1]:>9,}  peak RSS {max(r[2] for r in geo) / 1024:6.0f} MB")
            print(f"  shapely simplify  {peer_time:7.2f} s  kept {peer[0][1]:>9,}  peak RSS {max(r[2] for r in peer) / 1024:6.0f} MB"
                  "  (simplify alone, projected in memory)")
            print(f"  ratio geo/shapely {geo_time / peer_time:7.1f}")


if __name__ == "__main__":
    main()
