#!/usr/bin/env python3
"""tiles_spark.py: one tile pyramid made by Spark tasks, one `geo tiles --tile Z/X/Y` per subtree.

    spark-submit distributed/tiles_spark.py --zoom Z0-Z1 --split Z --input FILE --output OUT \\
        [--geo PATH] [-- TILES-OPTIONS...]

The recipe is distributed/tiles.sh's: the zooms above the split in one run on the driver, the
tiles of zoom Z with ink listed by one run at zoom Z (they are the subtrees that hold
anything), then one task per subtree, each running `geo tiles -j1 --zoom Z-Z1 --tile Z/X/Y`
into a scratch folder of its executor and handing its tiles back as (z/x/y.png, bytes); the
driver writes them under OUT as they stream in (toLocalIterator: one partition in memory at a
time). Every tile belongs to one subtree, so OUT is what one `geo tiles --zoom Z0-Z1` makes,
tile for tile. FILE must be readable at the same path by every executor (local mode: any
file; a cluster: a shared mount, or ship it with --files and pass its name).

Exit status: 0, or the worst status of any geo run (65 when records were bad; each run
reports them on its executor's stderr).
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path


def subtree_tiles(geo, file, split, high, extra, subtree):
    """Runs on an executor: the tiles of one subtree, and geo's status."""
    scratch = tempfile.mkdtemp(prefix="geo-tiles-")
    try:
        out = os.path.join(scratch, "out")
        status = subprocess.run([geo, "tiles", "-j1", "-q", "--zoom", f"{split}-{high}", "--tile", f"{split}/{subtree}",
                                 "-o", out, *extra, file]).returncode
        found = [(str(path.relative_to(out)), path.read_bytes()) for path in Path(out).rglob("*.png")]
        return [("status", status)] + found
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def make_pyramid(sc, geo, file, low, high, split, out, extra=()):
    """The pyramid of FILE at zooms low..high into OUT, split at zoom SPLIT; returns the worst
    geo status."""
    extra = list(extra)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    worst = 0
    if split > low:
        worst = max(worst, subprocess.run([geo, "tiles", "--force", "--zoom", f"{low}-{split - 1}", "-o", str(out), *extra, file]).returncode)
    with tempfile.TemporaryDirectory() as scratch:
        probe = Path(scratch) / "probe"
        subprocess.run([geo, "tiles", "-q", "--zoom", str(split), "-o", str(probe), *extra, file], stderr=subprocess.DEVNULL)
        subtrees = sorted(f"{p.parent.name}/{p.stem}" for p in (probe / str(split)).glob("*/*.png"))
    if not subtrees:
        return worst
    results = sc.parallelize(subtrees, len(subtrees)).flatMap(
        lambda subtree: subtree_tiles(geo, file, split, high, extra, subtree))
    for name, value in results.toLocalIterator():
        if name == "status":
            worst = max(worst, value)
            continue
        target = out / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(value)
    return worst


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--zoom", required=True, help="Z0-Z1")
    parser.add_argument("--split", type=int, required=True, help="the zoom whose tiles are the subtrees")
    parser.add_argument("--input", required=True)
    parser.add_argument("--output", required=True)
    parser.add_argument("--geo", default="geo")
    parser.add_argument("--master", default=None, help="Spark master (default: spark-submit's)")
    arguments, extra = parser.parse_known_args()
    extra = extra[1:] if extra[:1] == ["--"] else extra
    low, _, high = arguments.zoom.partition("-")
    low, high = int(low), int(high or low)
    if not low <= arguments.split <= high:
        print(f"tiles_spark.py: --split {arguments.split} is outside --zoom {arguments.zoom}", file=sys.stderr)
        return 64
    if os.path.exists(arguments.output):
        print(f"tiles_spark.py: {arguments.output} exists", file=sys.stderr)
        return 73
    from pyspark import SparkConf, SparkContext
    conf = SparkConf().setAppName("geo tiles")
    if arguments.master:
        conf.setMaster(arguments.master)
    sc = SparkContext(conf=conf)
    sc.setLogLevel("ERROR")
    try:
        return make_pyramid(sc, arguments.geo, arguments.input, low, high, arguments.split, arguments.output, extra)
    finally:
        sc.stop()


if __name__ == "__main__":
    sys.exit(main())
