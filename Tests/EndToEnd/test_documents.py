"""Ordinary GeoJSON documents: the pretty-printed FeatureCollection that ogr2ogr, QGIS,
geojson.io and `geo --collection` write, a single Feature or geometry spread over lines, and
collections with one bad feature (issue 11, items 3 and 4)."""

import json
import shutil
import subprocess

import pytest

from conftest import geo_bin, ndjson, run, RS, BOM, not_under_asan

LINE = {"type": "LineString", "coordinates": [[0, 0], [1, 1]]}
LENGTH = 156899.56829134026


def feature(i, geometry=None, **props):
    return {"type": "Feature", "properties": {"id": i, **props},
            "geometry": geometry or {"type": "LineString", "coordinates": [[i, 0], [i + 1, 1]]}}


def collection(features, **extra):
    return {"type": "FeatureCollection", **extra, "features": features}


def lengths(out):
    return [json.loads(l)["properties"]["length_m"] for l in out.splitlines()]


def ids(out):
    return [json.loads(l)["properties"]["id"] for l in out.splitlines()]


FEATURES = [feature(i) for i in range(5)]
EXPECTED = lengths(run(["length"], ndjson(FEATURES))[1])


@pytest.mark.parametrize("indent", [None, 1, 2, 4, "\t"])
def test_pretty_collection_reads_as_its_features(indent):
    text = json.dumps(collection(FEATURES, name="x", crs={"type": "name"}), indent=indent)
    rc, out, err = run(["length"], text)
    assert rc == 0, err
    assert lengths(out) == EXPECTED and ids(out) == list(range(5))


def test_what_geo_writes_reads_back():
    for framing in (["--collection"], ["--rs"], []):
        rc, written, err = run(["length", *framing], ndjson(FEATURES))
        assert rc == 0, err
        rc, again, err = run(["length", "--field", "again"], written)
        assert rc == 0, (framing, err)
        assert [json.loads(l)["properties"]["again"] for l in again.splitlines()] == EXPECTED


def test_single_pretty_feature_and_bare_geometry_and_a_jq_stream():
    rc, out, err = run(["length"], json.dumps(feature(0), indent=2))
    assert rc == 0 and lengths(out) == EXPECTED[:1], err
    rc, out, err = run(["length"], json.dumps(LINE, indent=2) + "\n")
    assert rc == 0 and lengths(out) == [LENGTH], err
    # `jq '.features[]' file.geojson` prints pretty texts one after another.
    stream = "\n".join(json.dumps(f, indent=2) for f in FEATURES) + "\n"
    rc, out, err = run(["length"], stream)
    assert rc == 0 and ids(out) == list(range(5)), err


def test_crlf_bom_and_members_after_features():
    text = json.dumps({"features": FEATURES, "type": "FeatureCollection", "bbox": [0, 0, 6, 1]}, indent=2)
    data = BOM + text.replace("\n", "\r\n").encode()
    rc, out, err = run(["length"], data)
    assert rc == 0 and ids(out) == list(range(5)), err


def test_keys_named_features_or_type_inside_features_do_not_confuse():
    tricky = [feature(0, features=[1, 2], type="x"), feature(1, note='"features": [{"a": 1}]')]
    rc, out, err = run(["length"], json.dumps(collection(tricky), indent=2))
    assert rc == 0 and ids(out) == [0, 1], err
    assert json.loads(out.splitlines()[0])["properties"]["features"] == [1, 2]


def _pretty_with_bad_feature():
    features = [feature(0), feature(1, {"type": "Linestring", "coordinates": [[0, 0], [1, 1]]}), feature(2)]
    text = json.dumps(collection(features), indent=2)
    bad_line = text.splitlines().index('    {', text.splitlines().index('  "features": [') + 20) + 1
    return text, features, bad_line


def test_a_bad_feature_in_a_document_is_named_with_the_line_where_it_starts(tmp_path):
    text, features, _ = _pretty_with_bad_feature()
    lines = text.splitlines()
    starts = [i + 1 for i, l in enumerate(lines) if l == "    {"]
    assert len(starts) == 3
    path = tmp_path / "roads.geojson"
    path.write_text(text)
    rc, out, err = run(["length", "--rejects", str(tmp_path / "bad.ndjson"), str(path)])
    assert rc == 65
    assert ids(out) == [0, 2]
    messages = [l for l in err.splitlines() if l.startswith("geo length:")]
    assert messages[0].startswith(f"geo length: {path}:{starts[1]}: features[1]: "), err
    assert "Linestring" in messages[0]
    reject = json.loads((tmp_path / "bad.ndjson").read_text().splitlines()[0])
    assert reject["line"] == starts[1]
    assert json.loads(reject["input"]) == features[1]


def test_a_bad_feature_in_a_one_line_collection_rejects_only_itself(tmp_path):
    features = [feature(0), feature(1, {"type": "Point", "coordinates": [0, 100]}), feature(2)]
    line = json.dumps(collection(features), separators=(",", ":"))
    data = ndjson([feature(9)]) + (line + "\n").encode()
    rc, out, err = run(["length", "--rejects", str(tmp_path / "bad.ndjson")], data)
    assert rc == 65
    assert ids(out) == [9, 0, 2]
    assert "<stdin>:2: features[1]: latitude" in err, err
    reject = json.loads((tmp_path / "bad.ndjson").read_text())
    assert reject["line"] == 2 and json.loads(reject["input"]) == features[1]


def test_a_problem_with_the_collection_itself_rejects_the_record():
    line = '{"type":"FeatureCollection","type":"FeatureCollection","features":[' + json.dumps(feature(0)) + "]}"
    rc, out, err = run(["length"], line + "\n")
    assert rc == 65 and out == b"" and "duplicate" in err, err


def test_strict_stops_at_the_bad_feature():
    text, _, _ = _pretty_with_bad_feature()
    rc, out, err = run(["length", "--strict"], text)
    assert rc == 65 and ids(out) == [0], err


def test_a_truncated_document_keeps_what_came_before_and_says_it_was_cut():
    text = json.dumps(collection(FEATURES), indent=2)
    cut = text[: text.index('"id": 3')]
    rc, out, err = run(["length"], cut)
    assert rc == 65
    assert ids(out) == [0, 1, 2]
    assert "features[3]: the input ends inside this feature" in err, err


def test_each_input_file_is_detected_on_its_own(tmp_path):
    (tmp_path / "a.ndjson").write_bytes(ndjson(FEATURES[:2]))
    (tmp_path / "b.geojson").write_text(json.dumps(collection(FEATURES[2:]), indent=2))
    (tmp_path / "c.ndjson").write_bytes(ndjson([feature(7)]))
    rc, out, err = run(["length", "a.ndjson", "b.geojson", "c.ndjson"], cwd=tmp_path)
    assert rc == 0 and ids(out) == [0, 1, 2, 3, 4, 7], err


def test_decode_field_reads_a_pretty_collection_and_polylines_are_not_documents():
    features = [feature(0, polyline="_p~iF~ps|U_ulLnnqC_mqNvxq`@")]
    rc, out, err = run(["decode", "--field", "polyline"], json.dumps(collection(features), indent=2))
    assert rc == 0, err
    assert json.loads(out)["geometry"]["coordinates"][0] == [-120.2, 38.5]
    rc, out, err = run(["length", "--from", "polyline"], "_p~iF~ps|U_ulLnnqC_mqNvxq`@\n")
    assert rc == 0, err


@pytest.mark.slow
@not_under_asan
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_large_pretty_collection_streams_in_flat_memory(tmp_path, jobs):
    # About 120 MB of pretty-printed GeoJSON; geo must not hold it whole.
    path = tmp_path / "big.geojson"
    coords = [[i * 1e-3, (i % 7) * 1e-3] for i in range(200)]
    one = json.dumps(feature(0, {"type": "LineString", "coordinates": coords}), indent=2)
    count = 120_000_000 // len(one) + 1
    with open(path, "w") as f:
        f.write('{\n  "type": "FeatureCollection",\n  "features": [\n')
        for i in range(count):
            f.write(("," if i else "") + one + "\n")
        f.write("  ]\n}\n")
    proc = subprocess.run(["/usr/bin/time", "-f", "%M", geo_bin(), "length", "-j", jobs, str(path)],
                          capture_output=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count(b"\n") == count
    peak_kb = int(proc.stderr.decode().split()[-1])
    assert peak_kb < 64 * 1024, f"{peak_kb} kB"


@pytest.mark.skipif(shutil.which("ogr2ogr") is None, reason="GDAL's ogr2ogr is not installed")
def test_ogr2ogr_geojson_reads_like_its_geojsonseq(tmp_path):
    (tmp_path / "in.geojsonl").write_bytes(ndjson(FEATURES))
    for driver, name in (("GeoJSON", "out.geojson"), ("GeoJSONSeq", "out.geojsonl")):
        subprocess.run(["ogr2ogr", "-f", driver, str(tmp_path / name), str(tmp_path / "in.geojsonl")],
                       check=True, capture_output=True)
    rc, doc, err = run(["length", "out.geojson"], cwd=tmp_path)
    assert rc == 0, err
    rc, seq, err = run(["length", "out.geojsonl"], cwd=tmp_path)
    assert rc == 0, err
    assert lengths(doc) == lengths(seq) == EXPECTED
    assert b"\n" in (tmp_path / "out.geojson").read_bytes()[:200]  # really pretty-printed
