"""geo on real public data, converted with ogr2ogr the way users convert it: Natural Earth's
countries (Antarctica reaches -90) and populated places, New York's borough boundaries in their
own State Plane CRS (EPSG:2263) with and without `-t_srs EPSG:4326`, and GPX tracks.

The layers come from package registries: geopandas 0.14.4's bundled datasets (the last release
that ships them) and gpxpy 1.6.2's test tracks, downloaded once by pip into
Tests/EndToEnd/.real-data (git ignores it) by real_data.py, which bench/tiles.py --layers shares.
No network, no data: the tests fail, never skip.
"""

import json
import math
import subprocess
from pathlib import Path

import pytest

import real_data
from conftest import geo_bin
from real_data import ogr2ogr  # noqa: F401  (other modules import it from here)


@pytest.fixture(scope="session")
def data():
    return real_data.fill()


def geo(*args, input=None):
    proc = subprocess.run([geo_bin(), *map(str, args)], input=input, capture_output=True, timeout=300)
    return proc.returncode, proc.stdout, proc.stderr.decode()


def ink_box(path, background=(255, 255, 255)):
    """The box of pixels that are not the background: (left, top, right, bottom), or None."""
    from PIL import Image, ImageChops
    image = Image.open(path).convert("RGB")
    return ImageChops.difference(image, Image.new("RGB", image.size, background)).getbbox()


# --- the default view of the world is a map ---

@pytest.mark.parametrize("view", [[], ["--bbox", "-180,-90,180,90"]])
def test_the_world_in_web_mercator_is_square(data, tmp_path, view):
    """Web Mercator is held to +-85.0511 degrees, where the world is square (not a strip)."""
    out = tmp_path / "world.png"
    rc, _, err = geo("render", *view, "-o", out, data / "countries.geojsonl")
    assert rc == 0, err
    left, top, right, bottom = ink_box(out)
    width, height = right - left, bottom - top
    assert height > 700, f"the world is {width}x{height} px of a 1024x768 picture"
    # Land reaches 83.6 N and Antarctica is held to 85.05 S: nearly square, never a strip.
    assert 0.95 * height <= width <= 1.1 * height, f"the world is {width}x{height} px"


def test_mercator_clamp_matches_pyproj(data, tmp_path):
    """A city's pixel in the world map is where pyproj's Web Mercator puts it, the map's top and
    bottom at +-85.0511 degrees."""
    from pyproj import Transformer
    to_mercator = Transformer.from_crs("EPSG:4326", "EPSG:3857", always_xy=True)
    out = tmp_path / "london.png"
    london = '{"type":"Feature","properties":{"marker-color":"#ff0000","marker-size":"small"},"geometry":{"type":"Point","coordinates":[-0.1275,51.5072]}}\n'
    frame = '{"type":"LineString","coordinates":[[-180,-90],[180,90]],"properties":{}}\n'
    rc, _, err = geo("render", "--bbox", "-180,-90,180,90", "--size", "512x512", "--background", "white", "-o", out,
                     input=(london + frame).encode())
    assert rc == 0, err
    from PIL import Image
    image = Image.open(out).convert("RGB")
    reds = [(x, y) for y in range(512) for x in range(512) if image.getpixel((x, y))[0] > 200 and image.getpixel((x, y))[1] < 60]
    cx = sum(x for x, _ in reds) / len(reds) + 0.5
    cy = sum(y for _, y in reds) / len(reds) + 0.5
    x, y = to_mercator.transform(-0.1275, 51.5072)
    half = 20037508.342789244
    assert abs(cx - (x + half) / (2 * half) * 512) < 1.0
    assert abs(cy - (half - y) / (2 * half) * 512) < 1.0


# --- every orthographic centre draws a globe ---

CENTRES = [(45, -100), (-90, 0), (-60, 170), (30, 150), (90, 0), (0, 180), (-45, -179.9)] + \
          [(lat, lon) for lat in (-75, -30, 0, 30, 75) for lon in (-150, -60, 30, 120)]


@pytest.mark.parametrize("lat,lon", CENTRES)
def test_every_orthographic_centre_draws_a_globe(data, tmp_path, lat, lon):
    out = tmp_path / "globe.png"
    rc, _, err = geo("render", "--size", "160x160", "--projection", f"+proj=ortho +lat_0={lat} +lon_0={lon}",
                     "--graticule", "30", "-o", out, data / "countries.geojsonl")
    assert rc == 0, err
    assert "shows no shape" not in err
    left, top, right, bottom = ink_box(out)
    assert right - left > 100 or bottom - top > 100, (left, top, right, bottom)


# --- areas and containment agree with an independent oracle ---

def test_country_areas_agree_with_pyproj(data):
    """geo area against pyproj's Geod (GeographicLib's algorithm, another implementation's
    code path) for every country of Natural Earth, Antarctica and Russia (across 180) included."""
    from pyproj import Geod
    from shapely.geometry import shape
    geod = Geod(ellps="WGS84")
    rc, out, err = geo("area", data / "countries.geojsonl")
    assert rc == 0, err
    records = [json.loads(line) for line in out.splitlines()]
    assert len(records) == 177
    for record in records:
        expected = abs(geod.geometry_area_perimeter(shape(record["geometry"]))[0])
        got = record["properties"]["area_m2"]
        assert math.isclose(got, expected, rel_tol=1e-9, abs_tol=1.0), (record["properties"]["name"], got, expected)


def test_borough_areas_agree_with_the_state_plane_areas(data):
    """The boroughs reprojected by ogr2ogr: geo's ellipsoidal area agrees with the shapefile's
    own planar State Plane area (square feet) to the scale error of that plane (< 0.01 %)."""
    rc, out, err = geo("area", data / "nybb.geojsonl")
    assert rc == 0, err
    for line in out.splitlines():
        properties = json.loads(line)["properties"]
        planar = properties["Shape_Area"] * 0.3048 ** 2
        assert abs(properties["area_m2"] / planar - 1) < 1e-4, properties["BoroName"]


def test_cities_inside_countries_agree_with_shapely(data):
    """locate --shapes: the country each city lies in, against shapely's point-in-polygon for
    every city not within 0.05 degrees of a border (where planar and geodesic edges part)."""
    from shapely.geometry import Point, shape
    countries = [json.loads(line) for line in (data / "countries.geojsonl").read_text().splitlines()]
    shapes = [shape(c["geometry"]) for c in countries]
    rc, out, err = geo("locate", "--shapes", data / "countries.geojsonl", data / "cities.geojsonl")
    assert rc == 0, err
    compared = 0
    for line in out.splitlines():
        city = json.loads(line)
        point = Point(city["geometry"]["coordinates"])
        expected = [k for k, s in enumerate(shapes) if s.contains(point)]
        if any(s.boundary.distance(point) < 0.05 for s in shapes if s.distance(point) < 0.05):
            continue
        got = [m["shape"] for m in city["properties"]["locate"] if m["inside"]]
        assert got == expected, (city["properties"]["name"], got, expected)
        compared += 1
    assert compared > 100


# --- mistakes and blanks are told ---

def test_a_projected_layer_without_t_srs_is_told_per_line(data, tmp_path):
    rc, _, err = geo("render", "-o", tmp_path / "ny.png", data / "nybb-2263.geojson")
    assert rc == 65
    lines = err.splitlines()
    assert all(line.startswith("geo render: ") for line in lines)
    assert sum("is outside [-90, 90] (positions are [longitude, latitude])" in line for line in lines) == 5
    assert any("every record was bad" in line and "not written" in line for line in lines)
    assert not (tmp_path / "ny.png").exists()


def test_a_bbox_with_latitude_first_is_told(data, tmp_path):
    rc, _, err = geo("render", "--bbox", "51.4,-0.2,51.6,0.1", "-o", tmp_path / "london.png", data / "cities.geojsonl")
    assert rc == 0
    assert "none of the 243 features lies within --bbox 51.4,-0.2,51.6,0.1 (W,S,E,N: longitude first)" in err
    rc, _, err = geo("render", "--bbox", "-0.2,51.4,0.1,51.6", "-o", tmp_path / "london.png", data / "cities.geojsonl")
    assert (rc, err) == (0, "")


def test_an_empty_input_is_told(tmp_path):
    rc, _, err = geo("render", "-o", tmp_path / "empty.png", input=b"")
    assert rc == 0
    assert err == "geo render: the picture shows no shape: the input held no record to draw\n"
    assert (tmp_path / "empty.png").read_bytes()[:4] == b"\x89PNG"


def test_gpx_tracks_measure_and_draw(data, tmp_path):
    """GPX tracks arrive as MultiLineStrings: length sums their parts (against pyproj)."""
    from pyproj import Geod
    geod = Geod(ellps="WGS84")
    rc, out, err = geo("length", data / "tracks.geojsonl")
    assert rc == 0, err
    for line in out.splitlines():
        record = json.loads(line)
        parts = record["geometry"]["coordinates"]
        expected = sum(geod.line_length([p[0] for p in part], [p[1] for p in part]) for part in parts)
        assert math.isclose(record["properties"]["length_m"], expected, rel_tol=1e-9, abs_tol=1e-6)
    out_png = tmp_path / "track.png"
    rc, _, err = geo("render", "-o", out_png, data / "tracks.geojsonl")
    assert rc == 0 and err == "", err
    assert ink_box(out_png) is not None


# --- tiles of real layers: each tile is render's picture of its bounds, the pyramid is seamless ---

def tile_bounds(z, x, y):
    """W, S, E, N of XYZ tile z/x/y, from the tile scheme's formula (not geo's)."""
    n = 2 ** z
    lat = lambda row: math.degrees(math.atan(math.sinh(math.pi * (1 - 2 * row / n))))
    return x / n * 360 - 180, lat(y + 1), (x + 1) / n * 360 - 180, lat(y)


def tile_matches_render(tile, bounds, sources, tmp_path):
    """The largest channel difference (premultiplied) between a tile and geo render of its bounds."""
    from PIL import Image, ImageChops
    w, s, e, n = bounds
    picture = tmp_path / "render-of-bounds.png"
    rc, _, err = geo("render", "--projection", "EPSG:3857", "--bbox", f"{w!r},{s!r},{e!r},{n!r}", "--size", "256x256",
                     "--background", "none", "-o", picture, *sources)
    assert rc == 0, err

    def premultiplied(path):
        r, g, b, a = Image.open(path).convert("RGBA").split()
        return Image.merge("RGBA", [ImageChops.multiply(c, a) for c in (r, g, b)] + [a])
    return max(high for _, high in ImageChops.difference(premultiplied(tile), premultiplied(picture)).getextrema())


def written_tiles(directory):
    return {(int(p.parts[-3]), int(p.parts[-2]), int(p.stem)): p for p in Path(directory).glob("*/*/*.png")}


def test_world_tiles_of_countries_and_cities_are_render_of_their_bounds(data, tmp_path):
    """Natural Earth's countries (with Antarctica, Fiji and Russia across ±180) and cities, as
    ogr2ogr writes them: all 16 tiles of zoom 2 are written, each render's picture of its bounds
    within 2 levels, and zoom 0's one tile reaches from the top to the bottom (Antarctica)."""
    from PIL import Image
    sources = [data / "countries.geojsonl", data / "cities.geojsonl"]
    rc, _, err = geo("tiles", "--zoom", "0-2", "-o", tmp_path / "world", *sources)
    assert rc == 0 and err == "", err
    found = written_tiles(tmp_path / "world")
    assert sorted(k for k in found if k[0] == 2) == [(2, x, y) for x in range(4) for y in range(4)]
    for key in [(0, 0, 0)] + [k for k in sorted(found) if k[0] == 2]:
        difference = tile_matches_render(found[key], tile_bounds(*key), sources, tmp_path)
        assert difference <= 2, f"tile {key} differs from render of its bounds by {difference}"
    alpha = Image.open(found[(0, 0, 0)]).convert("RGBA").getchannel("A")
    assert alpha.getbbox()[1] < 40 and alpha.getbbox()[3] == 256, alpha.getbbox()


def test_a_gpx_track_at_zoom_15_is_continuous_and_where_pyproj_puts_it(data, tmp_path):
    """A GPX track (gpxpy's korita-zbevnica, through ogr2ogr) at zoom 15, where its 2-px line
    crosses dozens of tiles: every vertex's pixel (pyproj's Web Mercator) is inked in its tile,
    each tile equals render of its bounds, and the tiles under each track's vertices are
    connected through written tiles (no tile missing along the way)."""
    from PIL import Image
    from pyproj import Transformer
    mercator = Transformer.from_crs("EPSG:4326", "EPSG:3857", always_xy=True)
    track = data / "tracks.geojsonl"
    rc, _, err = geo("tiles", "--zoom", "15", "-o", tmp_path / "track", track)
    assert rc == 0 and err == "", err
    found = written_tiles(tmp_path / "track")
    assert len(found) >= 10, len(found)
    half, world = 20037508.342789244, 256 * 2 ** 15
    keys = set(found)

    def component(start):
        seen, stack = set(), [start]
        while stack:
            z, x, y = stack.pop()
            if (z, x, y) not in seen:
                seen.add((z, x, y))
                stack += [(z, x + dx, y + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if (z, x + dx, y + dy) in keys]
        return seen

    tracks = 0
    for line in track.read_text().splitlines():
        visited = []
        for part in json.loads(line)["geometry"]["coordinates"]:
            for lon, lat in part:
                mx, my = mercator.transform(lon, lat)
                gx, gy = (mx + half) / (2 * half) * world, (half - my) / (2 * half) * world
                key = (15, int(gx // 256), int(gy // 256))
                assert key in found, f"no tile {key} under the vertex {lon},{lat}"
                visited.append(key)
                alpha = Image.open(found[key]).convert("RGBA").getchannel("A")
                near = [alpha.getpixel((min(255, max(0, int(gx % 256) + dx)), min(255, max(0, int(gy % 256) + dy))))
                        for dx in (-1, 0, 1) for dy in (-1, 0, 1)]
                assert max(near) > 128, (lon, lat, key, near)
        if visited:             # one track (a GPX file may hold several, apart): its tiles are connected
            tracks += 1
            assert set(visited) <= component(visited[0]), "a track's tiles are cut apart"
    assert tracks == 3
    for key in sorted(found)[::4]:
        assert tile_matches_render(found[key], tile_bounds(*key), [track], tmp_path) <= 2, key


def test_borough_tiles_in_mbtiles_read_by_gdal(data, tmp_path):
    """New York's boroughs (reprojected by ogr2ogr) at zooms 9-11 in an MBTiles file: the
    metadata's bounds are the boroughs' own, and gdalinfo reads the file as a raster over them."""
    out = tmp_path / "nyc.mbtiles"
    rc, _, err = geo("tiles", "--zoom", "9-11", "-o", out, data / "nybb.geojsonl")
    assert rc == 0 and err == "", err
    info = json.loads(subprocess.run(["gdalinfo", "-json", str(out)], capture_output=True, text=True, check=True).stdout)
    assert info["driverShortName"] == "MBTiles"
    corners = info["wgs84Extent"]["coordinates"][0]
    lons, lats = [c[0] for c in corners], [c[1] for c in corners]
    positions = [p for line in (data / "nybb.geojsonl").read_text().splitlines()
                 for polygon in json.loads(line)["geometry"]["coordinates"] for ring in polygon for p in ring]
    west, east = min(p[0] for p in positions), max(p[0] for p in positions)
    south, north = min(p[1] for p in positions), max(p[1] for p in positions)
    pixel = 360 / (256 * 2 ** 11)       # GDAL snaps the extent to the pixels of the deepest zoom
    assert all(math.isclose(a, b, abs_tol=pixel) for a, b in
               zip((min(lons), min(lats), max(lons), max(lats)), (west, south, east, north))), (corners, (west, south, east, north))
    import sqlite3
    with sqlite3.connect(out) as db:
        bounds = dict(db.execute("SELECT name, value FROM metadata")).get("bounds")
    assert [float(v) for v in bounds.split(",")] == pytest.approx([west, south, east, north], abs=1e-7), bounds
    assert max(lons) - min(lons) < 1 and max(lats) - min(lats) < 1, "the extent is the boroughs', not the world"
