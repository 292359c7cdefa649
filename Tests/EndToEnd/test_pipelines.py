"""Pipelines, not only commands: what each command writes, for each geometry type, is read by
each command that consumes it (SPEC "Multi-part paths": what one command writes, the next reads).

A GPX track arrives from ogr2ogr as a MultiLineString, sometimes with an empty segment; a
Natural Earth country as a Polygon or MultiPolygon; a circle near ±180 is cut into a
MultiPolygon. Every producer's output for every input it accepts goes into render, tiles,
length, area and encode, which must use every record: no bad record, exit 0, ink drawn.
"""

import json
import subprocess

import pytest

from conftest import geo_bin
from test_real_data import data, ogr2ogr  # noqa: F401  (the session's real layers)

# Shapes of every geometry type, with the joints that broke before: a track with an empty part
# and a one-position part, a line across ±180, a polygon with a hole.
SYNTHETIC = [
    {"type": "Point", "coordinates": [2.35, 48.85]},
    {"type": "LineString", "coordinates": [[2.35, 48.85], [2.36, 48.86], [2.38, 48.855]]},
    {"type": "LineString", "coordinates": [[179.5, -16.5], [-179.5, -16.0]]},
    {"type": "MultiLineString", "coordinates": [[[2.35, 48.85], [2.36, 48.86]], [], [[2.37, 48.87]], [[2.38, 48.85], [2.39, 48.84]]]},
    {"type": "Polygon", "coordinates": [[[2.3, 48.8], [2.4, 48.8], [2.4, 48.9], [2.3, 48.9], [2.3, 48.8]],
                                        [[2.33, 48.83], [2.33, 48.87], [2.37, 48.87], [2.33, 48.83]]]},
    {"type": "MultiPolygon", "coordinates": [[[[10, 10], [11, 10], [11, 11], [10, 10]]], [[[12, 12], [13, 12], [13, 13], [12, 12]]]]},
    {"type": "MultiPoint", "coordinates": [[2.35, 48.85], [2.36, 48.86]]},
    {"type": "GeometryCollection", "geometries": [{"type": "Point", "coordinates": [2.35, 48.85]},
                                                  {"type": "LineString", "coordinates": [[2.35, 48.85], [2.36, 48.86]]}]},
]

# Each producer, and the geometry types it takes (the others are bad records for it, by design).
PRODUCERS = {
    "spans": (["spans", "--style", "red", "--style", "gradient(green,blue)", "--length", "500"], {"Point", "LineString", "MultiLineString"}),
    "spans-explicit": (["spans", "--span", "red:0.5", "--span", "sprite(arrow)"], {"Point", "LineString", "MultiLineString"}),
    "spans-split": (["spans", "--split", "--style", "red", "--style", "gradient(green,blue)", "--length", "500", "--width", "3"],
                    {"Point", "LineString", "MultiLineString"}),
    "interpolate-fraction": (["interpolate", "--fraction", "0.5"], {"Point", "LineString", "MultiLineString"}),
    "interpolate-every": (["interpolate", "--every", "300"], {"Point", "LineString", "MultiLineString"}),
    "interpolate-count": (["interpolate", "--count", "4"], {"Point", "LineString", "MultiLineString"}),
    "interpolate-densify": (["interpolate", "--densify", "500"], None),
    "circle-to-polygon": (["circle-to-polygon", "--radius", "20000"], {"Point"}),
    "decode": (None, None),  # encode --to geojson, then decode --field polyline: the round trip
    "simplify": (["simplify", "--tolerance", "50"], None),
    "simplify-max-chars": (["simplify", "--max-chars", "200"], None),
    "offset": (["offset", "--distance", "1000", "--heading", "45"], None),
    "heading": (["heading"], None),
    "bbox": (["bbox"], None),
    "locate": (["locate", "--point", "48.85,2.35"], None),
}

CONSUMERS = {
    "render": lambda tmp: ["render", "--stamp", f"arrow={tmp / 'arrow.png'}", "-o", tmp / "out.png"],
    "tiles": lambda tmp: ["tiles", "--zoom", "0-3", "--stamp", f"arrow={tmp / 'arrow.png'}", "-o", tmp / "tiles"],
    "length": lambda tmp: ["length"],
    "area": lambda tmp: ["area"],
    "encode": lambda tmp: ["encode", "--to", "geojson"],
    "simplify": lambda tmp: ["simplify", "--tolerance", "10"],
    "bbox": lambda tmp: ["bbox"],
}


def geo(args, input=None):
    proc = subprocess.run([geo_bin(), *map(str, args)], input=input, capture_output=True, timeout=300)
    return proc.returncode, proc.stdout, proc.stderr.decode()


def feature(geometry):
    return json.dumps({"type": "Feature", "properties": {}, "geometry": geometry}) + "\n"


@pytest.fixture(scope="module")
def inputs(data, tmp_path_factory):  # noqa: F811
    """The records the producers are fed: the synthetic shapes, then real layers as ogr2ogr gives
    them (a GPX track with an empty segment, Fiji across ±180, a New York borough, roads and
    areas of an OpenStreetMap extract)."""
    folder = tmp_path_factory.mktemp("layers")
    gpx = next(data.glob("gpxpy-*/test_files/track-with-empty-segment.gpx"))
    ogr2ogr("-f", "GeoJSONSeq", folder / "track.geojsonl", gpx, "tracks")
    track = (folder / "track.geojsonl").read_text().splitlines()
    assert any([] in json.loads(line)["geometry"]["coordinates"] for line in track), "the track should have an empty segment"
    fiji = [line for line in (data / "countries.geojsonl").read_text().splitlines() if '"Fiji"' in line]
    borough = (data / "nybb.geojsonl").read_text().splitlines()[:1]
    # OpenStreetMap roads and areas (a few of each kind ogr2ogr gives) from a real extract.
    roads = (data / "helsinki-roads.geojsonl").read_text().splitlines()[:40]
    areas = (data / "helsinki-areas.geojsonl").read_text().splitlines()[:40]
    records = [feature(g) for g in SYNTHETIC] + [line + "\n" for line in track + fiji + borough + roads + areas]
    return [(json.loads(r)["geometry"]["type"], r) for r in records]


@pytest.fixture(scope="module")
def stamp(tmp_path_factory):
    from PIL import Image
    folder = tmp_path_factory.mktemp("stamp")
    Image.new("RGBA", (6, 10), (200, 0, 0, 255)).save(folder / "arrow.png")
    return folder / "arrow.png"


def produce(name, inputs):
    """The producer's output for every input record it takes; each must be taken whole."""
    args, takes = PRODUCERS[name]
    out = b""
    for kind, record in inputs:
        if takes is not None and kind not in takes:
            continue
        if name == "decode":
            rc, encoded, err = geo(["encode", "--to", "geojson"], record.encode())
            assert rc == 0, f"encode of a {kind}: {err}"
            rc, produced, err = geo(["decode", "--field", "polyline"], encoded)
        else:
            rc, produced, err = geo(args, record.encode())
        assert rc == 0 and err == "", f"{name} of a {kind}: {err}"
        out += produced
    return out


@pytest.mark.parametrize("producer", PRODUCERS)
@pytest.mark.parametrize("consumer", CONSUMERS)
def test_what_a_command_writes_the_next_reads(producer, consumer, inputs, stamp, tmp_path):
    produced = produce(producer, inputs)
    (tmp_path / "arrow.png").write_bytes(stamp.read_bytes())
    rc, out, err = geo(CONSUMERS[consumer](tmp_path), produced)
    assert rc == 0 and "bad" not in err and "rejected" not in err, f"{producer} | {consumer}: {err}"
    count = produced.count(b"\n")
    if consumer in ("length", "area", "encode", "simplify", "bbox"):
        written = out.count(b"\n")
        assert written == count, f"{producer} | {consumer}: {count} records in, {written} out"
    elif consumer == "render":
        from PIL import Image
        with Image.open(tmp_path / "out.png") as picture:
            assert picture.convert("L").getextrema()[0] < 250, "the picture has no ink"
    else:
        assert any((tmp_path / "tiles").rglob("*.png")), "no tile was written"


def test_a_gpx_track_with_an_empty_segment_follows_one_rule(inputs):
    """SPEC: an empty part is skipped, as a GMSPath with no points draws nothing: 0 to lengths,
    no spans, no points, its place kept in per-part output; the record is good."""
    track = next(record for kind, record in inputs if kind == "MultiLineString" and '"name"' in record)
    parts = json.loads(track)["geometry"]["coordinates"]
    empty = [index for index, part in enumerate(parts) if len(part) < 2]
    assert empty
    rc, out, err = geo(["length", "--cumulative"], track.encode())
    assert rc == 0 and err == ""
    rc, out, err = geo(["spans", "--style", "red", "--length", "10"], track.encode())
    assert rc == 0 and err == ""
    spans = json.loads(out)["properties"]["spans"]
    assert len(spans) == len(parts) and all(spans[index] == [] for index in empty)
    for mode in (["--fraction", "0.5"], ["--every", "10"]):
        rc, out, err = geo(["interpolate", *mode], track.encode())
        assert rc == 0 and err == "", err
        geometry = json.loads(out)["geometry"]
        assert geometry["type"] == "GeometryCollection" and len(geometry["geometries"]) == len(parts)
        for index in empty:
            assert geometry["geometries"][index] == {"type": "MultiPoint", "coordinates": []}
    rc, out, err = geo(["interpolate", "--fraction", "0.5"], track.encode())
    assert [value is None for value in json.loads(out)["properties"]["fraction"]] == [len(part) < 2 for part in parts]
