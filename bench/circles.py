#!/usr/bin/env python3
"""circle-to-polygon against pyproj: circles per second for 64-gons from a stream of Point
records (1 M by default), geo on one core and on all, the peer (bench/circle_peer.py:
pyproj.Geod.fwd vectorised over each circle's vertices) on one. Checks that they agree: every
vertex within 1e-6 degrees (pyproj's and PROJ's direct problem are the same algorithm), and
reports geo's peak memory (GNU time's %M).

    python3 bench/circles.py [--count 1000000] [--radius 1000] [--geo PATH]
"""
import argparse
import json
import random
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "bench" / "out"


def timed(command, stdout):
    stats = OUT / "circles-time.txt"
    start = time.monotonic()
    with open(stdout, "wb") as out:
        subprocess.run(["/usr/bin/time", "-f", "%M", "-o", str(stats)] + command, stdout=out, check=True)
    return time.monotonic() - start, int(stats.read_text().split()[-1]) / 1024


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=1_000_000)
    parser.add_argument("--radius", type=float, default=1000)
    parser.add_argument("--geo", default=str(REPO / ".build/release/geo"))
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    points = OUT / f"points-{args.count}.ndjson"
    if not points.exists():
        rng = random.Random(20261129)
        with open(points, "w") as f:
            for i in range(args.count):
                f.write('{"type":"Feature","properties":{"id":%d},"geometry":{"type":"Point","coordinates":[%.5f,%.5f]}}\n'
                        % (i, rng.uniform(-180, 180), rng.uniform(-85, 85)))
    geo_all, rss_all = timed([args.geo, "circle-to-polygon", "--radius", str(args.radius), str(points)], OUT / "circles-geo.ndjson")
    geo_one, rss_one = timed([args.geo, "circle-to-polygon", "-j1", "--radius", str(args.radius), str(points)], OUT / "circles-geo1.ndjson")
    peer, rss_peer = timed([sys.executable, str(REPO / "bench/circle_peer.py"), str(points), str(args.radius)], OUT / "circles-peer.ndjson")
    worst = 0.0
    cut = 0
    with open(OUT / "circles-geo.ndjson") as a, open(OUT / "circles-peer.ndjson") as b:
        for index, (x, y) in enumerate(zip(a, b)):
            if index % 10 and index > 1000:
                continue  # every tenth record past the first thousand
            geometry = json.loads(x)["geometry"]
            if geometry["type"] != "Polygon" or len(geometry["coordinates"][0]) != 65:
                cut += 1  # cut at the antimeridian or capped over a pole: pyproj leaves the ring as is
                continue
            ring_geo = geometry["coordinates"][0]
            ring_peer = json.loads(y)["geometry"]["coordinates"][0]
            for (p, q) in zip(ring_geo, ring_peer):
                dlon = abs((p[0] - q[0] + 180) % 360 - 180)
                worst = max(worst, dlon, abs(p[1] - q[1]))
    same = (OUT / "circles-geo.ndjson").read_bytes() == (OUT / "circles-geo1.ndjson").read_bytes()
    n = args.count
    print(f"| job ({n:,} Points, 64-gons, r = {args.radius:g} m) | seconds | circles/s | vs peer | peak RSS MB |")
    print("|---|---:|---:|---:|---:|")
    print(f"| pyproj Geod.fwd, vectorised (1 core) | {peer:.1f} | {n / peer:,.0f} | 1.0x | {rss_peer:.0f} |")
    print(f"| geo circle-to-polygon -j1 | {geo_one:.1f} | {n / geo_one:,.0f} | {peer / geo_one:.1f}x | {rss_one:.0f} |")
    print(f"| geo circle-to-polygon (all cores) | {geo_all:.1f} | {n / geo_all:,.0f} | {peer / geo_all:.1f}x | {rss_all:.0f} |")
    print(f"\nLargest vertex difference from pyproj: {worst:.2e} degrees (over the sampled ordinary circles; {cut} sampled "
          f"circles were cut at the antimeridian or capped, which pyproj does not do); -j1 and all cores byte-identical: {same}")
    return 0 if worst < 1e-6 and same else 1


if __name__ == "__main__":
    sys.exit(main())
