#!/usr/bin/env python3
"""geo tiles side by side with mapnik: the same Web Mercator tile pyramid, drawn twice.

Corpus (made here with a seeded RNG, nothing from ../shared/ needed): --paths GPS-like paths over
Europe (lon -10..30, lat 36..60), 2-40 points each, a random walk of 1-5 km steps, one GeoJSON
Feature a line, properties {"stroke": "#d62728", "stroke-width": 2}. bench/out/tiles/europe.ndjson
for geo, the same lines as one FeatureCollection (europe.geojson) for mapnik's geojson plugin.
--regional adds a second, city-scale corpus (--regional-paths routes of 30-150 m steps around five
cities) drawn to zoom 14.

- geo: `geo tiles --zoom Z0-Z1 -o DIR --jobs 2 corpus.ndjson`, from a copy of $GEO_BIN (default
  <repo>/.build/release/geo) taken at the start.
- mapnik (python3-mapnik, a driver process of this script): the tiles that each path's bounding
  box meets, widened by the line's half width + 1 px (listed before the timer starts), shared out
  in chunks of 8 to 2 worker processes (spawned), each with its own Map (EPSG:3857, 256 px,
  transparent, buffer-size 8) and geojson datasource; lines 2 px, #d62728, round caps and joins;
  only tiles with ink (a non-zero byte) are written, as 32-bit PNG, DIR/{z}/{x}/{y}.png.

Measured, --repeat rounds (default 5; mapnik then geo in each round, output dirs removed before
the timer): wall time (median and min-max), CPU time (user+sys of all children, getrusage
RUSAGE_CHILDREN deltas; median), peak RSS (geo: GNU time's %M; mapnik: the largest of its workers'
own ru_maxrss, the driver process not counted), tiles written, tiles a second, PNG bytes, and
mapnik / geo wall. Both times hold everything: process start, reading the input (every mapnik worker
parses the whole GeoJSON), drawing, PNG encoding and writing.
Then, --repeat times, geo's tiles are written again by this script alone, no drawing (bytes read
first; the previous copy removed; mkdir, open, write, close and rename as geo does): the cost of
the file system alone, beside what 10× mapnik would leave geo for the whole run.

Comparison (of the last round's outputs; alpha only, Pillow):
- a tile written by one side only is tolerated when its ink (sum of alpha / 255) is at most
  ONE_SIDED_INK_PX = 4 pixels: antialiasing on a tile edge can leave a faint pixel in one;
- a tile written by both fails when more than max(DIFF_ABS_PX = 8, DIFF_REL = 2 % of the pixels
  inked in either) pixels differ in alpha by more than ALPHA_TOL = 64 levels (of 255).
The worst tile (nearest its allowance) is printed; results also go to bench/out/tiles/results.json.
Exit 1 when any tile fails (or a command fails), else 0.

Flat memory (--scale-gb 1,5): the Europe corpus repeated to each size in GB
(bench/out/tiles/europe-NGB.ndjson, made once), drawn once by `geo tiles --zoom 0-6 --jobs 2`
(--scale-zooms); reports wall time, peak RSS (GNU time), input points a second, tiles, and the
most disk space the run took beyond its input (temporary files and tiles; geo unlinks its
temporary files as it makes them, so the file system's free space is sampled every 0.2 s). geo alone: mapnik's
workers each parse the whole GeoJSON into memory, so it has no flat-memory mode to set beside.

--shared adds the shared corpus (bench/out/corpus/paths.ndjson: 20,000 paths, 2 M points;
made by bench/run.py, or from ../shared/bench/make_corpus.py, which a clone does not have),
restyled the same way, at --zooms. Its random walks wrap at ±180 and reach ±89.99: geo takes an
edge across ±180 the short way, as the Maps SDK does, where mapnik draws it across the world,
so tiles on such edges differ by convention, not by error.

--tiles-dir DIR puts both renderers' tiles there instead of bench/out/tiles (e.g. /dev/shm, a
tmpfs): on this project's machines the disk is ext4 without a journal, where creating a file
soon after others were deleted (the script deletes the last round's tiles before each run)
makes ext4 skip the recently freed inodes one by one: creating the 1,155 tiles of the Europe
corpus then takes 0.46-0.55 s by itself (a Python loop of open/write/close/rename, measured
2026-12-05; the "writing alone" line now measures it each run), the same for both renderers,
against 0.04 s on a fresh file system.

usage: python3 bench/tiles.py [--paths N] [--zooms 0-8] [--repeat N] [--shared] [--regional]
                              [--regional-paths N] [--regional-zooms 0-14] [--mapnik-only] [--json]
                              [--scale-gb 1,5 [--scale-zooms 0-6]] [--tiles-dir DIR]
If the python3 running this cannot import mapnik (e.g. a pyenv one), it re-runs itself with
/usr/bin/python3 (Debian: apt-get install python3-mapnik python3-pil).
"""
import argparse, json, math, os, random, resource, shutil, statistics, subprocess, sys, time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
OUT = BENCH / "out" / "tiles"
TILES_DIR = OUT                      # where the tiles go (--tiles-dir)
HALF = 20037508.342789244            # half the Web Mercator world, metres
WORLD = 2 * HALF
STROKE, WIDTH = "#d62728", 2
ONE_SIDED_INK_PX, ALPHA_TOL, DIFF_ABS_PX, DIFF_REL = 4.0, 64, 8, 0.02
CITIES = [(2.35, 48.86), (13.40, 52.52), (-3.70, 40.42), (12.50, 41.90), (21.01, 52.23)]
MAPNIK_XML = """<Map srs="+proj=merc +a=6378137 +b=6378137 +lat_ts=0 +lon_0=0 +x_0=0 +y_0=0 +k=1 +units=m
 +nadgrids=@null +wktext +no_defs" buffer-size="8">
 <Style name="paths"><Rule><LineSymbolizer stroke="{stroke}" stroke-width="{width}"
  stroke-linecap="round" stroke-linejoin="round"/></Rule></Style>
 <Layer name="paths" srs="+proj=longlat +datum=WGS84 +no_defs"><StyleName>paths</StyleName>
  <Datasource><Parameter name="type">geojson</Parameter><Parameter name="file">{file}</Parameter></Datasource>
 </Layer></Map>"""


def make_corpus(name, count, regional, seed=20261204):
    """Writes OUT/name.ndjson and OUT/name.geojson; returns [bbox] and the number of points."""
    rng, boxes, lines, points = random.Random(seed), [], [], 0
    for _ in range(count):
        if regional:
            cx, cy = rng.choice(CITIES)
            lon, lat = cx + rng.gauss(0, 0.06), cy + rng.gauss(0, 0.04)
            n, step = rng.randint(10, 120), (0.03, 0.15)
        else:
            lon, lat = rng.uniform(-10, 30), rng.uniform(36, 60)
            n, step = rng.randint(2, 40), (1.0, 5.0)
        heading, coords = rng.uniform(0, 2 * math.pi), []
        for _ in range(n):
            coords.append([round(lon, 6), round(lat, 6)])
            heading += rng.gauss(0, 0.5)
            km = rng.uniform(*step)
            lat += km * math.cos(heading) / 111.32
            lon += km * math.sin(heading) / (111.32 * math.cos(math.radians(lat)))
        xs, ys = [c[0] for c in coords], [c[1] for c in coords]
        boxes.append((min(xs), min(ys), max(xs), max(ys)))
        points += n
        lines.append(json.dumps({"type": "Feature", "properties": {"stroke": STROKE, "stroke-width": WIDTH},
                                 "geometry": {"type": "LineString", "coordinates": coords}}, separators=(",", ":")))
    (OUT / f"{name}.ndjson").write_text("\n".join(lines) + "\n")
    (OUT / f"{name}.geojson").write_text('{"type":"FeatureCollection","features":[\n' + ",\n".join(lines) + "\n]}\n")
    return boxes, points


def shared_corpus(name):
    """The shared corpus' 20,000 paths (bench/out/corpus/paths.ndjson, made by bench/run.py or
    ../shared/bench/make_corpus.py), restyled as the Europe corpus is; returns as make_corpus."""
    source = REPO / "bench" / "out" / "corpus" / "paths.ndjson"
    if not source.exists():
        maker = REPO.parent / "shared" / "bench" / "make_corpus.py"
        if not maker.exists():
            sys.exit(f"--shared needs {source} (python3 bench/run.py makes it) or ../shared/bench/make_corpus.py, "
                     "which a clone of the repository does not have")
        # The maker needs the `polyline` package: the Python this script was started with has it
        # where Debian's, which it re-runs itself under for mapnik, may not.
        subprocess.run([os.environ.get("GEO_BENCH_PYTHON", sys.executable), str(maker), str(source.parent)], check=True)
    boxes, lines, points = [], [], 0
    for text in open(source):
        coords = json.loads(text)["geometry"]["coordinates"]
        xs, ys = [c[0] for c in coords], [c[1] for c in coords]
        boxes.append((min(xs), min(ys), max(xs), max(ys)))
        points += len(coords)
        lines.append(json.dumps({"type": "Feature", "properties": {"stroke": STROKE, "stroke-width": WIDTH},
                                 "geometry": {"type": "LineString", "coordinates": coords}}, separators=(",", ":")))
    (OUT / f"{name}.ndjson").write_text("\n".join(lines) + "\n")
    (OUT / f"{name}.geojson").write_text('{"type":"FeatureCollection","features":[\n' + ",\n".join(lines) + "\n]}\n")
    return boxes, points


def candidate_tiles(boxes, z0, z1):
    """Every (z, x, y) that a path's bbox, widened by WIDTH/2 + 1 px, meets."""
    tiles, margin = set(), WIDTH / 2 + 1
    for z in range(z0, z1 + 1):
        size = 256 * (1 << z)
        for w, s, e, n in boxes:
            px = [(lon + 180) / 360 * size for lon in (w, e)]
            py = [(1 - math.asinh(math.tan(math.radians(lat))) / math.pi) / 2 * size for lat in (n, s)]
            x0, x1 = (max(0, int((px[0] - margin) // 256)), min((1 << z) - 1, int((px[1] + margin) // 256)))
            y0, y1 = (max(0, int((py[0] - margin) // 256)), min((1 << z) - 1, int((py[1] + margin) // 256)))
            tiles.update((z, x, y) for x in range(x0, x1 + 1) for y in range(y0, y1 + 1))
    return sorted(tiles)


def mapnik_worker(xml, outdir, tasks, results):
    import mapnik
    m = mapnik.Map(256, 256)
    mapnik.load_map_from_string(m, xml)
    written = 0
    for chunk in iter(tasks.get, None):
        for z, x, y in chunk:
            span = WORLD / (1 << z)
            left, top = -HALF + x * span, HALF - y * span
            m.zoom_to_box(mapnik.Box2d(left, top - span, left + span, top))
            image = mapnik.Image(256, 256)
            mapnik.render(m, image)
            if not image.tostring().strip(b"\0"):          # premultiplied: no ink is all zeros
                continue
            os.makedirs(f"{outdir}/{z}/{x}", exist_ok=True)
            image.save(f"{outdir}/{z}/{x}/{y}.png", "png32")
            written += 1
    results.put((written, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss))


def mapnik_driver(geojson, tile_list, outdir, jobs):
    """`tiles.py --mapnik-driver ...`: the timed mapnik process; prints {"written", "worker_rss_kb"}."""
    import multiprocessing
    ctx = multiprocessing.get_context("spawn")
    tiles = json.loads(Path(tile_list).read_text())
    tasks, results = ctx.Queue(), ctx.Queue()
    xml = MAPNIK_XML.format(stroke=STROKE, width=WIDTH, file=geojson)
    workers = [ctx.Process(target=mapnik_worker, args=(xml, outdir, tasks, results)) for _ in range(jobs)]
    for w in workers:
        w.start()
    for i in range(0, len(tiles), 8):
        tasks.put(tiles[i:i + 8])
    for _ in workers:
        tasks.put(None)
    done = [results.get() for _ in workers]
    for w in workers:
        w.join()
    if any(w.exitcode for w in workers):
        sys.exit("a mapnik worker failed")
    print(json.dumps({"written": sum(d[0] for d in done), "worker_rss_kb": [d[1] for d in done]}))


def timed(args):
    """(wall s, CPU s of all children, peak RSS MB of the command per GNU time, stdout)."""
    before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", str(OUT / "time.txt"), *map(str, args)],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall, after = time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode:
        sys.exit(f"{' '.join(map(str, args))} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, int((OUT / "time.txt").read_text().split()[-1]) / 1024, proc.stdout


def written_tiles(directory):
    found = {}
    for root, _, files in os.walk(directory):
        for f in files:
            if f.endswith(".png"):
                z, x = Path(root).relative_to(directory).parts[-2:]
                found[(int(z), int(x), int(f[:-4]))] = os.path.join(root, f)
    return found


def compare(mapnik_dir, geo_dir):
    from PIL import Image, ImageChops
    alpha = lambda p: Image.open(p).convert("RGBA").getchannel("A")
    ink = lambda h: sum(i * c for i, c in enumerate(h)) / 255
    a, b = written_tiles(mapnik_dir), written_tiles(geo_dir)
    r = {"mapnik_tiles": len(a), "geo_tiles": len(b), "common": len(a.keys() & b.keys()), "failed": [],
         "only_mapnik": sorted(a.keys() - b.keys()), "only_geo": sorted(b.keys() - a.keys()),
         "one_sided_max_ink_px": 0.0, "ink_mapnik_px": 0.0, "ink_geo_px": 0.0, "worst": None}
    for side, keys, files in (("mapnik", r["only_mapnik"], a), ("geo", r["only_geo"], b)):
        for key in keys:
            inked = ink(alpha(files[key]).histogram())
            r[f"ink_{side}_px"] += inked
            r["one_sided_max_ink_px"] = max(r["one_sided_max_ink_px"], inked)
            if inked > ONE_SIDED_INK_PX:
                r["failed"].append(f"{'/'.join(map(str, key))}: only {side} wrote it, ink {inked:.1f} px")
    differing = union = 0
    for key in sorted(a.keys() & b.keys()):
        am, ag = alpha(a[key]), alpha(b[key])
        hm, hg = am.histogram(), ag.histogram()
        r["ink_mapnik_px"] += ink(hm)
        r["ink_geo_px"] += ink(hg)
        diff = sum(ImageChops.difference(am, ag).histogram()[ALPHA_TOL + 1:])
        inked = 65536 - ImageChops.lighter(am, ag).histogram()[0]
        differing, union = differing + diff, union + inked
        allowed = max(DIFF_ABS_PX, DIFF_REL * inked)
        if r["worst"] is None or diff / allowed > r["worst"]["of_allowed"]:       # nearest to failing
            r["worst"] = {"tile": "/".join(map(str, key)), "differing_px": diff, "inked_px": inked,
                          "fraction": diff / inked, "of_allowed": diff / allowed}
        if diff > allowed:
            r["failed"].append(f"{'/'.join(map(str, key))}: {diff} of {inked} inked px differ by > {ALPHA_TOL}")
    r.update(differing_px=differing, inked_px=union, ok=not r["failed"])
    return r


def summary(runs, directory):
    tiles = written_tiles(directory)
    walls = [w for w, _, _ in runs]
    median = statistics.median(walls)
    return {"wall_median_s": median, "wall_min_s": min(walls), "wall_max_s": max(walls), "walls_s": walls,
            "cpu_median_s": statistics.median(c for _, c, _ in runs), "peak_rss_mb": max(m for _, _, m in runs),
            "tiles": len(tiles), "tiles_per_s": len(tiles) / median,
            "png_mb": sum(os.path.getsize(f) for f in tiles.values()) / 2**20}


def write_floor(tiles_from, directory, repeat):
    """Wall times of writing the tiles in tiles_from (bytes read first) into a new `directory`
    as geo writes them (mkdir z and z/x, each tile to a name beside its own, renamed into place),
    after removing what the previous round left there: what writing alone costs, no drawing."""
    tiles = {key: Path(path).read_bytes() for key, path in written_tiles(tiles_from).items()}
    walls = []
    for _ in range(repeat):
        shutil.rmtree(directory, ignore_errors=True)
        start = time.perf_counter()
        os.mkdir(directory)
        made = set()
        for (z, x, y), data in tiles.items():
            for folder in (f"{directory}/{z}", f"{directory}/{z}/{x}"):
                if folder not in made:
                    os.makedirs(folder, exist_ok=True)
                    made.add(folder)
            final = f"{directory}/{z}/{x}/{y}.png"
            fd = os.open(final + ".part", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            os.write(fd, data)
            os.close(fd)
            os.rename(final + ".part", final)
        walls.append(time.perf_counter() - start)
    shutil.rmtree(directory, ignore_errors=True)
    return walls


def bench(name, count, regional, zooms, options, geo):
    boxes, points = shared_corpus(name) if name == "shared" else make_corpus(name, count, regional)
    z0, z1 = map(int, zooms.split("-"))
    tiles = candidate_tiles(boxes, z0, z1)
    (OUT / f"{name}-tiles.json").write_text(json.dumps(tiles))
    mdir, gdir = TILES_DIR / f"{name}-mapnik", TILES_DIR / f"{name}-geo"
    runs = {"mapnik": [], "geo": []}
    for _ in range(options.repeat):
        shutil.rmtree(mdir, ignore_errors=True)
        wall, cpu, _, out = timed([sys.executable, __file__, "--mapnik-driver", OUT / f"{name}.geojson",
                                   OUT / f"{name}-tiles.json", mdir, 2])
        report = json.loads(out)
        runs["mapnik"].append((wall, cpu, max(report["worker_rss_kb"]) / 1024))
        if geo:
            shutil.rmtree(gdir, ignore_errors=True)
            runs["geo"].append(timed([geo, "tiles", "--zoom", zooms, "-o", gdir, "--jobs", 2, OUT / f"{name}.ndjson"])[:3])
    result = {"corpus": name, "paths": len(boxes), "points": points, "zooms": zooms, "candidate_tiles": len(tiles),
              "ndjson_mb": (OUT / f"{name}.ndjson").stat().st_size / 2**20,
              "mapnik": summary(runs["mapnik"], mdir)}
    if geo:
        result["geo"] = summary(runs["geo"], gdir)
        result["mapnik_over_geo"] = result["mapnik"]["wall_median_s"] / result["geo"]["wall_median_s"]
        result["compare"] = compare(mdir, gdir)
        walls = write_floor(gdir, TILES_DIR / f"{name}-write-only", options.repeat)
        result["write_only"] = {"wall_median_s": statistics.median(walls), "wall_min_s": min(walls), "wall_max_s": max(walls)}
    return result


def scale_run(geo, gb_list, zooms, count):
    """Flat memory: the corpus repeated to each size, one run each; returns a row per size."""
    import tempfile, threading
    make_corpus("europe", count, False)
    block = (OUT / "europe.ndjson").read_bytes()
    points_per_block = sum(line.count(b"],[") + 1 for line in block.splitlines())
    rows = []
    for gb in gb_list:
        source = OUT / f"europe-{gb:g}GB.ndjson"
        blocks = max(1, round(gb * 2**30 / len(block)))
        if not source.exists() or source.stat().st_size != blocks * len(block):
            with open(source, "wb") as f:
                for _ in range(blocks):
                    f.write(block)
        scratch = Path(tempfile.mkdtemp(prefix="geo-tiles-scale-", dir=OUT))
        out = OUT / "scale-tiles"
        shutil.rmtree(out, ignore_errors=True)
        most, done = [0], threading.Event()

        def free():
            st = os.statvfs(scratch)
            return st.f_bavail * st.f_frsize

        start_free = free()

        def watch():      # geo unlinks its temporary files at once: count the file system's space
            while not done.wait(0.2):
                most[0] = max(most[0], start_free - free())
        watcher = threading.Thread(target=watch)
        watcher.start()
        env = dict(os.environ, TMPDIR=str(scratch))
        before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
        proc = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", str(OUT / "time.txt"), geo, "tiles", "--zoom", zooms,
                               "-o", out, "--jobs", "2", source], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wall, after = time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN)
        done.set()
        watcher.join()
        shutil.rmtree(scratch, ignore_errors=True)
        if proc.returncode:
            sys.exit(f"geo tiles on {source} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
        tiles = len(written_tiles(out))
        rows.append({"gb": source.stat().st_size / 2**30, "points": blocks * points_per_block, "zooms": zooms,
                     "wall_s": wall, "cpu_s": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
                     "peak_rss_mb": int((OUT / "time.txt").read_text().split()[-1]) / 1024,
                     "tiles": tiles, "disk_peak_gb": most[0] / 2**30})
        shutil.rmtree(out, ignore_errors=True)
    return rows


def print_scale(rows):
    print("\nflat memory: `geo tiles --zoom %s --jobs 2` on the Europe corpus repeated" % rows[0]["zooms"])
    print("| input GB | points | wall s | CPU s | points/s | tiles | peak RSS MB | disk used, peak GB |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['gb']:.2f} | {r['points']:,} | {r['wall_s']:.1f} | {r['cpu_s']:.1f} | {r['points'] / r['wall_s']:,.0f} | "
              f"{r['tiles']:,} | {r['peak_rss_mb']:.1f} | {r['disk_peak_gb']:.2f} |")


def print_table(r):
    print(f"\n{r['corpus']}: {r['paths']:,} paths, {r['points']:,} points ({r['ndjson_mb']:.1f} MB NDJSON), "
          f"zooms {r['zooms']}, {r['candidate_tiles']:,} tiles met by a path's bbox")
    print("| renderer | wall median s | min–max s | CPU s (median) | peak RSS MB | tiles written | tiles/s | PNG MB |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for key, label in (("mapnik", "mapnik, 2 worker processes (RSS: largest worker)"), ("geo", "geo tiles --jobs 2")):
        if key in r:
            s = r[key]
            print(f"| {label} | {s['wall_median_s']:.2f} | {s['wall_min_s']:.2f}–{s['wall_max_s']:.2f} | "
                  f"{s['cpu_median_s']:.2f} | {s['peak_rss_mb']:.1f} | {s['tiles']:,} | {s['tiles_per_s']:,.0f} | {s['png_mb']:.1f} |")
    if "geo" not in r:
        return
    c = r["compare"]
    print(f"mapnik wall / geo wall: {r['mapnik_over_geo']:.2f}×")
    w = r["write_only"]
    print(f"writing geo's tiles alone, no drawing (Python: mkdir, open, write, close, rename): {w['wall_median_s']:.2f} s "
          f"({w['wall_min_s']:.2f}–{w['wall_max_s']:.2f}); 10× mapnik leaves geo {r['mapnik']['wall_median_s'] / 10:.2f} s for the whole run")
    print(f"tiles: mapnik {c['mapnik_tiles']:,}, geo {c['geo_tiles']:,}, both {c['common']:,}; only mapnik "
          f"{len(c['only_mapnik'])}, only geo {len(c['only_geo'])} (largest ink there {c['one_sided_max_ink_px']:.1f} px, "
          f"tolerated ≤ {ONE_SIDED_INK_PX:g})")
    print(f"pixels differing by > {ALPHA_TOL} alpha levels: {c['differing_px']:,} of {c['inked_px']:,} inked "
          f"({c['differing_px'] / max(1, c['inked_px']):.3%}); ink geo / mapnik {c['ink_geo_px'] / max(1, c['ink_mapnik_px']):.4f}")
    if c["worst"]:
        w = c["worst"]
        print(f"worst tile {w['tile']}: {w['differing_px']} of {w['inked_px']} inked px ({w['fraction']:.2%}; {w['of_allowed']:.0%} of its allowance)")
    print("comparison: OK" if c["ok"] else f"comparison: FAIL, {len(c['failed'])} tiles, e.g.\n  " + "\n  ".join(c["failed"][:10]))


def main():
    if len(sys.argv) == 6 and sys.argv[1] == "--mapnik-driver":
        return mapnik_driver(*sys.argv[2:5], int(sys.argv[5]))
    try:
        import mapnik, PIL  # noqa: F401
    except ImportError:
        if sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
            os.environ.setdefault("GEO_BENCH_PYTHON", sys.executable)
            os.execv("/usr/bin/python3", ["/usr/bin/python3", __file__, *sys.argv[1:]])
        sys.exit("tiles.py needs mapnik's Python binding and Pillow (apt-get install python3-mapnik python3-pil)")
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--paths", type=int, default=20000)
    p.add_argument("--zooms", default="0-8")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--regional", action="store_true", help="also the city-scale corpus")
    p.add_argument("--regional-paths", type=int, default=2000)
    p.add_argument("--regional-zooms", default="0-14")
    p.add_argument("--shared", action="store_true", help="also the shared corpus (bench/out/corpus/paths.ndjson) at --zooms")
    p.add_argument("--mapnik-only", action="store_true", help="time mapnik alone (no geo tiles yet)")
    p.add_argument("--json", action="store_true", help="print a JSON summary instead of the tables")
    p.add_argument("--scale-gb", help="flat memory only: comma-separated input sizes in GB (e.g. 1,5)")
    p.add_argument("--scale-zooms", default="0-6")
    p.add_argument("--tiles-dir", type=Path, default=OUT, help="where both renderers write their tiles (default bench/out/tiles)")
    options = p.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    global TILES_DIR
    TILES_DIR = options.tiles_dir
    TILES_DIR.mkdir(parents=True, exist_ok=True)
    geo = None
    if not options.mapnik_only:
        source = Path(os.environ.get("GEO_BIN", REPO / ".build" / "release" / "geo"))
        geo = OUT / "geo-under-test"
        if not source.exists():
            sys.exit(f"no geo binary at {source} (set GEO_BIN, or --mapnik-only)")
        shutil.copy2(source, geo)
        if subprocess.run([geo, "tiles", "--help"], capture_output=True).returncode:
            sys.exit(f"{source} has no working `geo tiles` yet (--mapnik-only times mapnik alone)")
    if options.scale_gb:
        if geo is None:
            sys.exit("--scale-gb measures geo: drop --mapnik-only")
        rows = scale_run(geo, [float(g) for g in options.scale_gb.split(",")], options.scale_zooms, options.paths)
        (OUT / "scale.json").write_text(json.dumps(rows, indent=1))
        print(json.dumps(rows, indent=1) if options.json else "", end="")
        if not options.json:
            print_scale(rows)
        return 0
    load_before = os.getloadavg()[0]
    results = [bench("europe", options.paths, False, options.zooms, options, geo)]
    if options.shared:
        results.append(bench("shared", 0, False, options.zooms, options, geo))
    if options.regional:
        results.append(bench("regional", options.regional_paths, True, options.regional_zooms, options, geo))
    ok = all(r.get("compare", {"ok": True})["ok"] for r in results)
    summary_json = {"tiles_dir": str(TILES_DIR), "load_average_before": load_before, "load_average_after": os.getloadavg()[0], "repeat": options.repeat, "ok": ok, "results": results}
    (OUT / "results.json").write_text(json.dumps(summary_json, indent=1))
    if options.json:
        print(json.dumps(summary_json, indent=1))
    else:
        for r in results:
            print_table(r)
        print(f"\ntiles written under {TILES_DIR}")
        print(f"load average (1 min) before {load_before:.2f}, after {summary_json['load_average_after']:.2f} "
              "(after counts the benchmark's own two busy processes)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
