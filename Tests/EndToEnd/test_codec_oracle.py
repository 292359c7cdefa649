"""The polyline codec against the reference implementation and the public vectors.

docs/algorithms.md, "Encoded polylines", and the man pages geo-encode(1) and geo-decode(1).
"""

import json
import random
import re

import pytest

from conftest import GOOGLE_P0, GOOGLE_P5, GOOGLE_P6, GOOGLE_PATH, feature_line, ndjson, run

SEED = 20240607
N_PATHS = 3000

# Values whose scaled form is tiny or a tie at low precisions (k/8 is exact in binary,
# so k/8 * 10^p is an exact .5 for p = 0, 1, 2 when it should be).
TINY = [0.000006, -0.000006, 0.000005, -0.000005, 0.0000005, -0.0000015, 0.000002,
        0.000015, 2.5e-6, 1e-7, -5e-8, 0.0, -0.0, 1e-300]


def _random_paths(rng, count):
    paths = []
    for _ in range(count):
        n = rng.randint(0, 60)
        style = rng.random()
        pts = []
        for _ in range(n):
            lat = rng.uniform(-90, 90)
            lon = rng.uniform(-180, 180)
            if style < 0.2:
                lat, lon = round(lat, 5), round(lon, 5)
            elif style < 0.4:
                lat, lon = round(lat, 6), round(lon, 6)
            elif style < 0.5:
                lat, lon = rng.choice(TINY), rng.choice(TINY)
            elif style < 0.6:
                lat, lon = rng.randint(-720, 720) / 8, rng.randint(-1440, 1440) / 8
            elif style < 0.62:
                lat, lon = rng.choice([90.0, -90.0, 0.0]), rng.choice([180.0, -180.0, 179.999999])
            pts.append([lon, lat])
        paths.append(pts)
    return paths


def _record(rng, pts):
    """Wrap a path in a random kind of record (all of them encode their positions)."""
    r = rng.random()
    if len(pts) == 1 and r < 0.5:
        geom = {"type": "Point", "coordinates": pts[0]}
    elif len(pts) >= 1 and r < 0.2:
        geom = {"type": "MultiPoint", "coordinates": pts}
    else:
        geom = {"type": "LineString", "coordinates": pts}
    if rng.random() < 0.3:
        return {"type": "Feature", "id": rng.randint(0, 999), "properties": {"k": r}, "geometry": geom}
    return geom


@pytest.fixture(scope="module")
def oracle_input():
    rng = random.Random(SEED)
    paths = _random_paths(rng, N_PATHS)
    records = [_record(rng, p) for p in paths]
    return paths, ndjson(records)


def _first_mismatch(got_lines, exp_lines, paths, precision):
    for i, (g, e) in enumerate(zip(got_lines, exp_lines)):
        if g != e:
            return f"line {i + 1} (p={precision}) path={paths[i]!r}: geo={g!r} polyline={e!r}"
    return f"line counts differ: geo {len(got_lines)} vs expected {len(exp_lines)}"


@pytest.mark.parametrize("precision", [5, 6, 0, 1, 3, 7])
def test_encode_matches_reference_byte_for_byte(polyline, oracle_input, precision):
    paths, data = oracle_input
    rc, out, err = run(["encode", "-p", precision], data)
    assert (rc, err) == (0, "")
    # polyline.encode raises on an empty path; geo writes the empty polyline as "" (a JSON
    # string), so that decode reads it back as a null geometry instead of skipping a blank line.
    exp_lines = [polyline.encode(p, precision, geojson=True) if p else '""' for p in paths]
    expected = ("\n".join(exp_lines) + "\n").encode("ascii")
    if out != expected:
        got_lines = out.decode("ascii", "backslashreplace").split("\n")[:-1]
        pytest.fail(_first_mismatch(got_lines, exp_lines, paths, precision))


def test_rounding_is_exact_half_away_not_floor_plus_half():
    # 0.49999999999999994 is below one half: half-away-from-zero rounds it to 0.
    # (polyline.encode computes floor(x + 0.5), which gives 1 here: geo must not.)
    rc, out, err = run(["encode", "-p", "0"],
                       '{"type":"Point","coordinates":[0.49999999999999994,-0.49999999999999994]}\n')
    assert (rc, out, err) == (0, b"??\n", "")


def _rounded_paths(rng, precision, count):
    paths = []
    for _ in range(count):
        # Empty paths too: they encode as "" and decode back as null geometries.
        n = rng.randint(0, 40)
        paths.append([[round(rng.uniform(-180, 180), precision), round(rng.uniform(-90, 90), precision)]
                      for _ in range(n)])
    return paths


NUMBER_WITH_EXPONENT = re.compile(rb"[0-9][eE][-+]?[0-9]")


@pytest.mark.parametrize("precision", range(0, 8))
def test_round_trip_and_decode_matches_reference(polyline, precision):
    rng = random.Random(SEED + precision)
    paths = _rounded_paths(rng, precision, 250)
    rc, enc, err = run(["encode", f"-p{precision}"], ndjson({"type": "LineString", "coordinates": p} for p in paths))
    assert (rc, err) == (0, "")
    lines = enc.decode("ascii").split("\n")
    assert lines[-1] == "" and len(lines) == len(paths) + 1
    lines = lines[:-1]

    rc, dec, err = run(["decode", "-p", str(precision)], enc)
    assert (rc, err) == (0, "")
    assert not NUMBER_WITH_EXPONENT.search(dec), "geo printed a number in exponent notation"
    out = dec.decode("utf-8").split("\n")
    assert out[-1] == "" and len(out) == len(paths) + 1
    for i, (pts, pl, text) in enumerate(zip(paths, lines, out)):
        feat = json.loads(text)
        assert set(feat) == {"type", "properties", "geometry"} and feat["properties"] == {}
        if not pts:
            assert pl == '""' and feat["geometry"] is None, i
            continue
        ref = [list(t) for t in polyline.decode(pl, precision, geojson=True)]
        if len(pts) == 1:
            assert feat["geometry"]["type"] == "Point", i
            got = [feat["geometry"]["coordinates"]]
        else:
            assert feat["geometry"]["type"] == "LineString", i
            got = feat["geometry"]["coordinates"]
        assert got == pts, f"record {i}: round trip at p={precision} changed the path"
        assert got == ref, f"record {i}: geo decode disagrees with polyline.decode at p={precision}"


# --- public vectors (docs/algorithms.md, "Encoded polylines") ---------------------------------

LINESTRING_GOOGLE = json.dumps({"type": "LineString", "coordinates": GOOGLE_PATH}, separators=(",", ":")) + "\n"


@pytest.mark.parametrize("precision,expected", [(5, GOOGLE_P5), (6, GOOGLE_P6), (0, GOOGLE_P0)])
def test_google_vector_encodes(precision, expected):
    assert run(["encode", "-p", precision], LINESTRING_GOOGLE) == (0, expected.encode() + b"\n", "")


def test_google_vector_default_precision_is_5():
    assert run(["encode"], LINESTRING_GOOGLE) == (0, GOOGLE_P5.encode() + b"\n", "")
    assert run(["decode"], GOOGLE_P5 + "\n")[1] == run(["decode", "-p5"], GOOGLE_P5 + "\n")[1]


@pytest.mark.parametrize("precision,polyline_text,coords", [
    (5, GOOGLE_P5, "[[-120.2,38.5],[-120.95,40.7],[-126.453,43.252]]"),
    (6, GOOGLE_P6, "[[-120.2,38.5],[-120.95,40.7],[-126.453,43.252]]"),
    (0, GOOGLE_P0, "[[-120,39],[-121,41],[-126,43]]"),
])
def test_google_vector_decodes(precision, polyline_text, coords):
    expected = feature_line('{"type":"LineString","coordinates":' + coords + "}")
    assert run(["decode", "-p", precision], polyline_text + "\n") == (0, expected, "")


def test_google_vector_decodes_to_text():
    assert run(["decode", "--to", "text"], GOOGLE_P5 + "\n") == (
        0, b"38.5,-120.2 40.7,-120.95 43.252,-126.453\n", "")


TIES_PATH = [[-112.084004, 36.05322], [-112.083914, 36.053573], [-112.083965, 36.053845]]
TIES = "ss`{E~kbkTeAQw@J"


def test_ties_vector_encodes_half_away_from_zero():
    rec = json.dumps({"type": "LineString", "coordinates": TIES_PATH})
    assert run(["encode"], rec + "\n") == (0, TIES.encode() + b"\n", "")


def test_ties_vector_decodes():
    expected = feature_line('{"type":"LineString","coordinates":'
                            "[[-112.084,36.05322],[-112.08391,36.05357],[-112.08397,36.05385]]}")
    assert run(["decode"], TIES + "\n") == (0, expected, "")


def test_rounding_absolutes_not_deltas():
    rec = '{"type":"LineString","coordinates":[[0.000006,0],[0.000002,0]]}\n'
    assert run(["encode"], rec) == (0, b"?A?@\n", "")
    expected = feature_line('{"type":"LineString","coordinates":[[0.00001,0],[0,0]]}')
    assert run(["decode"], "?A?@\n") == (0, expected, "")


BACKSLASH = "_chxEn`zvN\\\\]]"  # one string with two backslashes
BACKSLASH_COORDS = '{"type":"LineString","coordinates":[[-82.55,35.6],[-82.55015,35.59985],[-82.55,35.6]]}'


def test_backslash_vector_decodes_raw_and_as_json_literal(polyline):
    assert BACKSLASH.count("\\") == 2
    assert [list(t) for t in polyline.decode(BACKSLASH, 5, geojson=True)] == json.loads(BACKSLASH_COORDS)["coordinates"]
    json_literal = json.dumps(BACKSLASH)  # "_chxEn`zvN\\\\]]"
    assert json_literal == '"_chxEn`zvN\\\\\\\\]]"'
    data = (BACKSLASH + "\n" + json_literal + "\n").encode()
    assert run(["decode"], data) == (0, feature_line(BACKSLASH_COORDS) * 2, "")


def test_backslash_vector_round_trips():
    rec = '{"type":"Feature","properties":{},"geometry":' + BACKSLASH_COORDS + "}\n"
    assert run(["encode"], rec) == (0, BACKSLASH.encode() + b"\n", "")
    rc, out, err = run(["encode", "--to", "json"], rec)
    assert (rc, err) == (0, "")
    # In JSON the polyline's backslashes are escaped.
    assert out == ('{"type":"Feature","properties":{"polyline":' + json.dumps(BACKSLASH) + '},"geometry":'
                   + BACKSLASH_COORDS + "}\n").encode()
    # ... and that JSON output decodes back with --field.
    rc, out2, err = run(["decode", "--field", "polyline"], out)
    assert (rc, err) == (0, "")
    assert json.loads(out2)["geometry"] == json.loads(BACKSLASH_COORDS)


def test_empty_polyline_is_null_geometry_both_ways():
    assert run(["decode"], '""\n') == (0, feature_line("null"), "")
    assert run(["decode", "--to", "text"], '""\n') == (0, b"\n", "")
    rec = '{"type":"Feature","properties":{"a":1},"geometry":null}\n'
    assert run(["encode"], rec) == (0, b'""\n', "")
    # Nothing is lost on the way back: the record comes back with a null geometry.
    assert run(["decode"], run(["encode"], rec)[1]) == (0, feature_line("null"), "")
    assert run(["encode", "--to", "json"], rec) == (
        0, b'{"type":"Feature","properties":{"a":1,"polyline":""},"geometry":null}\n', "")


def test_negative_zero_encodes_like_zero():
    assert run(["encode"], '{"type":"Point","coordinates":[-0.0,-0.0]}\n') == (0, b"??\n", "")
    assert run(["encode", "-p7"], '{"type":"LineString","coordinates":[[-0.0,0.0],[0,-0],[-0e0,-0.0e-5]]}\n') == (
        0, b"??????\n", "")


def test_single_point_decodes_to_point_geometry():
    assert run(["decode"], "_ibE_seK\n") == (
        0, feature_line('{"type":"Point","coordinates":[2,1]}'), "")


def test_precision_7_does_not_overflow_32_bits(polyline):
    pts = [[-107.3741825, 45.0], [179.9999999, -89.9999999], [-179.9999999, 89.9999999]]
    rec = json.dumps({"type": "LineString", "coordinates": pts}) + "\n"
    expected = polyline.encode(pts, 7, geojson=True)
    assert run(["encode", "-p7"], rec) == (0, expected.encode() + b"\n", "")
    rc, out, err = run(["decode", "-p7"], expected + "\n")
    assert (rc, err) == (0, "")
    assert json.loads(out)["geometry"]["coordinates"] == pts


def test_decode_prints_small_values_without_exponent():
    # '?A' at precision 10 is latitude 0, longitude 1e-10.
    assert run(["decode", "-p10"], "?A\n") == (
        0, feature_line('{"type":"Point","coordinates":[0.0000000001,0]}'), "")
    assert run(["decode", "-p7", "--to", "text"], "@?\n") == (0, b"-0.0000001,0\n", "")
    assert run(["decode", "-p7", "--to", "text"], "A?\n") == (0, b"0.0000001,0\n", "")


# --- malformed polylines ----------------------------------------------------------------------

def _assert_bad_polyline(line: bytes, byte: int, what: str = "", args=()):
    rc, out, err = run(["decode", *args], line + b"\n")
    assert rc == 65, err
    assert out == b""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("geo decode: <stdin>:1: "), err
    assert re.findall(r"\bbyte (\d+)", lines[0]) == [str(byte)], err
    assert what in lines[0], err


@pytest.mark.parametrize("line,byte", [
    (b"_p~iF~ps|U!ulLnnqC_mqNvxq`@", 10),   # '!' is 0x21, below '?'
    (b"!", 0),
    (b"??? ?", 3),                          # a space
    (b"_p~iF\x7f", 5),                      # DEL, above '~'
    ("??\u00e9?".encode(), 2),              # a non-ASCII byte (0xC3)
])
def test_byte_outside_range(line, byte):
    _assert_bad_polyline(line, byte, "outside")


def test_truncated_chunk():
    # The last value starts at byte 22 and its final chunk still has the 0x20 bit.
    _assert_bad_polyline(GOOGLE_P5[:-1].encode(), 22, "truncated")
    _assert_bad_polyline(b"_", 0, "truncated")


def test_latitude_without_longitude():
    _assert_bad_polyline(GOOGLE_P5[:22].encode(), 18, "longitude")
    _assert_bad_polyline(b"?", 0, "longitude")


def test_fourteen_chunk_value_overflows_64_bits():
    # 13 continuation chunks of 0x1f and a terminator: 70 bits, more than 64.
    _assert_bad_polyline(b"~" * 13 + b"?" + b"??", 0, "64 bits")
    _assert_bad_polyline(b"??" + b"~" * 13 + b"?", 2, "64 bits")


def test_65_bit_value_overflows_but_64_bit_value_decodes(polyline):
    # '~'*12 + 'N': 64 one-bits: zig-zag of -2^63, the most negative int64: valid.
    ok = "?" + "~" * 12 + "N"
    expected_lng = polyline.decode(ok)[0][1]
    assert expected_lng == -9223372036854775808 / 1e5
    rc, out, err = run(["decode"], ok + "\n")
    assert (rc, err) == (0, "")
    assert json.loads(out)["geometry"] == {"type": "Point", "coordinates": [expected_lng, 0]}
    # '~'*12 + 'O' sets bit 64: overflow, reported at the value's first byte.
    _assert_bad_polyline(("?" + "~" * 12 + "O").encode(), 1, "64 bits")


def test_sum_of_deltas_overflowing_64_bits_is_rejected():
    # Two longitude deltas of 2^63-1 each: the running sum no longer fits in 64 bits.
    big = "?" + "}" + "~" * 11 + "N"
    _assert_bad_polyline((big + big).encode(), 15, "64 bits")


def test_malformed_lines_do_not_stop_good_ones():
    data = b"".join([
        GOOGLE_P5.encode() + b"\n",
        b"??!?\n",
        b"??\n",
        GOOGLE_P5[:-1].encode() + b"\n",
        b"_ibE_seK\n",
    ])
    rc, out, err = run(["decode", "--to", "text"], data)
    assert rc == 65
    assert out == b"38.5,-120.2 40.7,-120.95 43.252,-126.453\n0,0\n1,2\n"
    lines = err.splitlines()
    assert len(lines) == 2, err
    assert lines[0].startswith("geo decode: <stdin>:2: ") and "byte 2" in lines[0]
    assert lines[1].startswith("geo decode: <stdin>:4: ") and "byte 22" in lines[1]


# --- number reading and printing ---------------------------------------------------------------

def _spell(rng, x):
    """The same double, or a decimal near it, in one of many JSON spellings."""
    k = rng.randrange(9)
    if k == 0:
        return "%.20f" % x
    if k == 1:
        return "%.17e" % x
    if k == 2:
        return "%.3E" % x
    if k == 3:
        return repr(x) + "000"
    if k == 4:
        return "%.25g" % x
    if k == 5:
        from decimal import Decimal  # noqa: PLC0415
        return str(Decimal(x))       # the exact binary expansion, up to ~50 digits
    if k == 6:
        # A decimal a hair away from a half-unit tie at 6 decimals.
        t = "%.6f" % x
        return t + "5" + "0" * rng.randint(5, 25) + str(rng.randint(0, 9))
    if k == 7:
        return "%.12e" % x
    return repr(x)


@pytest.mark.parametrize("precision", [5, 6])
def test_number_spellings_are_read_exactly(polyline, precision):
    # geo must read every JSON number to the nearest double, as Python's float() does.
    rng = random.Random(SEED * 3 + precision)
    recs, expected = [], []
    while len(recs) < 4000:
        lat = rng.uniform(-90, 90) if rng.random() < 0.8 else rng.uniform(-1e-3, 1e-3)
        lon = rng.uniform(-180, 180)
        ls, los = _spell(rng, lat), _spell(rng, lon)
        if abs(float(ls)) > 90:
            continue
        recs.append('{"type":"Point","coordinates":[%s,%s]}' % (los, ls))
        expected.append(polyline.encode([(float(ls), float(los))], precision))
    rc, out, err = run(["encode", "-p", precision], "\n".join(recs) + "\n")
    assert (rc, err) == (0, "")
    got = out.decode().split("\n")[:-1]
    bad = [(recs[i], g, e) for i, (g, e) in enumerate(zip(got, expected)) if g != e]
    assert len(got) == len(expected) and not bad, bad[:5]


def _shortest(x: float) -> str:
    """The shortest decimal that reads back to x, without exponent (docs/records.md, "Output")."""
    from decimal import Decimal  # noqa: PLC0415
    s = format(Decimal(repr(x)), "f")
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    return s


@pytest.mark.parametrize("precision", [0, 3, 5, 6, 7, 10])
def test_decode_prints_shortest_digits(polyline, precision):
    rng = random.Random(SEED + 100 + precision)
    scale = 10 ** precision
    lines, expected = [], []
    for _ in range(800):
        n = rng.randint(1, 20)
        pts = [(rng.randint(-90 * scale, 90 * scale) / scale, rng.randint(-180 * scale, 180 * scale) / scale)
               for _ in range(n)]
        if rng.random() < 0.2:   # small values: where exponent notation would creep in
            pts = [(rng.randint(-89, 89) / scale, rng.randint(-9, 9) / scale) for _ in range(n)]
        pl = polyline.encode(pts, precision)
        lines.append(pl)
        expected.append(" ".join(f"{_shortest(a)},{_shortest(b)}"
                                 for a, b in polyline.decode(pl, precision)))
    rc, out, err = run(["decode", "--to", "text", "-p", precision], "\n".join(lines) + "\n")
    assert (rc, err) == (0, "")
    got = out.decode().split("\n")[:-1]
    bad = [(lines[i], g, e) for i, (g, e) in enumerate(zip(got, expected)) if g != e]
    assert len(got) == len(expected) and not bad, bad[:3]


# --- coordinates are never altered; nothing silently wrong ------------------------------------

def test_longitudes_are_not_wrapped(polyline):
    pts = [[183, 0], [-540.5, 10], [1e9, -10]]
    rc, out, err = run(["encode"], json.dumps({"type": "LineString", "coordinates": pts}) + "\n")
    assert (rc, err) == (0, "")
    assert out == polyline.encode(pts, 5, geojson=True).encode() + b"\n"
    rc, out2, err = run(["decode"], out)
    assert (rc, err) == (0, "")
    assert json.loads(out2)["geometry"]["coordinates"] == pts


def test_values_that_do_not_fit_64_bits_are_bad_records():
    data = ('{"type":"Point","coordinates":[1e14,0]}\n'                     # 1e19 > 2^63
            '{"type":"LineString","coordinates":[[-9e13,0],[9e13,0]]}\n'    # the delta overflows
            '{"type":"Point","coordinates":[1e308,0]}\n'
            '{"type":"Point","coordinates":[9e13,0]}\n')                    # 9e18 fits
    rc, out, err = run(["encode"], data)
    assert rc == 65
    assert out == b"?___ooafswerrN\n"
    assert [l.split(": ")[1] for l in err.splitlines()] == ["<stdin>:1", "<stdin>:2", "<stdin>:3"]


def test_most_negative_64_bit_value_round_trips():
    # decode accepts the zig-zag of -2^63 (a valid 64-bit value); encoding the decoded
    # coordinate must give the same polyline back.
    pl = "?" + "~" * 12 + "N"
    rc, out, err = run(["decode"], pl + "\n")
    assert (rc, err) == (0, "")
    rc, back, err = run(["encode"], out)
    assert (rc, back, err) == (0, pl.encode() + b"\n", "")
