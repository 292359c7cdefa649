"""Records: input framing, pass-through, output framing, bad records (docs/records.md)."""

import base64
import json
import re

import pytest

from conftest import BOM, GOOGLE_P5, RS, feature_line, ndjson, run

P12 = b'{"type":"Point","coordinates":[1,2]}'      # encodes as _seK_ibE
P34 = b'{"type":"Point","coordinates":[3,4]}'      # encodes as _glW_}hQ
P56 = b'{"type":"Point","coordinates":[5,6]}'      # encodes as _{rc@_qo]
E12, E34, E56 = b"_seK_ibE", b"_glW_}hQ", b"_{rc@_qo]"

GOOGLE_FEATURE = feature_line('{"type":"LineString","coordinates":[[-120.2,38.5],[-120.95,40.7],[-126.453,43.252]]}')
ORIGIN_FEATURE = feature_line('{"type":"Point","coordinates":[0,0]}')


def _messages(stderr, cmd="encode", source="<stdin>"):
    """[(line, message)] from geo's error lines; fails on any other stderr line."""
    out = []
    for line in stderr.splitlines():
        m = re.fullmatch(rf"geo {cmd}: {re.escape(source)}:(\d+): (.+)", line)
        assert m, f"unexpected stderr line: {line!r}"
        out.append((int(m.group(1)), m.group(2)))
    return out


# --- input framing ----------------------------------------------------------------------------

def test_crlf_line_ends():
    assert run(["encode"], P12 + b"\r\n" + P34 + b"\r\n") == (0, E12 + b"\n" + E34 + b"\n", "")
    assert run(["decode"], GOOGLE_P5.encode() + b"\r\n??\r\n") == (0, GOOGLE_FEATURE + ORIGIN_FEATURE, "")


def test_last_line_without_newline():
    assert run(["encode"], P12 + b"\n" + P34) == (0, E12 + b"\n" + E34 + b"\n", "")
    assert run(["decode"], b"??") == (0, ORIGIN_FEATURE, "")


def test_utf8_bom_at_start_of_stdin_and_of_each_file(tmp_path):
    assert run(["encode"], BOM + P12 + b"\n" + P34 + b"\n") == (0, E12 + b"\n" + E34 + b"\n", "")
    assert run(["decode"], BOM + b"??\r\n") == (0, ORIGIN_FEATURE, "")
    a, b = tmp_path / "a.ndjson", tmp_path / "b.ndjson"
    a.write_bytes(BOM + P12 + b"\r\n")
    b.write_bytes(BOM + P34 + b"\r\n")
    assert run(["encode", a, b]) == (0, E12 + b"\n" + E34 + b"\n", "")


def test_bom_is_only_tolerated_at_the_start():
    rc, out, err = run(["decode"], b"??\n" + BOM + b"??\n")
    assert (rc, out) == (65, ORIGIN_FEATURE)
    msgs = _messages(err, "decode")
    assert [n for n, _ in msgs] == [2]
    assert "byte 0" in msgs[0][1]


def test_leading_rs_per_line():
    # RS-framed (the input starts with RS), with CRLF line ends.
    data = RS + P12 + b"\n" + RS + P34 + b"\r\n" + RS + P56 + b"\r\n"
    assert run(["encode"], data) == (0, E12 + b"\n" + E34 + b"\n" + E56 + b"\n", "")
    # NDJSON (the input does not start with RS) where some lines carry a leading RS.
    data = P12 + b"\n" + RS + P34 + b"\n" + P56 + b"\n"
    assert run(["encode"], data) == (0, E12 + b"\n" + E34 + b"\n" + E56 + b"\n", "")
    assert run(["decode"], RS + b"??\n" + RS + GOOGLE_P5.encode() + b"\n") == (0, ORIGIN_FEATURE + GOOGLE_FEATURE, "")


def test_rs_framed_pretty_printed_texts():
    texts = [
        json.dumps({"type": "Feature", "properties": {"n": 1}, "geometry": {"type": "Point", "coordinates": [1, 2]}}, indent=2),
        json.dumps({"type": "Point", "coordinates": [3, 4]}, indent=4),
        '{\n"type":\n"Point",\n\n"coordinates":\n[5,\n6]}',
    ]
    data = b"".join(RS + t.encode() + b"\n" for t in texts)
    assert data[:1] == RS
    assert run(["encode"], data) == (0, E12 + b"\n" + E34 + b"\n" + E56 + b"\n", "")
    rc, out, err = run(["encode", "--to", "json"], data)
    assert (rc, err) == (0, "")
    # Output is still one record per line (docs/records.md, "Output"): a multi-line input text
    # must not carry its line breaks into the output.
    assert out.count(b"\n") == 3, out
    assert [json.loads(l)["properties"] for l in out.split(b"\n")[:-1]] == [
        {"n": 1, "polyline": "_seK_ibE"}, {"polyline": "_glW_}hQ"}, {"polyline": "_{rc@_qo]"}]


def test_rs_framed_bad_text_is_reported_at_its_first_line():
    texts = [
        json.dumps({"type": "Point", "coordinates": [1, 2]}, indent=2),          # lines 1-7
        json.dumps({"type": "Poin", "coordinates": [3, 4]}, indent=2),           # lines 8-14
        json.dumps({"type": "Point", "coordinates": [5, 6]}, indent=2),          # lines 15-21
    ]
    assert [t.count("\n") + 1 for t in texts] == [7, 7, 7]
    data = b"".join(RS + t.encode() + b"\n" for t in texts)
    rc, out, err = run(["encode"], data)
    assert (rc, out) == (65, E12 + b"\n" + E56 + b"\n")
    msgs = _messages(err)
    assert [n for n, _ in msgs] == [8]
    assert '"Poin"' in msgs[0][1]


def test_blank_lines_are_skipped_but_counted():
    data = b"\n" + P12 + b"\n\n   \n\t\r\n" + b"not json\n" + b"\r\n" + P34 + b"\n\n"
    rc, out, err = run(["encode"], data)
    assert (rc, out) == (65, E12 + b"\n" + E34 + b"\n")
    assert [n for n, _ in _messages(err)] == [6]


def test_one_line_feature_collection_gives_its_features_in_order():
    fc = {"type": "FeatureCollection", "features": [
        {"type": "Feature", "id": i, "properties": {"n": i}, "geometry": {"type": "Point", "coordinates": [i, -i]}}
        for i in range(1, 6)]}
    data = ndjson([P12.decode(), fc, P34.decode()])
    rc, out, err = run(["encode", "--to", "json"], data)
    assert (rc, err) == (0, "")
    got = [json.loads(l) for l in out.splitlines()]
    assert len(got) == 7
    assert [g.get("id") for g in got] == [None, 1, 2, 3, 4, 5, None]
    assert [g["properties"].get("n") for g in got[1:6]] == [1, 2, 3, 4, 5]
    assert [g["geometry"]["coordinates"] for g in got[1:6]] == [[i, -i] for i in range(1, 6)]
    # Text mode: one polyline per feature, in order.
    rc, out, err = run(["encode"], data)
    assert (rc, err) == (0, "")
    assert out.splitlines()[0] == E12 and out.splitlines()[-1] == E34 and len(out.splitlines()) == 7


def test_empty_feature_collection_gives_nothing():
    assert run(["encode"], b'{"type":"FeatureCollection","features":[]}\n' + P12 + b"\n") == (0, E12 + b"\n", "")


# --- pass-through -----------------------------------------------------------------------------

def test_feature_members_pass_through_byte_for_byte():
    line = (b'{"id":"r\\u00e9f-1","type":"Feature","bbox":[1.0E+2,-0.0,3.50,4e0],'
            b'"properties":{"z":1.0E+2,"a":[1,2.50,-0.0,1e-7],"\\u00e9":"\\ud83d\\ude00\\/\\"","n":null,"o":{"b":true,"a":false}},'
            b'"geometry":{"type":"Point","coordinates":[1,2]},"foreign":{"x":[1.0E+2,"y"]},"zz":-1.5E-3}')
    expected = line.replace(b'"o":{"b":true,"a":false}}', b'"o":{"b":true,"a":false},"polyline":"_seK_ibE"}') + b"\n"
    assert expected != line + b"\n"
    assert run(["encode", "--to", "json"], line + b"\n") == (0, expected, "")


def test_geometry_first_key_order_kept():
    line = b'{"geometry":{"type":"LineString","coordinates":[[1,2],[3,4]]},"properties":{"k":"v"},"type":"Feature","id":7}'
    expected = line.replace(b'{"k":"v"}', b'{"k":"v","polyline":"_seK_ibE_seK_seK"}') + b"\n"
    assert run(["encode", "--to", "json"], line + b"\n") == (0, expected, "")


def test_null_properties_become_an_object_with_the_polyline():
    line = b'{"type":"Feature","properties":null,"geometry":{"type":"Point","coordinates":[1,2]}}\n'
    assert run(["encode", "--to", "json"], line) == (
        0, b'{"type":"Feature","properties":{"polyline":"_seK_ibE"},"geometry":{"type":"Point","coordinates":[1,2]}}\n', "")


def test_existing_polyline_property_is_replaced_not_duplicated():
    line = b'{"type":"Feature","properties":{"polyline":"old","b":1},"geometry":{"type":"Point","coordinates":[1,2]}}\n'
    rc, out, err = run(["encode", "--to", "json"], line)
    assert (rc, err) == (0, "")
    assert out.count(b'"polyline"') == 1
    assert json.loads(out)["properties"] == {"b": 1, "polyline": "_seK_ibE"}


def test_polygon_and_multi_geometries_in_json_mode():
    poly = b'{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]],[[0.1,0.1],[0.2,0.1],[0.2,0.2],[0.1,0.1]]]}'
    mls = b'{"type":"MultiLineString","coordinates":[[[0,0],[1,0]],[[1,1],[0,0]]]}'
    mpoly = (b'{"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[1,1],[0,0]]],'
             b'[[[0,0],[1,0],[1,1],[0,0]],[[0.1,0.1],[0.2,0.1],[0.2,0.2],[0.1,0.1]]]]}')
    rc, out, err = run(["encode", "--to", "json"], b"\n".join([poly, mls, mpoly]) + b"\n")
    assert (rc, err) == (0, "")
    ring, hole = "???_ibE_ibE?~hbE~hbE", "_pR_pR?_pR_pR?~oR~oR"
    props = [json.loads(l)["properties"] for l in out.splitlines()]
    assert props == [
        {"polyline": ring, "holes": [hole]},
        {"polyline": ["???_ibE", "_ibE_ibE~hbE~hbE"]},
        {"polyline": [ring, ring], "holes": [[], [hole]]},
    ]
    # The geometry itself is untouched.
    assert [json.loads(l)["geometry"] for l in out.splitlines()] == [json.loads(g) for g in (poly, mls, mpoly)]


def test_polygon_without_holes_encodes_outer_ring_in_text_mode():
    poly = b'{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}\n'
    assert run(["encode"], poly) == (0, b"???_ibE_ibE?~hbE~hbE\n", "")


def test_bare_geometry_keeps_its_bbox_and_foreign_members():
    # The geometry's own bbox and foreign members are part of the record: they must not
    # be dropped when the bare geometry is wrapped in a Feature (docs/records.md, "What passes
    # through").
    line = b'{"type":"LineString","bbox":[1,2,3,4],"coordinates":[[1,2],[3,4]],"foo":[1.0E+2]}\n'
    rc, out, err = run(["encode", "--to", "json"], line)
    assert (rc, err) == (0, "")
    feat = json.loads(out)
    assert feat["properties"] == {"polyline": "_seK_ibE_seK_seK"}
    assert feat["geometry"] == json.loads(line)
    assert b'"bbox":[1,2,3,4]' in out and b'"foo":[1.0E+2]' in out


def test_bare_geometry_keeps_its_altitudes():
    # docs/records.md, "Input": encode never alters coordinates. A position's altitude is part
    # of it.
    line = b'{"type":"LineString","coordinates":[[1,2,300.5],[3,4,-12]]}\n'
    rc, out, err = run(["encode", "--to", "json"], line)
    assert (rc, err) == (0, "")
    assert json.loads(out)["geometry"] == {"type": "LineString", "coordinates": [[1, 2, 300.5], [3, 4, -12]]}
    # Inside a Feature the geometry already comes through untouched.
    feat = b'{"type":"Feature","properties":{},"geometry":{"type":"LineString","coordinates":[[1,2,300.5],[3,4,-12]]}}\n'
    assert run(["encode", "--to", "json"], feat) == (0, feat.replace(b"{}", b'{"polyline":"_seK_ibE_seK_seK"}'), "")


def test_decode_field_replaces_geometry_and_keeps_the_rest():
    line = (b'{"type":"Feature","id":7,"bbox":[1.0E+2,2],"properties":{"pl":"' + GOOGLE_P5.encode()
            + b'","k":1.0E+2},"geometry":{"type":"Point","coordinates":[0,0]},"x":{"y":-0.0}}')
    expected = line.replace(b'{"type":"Point","coordinates":[0,0]}',
                            b'{"type":"LineString","coordinates":[[-120.2,38.5],[-120.95,40.7],[-126.453,43.252]]}')
    assert run(["decode", "--field", "pl"], line + b"\n") == (0, expected + b"\n", "")
    assert run(["decode", "--field", "pl", "--to", "text"], line + b"\n") == (
        0, b"38.5,-120.2 40.7,-120.95 43.252,-126.453\n", "")


def test_decode_field_bad_records():
    data = ndjson([
        {"type": "Feature", "properties": {"pl": "??"}, "geometry": None},
        {"type": "Feature", "properties": {"k": 1}, "geometry": None},        # missing
        {"type": "Feature", "properties": {"pl": 5}, "geometry": None},       # not a string
        {"type": "Feature", "properties": {"pl": "??!"}, "geometry": None},   # bad polyline
        {"type": "Feature", "properties": {"pl": ""}, "geometry": None},
    ])
    rc, out, err = run(["decode", "--field", "pl"], data)
    assert rc == 65
    assert out == (b'{"type":"Feature","properties":{"pl":"??"},"geometry":{"type":"Point","coordinates":[0,0]}}\n'
                   b'{"type":"Feature","properties":{"pl":""},"geometry":null}\n')
    msgs = _messages(err, "decode")
    assert [n for n, _ in msgs] == [2, 3, 4]
    assert "pl" in msgs[0][1] and "pl" in msgs[1][1] and "byte 2" in msgs[2][1]


# --- output framing ---------------------------------------------------------------------------

def test_rs_output():
    lines = [GOOGLE_FEATURE, ORIGIN_FEATURE, feature_line("null")]
    assert run(["decode", "--rs"], GOOGLE_P5 + '\n??\n""\n') == (0, b"".join(RS + l for l in lines), "")
    rc, out, err = run(["encode", "--to", "json", "--rs"], P12 + b"\n" + P34 + b"\n")
    assert (rc, err) == (0, "")
    assert out == (RS + b'{"type":"Feature","properties":{"polyline":"_seK_ibE"},"geometry":' + P12 + b"}\n"
                   + RS + b'{"type":"Feature","properties":{"polyline":"_glW_}hQ"},"geometry":' + P34 + b"}\n")


def test_rs_output_reads_back():
    rc, seq, err = run(["decode", "--rs"], GOOGLE_P5 + "\n_ibE_seK\n")
    assert (rc, err) == (0, "")
    assert run(["encode"], seq) == (0, GOOGLE_P5.encode() + b"\n_ibE_seK\n", "")


def test_collection_output_is_one_json_document():
    rc, plain, err = run(["decode"], GOOGLE_P5 + '\n??\n""\n')
    assert (rc, err) == (0, "")
    rc, out, err = run(["decode", "--collection"], GOOGLE_P5 + '\n??\n""\n')
    assert (rc, err) == (0, "")
    doc = json.loads(out)
    assert doc == {"type": "FeatureCollection", "features": [json.loads(l) for l in plain.splitlines()]}
    assert out.endswith(b"\n")


def test_collection_of_nothing():
    rc, out, err = run(["decode", "--collection"], b"")
    assert (rc, err) == (0, "")
    assert json.loads(out) == {"type": "FeatureCollection", "features": []}


def test_collection_with_bad_records_is_still_valid_json():
    rc, out, err = run(["encode", "--to", "json", "--collection"], P12 + b"\n{\n" + P34 + b"\n")
    assert rc == 65
    assert [n for n, _ in _messages(err)] == [2]
    doc = json.loads(out)
    assert [f["properties"]["polyline"] for f in doc["features"]] == ["_seK_ibE", "_glW_}hQ"]


@pytest.mark.parametrize("args", [
    ["decode", "--rs", "--collection"],
    ["decode", "--to", "text", "--rs"],
    ["decode", "--to", "text", "--collection"],
    ["encode", "--rs"],
    ["encode", "--collection"],
])
def test_framing_options_that_cannot_apply_are_usage_errors(args):
    rc, out, err = run(args, b"??\n")
    assert (rc, out) == (64, b"")
    assert err.splitlines()[-1] == f"See 'geo {args[0]} --help'."


# --- --digits ---------------------------------------------------------------------------------

def test_digits_rounds_half_away_from_zero(polyline):
    # Precision 3 values that are exact binary ties at 2 and 0 decimals.
    pl = polyline.encode([(0.125, -0.125), (0.375, 2.5), (-2.5, -0.625)], 3)
    assert run(["decode", "-p3", "--digits", "2"], pl + "\n") == (
        0, feature_line('{"type":"LineString","coordinates":[[-0.13,0.13],[2.5,0.38],[-0.63,-2.5]]}'), "")
    assert run(["decode", "-p3", "--digits", "0", "--to", "text"], pl + "\n")[1].split(b" ")[1:] == [b"0,3", b"-3,-1\n"]
    assert run(["decode", "-p3", "--digits", "1", "--to", "text"], pl + "\n") == (0, b"0.1,-0.1 0.4,2.5 -2.5,-0.6\n", "")


def test_digits_never_pads_or_uses_exponents():
    assert run(["decode", "--digits", "3"], GOOGLE_P5 + "\n") == (0, GOOGLE_FEATURE, "")
    assert run(["decode", "--digits", "1", "--to", "text"], GOOGLE_P5 + "\n") == (0, b"38.5,-120.2 40.7,-121 43.3,-126.5\n", "")
    assert run(["decode", "-p7", "--digits", "7", "--to", "text"], "A?\n") == (0, b"0.0000001,0\n", "")


@pytest.mark.parametrize("value", ["-1", "18", "x", ""])
def test_digits_out_of_range_is_a_usage_error(value):
    rc, out, err = run(["decode", "--digits", value], b"??\n")
    assert (rc, out) == (64, b"")
    assert "--digits" in err


# --- bad records ------------------------------------------------------------------------------

def _good(i):
    return b'{"type":"Feature","properties":{"i":%d},"geometry":{"type":"Point","coordinates":[%d,0]}}' % (i, i)


BAD_RECORDS = [
    # (raw line, a fragment the message must contain)
    (b'{"type":"Point","coordinates":[1,2]', "JSON"),                       # truncated line
    (b'{"type":"Point",,"coordinates":[1,2]}', "JSON"),                     # invalid JSON
    (b'{"type":"Point","coordinates":[0,91]}', "91"),                       # latitude 91
    (b'{"type":"Point","coordinates":[NaN,0]}', "JSON"),                    # NaN literal
    (b'{"type":"Point","coordinates":[1e999,0]}', "1e999"),                 # not finite
    (b'{"type":"Circle","coordinates":[0,0]}', "Circle"),                   # wrong type
    (b'{"type":"Feature","properties":{"n":"\xff\xfe"},"geometry":null}', "UTF-8"),
    (b'{"type":"Feature","properties":{"d":' + b"[" * 10000 + b"]" * 10000 + b'},"geometry":null}', ""),
    (b'[1,2]', ""),                                                         # not an object
    (b'{"type":"LineString","coordinates":[[0,0],[1]]}', ""),               # short position
    (b'{"type":"MultiLineString","coordinates":[[[0,0],[1,0]]]}', "MultiLineString"),  # text mode
]


def _bad_record_input():
    lines, expected_out, expected_bad = [], [], []
    for k, (bad, _frag) in enumerate(BAD_RECORDS):
        lines.append(_good(k))
        expected_out.append(b"?" + _point_lon(k))
        lines.append(bad)
        expected_bad.append(len(lines))
    lines.append(_good(99))
    expected_out.append(b"?" + _point_lon(99))
    return b"\n".join(lines) + b"\n", lines, expected_out, expected_bad


def _point_lon(i):
    # encoding of longitude i (latitude 0 gives "?")
    v = i * 100000
    v = ~(v << 1) if v < 0 else v << 1
    out = b""
    while v >= 0x20:
        out += bytes([(0x20 | (v & 0x1F)) + 63])
        v >>= 5
    return out + bytes([v + 63])


def test_bad_records_are_reported_with_their_line_and_skipped(tmp_path):
    data, _lines, expected_out, expected_bad = _bad_record_input()
    src = tmp_path / "in.ndjson"
    src.write_bytes(data)
    rc, out, err = run(["encode", src])
    assert rc == 65
    assert out == b"\n".join(expected_out) + b"\n"
    msgs = _messages(err, "encode", str(src))
    assert [n for n, _ in msgs] == expected_bad
    for (n, msg), (_bad, frag) in zip(msgs, BAD_RECORDS):
        assert frag in msg, (n, msg)


def test_bad_records_in_json_mode_keep_good_ones_in_order():
    data, _lines, _out, expected_bad = _bad_record_input()
    rc, out, err = run(["encode", "--to", "json"], data)
    assert rc == 65
    feats = [json.loads(l) for l in out.splitlines()]
    # In JSON mode the MultiLineString is not bad.
    assert [f["properties"].get("i") for f in feats] == list(range(len(BAD_RECORDS))) + [None, 99]
    assert [n for n, _ in _messages(err)] == expected_bad[:-1]


def test_rejects_file_content(tmp_path):
    data, lines, _out, expected_bad = _bad_record_input()
    rej = tmp_path / "rejects.ndjson"
    rc, out, err = run(["encode", "--rejects", rej], data)
    assert rc == 65
    msgs = _messages(err)
    raw = rej.read_bytes()
    assert raw.endswith(b"\n")
    entries = [json.loads(l) for l in raw.splitlines()]
    # "input" is the raw line; a line that is not UTF-8 cannot be held in a JSON string byte for
    # byte, so it is kept exactly as "input_base64" instead.
    def utf8(n):
        try:
            lines[n - 1].decode("utf-8")
            return True
        except UnicodeDecodeError:
            return False
    assert [list(e) for e in entries] == [["source", "line", "error", "input" if utf8(n) else "input_base64"]
                                          for n in expected_bad]
    assert [e["source"] for e in entries] == ["<stdin>"] * len(expected_bad)
    assert [e["line"] for e in entries] == expected_bad
    assert [e["error"] for e in entries] == [m for _, m in msgs]
    for e, n in zip(entries, expected_bad):
        kept = e["input"].encode() if "input" in e else base64.b64decode(e["input_base64"])
        assert kept == lines[n - 1].rstrip(b"\r").strip(b" \t") or kept == lines[n - 1], n


def test_rejects_from_files_name_the_file_and_strip_line_framing(tmp_path):
    a = tmp_path / "a.txt"
    a.write_bytes(b"??\r\nx\r\n" + RS + b"!\n")
    rej = tmp_path / "rej"
    rc, out, err = run(["decode", "--to", "text", "--rejects", rej, a])
    assert (rc, out) == (65, b"0,0\n")
    assert [json.loads(l) for l in rej.read_bytes().splitlines()] == [
        {"source": str(a), "line": 2, "error": _messages(err, "decode", str(a))[0][1], "input": "x"},
        {"source": str(a), "line": 3, "error": _messages(err, "decode", str(a))[1][1], "input": "!"},
    ]


def test_rejects_of_a_clean_run_leaves_no_file(tmp_path):
    # Workers under GNU parallel or Spark would otherwise leave an empty file each.
    rej = tmp_path / "rej"
    assert run(["decode", "--to", "text", "--rejects", rej], b"??\n") == (0, b"0,0\n", "")
    assert not rej.exists()
    # A file the user had is never removed (SPEC section 3): it is emptied, as -o would be.
    rej.write_text("left over from an earlier run\n")
    assert run(["decode", "--to", "text", "--rejects", rej], b"??\n") == (0, b"0,0\n", "")
    assert rej.read_text() == ""


def test_strict_stops_at_first_bad_record(tmp_path):
    data, _lines, expected_out, expected_bad = _bad_record_input()
    rej = tmp_path / "rej"
    rc, out, err = run(["encode", "--strict", "--rejects", rej], data)
    assert rc == 65
    assert out == expected_out[0] + b"\n"
    msgs = _messages(err)
    assert [n for n, _ in msgs] == [expected_bad[0]]
    assert [json.loads(l)["line"] for l in rej.read_bytes().splitlines()] == [expected_bad[0]]


def test_strict_without_bad_records_is_a_normal_run():
    assert run(["decode", "--strict", "--to", "text"], b"??\n_ibE_seK\n") == (0, b"0,0\n1,2\n", "")


def test_line_numbers_restart_per_file_and_name_the_source(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_bytes(b"??\n!\n")
    b.write_bytes(b"x\n_ibE_seK\n")
    rc, out, err = run(["decode", "--to", "text", a, "-", b], b"\n@@\n!!\n")
    assert (rc, out) == (65, b"0,0\n-0.00001,-0.00001\n1,2\n")
    lines = err.splitlines()
    assert len(lines) == 3
    assert lines[0].startswith(f"geo decode: {a}:2: ")
    assert lines[1].startswith("geo decode: <stdin>:3: ")
    assert lines[2].startswith(f"geo decode: {b}:1: ")


def test_output_file(tmp_path):
    out_file = tmp_path / "out.ndjson"
    assert run(["decode", "-o", out_file], GOOGLE_P5 + "\n") == (0, b"", "")
    assert out_file.read_bytes() == GOOGLE_FEATURE
    assert run(["decode", "--output", out_file, "--to", "text"], "??\n") == (0, b"", "")
    assert out_file.read_bytes() == b"0,0\n"


def test_large_line_and_unicode_across_chunk_boundaries(polyline):
    # A 1.4 MB record (longer than a 256 KiB read chunk) followed by a short one,
    # and a record whose multi-byte characters straddle the first chunk boundary.
    coords = [[i * 1e-4, 45 + i * 1e-5] for i in range(60000)]
    big = json.dumps({"type": "LineString", "coordinates": coords}).encode()
    assert len(big) > 4 * 256 * 1024
    rc, out, err = run(["encode", "-j2"], big + b"\n" + P12 + b"\n")
    assert (rc, err) == (0, "")
    assert out == polyline.encode(coords, 5, geojson=True).encode() + b"\n" + E12 + b"\n"

    pad = b'{"type":"Feature","properties":{"p":"'
    tail = b'"},"geometry":{"type":"Point","coordinates":[3,4]}}'
    for shift in range(-3, 3):
        text = "é€😀".encode() * 2
        line = pad + b"a" * (256 * 1024 + shift - len(pad)) + text + tail
        rc, out, err = run(["encode", "--to", "json", "-j2"], line + b"\r\n" + P12 + b"\r\n")
        assert (rc, err) == (0, ""), shift
        assert out == line[:-len(tail)] + b'","polyline":"_glW_}hQ"},"geometry":{"type":"Point","coordinates":[3,4]}}\n' \
            + b'{"type":"Feature","properties":{"polyline":"_seK_ibE"},"geometry":' + P12 + b"}\n", shift


def test_rs_framed_pretty_feature_through_decode_field_is_one_output_line():
    text = json.dumps({"type": "Feature", "id": 1, "properties": {"pl": GOOGLE_P5, "tags": ["a", "b"]},
                       "geometry": None}, indent=2)
    rc, out, err = run(["decode", "--field", "pl"], RS + text.encode() + b"\n" + RS + text.encode() + b"\n")
    assert (rc, err) == (0, "")
    assert out.count(b"\n") == 2, out
    for line in out.split(b"\n")[:-1]:
        feat = json.loads(line)
        assert feat["properties"] == {"pl": GOOGLE_P5, "tags": ["a", "b"]}
        assert feat["geometry"] == json.loads(GOOGLE_FEATURE)["geometry"]


def test_rs_framed_crlf_truncated_and_empty_texts():
    data = (RS + b'{"type":"Point",\r\n"coordinates":[1,2]}\r\n'    # lines 1-2, CRLF inside a text
            + RS + b"\n"                                             # line 3: an empty text
            + RS + b'{"type":"Point",\n'                             # line 4: truncated by the next RS
            + RS + P34 + b"\n"                                       # line 5
            + RS + b"  \n")                                          # line 6: blank
    rc, out, err = run(["encode"], data)
    assert (rc, out) == (65, E12 + b"\n" + E34 + b"\n")
    assert [n for n, _ in _messages(err)] == [4]
