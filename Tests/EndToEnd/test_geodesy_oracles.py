"""Oracles for the geodesy tests (length, interpolate), and checks of the oracles themselves.

The reference implementations are GeographicLib's command-line tools (`GeodSolve`,
`RhumbSolve`, `Planimeter`, Debian package geographiclib-tools), pyproj (`Geod`, and the
EPSG:4326 -> EPSG:3857 Transformer) and the Python `geographiclib` package. A missing oracle
makes the tests FAIL, never skip: CI installs them (`make setup`).

GeographicLib's tools read angles as DMS and read `e` as a hemisphere letter, so every number
fed to them goes through `dec()`: the exact shortest decimal of the double, never in exponent
notation (`6e-05` would be read as 6 degrees East minus 5).

The helpers here are imported by test_geodesy_length.py and test_geodesy_interpolate.py; the
tests in this file check the oracles agree with each other and are fed correctly, so that a
failure in those suites points at geo, not at the harness.
"""

import json
import math
import random
import shutil
import subprocess
from decimal import Decimal

import pytest

from conftest import dec, run

# Tolerances (each stated under "Accuracy" in docs/algorithms.md).
GEODESIC_TOL = 1e-8      # m per edge, against GeodSolve / pyproj
RHUMB_TOL = 1e-7         # m per edge, against RhumbSolve (pole endpoints aside)
PROJECTED_REL = 1e-12    # relative, against pyproj EPSG:3857 coordinate differences
POINT_TOL = 1e-6         # m: interpolated points on their edge, at the requested distance

WGS84_A = 6378137.0
WGS84_F = 1 / 298.257223563
SF = (37.7749, -122.4194)    # (lat, lon)
NY = (40.7128, -74.0060)


# --- numbers for GeographicLib's tools ------------------------------------------------------

# dec (plain decimals, never exponent notation) lives in conftest.


def wrap_lon(lon: float) -> float:
    """Longitude reduced to [-180, 180] (exact: IEEE remainder)."""
    return math.remainder(float(lon), 360.0)


# --- GeographicLib tools ------------------------------------------------------------------

def _tool(name):
    exe = shutil.which(name)
    if exe is None:
        pytest.fail(
            f"the oracle `{name}` is missing: install the Debian package geographiclib-tools "
            "(make setup)",
            pytrace=False,
        )
    return exe


def _figure_args(figure):
    """GeographicLib's `-e a f` for a figure (a, f); None is WGS84."""
    if figure is None:
        return []
    a, f = figure
    return ["-e", dec(a), dec(f)]


def tool_lines(name, args, lines, *, per_line=True):
    """Run a GeographicLib tool on LINES (one query a line); its output lines, split."""
    exe = _tool(name)
    text = "".join(line + "\n" for line in lines)
    proc = subprocess.run([exe] + list(args), input=text, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, f"{name} {args} failed: {proc.stderr}"
    out = [line.split() for line in proc.stdout.splitlines()]
    for row in out:
        assert row and row[0] != "ERROR", f"{name} {args}: {row}"
    if per_line:
        assert len(out) == len(lines), f"{name}: {len(lines)} queries, {len(out)} answers"
    return out


def geod_inverse(edges, figure=None):
    """[(azi1, azi2, s12)] for edges [(lat1, lon1, lat2, lon2)] by `GeodSolve -i -p 10`."""
    if not edges:
        return []
    lines = [" ".join(dec(v) for v in (la1, wrap_lon(lo1), la2, wrap_lon(lo2)))
             for la1, lo1, la2, lo2 in edges]
    return [tuple(float(v) for v in row[:3])
            for row in tool_lines("GeodSolve", ["-i", "-p", "10"] + _figure_args(figure), lines)]


def geod_dist(edges, figure=None):
    return [r[2] for r in geod_inverse(edges, figure)]


def geod_direct(queries, figure=None):
    """[(lat2, lon2)] for [(lat1, lon1, azi1, s12)] by `GeodSolve -p 10`."""
    if not queries:
        return []
    lines = [" ".join(dec(v) for v in (la, wrap_lon(lo), az, s)) for la, lo, az, s in queries]
    return [(float(r[0]), float(r[1]))
            for r in tool_lines("GeodSolve", ["-p", "10"] + _figure_args(figure), lines)]


def rhumb_inverse(edges, figure=None):
    """[(azi12, s12)] for edges [(lat1, lon1, lat2, lon2)] by `RhumbSolve -i -p 10`."""
    if not edges:
        return []
    lines = [" ".join(dec(v) for v in (la1, wrap_lon(lo1), la2, wrap_lon(lo2)))
             for la1, lo1, la2, lo2 in edges]
    return [(float(r[0]), float(r[1]))
            for r in tool_lines("RhumbSolve", ["-i", "-p", "10"] + _figure_args(figure), lines)]


def rhumb_direct(queries, figure=None):
    """[(lat2, lon2)] for [(lat1, lon1, azi12, s12)] by `RhumbSolve -p 10`."""
    if not queries:
        return []
    lines = [" ".join(dec(v) for v in (la, wrap_lon(lo), az, s)) for la, lo, az, s in queries]
    return [(float(r[0]), float(r[1]))
            for r in tool_lines("RhumbSolve", ["-p", "10"] + _figure_args(figure), lines)]


def planimeter(rings, *, rhumb=False, figure=None):
    """[(n, perimeter, area)] of each ring [(lat, lon), ...] by `Planimeter -p 10`.

    Planimeter closes each polygon itself, so a ring given closed (last = first) is fed
    without its closing point."""
    lines = []
    for ring in rings:
        pts = list(ring)
        if len(pts) > 1 and pts[0] == pts[-1]:
            pts = pts[:-1]
        assert pts, "Planimeter needs at least one point a ring"
        if lines:
            lines.append("")
        lines += [f"{dec(la)} {dec(wrap_lon(lo))}" for la, lo in pts]
    args = ["-p", "10"] + (["-R"] if rhumb else []) + _figure_args(figure)
    out = tool_lines("Planimeter", args, lines, per_line=False)
    assert len(out) == len(rings), f"Planimeter: {len(rings)} rings, {len(out)} answers"
    return [(int(r[0]), float(r[1]), float(r[2])) for r in out]


# --- pyproj and geographiclib --------------------------------------------------------------

def pyproj_mod():
    try:
        import pyproj  # noqa: PLC0415
    except ImportError:
        pytest.fail("the oracle `pyproj` is missing (pip install pyproj; make setup)", pytrace=False)
    return pyproj


def geographiclib_geodesic(figure=None):
    try:
        from geographiclib.geodesic import Geodesic  # noqa: PLC0415
    except ImportError:
        pytest.fail("the oracle `geographiclib` is missing (pip install geographiclib; make setup)",
                    pytrace=False)
    if figure is None:
        return Geodesic.WGS84
    return Geodesic(*figure)


def pyproj_geod(figure=None):
    pyproj = pyproj_mod()
    if figure is None:
        return pyproj.Geod(ellps="WGS84")
    a, f = figure
    return pyproj.Geod(a=a, f=f)


def figure_of(ellps):
    """(a, f) of a PROJ ellipsoid name, from PROJ itself (through pyproj)."""
    g = pyproj_mod().Geod(ellps=ellps)
    return (g.a, g.f)


_MERC = None


def merc_forward(points):
    """[(x, y)] in EPSG:3857 for [(lat, lon)], by pyproj (the longitude reduced first)."""
    global _MERC
    if _MERC is None:
        pyproj = pyproj_mod()
        _MERC = (pyproj.Transformer.from_crs(4326, 3857, always_xy=True),
                 pyproj.Transformer.from_crs(3857, 4326, always_xy=True))
    if not points:
        return []
    lons = [wrap_lon(lo) for _, lo in points]
    lats = [la for la, _ in points]
    xs, ys = _MERC[0].transform(lons, lats)
    return list(zip(map(float, xs), map(float, ys)))


def merc_inverse(xys):
    """[(lat, lon)] for EPSG:3857 [(x, y)], by pyproj."""
    merc_forward([(0.0, 0.0)])
    if not xys:
        return []
    lons, lats = _MERC[1].transform([x for x, _ in xys], [y for _, y in xys])
    return list(zip(map(float, lats), map(float, lons)))


def merc_dx(x1, x2, a=WGS84_A):
    """x2 - x1 the short way across the antimeridian (wrapped by 2*pi*a)."""
    return math.remainder(x2 - x1, 2 * math.pi * a)


def merc_edge_len(p, q):
    """Web Mercator length of the straight edge between two (x, y) points."""
    return math.hypot(merc_dx(p[0], q[0]), q[1] - p[1])


def merc_tol(length, *xys, lats=(), a=WGS84_A):
    """Projected tolerance: relative 1e-12, with a floor of a few units in the last place of
    the largest coordinate (the oracle's own differences of large coordinates carry that).

    LATS are the latitudes of the points pyproj projected: pyproj converts degrees to radians
    before tan(), which costs a*ulp(phi)/cos(phi) in y near the poles (0.14 mm at 89.9997
    degrees, relative 2e-12); that much of the oracle's own error is allowed on top. The
    well-conditioned `merc_y()` has no such term."""
    big = max([a * math.pi] + [max(abs(x), abs(y)) for x, y in xys])
    cond = math.fsum(4 * a * math.ulp(math.pi / 2) / max(cosd(lat), 1e-300) for lat in lats)
    return PROJECTED_REL * length + 8 * math.ulp(big) + cond


def cosd(lat):
    """cos of an angle in degrees, reduced in degrees first (exact near +-90)."""
    lat = abs(float(lat))
    if lat > 45:
        return math.sin(math.radians(90.0 - lat))     # 90 - lat is exact here (Sterbenz)
    return math.cos(math.radians(lat))


def sind(lat):
    lat = float(lat)
    if abs(lat) > 45:
        return math.copysign(math.cos(math.radians(90.0 - abs(lat))), lat)
    return math.sin(math.radians(lat))


def merc_y(lat, a=WGS84_A):
    """Web Mercator y = a*asinh(tan(phi)), with sin and cos reduced in degrees first
    (docs/algorithms.md, "Angles and longitudes"); within 5e-16 relative of a 50-digit
    evaluation, poles included."""
    return a * math.asinh(sind(lat) / cosd(lat))


def merc_x(lon, a=WGS84_A):
    return a * math.radians(wrap_lon(lon))


# --- geo output ---------------------------------------------------------------------------

def no_dup_keys(pairs):
    keys = [k for k, _ in pairs]
    assert len(keys) == len(set(keys)), f"duplicate JSON keys: {keys}"
    return dict(pairs)


def parse_records(out: bytes):
    """geo's NDJSON output as a list of dicts (duplicate keys fail the test)."""
    text = out.decode("utf-8")
    assert text == "" or text.endswith("\n"), "output must end with a newline"
    return [json.loads(line, object_pairs_hook=no_dup_keys) for line in text.splitlines()]


def geo_ok(args, records):
    """Run geo on records (dicts), expect exit 0 and no stderr; the parsed output records."""
    data = "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records)
    rc, out, err = run(args, data)
    assert (rc, err) == (0, ""), f"geo {' '.join(map(str, args))}: exit {rc}: {err[:2000]}"
    recs = parse_records(out)
    assert len(recs) == len(records)
    return recs


def line_string(lonlats, **props):
    return {"type": "Feature", "properties": props,
            "geometry": {"type": "LineString", "coordinates": [list(p) for p in lonlats]}}


def edges_of(lonlats, closed=False):
    """[(lat1, lon1, lat2, lon2)] of a path of [lon, lat] positions."""
    pts = list(lonlats)
    if closed and len(pts) > 1 and pts[0] != pts[-1]:
        pts = pts + [pts[0]]
    return [(p[1], p[0], q[1], q[0]) for p, q in zip(pts, pts[1:])]


# --- random paths -----------------------------------------------------------------------

def _lat_uniform(rng):
    return math.degrees(math.asin(rng.uniform(-1.0, 1.0)))


def _clamp_lat(lat):
    return max(-89.9999999, min(89.9999999, lat))


def random_path(rng, style=None):
    """A path of 2..30 [lon, lat] positions, in one of several hard styles. No latitude is
    exactly +-90 (pole endpoints are tested on their own)."""
    style = style or rng.choice(
        ["global", "polar", "antimeridian", "tiny", "huge", "rounded", "wrapped", "local", "mixed"])
    n = rng.randint(2, 30)
    pts = []
    if style == "global":
        pts = [[rng.uniform(-180, 180), _lat_uniform(rng)] for _ in range(n)]
    elif style == "polar":
        sign = rng.choice([-1, 1])
        for _ in range(n):
            lat = sign * (90 - rng.uniform(1e-7, 1.0) ** 3 * 2)
            pts.append([rng.uniform(-180, 180), _clamp_lat(lat)])
    elif style == "antimeridian":
        lat = rng.uniform(-70, 70)
        for i in range(n):
            side = 1 if i % 2 == 0 else -1
            lat = max(-80, min(80, lat + rng.uniform(-3, 3)))
            pts.append([side * (180 - rng.uniform(0, 2) ** 2), lat])
    elif style == "tiny":
        lon, lat = rng.uniform(-180, 180), rng.uniform(-89, 89)
        for _ in range(n):
            pts.append([lon, lat])
            lon += rng.uniform(-1e-6, 1e-6)
            lat += rng.uniform(-1e-6, 1e-6)
    elif style == "huge":
        lon, lat = rng.uniform(-180, 180), rng.uniform(-80, 80)
        for _ in range(n):
            pts.append([wrap_lon(lon), lat])
            lon = lon + 180 + rng.uniform(-1.5, 1.5)
            lat = max(-89.5, min(89.5, -lat + rng.uniform(-1.5, 1.5)))
    elif style == "rounded":
        pts = [[round(rng.uniform(-180, 180), 5), round(_lat_uniform(rng), 5)] for _ in range(n)]
    elif style == "wrapped":
        # Longitudes outside [-180, 180] are taken modulo 360 (docs/records.md, "Input").
        pts = [[rng.uniform(-180, 180) + 360 * rng.choice([-2, -1, 1, 2]), _lat_uniform(rng)]
               for _ in range(n)]
    elif style == "local":
        lon, lat = rng.uniform(-180, 180), rng.uniform(-85, 85)
        for _ in range(n):
            pts.append([wrap_lon(lon), lat])
            lon += rng.uniform(-0.02, 0.02)
            lat = _clamp_lat(lat + rng.uniform(-0.02, 0.02))
    else:  # mixed: repeated points, exact east-west and north-south edges, big and small steps
        lon, lat = rng.uniform(-180, 180), rng.uniform(-80, 80)
        for _ in range(n):
            pts.append([wrap_lon(lon), lat])
            r = rng.random()
            if r < 0.2:
                pass                                        # zero-length edge
            elif r < 0.4:
                lon += rng.uniform(-90, 90)                 # exactly east-west
            elif r < 0.6:
                lat = max(-89, min(89, lat + rng.uniform(-20, 20)))   # exactly north-south
            elif r < 0.8:
                lon += rng.uniform(-1e-5, 1e-5)
            else:
                lon, lat = rng.uniform(-180, 180), _lat_uniform(rng)
    return pts


# --- the oracles themselves -----------------------------------------------------------------

def test_dec_never_writes_exponents():
    assert dec(6e-05) == "0.00006"
    assert dec(1e-12) == "0.000000000001"
    assert dec(-1.5e-300).startswith("-0.000")
    assert dec(1e22) == "10000000000000000000000"
    assert float(dec(0.1 + 0.2)) == 0.1 + 0.2
    assert dec(-0.0) == "-0.0"


def test_oracles_are_installed():
    for name in ("GeodSolve", "RhumbSolve", "Planimeter"):
        _tool(name)
    pyproj_mod()
    geographiclib_geodesic()


def test_geodsolve_reads_plain_decimals_exactly():
    # 6e-05 through dec() is 0.00006 degrees of longitude, about 6.68 m on the equator;
    # the raw string "6e-05" would be read as a hemisphere letter (6 E, then -5).
    s_plain = geod_dist([(0.0, 0.0, 0.0, 6e-05)])[0]
    assert s_plain == pytest.approx(6.679169447, abs=1e-8)
    # A 1e-12 degree step survives the trip (about 1.1e-7 m).
    s_tiny = geod_dist([(10.0, 20.0, 10.0 + 1e-12, 20.0)])[0]
    assert s_tiny == pytest.approx(1.1063e-7, rel=1e-3)


def test_geodsolve_and_pyproj_agree():
    g = pyproj_geod()
    edges = [(37.7749, -122.4194, 40.7128, -74.006), (0.0, 0.0, 0.5, 179.5),
             (-30.0, 0.0, 29.9, 179.8), (89.9, 10.0, -89.9, 11.0), (1e-9, 179.9999999, 0.0, -179.9)]
    for (la1, lo1, la2, lo2), s in zip(edges, geod_dist(edges)):
        _, _, s2 = g.inv(lo1, la1, lo2, la2)
        assert abs(s - s2) <= GEODESIC_TOL


def test_rhumbsolve_round_trip():
    edges = [(10.0, 0.0, 10.000000000001, 1.0), (45.0, 170.0, 46.0, -170.0), (89.9, 0.0, 89.9, 179.0)]
    inv = rhumb_inverse(edges)
    back = rhumb_direct([(e[0], e[1], az, s) for e, (az, s) in zip(edges, inv)])
    for e, (la, lo) in zip(edges, back):
        assert la == pytest.approx(e[2], abs=1e-12)
        assert abs(math.remainder(lo - e[3], 360)) < 1e-9


def test_planimeter_perimeter_is_the_geodesic_ring():
    ring = [(0.0, 0.0), (0.0, 1.0), (1.0, 1.0)]
    n, perim, _ = planimeter([ring])[0]
    closed = ring + [ring[0]]
    s = math.fsum(geod_dist([(p[0], p[1], q[0], q[1]) for p, q in zip(closed, closed[1:])]))
    assert n == 3
    assert abs(perim - s) <= 3 * GEODESIC_TOL


def test_pyproj_web_mercator_is_the_formula():
    for lat, lon in [(0.0, 0.0), (45.0, 90.0), (-85.0511287798, -180.0), (89.9, 179.999)]:
        x, y = merc_forward([(lat, lon)])[0]
        assert x == pytest.approx(WGS84_A * math.radians(lon), rel=1e-15, abs=1e-9)
        assert y == pytest.approx(WGS84_A * math.asinh(math.tan(math.radians(lat))), rel=1e-13,
                                  abs=1e-9)


def test_merc_y_is_pyproj_away_from_the_poles_and_better_near_them():
    rng = random.Random(7)
    for _ in range(2000):
        lat = rng.uniform(-85, 85)
        _, y = merc_forward([(lat, 0.0)])[0]
        assert abs(merc_y(lat) - y) <= 4 * math.ulp(max(abs(y), 1.0)) + 1e-9
    # Near the pole pyproj loses a*ulp/cos(phi); merc_y keeps the exact value
    # (y(89.99974205552888) = 82942188.84734236 m to 50 digits).
    assert merc_y(89.99974205552888) == pytest.approx(82942188.84734236, abs=2e-8)
    _, y = merc_forward([(89.99974205552888, 0.0)])[0]
    assert abs(y - 82942188.84734236) <= merc_tol(0.0, (0.0, y), lats=(89.99974205552888,))


def test_random_paths_are_reproducible():
    a = [random_path(random.Random(5)) for _ in range(3)]
    b = [random_path(random.Random(5)) for _ in range(3)]
    assert a == b
