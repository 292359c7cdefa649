"""What geo says, and when it says nothing (issue 11, "Quiet, helpful, exact messages", "Round
trips and text"): hints for common mistakes, a bounded number of lines, a closing count,
progress only where it helps, exact rejects, conflicting options, text paths and round trips."""

import base64
import json
import os
import pty
import select
import subprocess
import time

import pytest
from geographiclib.geodesic import Geodesic

from conftest import geo_bin, ndjson, run, run_full

LINE = {"type": "LineString", "coordinates": [[0, 0], [1, 1]]}
LENGTH = 156899.56829134026


def lines(err):
    return err.splitlines()


# --- hints -------------------------------------------------------------------------------------

@pytest.mark.parametrize("args,data,hint", [
    (["length"], b"_p~iF~ps|U_ulLnnqC_mqNvxq`@\n", "use --from polyline"),
    (["length"], b"51.5,-0.12 48.85,2.35\n", "use --from latlng"),
    (["decode"], b'{"type":"Feature","properties":{"p":"_p~iF~ps|U"},"geometry":null}\n', "use --field NAME"),
    # gzip bytes after text (`cat a.ndjson b.gz`): a file that is gzip from its start is read.
    (["length"], b'{"type":"Point","coordinates":[0,0]}\n\x1f\x8b\x08\x00\x00\x00\x00\x00\n', "gzip"),
])
def test_the_first_failure_of_a_kind_gets_a_hint(args, data, hint):
    rc, _, err = run_full(args, data * 3)
    assert rc == 65
    hints = [l for l in lines(err) if ": hint: " in l]
    assert len(hints) == 1 and hint in hints[0], err
    assert lines(err).index(hints[0]) == 1  # right after the first report


def test_a_miscapitalised_type_is_named():
    rc, _, err = run(["length"], b'{"type":"Linestring","coordinates":[[0,0],[1,1]]}\n')
    assert rc == 65 and 'did you mean "LineString"?' in err, err


def test_after_100_messages_of_a_kind_the_rest_are_counted():
    data = b'{"type":"Point","coordinates":[0,95]}\n' * 250 + ndjson([LINE])
    rc, out, err = run_full(["length"], data)
    assert rc == 65 and len(out.splitlines()) == 1
    reports = [l for l in lines(err) if "<stdin>:" in l]
    assert len(reports) == 100
    assert "150 more like" in err, err
    assert lines(err)[-1] == "geo length: 250 of 251 records rejected"


def test_success_is_silent():
    rc, out, err = run_full(["length"], ndjson([LINE] * 3))
    assert (rc, err) == (0, "")


def test_numbers_in_messages_are_never_in_exponent_notation():
    rc, _, err = run(["interpolate", "--distance", "-2e7"], ndjson([LINE]))
    assert rc == 65 and "-20000000 m" in err and "e+" not in err and "e7" not in err, err
    rc, _, err = run(["circle-to-polygon", "--radius", "-1e-30"], ndjson([{"type": "Point", "coordinates": [0, 0]}]))
    assert rc == 65 and "radius -0.000000000000000000000000000001 m" in err, err


# --- rejects keep exact bytes ------------------------------------------------------------------

def test_rejects_keep_bytes_that_are_not_utf8(tmp_path):
    bad = b'{"type":"Point","coordinates":[1,\xff\xfe]}'
    rc, _, _ = run(["length", "-o", tmp_path / "out", "--rejects", tmp_path / "rej"], bad + b"\n" + ndjson([LINE]))
    assert rc == 65
    kept = json.loads((tmp_path / "rej").read_text())
    assert "input" not in kept and base64.b64decode(kept["input_base64"]) == bad


# --- read errors -------------------------------------------------------------------------------

def test_a_read_that_fails_mid_stream_is_74_and_what_came_before_stays(tmp_path):
    good = tmp_path / "good.ndjson"
    good.write_bytes(ndjson([LINE]))
    # /proc/self/mem opens, but reading it from offset 0 fails with EIO.
    rc, out, err = run(["length", str(good), "/proc/self/mem"])
    assert rc == 74, err
    assert "error reading '/proc/self/mem'" in err
    assert json.loads(out)["properties"]["length_m"] == LENGTH


def test_an_input_that_cannot_be_opened_is_66_before_anything_is_written(tmp_path):
    rc, out, err = run(["length", "-o", tmp_path / "out", "/nonexistent.ndjson"])
    assert rc == 66 and out == b"" and "cannot open '/nonexistent.ndjson'" in err
    assert not (tmp_path / "out").exists()


# --- conflicting options -----------------------------------------------------------------------

@pytest.mark.parametrize("args", [
    ["length", "--field", "cumulative_m", "--cumulative"],
    ["length", "--progress", "--quiet"],
    ["length", "--help=foo"],
    ["length", "--precision", "6"],
    ["interpolate", "--fraction", "0.5", "--to-precision", "6"],
    ["spans", "--style", "red", "--length", "0"],
])
def test_conflicting_options_are_usage_errors(args):
    rc, out, err = run(args, ndjson([LINE]))
    assert rc == 64 and out == b"", err
    assert "See 'geo " in err


# --- progress ----------------------------------------------------------------------------------

def _slow_input(delay):
    """A pipe that gives one record, waits `delay` seconds, then gives another."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        os.write(write_end, ndjson([LINE]))
        time.sleep(delay)
        os.write(write_end, ndjson([LINE]))
        os._exit(0)
    os.close(write_end)
    return read_end, pid


def _run_with_terminal_stderr(args, env=None, delay=1.6):
    """geo with stdout a pipe and stderr a terminal; returns (rc, stdout, what the terminal got)."""
    stdin, child = _slow_input(delay)
    master, slave = pty.openpty()
    proc = subprocess.Popen([geo_bin(), *args], stdin=stdin, stdout=subprocess.PIPE, stderr=slave,
                            env={**os.environ, **(env or {})})
    os.close(slave)
    os.close(stdin)
    screen = b""
    while True:
        ready, _, _ = select.select([master], [], [], 10)
        if not ready:
            break
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        screen += chunk
    out = proc.stdout.read()
    rc = proc.wait(timeout=30)
    os.waitpid(child, 0)
    os.close(master)
    return rc, out, screen


def test_progress_shows_on_a_terminal_after_a_second_and_is_erased():
    rc, out, screen = _run_with_terminal_stderr(["length"])
    assert rc == 0 and len(out.splitlines()) == 2
    assert b"geo length: " in screen and b"records" in screen, screen
    assert screen.endswith(b"\r\x1b[K"), screen  # nothing left on the terminal


def test_geo_progress_0_turns_it_off():
    rc, _, screen = _run_with_terminal_stderr(["length"], env={"GEO_PROGRESS": "0"})
    assert rc == 0 and screen == b""


def test_a_short_run_shows_no_progress():
    rc, _, screen = _run_with_terminal_stderr(["length"], delay=0)
    assert rc == 0 and screen == b""


def test_forced_progress_into_a_file_is_plain_lines_with_a_percentage(tmp_path):
    path = tmp_path / "in.ndjson"
    path.write_bytes(ndjson([LINE]))
    rc, _, err = run_full(["length", "--progress", str(path)])
    assert rc == 0
    assert err.splitlines()[-1].startswith("geo length: 100% 1 records"), err


# --- text paths and round trips ----------------------------------------------------------------

def test_from_text_measures_two_typed_coordinates():
    rc, out, err = run(["length", "--from", "text", "--field", "m"], "51.5,-0.12 48.85,2.35\n")
    assert rc == 0, err
    # London to Paris, latitude first as typed, against GeographicLib.
    expected = Geodesic.WGS84.Inverse(51.5, -0.12, 48.85, 2.35)["s12"]
    assert abs(json.loads(out)["properties"]["m"] - expected) < 1e-6
    rc, out, err = run(["decode", "--to", "text"], "_p~iF~ps|U_ulLnnqC_mqNvxq`@\n")
    rc, again, err = run(["length", "--from", "text"], out)
    assert rc == 0 and json.loads(again)["geometry"]["coordinates"][0] == [-120.2, 38.5]


GEOMETRIES = [
    {"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 0]], [[0.2, 0.2], [0.3, 0.2], [0.3, 0.3], [0.2, 0.2]]]},
    {"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 0]]]},
    {"type": "MultiLineString", "coordinates": [[[0, 0], [1, 1]], [[2, 2], [3, 3]]]},
    {"type": "MultiPolygon", "coordinates": [[[[0, 0], [1, 0], [1, 1], [0, 0]]],
                                             [[[5, 5], [6, 5], [6, 6], [5, 5]], [[5.2, 5.2], [5.3, 5.2], [5.3, 5.3], [5.2, 5.2]]]]},
    LINE,
]


def test_encode_to_json_then_decode_field_round_trips_holes_and_multilines():
    rc, encoded, err = run(["encode", "--to", "json"], ndjson(GEOMETRIES))
    assert rc == 0, err
    rc, decoded, err = run(["decode", "--field", "polyline"], encoded)
    assert rc == 0, err
    assert [json.loads(l)["geometry"] for l in decoded.splitlines()] == GEOMETRIES


def test_decode_field_reads_a_member_of_a_plain_object():
    osrm = {"geometry": "_izlhA~rlgdF_{geC~ywl@_kwzCn`{nI", "distance": 5, "legs": []}
    rc, out, err = run(["decode", "-p6", "--field", "geometry"], json.dumps(osrm) + "\n")
    assert rc == 0, err
    feature = json.loads(out)
    assert feature["properties"] == osrm
    assert feature["geometry"]["coordinates"][-1] == [-126.453, 43.252]


def test_spans_take_uicolor_rgba():
    rc, out, err = run(["spans", "--span", "rgba(1,0,0,0.5)", "--span", "gradient(rgba(0,0,1,1),red)", "--split"],
                       ndjson([{"type": "LineString", "coordinates": [[0, 0], [1, 0], [2, 0]]}]))
    assert rc == 0, err
    pieces = [json.loads(l)["properties"] for l in out.splitlines()]
    assert pieces[0]["stroke"] == "#ff0000" and pieces[0]["stroke-opacity"] == 128 / 255
    assert pieces[1]["stroke"] == "#0000ff" and pieces[1]["stroke-end"] == "#ff0000"


def test_version_names_proj():
    rc, out, _ = run(["--version"])
    assert rc == 0 and b"PROJ " in out
