"""Hints for the two polylines people most often give geo wrongly, wherever polylines are read
(`decode`, `decode --field`, `--from polyline` in every path command): a polyline6 (OSRM,
Valhalla) read at the default precision 5, and a polyline whose backslashes were escaped twice.
The record stays a bad record (65) with its one-line message; the hint follows the first one,
once. The polylines are encoded by the `polyline` package from known coordinates."""

import json
import subprocess

import pytest

from conftest import run_full
from test_real_data import data  # noqa: F401  (the real-data fixture: Helsinki's roads)

# OSRM-style routes between real places, as polyline6 (every latitude is above 9 degrees: at
# precision 5 they read as latitudes above 90).
ROUTES = [
    [(60.1699, 24.9384), (60.1719, 24.9414), (60.1756, 24.9342)],   # Helsinki
    [(52.5200, 13.4050), (52.5163, 13.3777)],                         # Berlin
    [(40.7128, -74.0060), (40.7580, -73.9855), (40.7829, -73.9654)],  # New York
]
PRECISION6 = "geo {command}: hint: this looks like precision 6 (OSRM, Valhalla): add --precision 6"
# London, Madrid, Sydney: its polyline ends in a backslash.
LONDON_MADRID_SYDNEY = [(51.5074, -0.1278), (40.4168, -3.7038), (-33.8688, 151.2093)]
BACKSLASHES = "geo {command}: hint: the polyline's backslashes are doubled (\\\\), as a JSON string or a shell leaves them: " \
              "unescape it first (jq -r, or printf '%b\\n' 'POLYLINE')"


def reported(err, command):
    """The reports and hints of stderr; the closing count checked and left out."""
    lines = err.splitlines()
    assert lines[-1].startswith(f"geo {command}: ") and lines[-1].endswith(" rejected"), err
    return lines[:-1]


def positions(out):
    return [[(lat, lng) for lng, lat in json.loads(line)["geometry"]["coordinates"]] for line in out.splitlines()]


@pytest.fixture
def polyline6(polyline):
    return [polyline.encode(route, 6) for route in ROUTES]


@pytest.mark.parametrize("command", [["decode"], ["decode", "--to", "latlng"], ["length", "--from", "polyline"],
                                     ["interpolate", "--from", "polyline", "--fraction", "0.5"]])
def test_polyline6_read_at_precision_5_is_told_once(polyline6, command):
    rc, out, err = run_full(command, "".join(p + "\n" for p in polyline6))
    assert (rc, out) == (65, b""), err
    lines = reported(err, command[0])
    reports = [l for l in lines if l.startswith(f"geo {command[0]}: <stdin>:")]
    assert [r.split(":")[2] for r in reports] == ["1", "2", "3"]
    assert all("decoded latitude" in r and "is outside [-90, 90]" in r for r in reports), err
    assert lines == [reports[0], PRECISION6.format(command=command[0]), *reports[1:]], err


def test_polyline6_in_a_field_and_as_json_strings_is_told(polyline6):
    records = "".join(json.dumps({"routes": 1, "geometry": p}) + "\n" for p in polyline6)
    rc, _, err = run_full(["decode", "--field", "geometry"], records)
    assert rc == 65 and reported(err, "decode").count(PRECISION6.format(command="decode")) == 1, err
    rc, _, err = run_full(["decode"], "".join(json.dumps(p) + "\n" for p in polyline6))
    assert rc == 65 and reported(err, "decode").count(PRECISION6.format(command="decode")) == 1, err


def test_the_hint_is_right(polyline6):
    rc, out, err = run_full(["decode", "--precision", "6"], "".join(p + "\n" for p in polyline6))
    assert (rc, err) == (0, "")
    assert positions(out) == ROUTES


def test_no_precision_hint_where_precision_6_does_not_fit_either(polyline):
    cases = [
        polyline.encode([(60.0, 170.0), (60.1, 200.0)], 6),   # a longitude of 200 at precision 6
        polyline.encode([(60.1699, 24.9384)], 7),             # precision 7: latitude 601.699 at 6
        "_p~iF~ps|U_ulLnnqC_mqNvxq`",                          # truncated: no precision fixes it
    ]
    for case in cases:
        rc, _, err = run_full(["decode"], case + "\n")
        assert rc == 65 and not any(": hint: " in l for l in err.splitlines()), (case, err)
    # Only the default precision is second-guessed: at 6 a polyline of precision 7 gets no hint.
    rc, _, err = run_full(["decode", "-p", "6"], polyline.encode([(60.1699, 24.9384)], 7) + "\n")
    assert rc == 65 and ": hint: " not in err, err


@pytest.fixture
def doubled(polyline):
    text = polyline.encode(LONDON_MADRID_SYDNEY, 5)
    assert text.endswith("\\") and text.count("\\") == 1
    return text.replace("\\", "\\\\")


@pytest.mark.parametrize("command", [["decode"], ["length", "--from", "polyline"]])
def test_doubled_backslashes_are_told_once(doubled, command):
    # A shell's or a JSON string's doubling, raw, and a JSON string literal of it (escaped twice).
    records = [doubled, json.dumps(doubled), doubled]
    rc, out, err = run_full(command, "".join(r + "\n" for r in records))
    assert (rc, out) == (65, b""), err
    lines = reported(err, command[0])
    assert len(lines) == 4 and lines[1] == BACKSLASHES.format(command=command[0]), err
    assert all(l.startswith(f"geo {command[0]}: <stdin>:") for l in lines[:1] + lines[2:]), err


def test_doubled_backslashes_of_a_polyline6_are_told_first(polyline, data):
    """Helsinki's OpenStreetMap roads as polyline6, those with backslashes doubled: the doubling
    is told (once it is undone, the precision is: the second hint)."""
    roads = [json.loads(line)["geometry"]["coordinates"] for line in (data / "helsinki-roads.geojsonl").read_text().splitlines()]
    texts = [polyline.encode([(lat, lng) for lng, lat in road], 6) for road in roads]
    doubled = [t.replace("\\", "\\\\") for t in texts if t.count("\\") % 2 == 1]
    assert len(doubled) > 20
    rc, _, err = run_full(["decode"], "".join(t + "\n" for t in doubled))
    lines = reported(err, "decode")
    assert rc == 65 and lines[1] == BACKSLASHES.format(command="decode") and len(lines) == len(doubled) + 1, err
    rc, _, err = run_full(["decode"], "".join(t.replace("\\\\", "\\") + "\n" for t in doubled))
    assert rc == 65 and reported(err, "decode")[1] == PRECISION6.format(command="decode"), err


def test_the_backslash_hint_is_right(doubled, polyline):
    # A polyline written as JSON is read as JSON: one backslash, nothing to tell.
    rc, out, err = run_full(["decode"], json.dumps(polyline.encode(LONDON_MADRID_SYDNEY, 5)) + "\n")
    assert (rc, err) == (0, "") and positions(out) == [LONDON_MADRID_SYDNEY]
    # The hint's printf undoes the doubling.
    fixed = subprocess.run(["printf", "%b\\n", doubled], capture_output=True, check=True).stdout
    rc, out, err = run_full(["decode"], fixed)
    assert (rc, err) == (0, "") and positions(out) == [LONDON_MADRID_SYDNEY]
