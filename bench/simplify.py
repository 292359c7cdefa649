#!/usr/bin/env python3
"""geo simplify against shapely's simplify (GEOS Douglas-Peucker, preserve_topology=False).

corpus: the bench corpus' 20,000 paths, 2 M points (bench/out/corpus/paths.ndjson, as bench/run.py
makes it), `geo simplify --tolerance 10` (geodesic distances on WGS84) and `--kind projected`
(planar Web Mercator metres), against shapely on the same paths projected to Web Mercator by
pyproj (EPSG:3857). For the projected kind shapely gets tolerance 10, the same question in the
same plane; for the geodesic one each path's tolerance is 10 m times Mercator's scale 1/cos(φ) at
its mean latitude, so that it is about 10 m on the ground. Two times for shapely:
- "call": `shapely.simplify` alone, timed inside the process on the linestrings already read,
  projected and built in memory: what GEOS costs, nothing else;
- "pipeline": the whole process, as a user would run it: start Python, read the NDJSON with
  orjson, project with pyproj, simplify, project back, write NDJSON with orjson.
geo's time is always the whole process: start, read, simplify, write (to a file).

long: two paths of N vertices (default 1,000,000), a GPS-like track (a random walk of 4-6 m
steps, its heading drifting) and a spiral (Douglas-Peucker's slow case: every range is cut one
vertex from its end), `geo simplify --tolerance 5` against shapely's call alone on the
coordinates projected to a local transverse Mercator.

Runs alternate between the contenders (rounds), median (min-max) of --runs; peak RSS from
GNU time's %M in a separate run. Kept vertex counts are printed beside the times:
projected geo and shapely answer the same planar question and should keep the same vertices
(up to ties and paths across ±180, which shapely does not wrap).

usage: python3 bench/simplify.py [--geo PATH] [--corpus DIR] [--runs N] [--only corpus,long]
                                 [--vertices N] [--jobs N]
"""
import argparse
import json
import math
import random
import statistics
import sys
import tempfile
from pathlib import Path

from benchcorpus import corpus_paths
from benchrun import add_common_arguments, load_note, peak_rss, summary, timed

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent

PEER = r'''
import sys, time, json
start = time.perf_counter()
import numpy as np, orjson, shapely
from pyproj import Transformer
source, tolerance, mode, output = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4]
features = [orjson.loads(line) for line in open(source, "rb")]
coordinates = [np.asarray(f["geometry"]["coordinates"], dtype=float) for f in features]
counts = np.array([len(c) for c in coordinates])
lonlat = np.concatenate(coordinates)
forward = Transformer.from_crs("EPSG:4326", "EPSG:3857", always_xy=True)
x, y = forward.transform(lonlat[:, 0], lonlat[:, 1])
lines = shapely.linestrings(np.column_stack([x, y]), indices=np.repeat(np.arange(len(counts)), counts))
if mode == "ground":
    tolerance = tolerance / np.cos(np.radians([c[:, 1].mean() for c in coordinates]))
called = time.perf_counter()
simplified = shapely.simplify(lines, tolerance, preserve_topology=False)
call = time.perf_counter() - called
kept, index = shapely.get_coordinates(simplified, return_index=True)
back = Transformer.from_crs("EPSG:3857", "EPSG:4326", always_xy=True)
lon, lat = back.transform(kept[:, 0], kept[:, 1])
ends = np.searchsorted(index, np.arange(len(features) + 1))
with open(output, "wb") as out:
    for i, feature in enumerate(features):
        feature["geometry"]["coordinates"] = np.column_stack([lon[ends[i]:ends[i + 1]], lat[ends[i]:ends[i + 1]]])
        out.write(orjson.dumps(feature, option=orjson.OPT_SERIALIZE_NUMPY) + b"\n")
print(json.dumps({"call": call, "kept": int(len(kept))}))
'''

PEER_LONG = r'''
import json, sys, time
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
print(json.dumps({"call": time.perf_counter() - start, "kept": int(shapely.get_num_coordinates(result))}))
'''


def kept_vertices(path):
    return sum(len(json.loads(line)["geometry"]["coordinates"]) for line in open(path))


def corpus(args, work):
    source = corpus_paths(args.corpus)
    jobs = [] if args.jobs is None else ["--jobs", str(args.jobs)]
    contenders = {
        "geo simplify --tolerance 10": [args.geo, "simplify", "--tolerance", "10", *jobs, source, "-o"],
        "geo simplify --tolerance 10 -j1": [args.geo, "simplify", "--tolerance", "10", "-j1", source, "-o"],
        "geo simplify --tolerance 10 --kind projected": [args.geo, "simplify", "--tolerance", "10", "--kind", "projected", *jobs, source, "-o"],
        "geo simplify --tolerance 10 --kind projected -j1": [args.geo, "simplify", "--tolerance", "10", "--kind", "projected", "-j1", source, "-o"],
        "shapely, tolerance 10 m on the ground": [sys.executable, "-c", PEER, source, "10", "ground"],
        "shapely, tolerance 10 Web Mercator m": [sys.executable, "-c", PEER, source, "10", "mercator"],
    }
    times = {name: [] for name in contenders}
    cpus = {name: [] for name in contenders}
    calls = {name: [] for name in contenders}
    kept = {}
    for _ in range(args.runs):
        for name, command in contenders.items():
            output = work / (name.replace(" ", "_") + ".ndjson")
            elapsed, printed, cpu = timed(command + [output], output)
            times[name].append(elapsed)
            cpus[name].append(cpu)
            if printed.strip():
                report = json.loads(printed)
                calls[name].append(report["call"])
                kept[name] = report["kept"]
            else:
                kept[name] = kept_vertices(output)
    rss = {name: peak_rss(command + [work / "rss.ndjson"]) for name, command in contenders.items()}
    points = sum(len(json.loads(line)["geometry"]["coordinates"]) for line in open(source))
    print(f"corpus: {source} ({points:,} points), median (min-max) of {args.runs} runs, seconds; {load_note()}")
    for name in contenders:
        call = f"  GEOS call alone {summary(calls[name])}" if calls[name] else ""
        print(f"  {name:50} {summary(times[name])}  CPU {summary(cpus[name])}{call}  kept {kept[name]:,}  peak RSS {rss[name]:.1f} MB")
    med = {name: statistics.median(values) for name, values in times.items()}
    call = {name: statistics.median(values) for name, values in calls.items() if values}
    for geo, peer in [("geo simplify --tolerance 10", "shapely, tolerance 10 m on the ground"),
                      ("geo simplify --tolerance 10 --kind projected", "shapely, tolerance 10 Web Mercator m")]:
        print(f"  {geo}: {med[peer] / med[geo]:.1f}x shapely's pipeline, {call[peer] / med[geo]:.2f}x shapely's GEOS call alone")


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


def long_paths(args, work):
    for name, points in [("track", track(args.vertices)), ("spiral", spiral(args.vertices))]:
        path = work / f"{name}.geojson"
        path.write_text('{"type":"LineString","coordinates":[' + ",".join(f"[{x:.7f},{y:.7f}]" for x, y in points) + "]}\n")
        geo_times, geo_cpus, calls = [], [], []
        output = work / f"{name}.out"
        for _ in range(args.runs):
            elapsed, _, cpu = timed([args.geo, "simplify", "--tolerance", "5", path, "-o", output], output)
            geo_times.append(elapsed)
            geo_cpus.append(cpu)
            report = json.loads(timed([sys.executable, "-c", PEER_LONG, path, "5"], work / "none")[1])
            calls.append(report["call"])
        rss = peak_rss([args.geo, "simplify", "--tolerance", "5", path, "-o", output])
        print(f"{name}: {args.vertices:,} vertices, tolerance 5 m, median (min-max) of {args.runs} runs, seconds; {load_note()}")
        print(f"  geo simplify (whole process)        {summary(geo_times)}  CPU {summary(geo_cpus)}  kept {kept_vertices(output):,}  peak RSS {rss:.1f} MB")
        print(f"  shapely simplify (GEOS call alone)  {summary(calls)}  kept {report['kept']:,}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_common_arguments(parser)
    parser.add_argument("--only", default="corpus,long")
    parser.add_argument("--vertices", type=int, default=1_000_000)
    parser.add_argument("--jobs", type=int, help="geo's --jobs for the all-cores rows (default: geo's own, every core)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=BENCH / "out" if (BENCH / "out").is_dir() else None) as folder:
        work = Path(folder)
        if "corpus" in args.only:
            corpus(args, work)
        if "long" in args.only:
            long_paths(args, work)


if __name__ == "__main__":
    main()
