"""`geo tiles` end to end (SPEC "tiles", geo-tiles(1), docs/tiles.md).

Oracles independent of geo: tile bounds and pixel positions from pyproj's Web Mercator and the
XYZ formulas, `geo render` of each tile's bounds as the SPEC's fixed reading, Python's sqlite3
and GDAL's `gdalinfo` for MBTiles, Pillow for every PNG, Debian's chromium for the page.
"""

import json
import math
import os
import shutil
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest
from PIL import Image, ImageChops
from pyproj import Transformer

from conftest import geo_bin, ndjson, run

MERCATOR = Transformer.from_crs("EPSG:4326", "EPSG:3857", always_xy=True)
HALF = 20037508.342789244


def tile_bounds_degrees(z, x, y):
    """W, S, E, N of tile z/x/y (the XYZ scheme)."""
    n = 2 ** z

    def lat(row):
        return math.degrees(math.atan(math.sinh(math.pi * (1 - 2 * row / n))))

    return x / n * 360 - 180, lat(y + 1), (x + 1) / n * 360 - 180, lat(y)


def pixel_in_tile(lon, lat, z, scale=1):
    """(tile x, tile y, px, py) of a position, through pyproj."""
    mx, my = MERCATOR.transform(lon, lat)
    world = 256 * scale * 2 ** z
    gx, gy = (mx + HALF) / (2 * HALF) * world, (HALF - my) / (2 * HALF) * world
    size = 256 * scale
    return int(gx // size), int(gy // size), gx % size, gy % size


def feature(geometry, **properties):
    return {"type": "Feature", "properties": properties, "geometry": geometry}


def line(coordinates, **properties):
    return feature({"type": "LineString", "coordinates": coordinates}, **properties)


def point(lon, lat, **properties):
    return feature({"type": "Point", "coordinates": [lon, lat]}, **properties)


def tiles(tmp_path, records, args, expect=0, out="out"):
    target = tmp_path / out
    rc, _, err = run(["tiles", "-o", target, *args], ndjson(records) if not isinstance(records, (bytes, str)) else records)
    assert rc == expect, err
    return target, err


def written(directory):
    """{(z, x, y): path} of every tile in an XYZ directory."""
    found = {}
    for path in Path(directory).glob("*/*/*.png"):
        z, x, y = int(path.parts[-3]), int(path.parts[-2]), int(path.stem)
        found[(z, x, y)] = path
    return found


def rgba(path):
    return Image.open(path).convert("RGBA")


def worst_difference(a, b):
    """The largest difference of any channel of any pixel (premultiplied, so that colours
    under full transparency do not count)."""
    def premultiplied(image):
        r, g, b_, a_ = image.split()
        return Image.merge("RGBA", [ImageChops.multiply(c, a_) for c in (r, g, b_)] + [a_])
    diff = ImageChops.difference(premultiplied(a), premultiplied(b))
    return max(high for _, high in diff.getextrema())


SCENE = [
    line([[-122.4, 37.8], [-73.9, 40.7], [2.35, 48.85], [139.7, 35.7]], stroke="#d62728", **{"stroke-width": 4}),
    feature({"type": "Polygon", "coordinates": [[[-10, -10], [30, -10], [30, 20], [-10, 20], [-10, -10]],
                                                [[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]]]},
            fill="#2ca02c", stroke="black", **{"z-index": -1}),
    line([[-60, -30], [60, 40]], stroke="rgba(0,0,255,0.5)", **{"stroke-width": 9, "z-index": 2}),
    point(-45, 30, **{"marker-color": "orange"}),
    point(100, -20, **{"marker-color": "#8000ff", "marker-size": "large"}),
]


def test_every_tile_is_render_of_its_bounds(tmp_path):
    """The SPEC's fixed reading: tile z/x/y = geo render --projection EPSG:3857 --bbox <bounds>
    --size 256x256 --background none, within 2 levels a channel."""
    out, _ = tiles(tmp_path, SCENE, ["--zoom", "0-3"])
    found = written(out)
    assert (0, 0, 0) in found and len(found) > 20
    worst = 0
    for (z, x, y), path in sorted(found.items()):
        w, s, e, n = tile_bounds_degrees(z, x, y)
        picture = tmp_path / "render.png"
        rc, _, err = run(["render", "--projection", "EPSG:3857", "--bbox", f"{w!r},{s!r},{e!r},{n!r}", "--size", "256x256",
                          "--background", "none", "-o", picture], ndjson(SCENE))
        assert rc == 0, err
        difference = worst_difference(rgba(path), rgba(picture))
        worst = max(worst, difference)
        assert difference <= 2, f"tile {z}/{x}/{y} differs from render of its bounds by {difference} levels"


def test_tiles_with_ink_only_and_all_of_them(tmp_path):
    """Every tile written has ink; every tile of the range that render draws ink in is written."""
    out, _ = tiles(tmp_path, SCENE, ["--zoom", "2"])
    found = written(out)
    for y in range(4):
        for x in range(4):
            w, s, e, n = tile_bounds_degrees(2, x, y)
            picture = tmp_path / "r.png"
            rc, _, err = run(["render", "--projection", "EPSG:3857", "--bbox", f"{w!r},{s!r},{e!r},{n!r}", "--size", "256x256",
                              "--background", "none", "-o", picture], ndjson(SCENE))
            inked = rgba(picture).getextrema()[3][1] > 0
            assert ((2, x, y) in found) == inked, f"tile 2/{x}/{y}: render inked={inked}"
    for path in found.values():
        assert rgba(path).getextrema()[3][1] > 0


def mosaic(found, z, scale=1):
    size = 256 * scale
    n = 2 ** z
    picture = Image.new("RGBA", (n * size, n * size), (0, 0, 0, 0))
    for (tz, x, y), path in found.items():
        if tz == z:
            picture.paste(rgba(path), (x * size, y * size))
    return picture


def test_mosaic_has_no_seams(tmp_path):
    """Tiles laid side by side are one picture: the whole world rendered at the mosaic's size."""
    records = [line([[-170, 60], [-20, -50], [5, 5], [150, 70]], stroke="red", **{"stroke-width": 7}),
               point(0, 0, **{"marker-color": "blue", "marker-size": "large"})]
    out, _ = tiles(tmp_path, records, ["--zoom", "2"])
    whole = mosaic(written(out), 2)
    picture = tmp_path / "world.png"
    limit = 85.0511287798066
    rc, _, err = run(["render", "--projection", "EPSG:3857", "--bbox", f"-180,{-limit},180,{limit}", "--size", "1024x1024",
                      "--background", "none", "-o", picture], ndjson(records))
    assert rc == 0, err
    assert worst_difference(whole, rgba(picture)) <= 2


def test_marker_on_a_tile_corner_is_whole_in_the_four_tiles(tmp_path):
    out, _ = tiles(tmp_path, [point(0, 0, **{"marker-color": "blue", "marker-size": "large"})], ["--zoom", "1"])
    found = written(out)
    assert set(found) == {(1, 0, 0), (1, 1, 0), (1, 0, 1), (1, 1, 1)}
    # Each quarter of the disc sits in the tile's corner at the world's centre.
    corners = {(1, 0, 0): (255, 255), (1, 1, 0): (0, 255), (1, 0, 1): (255, 0), (1, 1, 1): (0, 0)}
    for key, (px, py) in corners.items():
        r, g, b, a = rgba(found[key]).getpixel((px, py))
        assert a > 200 and b > 150 and r < 80, (key, (r, g, b, a))
    # The four quarters make the disc render draws.
    disc = mosaic(found, 1).crop((236, 236, 276, 276))
    picture = tmp_path / "r.png"
    run(["render", "--projection", "EPSG:3857", "--bbox", "-180,-85.0511287798066,180,85.0511287798066", "--size", "512x512",
         "--background", "none", "-o", picture], ndjson([point(0, 0, **{"marker-color": "blue", "marker-size": "large"})]))
    assert worst_difference(disc, rgba(picture).crop((236, 236, 276, 276))) <= 2


def test_a_marker_is_where_pyproj_puts_it(tmp_path):
    lon, lat = 2.2945, 48.8584
    out, _ = tiles(tmp_path, [point(lon, lat, **{"marker-color": "red"})], ["--zoom", "12", "--scale", "2"])
    tx, ty, px, py = pixel_in_tile(lon, lat, 12, scale=2)
    found = written(out)
    assert (12, tx, ty) in found
    image = rgba(found[(12, tx, ty)])
    assert image.size == (512, 512)
    r, g, b, a = image.getpixel((int(px), int(py)))
    assert a > 200 and r > 200 and g < 80, (r, g, b, a)


def test_zoom_0_is_the_world_and_antarctica_reaches_its_bottom(tmp_path):
    antarctica = feature({"type": "Polygon", "coordinates": [[[-180, -90], [180, -90], [180, -70], [-180, -70], [-180, -90]]]},
                         fill="#0000ff", **{"fill-opacity": 1, "stroke-width": 0})
    out, _ = tiles(tmp_path, [antarctica], ["--zoom", "0"])
    image = rgba(written(out)[(0, 0, 0)])
    assert image.getpixel((128, 255))[3] == 255 and image.getpixel((5, 250))[2] > 200
    assert image.getpixel((128, 100))[3] == 0


def test_across_the_antimeridian(tmp_path):
    """A line from 170° E to 170° W crosses ±180: it reaches the east edge of the last column and
    the west edge of the first, at the same latitude."""
    out, _ = tiles(tmp_path, [line([[170, 10], [-170, 10]], stroke="red", **{"stroke-width": 4})], ["--zoom", "2"])
    found = written(out)
    _, ty, _, py = pixel_in_tile(180, 10, 2)
    assert {(2, 0, ty), (2, 3, ty)} <= set(found)
    east, west = rgba(found[(2, 3, ty)]), rgba(found[(2, 0, ty)])
    assert east.getpixel((255, int(py)))[3] > 200 and west.getpixel((0, int(py)))[3] > 200
    assert {key[1] for key in found} == {0, 3}, "the line goes the short way, not across the world"


def test_near_the_mercator_limit(tmp_path):
    out, _ = tiles(tmp_path, [line([[-10, 85.04], [10, 85.04]], stroke="red", **{"stroke-width": 4})], ["--zoom", "3"])
    found = written(out)
    assert found and all(y == 0 for (_, _, y) in found)
    tx, ty, px, py = pixel_in_tile(0, 85.04, 3)
    assert rgba(found[(3, tx, ty)]).getpixel((int(px), max(1, int(py))))[3] > 150


def test_mbtiles_holds_the_directory_s_tiles_in_tms_rows(tmp_path):
    directory, _ = tiles(tmp_path, SCENE, ["--zoom", "0-3"])
    database, _ = tiles(tmp_path, SCENE, ["--zoom", "0-3"], out="scene.mbtiles")
    connection = sqlite3.connect(database)
    rows = connection.execute("SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles").fetchall()
    metadata = dict(connection.execute("SELECT name, value FROM metadata").fetchall())
    connection.close()
    found = written(directory)
    assert {(z, x, (1 << z) - 1 - row) for z, x, row, _ in rows} == set(found)
    for z, x, row, data in rows:
        assert data == found[(z, x, (1 << z) - 1 - row)].read_bytes()
    assert metadata["format"] == "png" and metadata["type"] == "overlay" and metadata["name"] == "scene"
    assert (metadata["minzoom"], metadata["maxzoom"]) == ("0", "3")
    west, south, east, north = map(float, metadata["bounds"].split(","))
    assert (west, south, east, north) == (-122.4, -30.0, 139.7, 48.85)
    assert len(metadata["center"].split(",")) == 3
    info = subprocess.run(["gdalinfo", str(database)], capture_output=True, text=True)
    assert info.returncode == 0, info.stderr
    assert "Driver: MBTiles/MBTiles" in info.stdout and "ZOOM_LEVEL=3" in info.stdout


def test_subtrees_merge_into_the_whole_pyramid(tmp_path):
    """--tile Z/X/Y: independent runs, one subtree each, whose directories merge by copying into
    what one run makes."""
    whole, _ = tiles(tmp_path, SCENE, ["--zoom", "0-4"], out="whole")
    merged = tmp_path / "merged"
    top, _ = tiles(tmp_path, SCENE, ["--zoom", "0"], out="top")
    shutil.copytree(top, merged, dirs_exist_ok=True)
    for x in range(2):
        for y in range(2):
            part, _ = tiles(tmp_path, SCENE, ["--zoom", "0-4", "--tile", f"1/{x}/{y}"], out=f"part-{x}-{y}")
            for (z, tx, ty) in written(part):
                assert z >= 1 and tx >> (z - 1) == x and ty >> (z - 1) == y
            shutil.copytree(part, merged, dirs_exist_ok=True)
    a, b = written(whole), written(merged)
    assert set(a) == set(b)
    for key in a:
        assert a[key].read_bytes() == b[key].read_bytes(), key


def test_bbox_limits_the_pyramid(tmp_path):
    out, _ = tiles(tmp_path, SCENE, ["--zoom", "4", "--bbox", "-20,-15,5,25"])
    found = written(out)
    assert found
    for (z, x, y) in found:
        w, s, e, n = tile_bounds_degrees(z, x, y)
        assert e > -20 and w < 5 and n > -15 and s < 25


def test_an_existing_output_is_refused_without_force(tmp_path):
    out, _ = tiles(tmp_path, SCENE, ["--zoom", "1"])
    before = {key: path.read_bytes() for key, path in written(out).items()}
    _, err = tiles(tmp_path, [line([[0, 0], [1, 1]])], ["--zoom", "1"], expect=73)
    assert "exists" in err and "--force" in err
    assert {key: path.read_bytes() for key, path in written(out).items()} == before
    tiles(tmp_path, SCENE, ["--zoom", "1", "--force"])
    database = tmp_path / "x.mbtiles"
    database.write_bytes(b"not mine to replace")
    tiles(tmp_path, SCENE, ["--zoom", "1"], out="x.mbtiles", expect=73)
    assert database.read_bytes() == b"not mine to replace"


def test_mbtiles_through_a_link_and_never_onto_a_fifo(tmp_path):
    target = tmp_path / "real.mbtiles"
    target.write_bytes(b"")
    os.chmod(target, 0o600)
    link = tmp_path / "link.mbtiles"
    link.symlink_to(target.name)
    tiles(tmp_path, SCENE, ["--zoom", "0-1", "--force"], out="link.mbtiles")
    assert link.is_symlink() and os.stat(target).st_mode & 0o777 == 0o600
    assert sqlite3.connect(target).execute("SELECT count(*) FROM tiles").fetchone()[0] >= 2
    fifo = tmp_path / "pipe.mbtiles"
    os.mkfifo(fifo)
    _, err = tiles(tmp_path, SCENE, ["--zoom", "0", "--force"], out="pipe.mbtiles", expect=73)
    assert "regular file" in err
    assert Path(fifo).is_fifo()


def test_new_tiles_and_folders_get_the_users_umask_from_every_thread(tmp_path):
    """Directories and tiles made by two drawing threads at once, under umask 027: what any new
    file gets (SPEC section 3). geo reads the umask without setting it: setting it to 0 for a
    moment, as reading it with umask(2) takes, would let the other thread make a folder 0777."""
    records = ndjson([line([[lon, -60 + (lon % 120)], [lon + 20, 60 - (lon % 100)]]) for lon in range(-180, 160, 7)])
    def under_027():
        os.umask(0o027)
    subprocess.run([geo_bin(), "tiles", "--zoom", "0-5", "--jobs", "2", "-o", tmp_path / "out"], input=records,
                   preexec_fn=under_027, check=True, capture_output=True)
    subprocess.run([geo_bin(), "render", "-o", tmp_path / "map.png"], input=records, preexec_fn=under_027, check=True,
                   capture_output=True)
    folders = [tmp_path / "out"] + [path for path in (tmp_path / "out").rglob("*") if path.is_dir()]
    files = list(written(tmp_path / "out").values())
    assert len(folders) > 40 and len(files) > 300
    assert {oct(os.stat(path).st_mode & 0o777) for path in folders} == {"0o750"}
    assert {oct(os.stat(path).st_mode & 0o777) for path in files + [tmp_path / "map.png"]} == {"0o640"}


def test_empty_writes_every_tile_of_the_range(tmp_path):
    out, _ = tiles(tmp_path, [point(10, 10)], ["--zoom", "1", "--empty", "--bbox", "-180,-85,180,85"])
    found = written(out)
    assert set(found) == {(1, x, y) for x in range(2) for y in range(2)}
    blank = [key for key, path in found.items() if rgba(path).getextrema()[3][1] == 0]
    assert len(blank) == 3


def test_bad_records_are_reported_and_the_rest_drawn(tmp_path):
    text = ndjson([SCENE[0]]) + b'{"type":"Point","coordinates":[48.8,200]}\n' + b'{"type": nope}\n' + ndjson([SCENE[3]])
    out, err = tiles(tmp_path, text, ["--zoom", "0-1"], expect=65)
    lines = err.splitlines()
    assert any("<stdin>:2: latitude" in l and "[longitude, latitude]" in l for l in lines), err
    assert any("<stdin>:3:" in l for l in lines), err
    assert (0, 0, 0) in written(out)


def test_a_bad_style_among_many_good_ones_is_still_told(tmp_path):
    """The workers remember styles they read well (the same bytes read the same): a bad style of
    the same length as a remembered good one, on any line, in any order, is still a bad record,
    on both worker threads."""
    good = {"stroke": "#d62728", "stroke-width": 2}
    bad = {"stroke": "#d6272z", "stroke-width": 2}
    records = [line([[i * 0.01, 0], [i * 0.01, 1]], **(bad if i in (500, 1501) else good)) for i in range(3000)]
    out, err = tiles(tmp_path, records, ["--zoom", "0-2", "--jobs", "2"], expect=65)
    told = sorted(l.split("<stdin>:")[1].split(":")[0] for l in err.splitlines() if "<stdin>:" in l)
    assert told == ["1502", "501"], err
    assert all("stroke" in l and "#d6272z" in l for l in err.splitlines() if "<stdin>:" in l), err
    assert written(out)


def test_no_shape_says_so(tmp_path):
    out, err = tiles(tmp_path, b"", ["--zoom", "0-2"])
    assert "no tile was written" in err and "no record" in err
    out, err = tiles(tmp_path, SCENE, ["--zoom", "3", "--bbox", "50,-80,51,-79"], out="o2")
    assert "no tile was written" in err and "--bbox" in err


@pytest.mark.parametrize("arguments, message", [
    (["--zoom", "25", "-o", "x"], "--zoom"),
    (["--zoom", "3-1", "-o", "x"], "above"),
    (["-o", "x"], "--zoom is required"),
    (["--zoom", "1"], "-o OUT is required"),
    (["--zoom", "1", "-o", "-"], "tiles are many files, not one stream"),
    (["--zoom", "1-3", "--tile", "4/1/1", "-o", "x"], "--tile"),
    (["--zoom", "1-3", "--tile", "2/4/1", "-o", "x"], "x and y run from 0 to 3"),
    (["--zoom", "1", "--html", "-o", "x.mbtiles"], "--html"),
    (["--zoom", "1", "--scale", "4", "-o", "x"], "--scale"),
])
def test_usage_errors(tmp_path, arguments, message):
    rc, _, err = run(["tiles", *arguments], b"", cwd=tmp_path)
    assert rc == 64 and message in err, err
    assert not (tmp_path / "x").exists() and not (tmp_path / "x.mbtiles").exists()


def test_scale_two_doubles_widths(tmp_path):
    record = [line([[-100, 0], [0, 0], [100, 0]], stroke="red", **{"stroke-width": 4})]
    one, _ = tiles(tmp_path, record, ["--zoom", "1"], out="one")
    two, _ = tiles(tmp_path, record, ["--zoom", "1", "--scale", "2"], out="two")

    def thickness(path, size):
        image = rgba(path)
        column = [image.getpixel((size // 2, y))[3] for y in range(image.size[1])]
        return sum(a / 255 for a in column)

    t1, t2 = thickness(written(one)[(1, 0, 0)], 256), thickness(written(two)[(1, 0, 0)], 512)
    # The line at the equator runs along the bottom edge of the northern tiles: half of it shows.
    assert t1 == pytest.approx(2, abs=0.3) and t2 == pytest.approx(4, abs=0.3)


def test_input_read_once_from_a_pipe_and_stdin(tmp_path):
    data = ndjson(SCENE)
    source = tmp_path / "scene.ndjson"
    source.write_bytes(data)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    writer = subprocess.Popen(["sh", "-c", f"cat {source} > {fifo}"])
    rc, _, err = run(["tiles", "--zoom", "0-2", "-o", tmp_path / "from-fifo", fifo])
    writer.wait()
    assert rc == 0, err
    rc, _, err = run(["tiles", "--zoom", "0-2", "-o", tmp_path / "from-stdin"], data)
    assert rc == 0, err
    a, b = written(tmp_path / "from-fifo"), written(tmp_path / "from-stdin")
    assert set(a) == set(b) and len(a) > 5


@pytest.mark.slow
def test_a_signal_leaves_no_half_written_tile_or_database(tmp_path):
    lines = [line([[-180 + i * 0.036, -60 + (i % 97)], [-179 + i * 0.036, -59 + (i % 89)]], stroke="red") for i in range(10000)]
    source = tmp_path / "many.ndjson"
    source.write_bytes(ndjson(lines))
    for out in ["dir", "db.mbtiles", "db.pmtiles"]:
        process = subprocess.Popen([geo_bin(), "tiles", "--zoom", "0-11", "-o", str(tmp_path / out), str(source)],
                                   stderr=subprocess.PIPE)
        time.sleep(1.5)
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)
        assert process.returncode == -signal.SIGTERM, process.stderr.read().decode()
        leftovers = [p for p in tmp_path.rglob("*") if ".geo-" in p.name]
        assert leftovers == []
        assert not (tmp_path / "db.mbtiles").exists() and not (tmp_path / "db.pmtiles").exists()
        for path in written(tmp_path / "dir").values() if out == "dir" else []:
            Image.open(path).load()  # every tile there is whole


def test_the_page_shows_the_tiles_in_a_headless_browser(tmp_path):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.fail("chromium is not installed (make setup installs it)", pytrace=False)
    out, _ = tiles(tmp_path, [line([[-30, -20], [40, 30]], stroke="#ff0000", **{"stroke-width": 12})], ["--zoom", "0-4", "--html"])
    page = out / "index.html"
    assert page.is_file() and "http" not in page.read_text().split("<script>")[1]
    shot = tmp_path / "shot.png"
    result = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--allow-file-access-from-files",
                             f"--screenshot={shot}", "--window-size=800,600", "--virtual-time-budget=3000", page.as_uri()],
                            capture_output=True, text=True, timeout=120)
    assert shot.is_file(), result.stderr
    raw = Image.open(shot).convert("RGB").tobytes()
    pixels = [tuple(raw[i:i + 3]) for i in range(0, len(raw), 3)]
    red = sum(1 for r, g, b in pixels if r > 200 and g < 60 and b < 60)
    background = sum(1 for pixel in pixels if pixel == (242, 239, 233))
    assert red > 2000, f"{red} red pixels: the page does not show the tiles"
    assert background > 10000


def test_tile_pngs_are_valid_zlib_streams_of_cairos_pixels(tmp_path):
    """Tiles are deflated by geo's run deflater (Sources/RunDeflate), not zlib: each tile, read
    here chunk by chunk without Pillow, has good CRCs and one zlib stream that Python's zlib
    inflates (adler-32 checked) into rows of filter byte 0 and the pixels Pillow reads; at
    scales 1 and 3 (a 768-px tile is two deflate blocks), with translucent crossing lines of
    three colours, so that literals, pixel runs and row repeats all occur, written as RGBA where
    colours blend; and lines of one colour, written as a palette (one entry an alpha) that
    holds the same pixels."""
    import random, zlib
    rng = random.Random(11)
    def records(colours, widest):
        return [line([[rng.uniform(-30, 30), rng.uniform(-30, 30)] for _ in range(5)], stroke=rng.choice(colours),
                     **{"stroke-width": rng.uniform(1, widest), "stroke-opacity": rng.uniform(0.2, 1)}) for _ in range(300)]
    # One colour in lines geo's rasterizer draws (up to 16 px, at scale 3 too): cairo draws wider
    # ones, rounding each channel apart, and a tile of them is RGBA.
    for name, colours, widest in (("three", ["#d62728", "#1f77b4", "#2ca02c"], 12), ("one", ["#9467bd"], 5)):
        for scale in (1, 3):
            out, _ = tiles(tmp_path, records(colours, widest), ["--zoom", "0-2", "--scale", str(scale)], out=f"{name}{scale}")
            found = written(out)
            assert len(found) >= 3
            size = 256 * scale
            kinds = set()
            for path in found.values():
                data = path.read_bytes()
                assert data[:8] == b"\x89PNG\r\n\x1a\n"
                at, stream, chunks = 8, b"", {}
                while at < len(data):
                    length = int.from_bytes(data[at:at + 4], "big")
                    kind, payload = data[at + 4:at + 8], data[at + 8:at + 8 + length]
                    assert int.from_bytes(data[at + 8 + length:at + 12 + length], "big") == zlib.crc32(kind + payload), (path, kind)
                    if kind == b"IDAT":
                        stream += payload
                    chunks[kind] = payload
                    at += 12 + length
                colour_type = chunks[b"IHDR"][9]
                kinds.add(colour_type)
                raw = zlib.decompress(stream)
                row = 1 + (4 if colour_type == 6 else 1) * size
                assert len(raw) == size * row and all(raw[y * row] == 0 for y in range(size))
                pixels = b"".join(raw[y * row + 1:(y + 1) * row] for y in range(size))
                if colour_type == 3:
                    palette, alphas = chunks[b"PLTE"], chunks[b"tRNS"]
                    assert len(alphas) == len(palette) // 3 == len(set(alphas)), path   # one entry an alpha
                    pixels = b"".join(palette[3 * i:3 * i + 3] + alphas[i:i + 1] for i in pixels)
                assert pixels == rgba(path).tobytes(), path
            assert kinds == ({3} if name == "one" else {6}), (name, kinds)   # every tile here shows two colours or more


def test_straight_web_mercator_lines_never_load_proj(tmp_path):
    """Web Mercator is worked out in geo and a geodesic's parameters only when one is drawn: a
    map of straight lines loads no PROJ (the library and the forty it links cost 10-14 ms a run,
    its database as much again). A geodesic edge loads it. glibc's LD_DEBUG=libs lists every
    library the run loads, dlopen's included."""
    records = [line([[-10, 40], [20, 50]]), point(5, 45)]
    rc, _, err = run(["tiles", "-o", tmp_path / "straight", "--zoom", "0-3"], ndjson(records), env={"LD_DEBUG": "libs"})
    assert rc == 0, err
    assert "libcairo" in err, "LD_DEBUG=libs lists the libraries loaded"
    assert "libproj" not in err
    rc, _, err = run(["tiles", "-o", tmp_path / "curved", "--zoom", "0-3"], ndjson([line([[-10, 40], [20, 50]], geodesic=True)]),
                     env={"LD_DEBUG": "libs"})
    assert rc == 0, err
    assert "libproj" in err
