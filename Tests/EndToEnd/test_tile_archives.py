"""`geo tiles` into one file: PMTiles v3 archives and deduplicated MBTiles (SPEC "tiles",
docs/tiles.md).

Oracles independent of geo: the `pmtiles` Python package (protomaps' reader) for every tile,
the header and the directories; Python's sqlite3, `gdalinfo` and `gdal_translate` for MBTiles;
the directory run's PNGs for every tile's bytes.
"""

import random
import shutil
import sqlite3
import subprocess

import pytest
from PIL import Image
from pmtiles.reader import MmapSource, Reader, all_tiles
from pmtiles.tile import Compression, TileType, deserialize_directory, zxy_to_tileid

from conftest import geo_bin, not_under_asan
from test_real_data import data  # noqa: F401  (the session's real layers)
from test_tiles import HALF, MERCATOR, SCENE, feature, line, point, tiles, written


# A filled polygon over most of the world: with --empty, thousands of tiles, a few dozen distinct.
# Most of the world: its edges along the parallels have a vertex at 0, since an edge from -170 to
# 170 takes the short way, across ±180 (the Maps SDK's convention, and geo's).
FILLED = [feature({"type": "Polygon", "coordinates": [[[-170, -70], [0, -70], [170, -70], [170, 70], [0, 70], [-170, 70], [-170, -70]]]},
                  fill="#3060c0", **{"stroke-width": 0})]


def read_archive(path):
    """(header, metadata, {(z, x, y): bytes}, every tile entry in TileID order, leaf count)."""
    with open(path, "rb") as file:
        reader = Reader(MmapSource(file))
        header, metadata = reader.header(), reader.metadata()
        found = {zxy: data for zxy, data in all_tiles(reader.get_bytes)}
        raw = file.read()
    root = deserialize_directory(raw[header["root_offset"]:header["root_offset"] + header["root_length"]])
    entries, leaves = [], 0
    for entry in root:
        if entry.run_length == 0:
            leaves += 1
            start = header["leaf_directory_offset"] + entry.offset
            entries += deserialize_directory(raw[start:start + entry.length])
        else:
            entries.append(entry)
    return header, metadata, found, entries, leaves


def check_archive(path, directory_tiles, zooms):
    """What every archive must be: the directory's tiles, each blob once, clustered, the root in
    the first 16 KiB, the header's counts true."""
    header, metadata, found, entries, leaves = read_archive(path)
    assert found == {zxy: p.read_bytes() for zxy, p in directory_tiles.items()}
    assert header["version"] == 3 and header["root_offset"] == 127
    assert header["root_offset"] + header["root_length"] <= 16384
    assert header["clustered"] and header["tile_type"] == TileType.PNG
    assert header["internal_compression"] == Compression.GZIP and header["tile_compression"] == Compression.NONE
    assert (header["min_zoom"], header["max_zoom"]) == zooms
    assert (metadata["format"], metadata["type"]) == ("png", "overlay")
    assert (metadata["minzoom"], metadata["maxzoom"]) == tuple(map(str, zooms))
    # Entries in TileID order, each run's tiles its IDs, every blob stored once, in TileID order
    # (clustered: a blob is new right after the last, or a duplicate pointing back).
    ids = [e.tile_id for e in entries]
    assert ids == sorted(ids) and all(e.run_length >= 1 and e.length > 0 for e in entries)
    assert sum(e.run_length for e in entries) == header["addressed_tiles_count"] == len(found)
    assert len(entries) == header["tile_entries_count"]
    end = 0
    for entry in entries:
        assert entry.offset == end or entry.offset + entry.length <= end
        end = max(end, entry.offset + entry.length)
    assert end == header["tile_data_length"]
    distinct = set(found.values())
    assert header["tile_contents_count"] == len(distinct) and end == sum(map(len, distinct))
    assert ids[0] == min(zxy_to_tileid(*zxy) for zxy in found)
    return header, metadata, entries, leaves


def test_pmtiles_holds_the_directory_s_tiles(tmp_path):
    directory, _ = tiles(tmp_path, SCENE, ["--zoom", "0-4"])
    archive, _ = tiles(tmp_path, SCENE, ["--zoom", "0-4"], out="scene.pmtiles")
    header, metadata, entries, leaves = check_archive(archive, written(directory), (0, 4))
    assert metadata["name"] == "scene" and leaves == 0
    west, south, east, north = map(float, metadata["bounds"].split(","))
    assert (west, south, east, north) == (-122.4, -30.0, 139.7, 48.85)
    assert [header[k] / 1e7 for k in ("min_lon_e7", "min_lat_e7", "max_lon_e7", "max_lat_e7")] == [west, south, east, north]


def test_pmtiles_filled_polygon_is_runs_of_one_blob_and_scale_2_is_as_the_directory(tmp_path):
    """A large filled polygon with --empty: tens of thousands of tiles, a few dozen blobs, runs
    along the Hilbert curve."""
    archive, _ = tiles(tmp_path, FILLED, ["--zoom", "0-7", "--empty"], out="fill.pmtiles")
    directory, _ = tiles(tmp_path, FILLED, ["--zoom", "0-7", "--empty"], out="fill")
    header, _, entries, _ = check_archive(archive, written(directory), (0, 7))
    assert header["addressed_tiles_count"] > 11000
    assert header["tile_contents_count"] < 100 and len(entries) < header["addressed_tiles_count"] / 10
    assert max(e.run_length for e in entries) > 1000
    small, _ = tiles(tmp_path, SCENE, ["--zoom", "2-3", "--scale", "2"], out="retina.pmtiles")
    check_archive(small, written(tiles(tmp_path, SCENE, ["--zoom", "2-3", "--scale", "2"], out="retina")[0]), (2, 3))


def test_pmtiles_leaf_directories_when_the_root_would_not_fit(tmp_path):
    """Thousands of distinct tiles (a marker each, scattered) make a directory too large for the
    first 16 KiB: the root then points at leaves."""
    rng = random.Random(1)
    points = [point(rng.uniform(-170, 170), rng.uniform(-70, 70)) for _ in range(6000)]
    archive, _ = tiles(tmp_path, points, ["--zoom", "0-8"], out="points.pmtiles")
    directory, _ = tiles(tmp_path, points, ["--zoom", "0-8"], out="points")
    header, _, entries, leaves = check_archive(archive, written(directory), (0, 8))
    assert leaves >= 2 and header["leaf_directory_length"] > 0 and len(entries) > 10000


def test_pmtiles_replaced_whole_and_refused_as_mbtiles_is(tmp_path):
    archive, _ = tiles(tmp_path, SCENE, ["--zoom", "0-1"], out="x.pmtiles")
    before = archive.read_bytes()
    _, err = tiles(tmp_path, SCENE, ["--zoom", "0-2"], out="x.pmtiles", expect=73)
    assert "--force" in err and archive.read_bytes() == before
    tiles(tmp_path, SCENE, ["--zoom", "0-2", "--force"], out="x.pmtiles")
    assert read_archive(archive)[0]["max_zoom"] == 2
    _, err = tiles(tmp_path, "not json\n", ["--zoom", "0", "--force"], out="x.pmtiles", expect=65)
    assert read_archive(archive)[0]["max_zoom"] == 2, err
    (tmp_path / "d.pmtiles").mkdir()
    tiles(tmp_path, SCENE, ["--zoom", "0", "--force"], out="d.pmtiles", expect=73)
    _, err = tiles(tmp_path, SCENE, ["--zoom", "0", "--html"], out="y.pmtiles", expect=64)
    assert "PMTiles" in err and not (tmp_path / "y.pmtiles").exists()
    assert [p.name for p in tmp_path.iterdir() if ".geo-" in p.name] == []


def test_mbtiles_keeps_identical_tiles_once_and_readers_see_the_tiles_view(tmp_path):
    database, _ = tiles(tmp_path, FILLED, ["--zoom", "0-5", "--empty"], out="fill.mbtiles")
    directory, _ = tiles(tmp_path, FILLED, ["--zoom", "0-5", "--empty"], out="fill")
    found = written(directory)
    connection = sqlite3.connect(database)
    rows = connection.execute("SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles").fetchall()
    tiles_count, images = connection.execute("SELECT (SELECT count(*) FROM map), (SELECT count(*) FROM images)").fetchone()
    kinds = dict(connection.execute("SELECT name, type FROM sqlite_master WHERE name IN ('tiles', 'map', 'images')").fetchall())
    connection.close()
    assert kinds == {"tiles": "view", "map": "table", "images": "table"}
    assert {(z, x, (1 << z) - 1 - row): data for z, x, row, data in rows} == {zxy: p.read_bytes() for zxy, p in found.items()}
    assert tiles_count == len(found) > 500 and images == len(set(p.read_bytes() for p in found.values())) < tiles_count / 20
    # The sqlite3 shell and GDAL read it as any MBTiles file.
    shell = subprocess.run(["sqlite3", str(database), "select count(*), count(distinct tile_data) from tiles"],
                           capture_output=True, text=True, check=True)
    assert shell.stdout.strip() == f"{tiles_count}|{images}"
    info = subprocess.run(["gdalinfo", str(database)], capture_output=True, text=True)
    assert info.returncode == 0 and "Driver: MBTiles/MBTiles" in info.stdout and "ZOOM_LEVEL=5" in info.stdout, info.stderr
    picture = tmp_path / "zoom5.png"
    subprocess.run(["gdal_translate", "-q", "-of", "PNG", str(database), str(picture)], check=True, capture_output=True)
    image = Image.open(picture).convert("RGBA")
    # The middle of the world is inside the filled polygon: the colour of the tile there.
    inside = Image.open(found[(5, 16, 16)]).convert("RGBA").getpixel((8, 8))
    assert inside[3] > 0 and image.getpixel((image.size[0] // 2, image.size[1] // 2)) == inside


# Fiji across the antimeridian, as Natural Earth cuts it: two parts, either side of ±180.
FIJI = [feature({"type": "MultiPolygon", "coordinates": [
    [[[177.3, -18.3], [180, -18.3], [180, -16.0], [177.3, -16.0], [177.3, -18.3]]],
    [[[-180, -17.0], [-179.8, -17.0], [-179.8, -16.2], [-180, -16.2], [-180, -17.0]]]]}, fill="#d62728", stroke="#d62728")]


def every_metadata(tmp_path, records, args, name):
    """(bounds, center) as the MBTiles metadata, the PMTiles JSON metadata and the PMTiles header
    say them: the same in all three, or the test fails."""
    database, _ = tiles(tmp_path, records, args, out=f"{name}.mbtiles")
    archive, _ = tiles(tmp_path, records, args, out=f"{name}.pmtiles")
    connection = sqlite3.connect(database)
    rows = dict(connection.execute("SELECT name, value FROM metadata").fetchall())
    connection.close()
    header, json_metadata = read_archive(archive)[:2]
    assert (json_metadata["bounds"], json_metadata["center"]) == (rows["bounds"], rows["center"])
    bounds = tuple(map(float, rows["bounds"].split(",")))
    longitude, latitude, zoom = rows["center"].split(",")
    center = (float(longitude), float(latitude), int(zoom))
    in_header = tuple(header[k] / 1e7 for k in ("min_lon_e7", "min_lat_e7", "max_lon_e7", "max_lat_e7"))
    assert in_header == pytest.approx(bounds, abs=1e-7)
    assert (header["center_lon_e7"] / 1e7, header["center_lat_e7"] / 1e7) == pytest.approx(center[:2], abs=1e-7)
    assert header["center_zoom"] == center[2]
    return bounds, center


def test_metadata_of_fiji_is_across_the_antimeridian(tmp_path):
    bounds, (longitude, latitude, zoom) = every_metadata(tmp_path, FIJI, ["--zoom", "0-10"], "fiji")
    assert bounds == (177.3, -18.3, -179.8, -16.0)
    assert 178 < longitude < 179.5 and -17.5 < latitude < -16.8
    # 2.9 degrees fill a 1024-pixel view at zoom 8 (1,050 pixels at zoom 9), within --zoom.
    assert zoom == 8
    assert every_metadata(tmp_path, FIJI, ["--zoom", "2-5"], "fiji-shallow")[1][2] == 5


def test_metadata_of_a_tile_s_subtree_is_that_tile(tmp_path):
    records = [point(lon, lat) for lon in range(-170, 180, 20) for lat in range(-60, 80, 20)] + [point(10, 50)]
    bounds, (longitude, latitude, zoom) = every_metadata(tmp_path, records, ["--zoom", "4-8", "--tile", "4/8/5"], "subtree")
    # Tile 4/8/5: 0 to 22.5 degrees east, 40.98 to 55.78 degrees north (pyproj's inverse).
    west, north = MERCATOR.transform(0, HALF - 5 / 16 * 2 * HALF, direction="INVERSE")
    east, south = MERCATOR.transform(-HALF + 9 / 16 * 2 * HALF, HALF - 6 / 16 * 2 * HALF, direction="INVERSE")
    assert bounds == pytest.approx((west, south, east, north))
    # A zoom-4 tile is 512 pixels square at zoom 5, 1,024 at zoom 6: taller than the 768 view.
    assert longitude == pytest.approx(11.25) and south < latitude < north and zoom == 5


def test_metadata_of_a_bbox_across_the_antimeridian(tmp_path):
    records = [point(175, -15), point(-175, -12)]
    bounds, (longitude, latitude, zoom) = every_metadata(tmp_path, records, ["--zoom", "0-6", "--bbox", "170,-20,-170,-10"], "box")
    assert bounds == (170.0, -20.0, -170.0, -10.0)
    # The middle in Web Mercator, a little south of -15; 20 degrees are 910 pixels at zoom 6.
    assert abs(longitude) == 180 and -15.1 < latitude < -15.0 and zoom == 6


def test_the_page_opens_on_fiji(tmp_path):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.fail("chromium is not installed (make setup installs it)", pytrace=False)
    out, _ = tiles(tmp_path, FIJI, ["--zoom", "0-10", "--html"], out="fiji")
    shot = tmp_path / "shot.png"
    result = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--allow-file-access-from-files",
                             f"--screenshot={shot}", "--window-size=1024,768", "--virtual-time-budget=3000",
                             (out / "index.html").as_uri()], capture_output=True, text=True, timeout=120)
    assert shot.is_file(), result.stderr
    image = Image.open(shot).convert("RGB")
    width, height = image.size
    # Fiji's red fills the middle of the view (not the whole world at zoom 0, nor open sea).
    middle = image.crop((width // 2 - 100, height // 2 - 100, width // 2 + 100, height // 2 + 100)).tobytes()
    red = sum(1 for i in range(0, len(middle), 3) if middle[i] > 180 and middle[i + 1] < 140 and middle[i + 2] < 140)
    assert red > 0.9 * 200 * 200, f"{red} red pixels near the centre"


def test_a_feature_s_minzoom_and_maxzoom_limit_the_zooms_it_is_drawn_at(tmp_path):
    """Each zoom of the run is what a run of only the features allowed there draws."""
    west = line([[-120, 10], [-60, 40]], stroke="red", **{"stroke-width": 5})
    east = line([[20, -10], [80, 30]], stroke="blue", **{"stroke-width": 5})
    middle = point(0, 0, **{"marker-color": "orange"})
    limited = [dict(west, properties={**west["properties"], "minzoom": 2}),
               dict(east, properties={**east["properties"], "maxzoom": "1"}),
               dict(middle, properties={**middle["properties"], "tippecanoe": {"minzoom": 1, "maxzoom": 2, "layer": "x"}})]
    out, _ = tiles(tmp_path, limited, ["--zoom", "0-3"], out="limited")
    found = written(out)
    allowed = {0: [east], 1: [east, middle], 2: [west, middle], 3: [west]}
    for z, features in allowed.items():
        alone, _ = tiles(tmp_path, features, ["--zoom", str(z)], out=f"alone-{z}")
        assert {k: p.read_bytes() for k, p in found.items() if k[0] == z} == {k: p.read_bytes() for k, p in written(alone).items()}
    bad = dict(west, properties={"minzoom": 3, "maxzoom": 2})
    _, err = tiles(tmp_path, [bad, east], ["--zoom", "0-1"], out="bad", expect=65)
    assert "minzoom 3 is above maxzoom 2" in err


@not_under_asan
@pytest.mark.slow
def test_pmtiles_memory_stays_flat_on_a_real_layer(data, tmp_path):  # noqa: F811
    """Natural Earth's countries at zooms 0-9 (144,147 tiles, most of them small, distinct and
    written once): the PMTiles writer's peak stays that of an MBTiles run. Its cache of recent
    small tiles held the encoder's arrays, each with the capacity of the largest tile: 122 MB."""
    peaks = {}
    for out in ("db.mbtiles", "db.pmtiles"):
        proc = subprocess.run(["/usr/bin/time", "-f", "%M", geo_bin(), "tiles", "--zoom", "0-9", "-o", str(tmp_path / out),
                               str(data / "countries.geojsonl")], capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr
        peaks[out] = int(proc.stderr.strip().splitlines()[-1]) // 1024
    assert peaks["db.pmtiles"] < peaks["db.mbtiles"] + 40, peaks
