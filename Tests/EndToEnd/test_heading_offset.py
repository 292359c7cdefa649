"""`geo heading` and `geo offset` end to end, against independent oracles: android-maps-utils'
SphericalUtilTest vectors (computeHeading, computeOffset, computeOffsetOrigin, its nulls
included) with --sphere 6371009; GeographicLib (the python package's Geodesic for geodesics,
the RhumbSolve tool for rhumb lines) on a few hundred random inputs with poles, ±180 and nearly
antipodal points among them; pyproj's Web Mercator for --kind projected."""

import json
import math
import random
import subprocess

import pytest
from geographiclib.geodesic import Geodesic
from pyproj import Transformer

from conftest import dec, ndjson, run

R = 6371009  # kGMSEarthRadius, android-maps-utils' MathUtil.EARTH_RADIUS
SPHERE = ["--sphere", str(R)]
WGS84 = Geodesic.WGS84

# The octahedron of SphericalUtilTest, as (lat, lng).
UP, DOWN, FRONT, RIGHT, BACK, LEFT = (90, 0), (-90, 0), (0, 0), (0, 90), (0, -180), (0, -90)


def point(lat, lng, **properties):
    return {"type": "Feature", "properties": properties, "geometry": {"type": "Point", "coordinates": [lng, lat]}}


def line(*latlngs):
    return {"type": "LineString", "coordinates": [[lng, lat] for lat, lng in latlngs]}


def outputs(args, records):
    rc, out, err = run(args, ndjson(records))
    assert rc == 0, err
    return [json.loads(l) for l in out.splitlines()]


def angle_gap(a, b):
    """|a - b| as angles (degrees), whatever turn each is given in."""
    return abs(math.remainder(a - b, 360))


def assert_latlng_close(actual_lnglat, expected_latlng, tolerance=1e-6):
    """SphericalUtilTest's expectLatLngApproxEquals, longitudes compared modulo 360."""
    lng, lat = actual_lnglat
    assert abs(lat - expected_latlng[0]) <= tolerance, (actual_lnglat, expected_latlng)
    cos_lat = math.cos(math.radians(lat))
    assert abs(cos_lat * math.remainder(lng - expected_latlng[1], 360)) <= tolerance, (actual_lnglat, expected_latlng)


def geodesic_distance(a_lnglat, b_lnglat):
    return WGS84.Inverse(a_lnglat[1], a_lnglat[0], b_lnglat[1], b_lnglat[0])["s12"]


def rhumb_solve(lines, inverse=False):
    """RhumbSolve on WGS84, full precision; one tuple of numbers per line ('nan' kept)."""
    out = subprocess.run(["RhumbSolve", "-p", "12", *(["-i"] if inverse else [])], input="\n".join(lines) + "\n",
                         capture_output=True, text=True, check=True).stdout
    return [tuple(float(x) for x in l.split()) for l in out.splitlines()]


# --- SphericalUtilTest ---------------------------------------------------------------------

HEADING_VECTORS = [
    (UP, DOWN, -180), (DOWN, UP, 0),
    (FRONT, UP, 0), (RIGHT, UP, 0), (BACK, UP, 0), (DOWN, UP, 0),
    (FRONT, DOWN, -180), (RIGHT, DOWN, -180), (BACK, DOWN, -180), (LEFT, DOWN, -180),
    (RIGHT, FRONT, -90), (LEFT, FRONT, 90), (FRONT, RIGHT, 90), (BACK, RIGHT, -90),
]


def test_compute_heading_vectors():
    records = [line(a, b) for a, b, _ in HEADING_VECTORS]
    for record, (a, b, expected) in zip(outputs(["heading", *SPHERE], records), HEADING_VECTORS):
        [heading] = record["properties"]["headings"]
        assert 0 <= heading < 360
        assert angle_gap(heading, expected) <= 1e-6, (a, b, heading, expected)


QUARTER = math.pi * R / 2
OFFSET_VECTORS = [
    (FRONT, 0, 0, FRONT), (FRONT, QUARTER, 0, UP), (FRONT, QUARTER, 180, DOWN), (FRONT, QUARTER, -90, LEFT),
    (FRONT, QUARTER, 90, RIGHT), (FRONT, 2 * QUARTER, 0, BACK), (FRONT, 2 * QUARTER, 90, BACK),
    (LEFT, 0, 0, LEFT), (LEFT, QUARTER, 0, UP), (LEFT, QUARTER, 180, DOWN), (LEFT, QUARTER, 90, FRONT),
    (LEFT, QUARTER, -90, BACK), (LEFT, 2 * QUARTER, 0, RIGHT), (LEFT, 2 * QUARTER, 90, RIGHT),
]


@pytest.mark.parametrize("start, distance, heading, expected", OFFSET_VECTORS)
def test_compute_offset_vectors(start, distance, heading, expected):
    [record] = outputs(["offset", "--distance", distance, "--heading", heading, *SPHERE], [point(*start)])
    assert_latlng_close(record["geometry"]["coordinates"], expected)


ORIGIN_VECTORS = [
    ((0, 0), 0, 0, FRONT), ((0, 45), QUARTER / 2, 90, FRONT), ((0, -45), QUARTER / 2, -90, FRONT),
    ((45, 0), QUARTER / 2, 0, FRONT), ((-45, 0), QUARTER / 2, 180, FRONT),
]


@pytest.mark.parametrize("target, distance, heading, expected", ORIGIN_VECTORS)
def test_compute_offset_origin_vectors(target, distance, heading, expected):
    [record] = outputs(["offset", "--origin", "--distance", distance, "--heading", heading, *SPHERE], [point(*target)])
    assert_latlng_close(record["geometry"]["coordinates"], expected)


@pytest.mark.parametrize("sphere", [True, False])
def test_offset_origin_null_is_a_bad_record_between_good_ones(sphere):
    """computeOffsetOrigin's two nulls: 'over' the pole, and a distance that does not fit. On the
    ellipsoid there is no origin either: Newton finds none and says so."""
    figure = SPHERE if sphere else []
    for heading in (180, 90):
        records = [point(10, 10), point(80, 0), point(-10, 5)]
        rc, out, err = run(["offset", "--origin", "--distance", QUARTER / 2, "--heading", heading, *figure], ndjson(records))
        assert rc == 65
        assert [len(l) > 0 for l in out.splitlines()] == [True, True]
        assert err.strip().splitlines() == [f"geo offset: <stdin>:2: no position reaches [0, 80] travelling {dec(QUARTER / 2)} m at heading {heading}"]


def test_offset_and_back_to_origin():
    """SphericalUtilTest.testComputeOffsetAndBackToOrigin, and on WGS84 too."""
    cases = [((40, 40), 1e5, 15), ((40, 40), 1e5, -37), ((40, 40), 3.8e7, -37), ((-21, -73), 3.8e7, -37)]
    for figure in (SPHERE, []):
        for start, distance, heading in cases:
            args = ["--distance", distance, "--heading", heading, *figure]
            [moved] = outputs(["offset", *args], [point(*start)])
            [back] = outputs(["offset", "--origin", *args], [moved])
            if figure:
                assert_latlng_close(back["geometry"]["coordinates"], start)
            else:
                # Long geodesics on the ellipsoid may have another origin too: the one found
                # must lead there.
                [again] = outputs(["offset", *args], [back])
                assert geodesic_distance(again["geometry"]["coordinates"], moved["geometry"]["coordinates"]) < 1e-6


def test_offset_origin_with_many_solutions_leads_there():
    for target, distance, heading in [((0, 90), QUARTER, 90), ((90, 0), QUARTER / 2, 0)]:
        args = ["--distance", distance, "--heading", heading, *SPHERE]
        [origin] = outputs(["offset", "--origin", *args], [point(*target)])
        [arrived] = outputs(["offset", *args], [origin])
        assert_latlng_close(arrived["geometry"]["coordinates"], target)


# --- GeographicLib, random inputs ----------------------------------------------------------

def random_pairs(count, seed):
    """(lat1, lon1, lat2, lon2): random, with poles, ±180, repeated and nearly antipodal points."""
    rng = random.Random(seed)
    pairs = []
    for i in range(count):
        lat1, lon1 = rng.uniform(-90, 90), rng.uniform(-180, 180)
        lat2, lon2 = rng.uniform(-90, 90), rng.uniform(-180, 180)
        match i % 8:
            case 1: lat1 = rng.choice([90, -90])
            case 2: lon1, lon2 = rng.choice([180, -180]), rng.choice([180, -180])
            case 3: lat2, lon2 = -lat1 + rng.uniform(-0.5, 0.5), lon1 + 180 + rng.uniform(-0.5, 0.5)
            case 4: lat2, lon2 = lat1 + rng.uniform(-0.01, 0.01), lon1 + rng.uniform(-0.01, 0.01)
            case 5: lat2, lon2 = lat1, lon1 + rng.uniform(-170, 170)
        pairs.append((lat1, lon1, max(-90, min(90, lat2)), lon2))
    return pairs


def test_geodesic_headings_agree_with_geographiclib():
    pairs = random_pairs(400, 1) + [(10, 20, 10, 20), (90, 10, 90, -170), (0, 180, 0, -180)]
    records = [line((a, b), (c, d)) for a, b, c, d in pairs]
    for record, (lat1, lon1, lat2, lon2) in zip(outputs(["heading", "--final"], records), pairs):
        [initial], [final] = record["properties"]["headings"], record["properties"]["final_headings"]
        oracle = WGS84.Inverse(lat1, lon1, lat2, lon2)
        if oracle["s12"] == 0:
            assert initial is None and final is None
            continue
        assert 0 <= initial < 360 and 0 <= final < 360
        assert angle_gap(initial, oracle["azi1"]) <= 1e-9, (lat1, lon1, lat2, lon2, initial, oracle["azi1"])
        assert angle_gap(final, oracle["azi2"]) <= 1e-9, (lat1, lon1, lat2, lon2, final, oracle["azi2"])


def test_rhumb_headings_agree_with_rhumbsolve():
    pairs = [p for p in random_pairs(400, 2) if (p[0], p[1]) != (p[2], p[3])]
    records = [line((a, b), (c, d)) for a, b, c, d in pairs]
    oracle = rhumb_solve([f"{dec(a)} {dec(b)} {dec(c)} {dec(d)}" for a, b, c, d in pairs], inverse=True)
    for record, (azimuth, length, _), pair in zip(outputs(["heading", "--kind", "rhumb", "--final"], records), oracle, pairs):
        [initial], [final] = record["properties"]["headings"], record["properties"]["final_headings"]
        if length == 0:
            assert initial is None
            continue
        assert initial == final
        if 90 in (abs(pair[0]), abs(pair[2])):
            # RhumbSolve takes a pole as a latitude a rounding short of it, where a rhumb line
            # still turns round; geo as the limit, the meridian of the other end.
            assert initial == (0 if pair[2] > pair[0] else 180)
            continue
        assert angle_gap(initial, azimuth) <= 1e-9, (pair, initial, azimuth)


def test_projected_headings_are_web_mercator_grid_bearings():
    to_mercator = Transformer.from_crs("EPSG:4326", "EPSG:3857", always_xy=True)
    rng = random.Random(3)
    pairs = [(rng.uniform(-85, 85), rng.uniform(-180, 180), rng.uniform(-85, 85), rng.uniform(-180, 180)) for _ in range(200)]
    records = [line((a, b), (c, d)) for a, b, c, d in pairs]
    for record, (lat1, lon1, lat2, lon2) in zip(outputs(["heading", "--kind", "projected"], records), pairs):
        x1, y1 = to_mercator.transform(lon1, lat1)
        x2, y2 = to_mercator.transform(lon2, lat2)
        dx = math.remainder(x2 - x1, 2 * math.pi * 6378137)  # the short way across ±180
        expected = math.degrees(math.atan2(dx, y2 - y1)) % 360
        assert angle_gap(record["properties"]["headings"][0], expected) <= 1e-9


def offset_cases(count, seed):
    rng = random.Random(seed)
    cases = []
    for i, (lat, lon, _, _) in enumerate(random_pairs(count, seed)):
        distance = rng.choice([rng.uniform(0, 1e5), rng.uniform(0, 2.1e7), rng.uniform(1.99e7, 2.01e7)])
        cases.append((lat, lon, distance, rng.uniform(-360, 360)))
    return cases


def test_geodesic_offsets_agree_with_geographiclib():
    cases = offset_cases(300, 4)
    records = [point(lat, lon, d=d, h=h) for lat, lon, d, h in cases]
    for record, (lat, lon, d, h) in zip(outputs(["offset", "--distance", "@d", "--heading", "@h"], records), cases):
        lng2, lat2 = record["geometry"]["coordinates"]
        assert -180 <= lng2 <= 180
        oracle = WGS84.Direct(lat, lon, h, d)
        assert geodesic_distance([lng2, lat2], [oracle["lon2"], oracle["lat2"]]) <= 1e-3, (lat, lon, d, h)


def spherical_origin_exists(lat, distance, heading, radius=6371008.8):
    """Whether computeOffsetOrigin has an answer (its discriminant and latitude tests), on the
    sphere of the Earth's mean radius: written from its formula, not from geo's code."""
    angle = distance / radius
    n1, n2 = math.cos(angle), math.sin(angle) * math.cos(math.radians(heading))
    n4 = math.sin(math.radians(lat))
    discriminant = n1 * n1 * (n2 * n2 + n1 * n1 - n4 * n4)
    if discriminant < 0:
        return False
    a_b = [((n4 - n2 * b) / n1, b) for b in ((n2 * n4 + sign * math.sqrt(discriminant)) / (n1 * n1 + n2 * n2) for sign in (1, -1))]
    first_a = a_b[0][0]
    return any(abs(math.atan2(first_a, b)) <= math.pi / 2 for _, b in a_b)


def test_geodesic_origins_lead_to_the_position():
    """--origin on WGS84: GeographicLib's direct problem from the origin found arrives at the
    position (to 1 mm; the method's own bound is 1 µm). Where geo finds none, neither does
    computeOffsetOrigin on the sphere (random long distances at random headings often have none)."""
    cases = [c for c in offset_cases(300, 5) if abs(c[0]) != 90]
    records = [point(lat, lon, d=d, h=h) for lat, lon, d, h in cases]
    rc, out, err = run(["offset", "--origin", "--distance", "@d", "--heading", "@h"], ndjson(records))
    found = [json.loads(l) for l in out.splitlines()]
    reported = {int(l.split(":")[2]) for l in err.strip().splitlines()} if err.strip() else set()
    for number in reported:
        lat, _, d, h = cases[number - 1]
        assert not spherical_origin_exists(lat, d, h), cases[number - 1]
    good = [c for i, c in enumerate(cases, 1) if i not in reported]
    assert len(good) == len(found) >= 200 and rc == (65 if reported else 0)
    for record, (lat, lon, d, h) in zip(found, good):
        lng0, lat0 = record["geometry"]["coordinates"]
        assert -180 <= lng0 <= 180
        arrived = WGS84.Direct(lat0, lng0, h, d)
        assert geodesic_distance([arrived["lon2"], arrived["lat2"]], [lon, lat]) <= 1e-3, (lat, lon, d, h)


def test_rhumb_offsets_agree_with_rhumbsolve():
    cases = [(lat, lon, d / 4, h) for lat, lon, d, h in offset_cases(300, 6) if abs(lat) != 90]
    oracle = rhumb_solve([f"{dec(lat)} {dec(lon)} {dec(h)} {dec(d)}" for lat, lon, d, h in cases])
    records = [point(lat, lon, d=d, h=h) for lat, lon, d, h in cases]
    rc, out, err = run(["offset", "--kind", "rhumb", "--distance", "@d", "--heading", "@h"], ndjson(records))
    moved = iter(json.loads(l) for l in out.splitlines())
    bad = {int(l.split(":")[2]) for l in err.strip().splitlines()} if err.strip() else set()
    checked = 0
    for number, ((lat, lon, d, h), (lat2, lon2, _)) in enumerate(zip(cases, oracle), 1):
        if math.isnan(lon2):  # past a pole: RhumbSolve has no longitude, geo no record
            assert number in bad
            continue
        assert number not in bad
        lng, lat_ = next(moved)["geometry"]["coordinates"]
        assert geodesic_distance([lng, lat_], [lon2, lat2]) <= 1e-3, (lat, lon, d, h)
        checked += 1
    assert checked >= 200


def test_rhumb_origin_runs_the_line_backwards():
    cases = [(lat, lon, d / 4, h) for lat, lon, d, h in offset_cases(100, 7) if abs(lat) != 90]
    records = [point(lat, lon, d=d, h=h) for lat, lon, d, h in cases]
    rc, out, err = run(["offset", "--origin", "--kind", "rhumb", "--distance", "@d", "--heading", "@h"], ndjson(records))
    bad = {int(l.split(":")[2]) for l in err.strip().splitlines()} if err.strip() else set()
    found = iter(json.loads(l) for l in out.splitlines())
    good = [c for i, c in enumerate(cases, 1) if i not in bad]
    origins = [next(found)["geometry"]["coordinates"] for _ in good]
    oracle = rhumb_solve([f"{dec(lat0)} {dec(lng0)} {dec(h)} {dec(d)}" for (lng0, lat0), (_, _, d, h) in zip(origins, good)])
    for (lat2, lon2, _), (lat, lon, d, h) in zip(oracle, good):
        assert geodesic_distance([lon2, lat2], [lon, lat]) <= 1e-3
    assert len(good) >= 60


# --- shapes and records --------------------------------------------------------------------

def test_heading_lists_follow_the_parts_and_rings():
    square = [[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]
    geometries = [
        {"type": "MultiLineString", "coordinates": [[[0, 0], [0, 1]], [[5, 5], [5, 5], [6, 5]]]},
        {"type": "Polygon", "coordinates": [square, [[0.2, 0.2], [0.2, 0.4], [0.4, 0.4]]]},
        {"type": "MultiPolygon", "coordinates": [[square]]},
        {"type": "Point", "coordinates": [1, 2]},
        {"type": "GeometryCollection", "geometries": [{"type": "LineString", "coordinates": [[0, 0], [1, 0]]}, {"type": "Point", "coordinates": [0, 0]}]},
    ]
    records = outputs(["heading", "--kind", "rhumb"], geometries)
    h = [r["properties"]["headings"] for r in records]
    assert h[0] == [[0], [None, 90]]
    assert [len(ring) for ring in h[1]] == [4, 3]  # the open hole gets its closing segment
    assert h[1][0] == [90, 0, 270, 180]
    assert h[2] == [[[90, 0, 270, 180]]]
    assert h[3] == []
    assert h[4] == [[90], []]


def test_offset_keeps_the_geometry_and_moves_every_position():
    polygon = {"type": "Polygon", "coordinates": [[[179.99, 0], [-179.99, 0], [-179.99, 1], [179.99, 0]]]}
    [record] = outputs(["offset", "--distance", "2000", "--heading", "90"], [polygon])
    ring = record["geometry"]["coordinates"][0]
    assert record["geometry"]["type"] == "Polygon" and len(ring) == 4
    assert all(-180 <= lng <= 180 for lng, _ in ring)
    for (lng, lat), (lng0, lat0) in zip(ring, polygon["coordinates"][0]):
        oracle = WGS84.Direct(lat0, lng0, 90, 2000)
        assert geodesic_distance([lng, lat], [oracle["lon2"], oracle["lat2"]]) < 1e-6


def test_a_record_without_the_property_is_bad_and_the_others_flow(tmp_path):
    path = tmp_path / "points.ndjson"
    path.write_bytes(ndjson([point(1, 2, d=10), point(3, 4), point(5, 6, d="far"), point(7, 8, d=1)]))
    rc, out, err = run(["offset", "--distance", "@d", "--heading", "45", path])
    assert rc == 65
    assert len(out.splitlines()) == 2
    assert err.strip().splitlines() == [f"geo offset: {path}:2: properties.d is missing or not a number",
                                        f"geo offset: {path}:3: properties.d is missing or not a number"]


def test_rhumb_past_a_pole_is_a_bad_record():
    rc, out, err = run(["offset", "--kind", "rhumb", "--distance", "3000000", "--heading", "10"], ndjson([point(80, 0), point(10, 0)]))
    assert rc == 65 and len(out.splitlines()) == 1
    assert "reaches the north pole before 3000000 m" in err


@pytest.mark.parametrize("args, problem", [
    (["--distance", "10"], "give both --distance D and --heading H"),
    (["--distance", "x", "--heading", "1"], "option '--distance' takes a finite number or @NAME"),
    (["--distance", "@", "--heading", "1"], "name the property"),
])
def test_offset_usage_errors(args, problem):
    rc, out, err = run(["offset", *args], b"")
    assert rc == 64 and problem in err
