"""End-to-end tests of geo reading what people and other tools actually write: colours as CSS,
geojson.io and ogr2ogr write them, GPX tracks (MultiLineStrings) through ogr2ogr, projected
layers, Latin-1 files, kilometre radii, and the messages that point the way when geo still
cannot read them."""

import json
import math
import re
import shutil
import subprocess

import pytest

from conftest import REPO, geo_bin, ndjson, run, run_full
from test_render import BOX, LINE, along, box_fit, close, feature, merc, render


def ogr2ogr(*args):
    exe = shutil.which("ogr2ogr")
    if exe is None:
        pytest.fail("ogr2ogr is missing: install gdal-bin (make setup)", pytrace=False)
    subprocess.run([exe, *map(str, args)], check=True, capture_output=True)


# ---- 1. colours as people write them --------------------------------------------------------

@pytest.mark.parametrize("properties, expected", [
    ({"stroke": "#e00"}, (238, 0, 0)),                     # simplestyle's 3 digits, geojson.io's
    ({"stroke": "#E00"}, (238, 0, 0)),
    ({"stroke": "rgb(0, 0, 255)"}, (0, 0, 255)),           # CSS, 0-255
    ({"stroke": "rgba(255,0,0,0.5)"}, (255, 128, 128)),    # CSS: a channel above 1
    ({"stroke": "rgba(1,0,0,0.5)"}, (255, 128, 128)),      # UIColor's 0-1 floats still
    ({"stroke": "rgba(0,0,1,1)"}, (0, 0, 255)),
    ({"stroke": "grey"}, (128, 128, 128)),                 # CSS's spelling
    ({"stroke": "#00f", "stroke-opacity": "0.5"}, (128, 128, 255)),  # a numeric string (ogr2ogr from CSV)
])
def test_colours_as_css_and_simplestyle_write_them_are_drawn(tmp_path, properties, expected):
    image, err = render(tmp_path, [feature("LineString", LINE, **{"stroke-width": 12, **properties})],
                        ["--bbox", ",".join(map(str, BOX))])
    assert err == ""
    x, y = box_fit(*BOX).pixel(*along(LINE, 0.5))
    assert close(image.getpixel((int(x), int(y))), expected, 3), image.getpixel((int(x), int(y)))


def test_widths_and_z_indexes_as_numeric_strings(tmp_path):
    """ogr2ogr writes every CSV column as a string: "stroke-width": "9" is a width of 9 px."""
    records = [feature("LineString", LINE, stroke="red", **{"stroke-width": "20", "z-index": "2"}),
               feature("LineString", LINE, stroke="blue", **{"stroke-width": "2"})]
    image, err = render(tmp_path, records, ["--bbox", ",".join(map(str, BOX))])
    assert err == ""
    x, y = box_fit(*BOX).pixel(*along(LINE, 0.5))
    assert close(image.getpixel((int(x), int(y))), (255, 0, 0))        # z-index "2" above the blue
    assert close(image.getpixel((int(x) + 6, int(y))), (255, 0, 0))    # 20 px wide, not the default 2


def test_a_colour_that_cannot_be_read_names_the_forms_and_the_likely_name(tmp_path):
    records = [feature("LineString", LINE, stroke="rde"),
               feature("LineString", LINE, stroke="red", fill="Dark Gray"),
               feature("LineString", LINE, stroke="red", **{"stroke-width": "wide"}),
               feature("LineString", LINE, stroke="red", **{"stroke-width": 12})]
    image, err = render(tmp_path, records, ["--bbox", ",".join(map(str, BOX))], expect=65)
    lines = err.splitlines()
    assert lines[0] == ("geo render: <stdin>:1: properties.stroke: 'rde' is not a colour or style: use a name, "
                        "#RGB, #RRGGBB, #RRGGBBAA, rgb(R,G,B) or rgba(R,G,B,A), gradient(FROM,TO), sprite(NAME) "
                        "or texture(NAME); did you mean 'red'?"), err
    assert lines[1] == ("geo render: <stdin>:2: properties.fill: 'Dark Gray' is not a colour: use a name, #RGB, "
                        "#RRGGBB, #RRGGBBAA, rgb(R,G,B) or rgba(R,G,B,A); did you mean 'darkgray'?"), err
    assert lines[2] == 'geo render: <stdin>:3: properties.stroke-width: "wide" is not a width in pixels, 0 or more', err
    x, y = box_fit(*BOX).pixel(*along(LINE, 0.5))
    assert close(image.getpixel((int(x), int(y))), (255, 0, 0))  # the good record is drawn


def test_spans_reads_the_same_colours_and_suggests_names():
    path = {"type": "LineString", "coordinates": [[0, 0], [0.01, 0]]}
    rc, out, err = run(["spans", "--style", "#e00", "--style", "rgba(0,0,255,0.5)", "--length", "500", "--split"],
                       ndjson([path]))
    assert rc == 0, err
    pieces = [json.loads(line)["properties"] for line in out.decode().splitlines()]
    assert pieces[0]["stroke"] == "#ee0000"
    assert pieces[1]["stroke"] == "#0000ff" and abs(pieces[1]["stroke-opacity"] - 0.5) < 0.01
    rc, _, err = run(["spans", "--style", "purpel", "--length", "500"], ndjson([path]))
    assert rc == 64
    assert "'purpel' is not a style: use a colour (a name, #RGB, #RRGGBB, #RRGGBBAA, rgb(R,G,B) or rgba(R,G,B,A))" in err
    assert err.splitlines()[0].endswith("; did you mean 'purple'?"), err


# ---- 2. GPX tracks: MultiLineStrings, one path per part --------------------------------------

GPX = """<?xml version="1.0" encoding="UTF-8"?>
<gpx version="1.1" creator="geo tests" xmlns="http://www.topografix.com/GPX/1/1">
 <trk><name>ride</name>
  <trkseg>
   <trkpt lat="51.50" lon="-0.10"><ele>10</ele></trkpt>
   <trkpt lat="51.50" lon="-0.09"><ele>11</ele></trkpt>
   <trkpt lat="51.51" lon="-0.09"><ele>12</ele></trkpt>
  </trkseg>
  <trkseg>
   <trkpt lat="51.52" lon="-0.08"><ele>13</ele></trkpt>
   <trkpt lat="51.53" lon="-0.08"><ele>14</ele></trkpt>
  </trkseg>
 </trk>
</gpx>
"""


@pytest.fixture
def gpx_track(tmp_path):
    """A GPX track of two segments, as ogr2ogr converts it: one MultiLineString record."""
    (tmp_path / "track.gpx").write_text(GPX)
    ogr2ogr("-f", "GeoJSONSeq", tmp_path / "track.geojsonl", tmp_path / "track.gpx", "tracks")
    record = json.loads((tmp_path / "track.geojsonl").read_text().splitlines()[0])
    assert record["geometry"]["type"] == "MultiLineString" and len(record["geometry"]["coordinates"]) == 2
    return tmp_path / "track.geojsonl", record["geometry"]["coordinates"]


def test_spans_restart_at_each_part_of_a_gpx_track(gpx_track):
    path, parts = gpx_track
    pattern = ["--style", "red", "--style", "blue", "--length", "300", "--length", "120", "--offset", "50"]
    rc, out, err = run(["spans", *pattern, path])
    assert rc == 0, err
    spans = json.loads(out)["properties"]["spans"]
    # each part as its own LineString: the same spans, the pattern from its start
    rc, alone, err = run(["spans", *pattern], ndjson([{"type": "LineString", "coordinates": p} for p in parts]))
    assert rc == 0, err
    assert spans == [json.loads(line)["properties"]["spans"] for line in alone.decode().splitlines()]
    assert len(spans[0]) > 2 and len(spans[1]) > 2

    rc, out, err = run(["spans", "--span", "red:1", "--span", "blue", "--split", path])
    assert rc == 0, err
    pieces = [json.loads(line) for line in out.decode().splitlines()]
    assert [(p["properties"]["part"], p["properties"]["span"], p["properties"]["stroke"]) for p in pieces] == [
        (0, 0, "#ff0000"), (0, 1, "#0000ff"), (1, 0, "#ff0000")]
    assert [p["geometry"]["coordinates"] for p in pieces] == [parts[0][:2], parts[0][1:], parts[1]]
    assert all(p["properties"]["name"] == "ride" for p in pieces)


def test_interpolate_walks_each_part_of_a_gpx_track(gpx_track):
    from geographiclib.geodesic import Geodesic
    path, parts = gpx_track

    def along(part, distance):  # GeographicLib on the part's edges
        for (lon1, lat1), (lon2, lat2) in zip(part, part[1:]):
            line = Geodesic.WGS84.InverseLine(lat1, lon1, lat2, lon2)
            if distance <= line.s13:
                point = line.Position(distance)
                return point["lon2"], point["lat2"]
            distance -= line.s13
        return tuple(part[-1])

    lengths = [sum(Geodesic.WGS84.Inverse(a[1], a[0], b[1], b[0])["s12"] for a, b in zip(p, p[1:])) for p in parts]
    rc, out, err = run(["interpolate", "--fraction", "0.5", path])
    assert rc == 0, err
    record = json.loads(out)
    assert record["geometry"]["type"] == "MultiPoint"
    assert record["properties"]["fraction"] == [0.5, 0.5]
    for k, part in enumerate(parts):
        assert abs(record["properties"]["distance_m"][k] - lengths[k] / 2) < 1e-6
        lon, lat = along(part, lengths[k] / 2)
        assert abs(record["geometry"]["coordinates"][k][0] - lon) < 1e-9
        assert abs(record["geometry"]["coordinates"][k][1] - lat) < 1e-9

    rc, out, err = run(["interpolate", "--every", "400", path])
    assert rc == 0, err
    geometry = json.loads(out)["geometry"]
    assert geometry["type"] == "GeometryCollection"
    for k, (member, part) in enumerate(zip(geometry["geometries"], parts)):
        distances = [400 * i for i in range(math.ceil(lengths[k] / 400))] + [lengths[k]]
        assert member["type"] == "MultiPoint" and len(member["coordinates"]) == len(distances)
        assert member["coordinates"][0] == part[0] and member["coordinates"][-1] == part[-1]
        for got, d in zip(member["coordinates"], distances):
            lon, lat = along(part, d)
            assert abs(got[0] - lon) < 1e-9 and abs(got[1] - lat) < 1e-9

    # a distance past the shorter part's end names the part
    rc, _, err = run(["interpolate", "--distance", str(round(lengths[1] + 10)), path])
    assert rc == 65
    assert "part 1 of the MultiLineString: distance" in err and "is beyond the path" in err, err


# ---- 4. messages that point the way ----------------------------------------------------------

def test_a_one_line_collection_counts_its_features():
    collection = {"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {}, "geometry": {"type": "Point", "coordinates": [1, 2]}},
        {"type": "Feature", "properties": {}, "geometry": {"type": "Point", "coordinates": [1, 200]}},
        {"type": "Feature", "properties": {}, "geometry": {"type": "Point", "coordinates": [1, 3]}}]}
    rc, out, err = run_full(["length"], ndjson([collection]))
    assert rc == 65 and len(out.splitlines()) == 2
    assert err.splitlines()[-1] == "geo length: 1 of 3 records rejected", err


@pytest.mark.parametrize("command", [["length"], ["area"], ["render", "-o", "out.png"]])
def test_a_projected_layer_from_ogr2ogr_is_named_with_the_way_to_reproject_it(tmp_path, command):
    wgs84 = {"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {"name": "a"},
         "geometry": {"type": "Polygon", "coordinates": [[[-0.1, 51.5], [-0.09, 51.5], [-0.09, 51.51], [-0.1, 51.5]]]}}]}
    (tmp_path / "wgs84.geojson").write_text(json.dumps(wgs84))
    ogr2ogr("-t_srs", "EPSG:27700", "-f", "GeoJSON", tmp_path / "bng.geojson", tmp_path / "wgs84.geojson")
    assert '"urn:ogc:def:crs:EPSG::27700"' in (tmp_path / "bng.geojson").read_text()
    rc, _, err = run_full([*command, "bng.geojson"], cwd=tmp_path)
    assert rc == 65
    assert (f"geo {command[0]}: hint: the FeatureCollection's crs is urn:ogc:def:crs:EPSG::27700, but geo reads "
            "longitude and latitude (WGS84): reproject it first (ogr2ogr -t_srs EPSG:4326") in err, err
    # the collection in WGS84 (ogr2ogr names it CRS84, or nothing) gets no such hint
    ogr2ogr("-t_srs", "EPSG:4326", "-f", "GeoJSON", tmp_path / "back.geojson", tmp_path / "bng.geojson")
    rc, _, err = run_full([*command[:1], *(["-o", "back.png"] if command[0] == "render" else []), "back.geojson"], cwd=tmp_path)
    assert rc == 0 and "crs" not in err, err


def test_a_latin1_file_is_told_to_iconv_not_called_binary(tmp_path):
    path = tmp_path / "cafes.ndjson"
    path.write_bytes('{"type":"Feature","properties":{"name":"Café Ñandú"},"geometry":{"type":"Point","coordinates":[1,2]}}\n'
                     .encode("latin-1"))
    rc, _, err = run_full(["length", path])
    assert rc == 65
    assert "geo length: hint: not UTF-8 (Latin-1?): convert it first (iconv -f latin1 -t utf-8 FILE | geo ...)" in err, err
    assert "binary" not in err


def test_a_sphere_in_kilometres_is_warned_about():
    line = ndjson([{"type": "LineString", "coordinates": [[0, 0], [1, 0]]}])
    rc, out, err = run_full(["length", "--sphere", "6371"], line)
    assert rc == 0 and json.loads(out)["properties"]["length_m"] > 111  # still what was asked
    assert err == "geo: warning: --sphere 6371 is a radius in metres, not the Earth's; did you mean 6371000?\n"
    rc, _, err = run_full(["length", "--sphere", "6371009"], line)
    assert rc == 0 and err == ""


def test_names_in_the_wrong_case_or_form_get_a_did_you_mean(tmp_path):
    rc, _, err = run_full(["length", "--ellps", "wgs84"], b"")
    assert rc == 64 and "did you mean 'WGS84'?" in err.splitlines()[0], err
    rc, _, err = run_full(["render", "--projection", "ortho", "-o", tmp_path / "x.png"], b"")
    assert rc == 64
    assert err.splitlines()[0] == ("geo render: --projection: 'ortho' is not a CRS PROJ knows; "
                                   "did you mean '+proj=ortho +lat_0=… +lon_0=…'?"), err
    rc, _, err = run_full(["render", "--projection", "3857", "-o", tmp_path / "x.png"], b"")
    assert rc == 64 and "did you mean 'EPSG:3857'?" in err, err
    rc, _, err = run_full(["render", "--projection", "nonsense", "-o", tmp_path / "x.png"], b"")
    assert rc == 64 and "did you mean" not in err, err


def test_help_help():
    rc, out, err = run_full(["help", "help"])
    assert (rc, err) == (0, "")
    assert out.decode().startswith("geo help [COMMAND]\n")


# ---- 5. stamps: which way a sprite points, a texture example that shows -----------------------

def test_a_sprite_points_its_top_along_the_line_as_the_help_says(tmp_path):
    from PIL import Image
    arrow = REPO / "examples" / "arrow.png"
    rc, out, _ = run(["spans", "--help"])
    assert "Draw a sprite's image pointing up" in " ".join(out.decode().split())
    def blue(image):  # which of a 16x16 picture's pixels are the arrow's blue
        rgb = image.convert("RGB")
        return [rgb.getpixel((x, y))[2] > 150 and rgb.getpixel((x, y))[0] < 100 for y in range(16) for x in range(16)]

    stamp = Image.open(arrow).convert("RGBA")
    on_white = lambda turned: Image.alpha_composite(Image.new("RGBA", (16, 16), "white"), turned)
    for line, turn in (([[0, 0], [1, 0]], -90), ([[1, 0], [0, 0]], 90)):  # east: top to the right; west: left
        image, _ = render(tmp_path, [feature("LineString", line, stroke="sprite(arrow)")],
                          ["--bbox", "-0.1,-0.2,1.1,0.2", "--size", "600x200", "--stamp", f"arrow={arrow}"])
        x0, y0 = box_fit(-0.1, -0.2, 1.1, 0.2, 600, 200).pixel(*merc(*line[0]))
        step = 1 if line[0][0] == 0 else -1
        cx, cy = round(x0 + step * 8 + step * 16 * 3), round(y0)  # the fourth stamp's centre
        window = image.crop((cx - 8, cy - 8, cx + 8, cy + 8))
        expected, wrong = blue(on_white(stamp.rotate(turn))), blue(on_white(stamp.rotate(-turn)))
        got = blue(window)
        agree = sum(a == b for a, b in zip(got, expected)) / 256
        assert agree > 0.9 and agree > sum(a == b for a, b in zip(got, wrong)) / 256 + 0.1, (line, agree)


def test_the_texture_example_of_spans_draws_a_visible_stroke(tmp_path):
    from PIL import Image
    rc, out, _ = run(["spans", "--help"])
    example = next(l.strip().removeprefix("$ ") for l in out.decode().splitlines() if "texture(rail)" in l and "geo render" in l)
    shutil.copytree(REPO / "examples", tmp_path / "examples")  # the example names shipped files
    def inked(command):
        subprocess.run(["bash", "-o", "pipefail", "-c", command.replace("geo ", f"{geo_bin()} ")], cwd=tmp_path, check=True)
        image = Image.open(tmp_path / "line.png").convert("RGB")
        return sum(1 for x in range(image.width) for y in range(image.height) if image.getpixel((x, y))[0] < 128)
    # The rails stretched to the 12 px width of --width 12: twice the dark pixels of the same
    # example at render's default 2 px, where a texture shows as little more than a line.
    wide, thin = inked(example), inked(example.replace(" --width 12", ""))
    assert wide > 1.8 * thin > 0, (wide, thin)


# ---- 7. small findings --------------------------------------------------------------------------

def test_the_encode_holes_example_runs_in_zsh_as_printed(tmp_path):
    """Unquoted, .properties.holes[] is a glob: zsh stops with 'no matches found'."""
    zsh = shutil.which("zsh")
    if zsh is None:
        pytest.fail("zsh is missing: install zsh (make setup)", pytrace=False)
    rc, out, _ = run(["encode", "--help"])
    example = next(l.strip().removeprefix("$ ") for l in out.decode().splitlines() if "holes[]" in l)
    shutil.copytree(REPO / "examples", tmp_path / "examples")  # the example names shipped files
    result = subprocess.run([zsh, "-f", "-c", example.replace("geo ", f"{geo_bin()} ")], cwd=tmp_path,
                            capture_output=True, text=True)
    assert (result.returncode, result.stderr) == (0, ""), result.stderr
    features = json.loads((REPO / "examples" / "parks.geojson").read_text())["features"]
    holes = [{"type": "LineString", "coordinates": ring} for f in features if f["geometry"]["type"] == "Polygon"
             for ring in f["geometry"]["coordinates"][1:]]
    assert holes
    rc, expected, _ = run(["encode"], ndjson(holes))
    assert result.stdout == expected.decode()


@pytest.mark.parametrize("page", ["geo.1", "geo-length.1", "geo-encode.1"])
def test_exit_status_69_is_documented(page):
    text = subprocess.run(["mandoc", "-T", "ascii", "-O", "width=400", str(REPO / "man/man1" / page)],
                          capture_output=True, text=True, check=True).stdout
    section = " ".join(re.sub(".\b", "", text).split("EXIT STATUS")[1].split())
    assert "69: a library geo loads when it first needs it is missing: PROJ (libproj25)" in section, section
