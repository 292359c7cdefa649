#!/usr/bin/env python3
"""tiles_spark.py: one tile pyramid made by Spark with a shuffle: no task reads the whole input.

    spark-submit [--files geo,STAMP.png] distributed/tiles_spark.py --zoom Z0-Z1 --split Z \\
        --input PATH --output OUT [--parts DIR] [--partitions N] [--upper-jobs N] [--geo PATH] [-- TILES-OPTIONS...]

The recipe (`geo tiles --help`, "Beyond one machine"):
1. the input is read partitioned (textFile: any Hadoop path, files, folders, globs), and each
   partition is piped through `geo tiles --partition Z`, which writes every record once for each
   subtree of zoom Z it draws into, as `Z/X/Y<TAB>record`;
2. the keyed records are shuffled by key (repartitionAndSortWithinPartitions: a key's records
   together, in input order, which the drawing order of records of one z-index follows);
3. each key's records are piped into one `geo tiles --tile Z/X/Y --zoom Z-Z1 -o PARTS/Z-X-Y.EXT`,
   which writes its part to PARTS, a folder every executor and the driver see (a shared mount:
   NFS, a cluster file system; local mode: any folder): no tile goes through the driver;
4. the zooms above the split, Z0 to Z-1, are drawn by one task alongside (few tiles, but every
   record: the input read once more, without a shuffle; --upper-jobs threads) into PARTS too;
5. the driver runs `geo tiles --merge -o OUT PARTS/*` and removes PARTS.
OUT is what one `geo tiles --zoom Z0-Z1 -o OUT` makes, tile for tile; it is a directory, an
.mbtiles or a .pmtiles file, and the parts are of its kind. OUT's metadata bounds are the
parts' together: the data's band, widened to the subtrees' tiles.

TILES-OPTIONS go to every geo run (styles, --geodesic, --scale, --stamp NAME=FILE ...). A
--stamp image, like the input, must be readable by every executor: ship it with spark-submit
--files and name it by its file name alone (each geo runs in the folder Spark puts shipped
files in). --empty fills each subtree whole and so differs from one run: it is refused.

Which geo: --geo PATH (a path on every host), else the file shipped as `geo` with --files, else
geo on PATH.

Exit status: 0; or the worst status of any geo run (65 when records were bad: the partitioning
runs report them, with lines counted within their Spark partition); 64 for wrong options (a dry
run of geo on the driver finds them before any task); 73 when OUT exists.
A summary line on standard error counts the records read, the lines the subtree tasks read
(at most their records) and the parts.
"""

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import threading
import zlib
from pathlib import Path

EX_USAGE, EX_CANTCREAT = 64, 73


def extension(out):
    """The parts' kind, OUT's: '.mbtiles', '.pmtiles' or '' (a directory)."""
    suffix = Path(out).suffix.lower()
    return suffix if suffix in (".mbtiles", ".pmtiles") else ""


def executor_geo(geo):
    """The geo binary on this host: --geo, else the one shipped with --files, else PATH."""
    if geo:
        return geo
    from pyspark import SparkFiles  # noqa: PLC0415

    shipped = os.path.join(SparkFiles.getRootDirectory(), "geo")
    if os.path.isfile(shipped):
        os.chmod(shipped, os.stat(shipped).st_mode | 0o111)
        return shipped
    return shutil.which("geo") or "geo"


def shipped_folder():
    """Where Spark puts --files on this host (relative --stamp images resolve there)."""
    from pyspark import SparkFiles  # noqa: PLC0415

    return SparkFiles.getRootDirectory()


def run_fed(argv, lines, cwd):
    """Runs geo with LINES (str, without newlines) on its stdin, from a thread, while its stdout
    is read here; yields its output lines, then its exit status as the last item."""
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=cwd)

    def feed():
        try:
            for line in lines:
                proc.stdin.write(line.encode("utf-8") + b"\n")
        except BrokenPipeError:
            pass
        finally:
            try:
                proc.stdin.close()
            except BrokenPipeError:
                pass

    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    for line in proc.stdout:
        yield line.rstrip(b"\n").decode("utf-8")
    feeder.join()
    yield proc.wait()


class Pyramid:
    """One distributed run: the options, and the tasks Spark runs (each pickled with it)."""

    def __init__(self, geo, low, high, split, out, parts, extra, upper_jobs=1):
        self.geo, self.low, self.high, self.split, self.upper_jobs = geo, low, high, split, upper_jobs
        self.out, self.parts, self.extra = str(out), str(parts), list(extra)
        self.ext = extension(out)

    def key_records(self, index, lines, counts):
        """A map task: its partition's records keyed by subtree, ((key, partition, n), record)
        in input order."""
        argv = [executor_geo(self.geo), "tiles", "--partition", str(self.split), "--zoom", f"{self.split}-{self.high}",
                "-q", "-j1", *self.extra]
        read = [0]

        def counted():
            for line in lines:
                read[0] += 1
                yield line

        n = 0
        for item in run_fed(argv, counted(), shipped_folder()):
            if isinstance(item, int):
                counts.add({"records": read[0], "status": item})
                return
            key, _, record = item.partition("\t")
            yield (key, index, n), record
            n += 1

    def draw_subtrees(self, keyed, counts):
        """A reduce task: for each key (its records together, in input order), one geo draws
        the subtree into its part from the records streamed to it; yields (key, lines, status)."""
        current, proc, lines = None, None, 0

        def finish():
            proc.stdin.close()
            status = proc.wait()
            counts.add({"subtree lines": lines, "subtrees": 1, "status": status})
            return current, lines, status

        for (key, _, _), record in keyed:
            if key != current:
                if proc:
                    yield finish()
                current, lines = key, 0
                part = os.path.join(self.parts, key.replace("/", "-") + self.ext)
                proc = subprocess.Popen([executor_geo(self.geo), "tiles", "-q", "-j1", "--tile", key, "--zoom",
                                         f"{self.split}-{self.high}", "-o", part, *self.extra],
                                        stdin=subprocess.PIPE, cwd=shipped_folder())
            proc.stdin.write(record.encode("utf-8") + b"\n")
            lines += 1
        if proc:
            yield finish()

    def draw_upper(self, lines, counts):
        """The one task of the zooms above the split: every record, no shuffle."""
        part = os.path.join(self.parts, f"upper-{self.low}-{self.split - 1}" + self.ext)
        argv = [executor_geo(self.geo), "tiles", "-q", "-j", str(self.upper_jobs), "--zoom", f"{self.low}-{self.split - 1}",
                "-o", part, *self.extra]
        read = [0]

        def counted():
            for line in lines:
                read[0] += 1
                yield line

        *_, status = run_fed(argv, counted(), shipped_folder())
        counts.add({"upper lines": read[0], "status": status})
        return iter(())


class Counts:
    """Accumulator of sums, and of the worst status."""

    def zero(self, value):
        return {}

    def addInPlace(self, a, b):
        for name, value in b.items():
            a[name] = max(a.get(name, 0), value) if name == "status" else a.get(name, 0) + value
        return a


def make_pyramid(sc, geo, source, low, high, split, out, extra=(), parts=None, partitions=None, upper_jobs=1):
    """The pyramid of SOURCE (a Hadoop path) at zooms LOW..HIGH into OUT, split at zoom SPLIT;
    returns (the worst geo status, the counts: records, subtree lines, subtrees, upper lines)."""
    from pyspark import AccumulatorParam  # noqa: PLC0415

    class CountsParam(Counts, AccumulatorParam):
        pass

    out = Path(out).absolute()
    parts = Path(parts or f"{out}.parts").absolute()
    parts.mkdir(parents=True, exist_ok=False)
    pyramid = Pyramid(geo, low, high, split, out, parts, extra, upper_jobs)
    counts = sc.accumulator({}, CountsParam())
    try:
        lines = sc.textFile(source)
        partitions = partitions or max(sc.defaultParallelism, lines.getNumPartitions())
        keyed = lines.mapPartitionsWithIndex(lambda index, part: pyramid.key_records(index, part, counts))
        shuffled = keyed.repartitionAndSortWithinPartitions(partitions, partitionFunc=lambda key: zlib.crc32(key[0].encode()))
        # The zooms above the split, a job of one task, alongside the subtrees' (Spark runs jobs
        # from several threads at once).
        upper = threading.Thread(target=lambda: lines.coalesce(1).mapPartitions(lambda part: pyramid.draw_upper(part, counts)).collect())
        if split > low:
            upper.start()
        shuffled.mapPartitions(lambda part: pyramid.draw_subtrees(part, counts)).collect()
        if split > low:
            upper.join()
        made = sorted(str(p) for p in parts.iterdir())
        status = counts.value.get("status", 0)
        if made:
            merge = subprocess.run([executor_geo(geo), "tiles", "--merge", "-q", "-o", str(out), *made])
            status = max(status, merge.returncode)
        return status, counts.value
    finally:
        shutil.rmtree(parts, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--zoom", required=True, help="Z0-Z1")
    parser.add_argument("--split", type=int, required=True, help="the zoom whose tiles are the subtrees")
    parser.add_argument("--input", required=True, help="files, folders or globs on any Hadoop file system")
    parser.add_argument("--output", required=True, help="OUT: a directory, .mbtiles or .pmtiles")
    parser.add_argument("--parts", help="a folder every executor and the driver see (default OUT.parts)")
    parser.add_argument("--partitions", type=int, help="reduce tasks (default: Spark's parallelism)")
    parser.add_argument("--geo", help="geo's path on every host")
    parser.add_argument("--upper-jobs", type=int, default=1,
                        help="threads of the one task that draws the zooms above the split (give it an executor's cores)")
    parser.add_argument("--master", help="Spark master (default: spark-submit's)")
    arguments, extra = parser.parse_known_args()
    extra = extra[1:] if extra[:1] == ["--"] else extra
    low, _, high = arguments.zoom.partition("-")
    low, high = int(low), int(high or low)
    if not low <= arguments.split <= high:
        print(f"tiles_spark.py: --split {arguments.split} is outside --zoom {arguments.zoom}", file=sys.stderr)
        return EX_USAGE
    if "--empty" in extra:
        print("tiles_spark.py: --empty fills each subtree whole, unlike one run: leave it out", file=sys.stderr)
        return EX_USAGE
    if os.path.exists(arguments.output):
        print(f"tiles_spark.py: {arguments.output} exists", file=sys.stderr)
        return EX_CANTCREAT
    from pyspark import SparkConf, SparkContext  # noqa: PLC0415

    conf = SparkConf().setAppName("geo tiles")
    if arguments.master:
        conf.setMaster(arguments.master)
    conf.setIfMissing("spark.log.level", "WARN")
    sc = SparkContext.getOrCreate(conf)
    try:
        # A dry run on the driver, where the tasks run it (shipped stamps resolve alike): wrong
        # TILES-OPTIONS stop the job before any task.
        dry = subprocess.run([executor_geo(arguments.geo), "tiles", "--partition", str(arguments.split), "-q", *extra],
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                             cwd=shipped_folder())
        if dry.returncode:
            print(f"tiles_spark.py: geo tiles {shlex.join(extra)}: {dry.stderr.strip()}", file=sys.stderr)
            return dry.returncode
        status, counts = make_pyramid(sc, arguments.geo, arguments.input, low, high, arguments.split,
                                      arguments.output, extra, arguments.parts, arguments.partitions,
                                      arguments.upper_jobs)
    finally:
        sc.stop()
    records, lines = counts.get("records", 0), counts.get("subtree lines", 0)
    print(f"tiles_spark.py: {records:,} records; {counts.get('subtrees', 0):,} subtree tasks read {lines:,} lines "
          f"({lines / max(records, 1):.2f} per record); the zooms above the split read {counts.get('upper lines', 0):,}",
          file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
