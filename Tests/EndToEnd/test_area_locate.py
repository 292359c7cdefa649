"""`geo area` and `geo locate` end to end, against independent oracles: GeographicLib's
Planimeter (geodesic, -R rhumb), pyproj for Web Mercator, a brute-force minimisation along each
edge (Tests/oracles/nearest_point.py: python geographiclib and RhumbSolve), and, for what
`--shapes` finds, a brute force over every shape (`--point` against each, no index)."""

import json
import math
import random
import subprocess
import sys

import pytest
from pyproj import Transformer

from conftest import REPO, dec, geo_bin, ndjson, run

# The Maps SDK shapes guide's hollow polygon (Hyde Park, Sydney, two holes, every ring clockwise),
# as the guide gives it: encoded paths.
HYDE_PARK = ["tpwmEkd|y[QVe@Pk@BsHe@mGc@iNaAKMaBIYIq@qAMo@Eo@@[Fe@DoALu@HUb@c@XUZS^ELGxOhAd@@ZB`@J^BhFRlBN\\BZ@`AFrATAJAR?rAE\\C~BIpD",
             "tlvmEqq|y[NNCXSJQOB[TI",
             "bewmEwk|y[Dm@zAPEj@{AO"]
SPHERE = ["--sphere", "6371009"]


def decode(text):
    rc, out, err = run(["decode"], text + "\n")
    assert rc == 0, err
    return json.loads(out)["geometry"]["coordinates"]


def hyde_park():
    return {"type": "Polygon", "coordinates": [decode(p) for p in HYDE_PARK]}


def areas(args, geometries):
    rc, out, err = run(["area", "--signed", *args], ndjson(geometries))
    assert rc == 0, err
    return [(json.loads(l)["properties"]["area_m2"], json.loads(l)["properties"]["signed_area_m2"]) for l in out.splitlines()]


def planimeter(rings, extra=()):
    """Planimeter's signed area of each ring (counter-clockwise positive)."""
    text = "".join("".join(f"{dec(lat)} {dec(lon)}\n" for lon, lat in ring) + "\n" for ring in rings)
    out = subprocess.run(["Planimeter", "-p", "10", *extra], input=text, capture_output=True, text=True, check=True).stdout
    return [float(l.split()[2]) for l in out.splitlines() if l.strip()]


def tolerance(area):
    return 0.1 + 1e-9 * abs(area)


# --- area --------------------------------------------------------------------------------------

def test_the_maps_sdk_hollow_polygon():
    polygon = hyde_park()
    for ring in polygon["coordinates"]:  # every ring clockwise, as in the guide
        assert planimeter([ring])[0] < 0
    (area, signed), = areas([], [polygon])
    assert abs(area - 178_056.5) < 0.1, area
    assert signed < 0 and abs(signed - sum(planimeter(polygon["coordinates"]))) < 0.01
    (area, _), = areas(SPHERE, [polygon])
    assert abs(area - 178_112.9) < 0.1, area
    # Holes subtract whatever the winding: RFC 7946 winding gives the same area.
    reverse = {"type": "Polygon", "coordinates": [r[::-1] for r in polygon["coordinates"]]}
    assert abs(areas([], [reverse])[0][0] - 178_056.5) < 0.1


def random_ring(rng, lat=None, lon=None, size=None):
    lat = rng.uniform(-80, 80) if lat is None else lat
    lon = rng.uniform(-180, 180) if lon is None else lon
    size = size or rng.choice([0.01, 0.3, 3, 20])
    n = rng.randint(3, 9)
    angles = sorted(rng.uniform(0, 2 * math.pi) for _ in range(n))
    ring = [[lon + size * rng.uniform(0.3, 1) * math.cos(t), max(-89.9, min(89.9, lat + size * rng.uniform(0.3, 1) * math.sin(t)))]
            for t in angles]
    if rng.random() < 0.5:
        ring.reverse()
    return [[(x + 180) % 360 - 180, y] for x, y in ring]


@pytest.mark.parametrize("kind,extra", [("geodesic", []), ("rhumb", ["-R"])])
@pytest.mark.parametrize("earth", ["WGS84", "sphere"])
def test_rings_against_planimeter(kind, extra, earth):
    rng = random.Random(f"area-{kind}-{earth}")
    rings = [random_ring(rng) for _ in range(60)]
    rings += [random_ring(rng, lon=179.9, size=2) for _ in range(10)]          # across the antimeridian
    rings += [[[lon, 85.0] for lon in range(-180, 180, 40)]]                  # around the north pole
    rings += [[[lon, -80.0] for lon in range(180, -180, -30)]]                # around the south pole
    earth_args = SPHERE if earth == "sphere" else []
    oracle_args = ["-e", "6371009", "0"] if earth == "sphere" else []
    got = areas(["--kind", kind, *earth_args], [{"type": "Polygon", "coordinates": [r]} for r in rings])
    expected = planimeter(rings, [*extra, *oracle_args])
    for (area, signed), want, ring in zip(got, expected, rings):
        assert abs(signed - want) <= tolerance(want), (ring, signed, want)
        assert area == abs(signed)


# GeographicLib's own Planimeter test cases (geographiclib-python's test_geodesic.py,
# test_Planimeter5, 6, 12 and 13: [lat, lon] rings, the published areas), where an edge's
# longitude difference rounds to exactly 180 degrees or a ring winds round the pole twice.
PLANIMETER_CASES = [
    ([[89, 0.1], [89, 90.1], [89, -179.9]], 12476152838.5),
    ([[9, -0.00000000000001], [9, 180], [9, 0]], 0),
    ([[9, 0.00000000000001], [9, 0], [9, 180]], 0),
    ([[9, 0.00000000000001], [9, 180], [9, 0]], 0),
    ([[9, -0.00000000000001], [9, 0], [9, 180]], 0),
    ([[66.562222222, 0], [66.562222222, 180]], 0),
    ([[89, -360], [89, -240], [89, -120], [89, 0], [89, 120], [89, 240]], 32415230256.0),
]


@pytest.mark.parametrize("ring,expected", PLANIMETER_CASES)
def test_geographiclib_planimeter_cases(ring, expected):
    polygon = {"type": "Polygon", "coordinates": [[[lon, lat] for lat, lon in ring] + [[ring[0][1], ring[0][0]]]]}
    [(area, signed)] = areas([], [polygon])
    assert abs(area - expected) <= 1, (area, expected)
    # Containment agrees with the area: a point well inside the first ring (its vertices'
    # centroid direction from the pole) is inside exactly when the area is not the complement.
    if expected > 1e9:
        inside = locate_point([45.1, 89.5] if len(ring) == 3 else [0, 89.9], [polygon])[0]["inside"]
        assert inside


def test_projected_is_the_planar_web_mercator_area():
    to3857 = Transformer.from_crs("EPSG:4326", "EPSG:3857", always_xy=True)
    rng = random.Random("area-projected")
    rings = [random_ring(rng, lon=rng.uniform(-170, 170), size=1) for _ in range(40)]
    got = areas(["--kind", "projected"], [{"type": "Polygon", "coordinates": [r]} for r in rings])
    for (area, signed), ring in zip(got, rings):
        xy = [to3857.transform(lon, lat) for lon, lat in ring]
        shoelace = sum(x1 * y2 - x2 * y1 for (x1, y1), (x2, y2) in zip(xy, xy[1:] + xy[:1])) / 2
        assert abs(signed - shoelace) <= 1e-9 * abs(shoelace) + 1e-3, (signed, shoelace)


def test_lines_close_multis_sum_and_degenerate_rings_are_zero():
    ring = [[0, 0], [0.01, 0], [0.01, 0.01], [0, 0.01]]
    (polygon, _), = areas([], [{"type": "Polygon", "coordinates": [ring]}])
    got = areas([], [{"type": "LineString", "coordinates": ring},
                     {"type": "MultiPolygon", "coordinates": [[ring], [[[x + 1, y] for x, y in ring]]]},
                     {"type": "LineString", "coordinates": [[0, 0], [1, 1], [0, 0]]},
                     {"type": "Point", "coordinates": [0, 0]}])
    assert got[0][0] == polygon
    assert abs(got[1][0] - 2 * polygon) < 1e-6
    assert got[2] == (0, 0) and got[3] == (0, 0)


def test_area_bad_input():
    rc, out, err = run(["area", "--kind", "projected"], ndjson([{"type": "Polygon", "coordinates": [[[0, 90], [1, 80], [2, 80], [0, 90]]]},
                                                               {"type": "Point", "coordinates": [0, 0]}]))
    assert rc == 65 and len(out.splitlines()) == 1 and "<stdin>:1:" in err
    rc, _, err = run(["area", "--signed", "--field", "signed_area_m2"], b"")
    assert rc == 64


# --- locate --point ----------------------------------------------------------------------------

def oracle(cases, earth=(6378137, 1 / 298.257223563)):
    payload = {"a": earth[0], "f": earth[1], "cases": cases}
    out = subprocess.run([sys.executable, str(REPO / "Tests" / "oracles" / "nearest_point.py")],
                         input=json.dumps(payload), capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def locate_point(point, shapes, args=()):
    rc, out, err = run(["locate", "--point", f"{dec(point[1])},{dec(point[0])}", *args], ndjson(shapes))
    assert rc == 0, err
    return [json.loads(l)["properties"]["locate"] for l in out.splitlines()]


def test_projected_nearest_point_takes_each_edge_the_short_way():
    """With --kind projected, an edge from 179.96 to -179.45 spans 0.59 degrees of the Web
    Mercator plane, not the rest of the world: the nearest point is on the nearest edge, its
    planar distance as pyproj's Web Mercator gives it."""
    ring = [[-179.45, 51.6], [-179.45, 52.2], [-180.04, 51.9035], [-179.45, 51.6]]
    [got] = locate_point([179.99, 51.9], [{"type": "Polygon", "coordinates": [ring]}], ["--kind", "projected"])
    to_mercator = Transformer.from_crs("EPSG:4326", "EPSG:3857", always_xy=True)

    def mercator(lon, lat):  # x unwrapped (pyproj would wrap -180.04 to the far side), y from pyproj
        return 6378137 * math.radians(lon), to_mercator.transform(0, lat)[1]
    px, py = mercator(179.99 - 360, 51.9)
    best = math.inf
    for (lon1, lat1), (lon2, lat2) in zip(ring, ring[1:]):
        (x1, y1), (x2, y2) = mercator(lon1, lat1), mercator(lon2, lat2)
        t = max(0, min(1, ((px - x1) * (x2 - x1) + (py - y1) * (y2 - y1)) / ((x2 - x1) ** 2 + (y2 - y1) ** 2)))
        best = min(best, math.hypot(px - x1 - t * (x2 - x1), py - y1 - t * (y2 - y1)))
    assert got["edge"] == 2
    assert abs(got["distance_m"] - best) < 1e-6 * best, (got, best)


@pytest.mark.parametrize("kind", ["geodesic", "rhumb"])
def test_nearest_point_against_a_brute_force(kind):
    rng = random.Random(f"locate-{kind}")
    cases, shapes, points = [], [], []
    for _ in range(25):
        a = [rng.uniform(-170, 170), rng.uniform(-70, 70)]
        b = [a[0] + rng.uniform(-8, 8), max(-85, min(85, a[1] + rng.uniform(-8, 8)))]
        p = [a[0] + rng.uniform(-10, 10), max(-85, min(85, a[1] + rng.uniform(-10, 10)))]
        shapes.append({"type": "LineString", "coordinates": [a, b]})
        points.append(p)
    got = []
    for p, shape in zip(points, shapes):
        got += locate_point(p, [shape], ["--kind", kind])
    for (a, b), p, g in zip([s["coordinates"] for s in shapes], points, got):
        cases.append({"kind": kind, "a": [a[1], a[0]], "b": [b[1], b[0]], "p": [p[1], p[0]], "along": g["along_m"]})
    for g, o in zip(got, oracle(cases)):
        assert abs(g["distance_m"] - o["distance"]) < 1e-3, (g, o)
        assert g["distance_m"] <= o["distance"] + 1e-6


@pytest.mark.parametrize("kind", ["geodesic", "rhumb"])
def test_long_paths_skip_no_edge_that_is_nearest(kind):
    """Paths of long edges (up to 2,000 km), where geo skips edges by a lower bound (a chord less
    a sagitta): the distance must still be the least over every edge, each solved by the
    brute-force oracle."""
    rng = random.Random(f"long-{kind}")
    paths, points = [], []
    for _ in range(12):
        lat, lon = rng.uniform(-60, 60), rng.uniform(-180, 180)
        path = [[lon, lat]]
        for _ in range(5):
            lon, lat = lon + rng.uniform(-15, 15), max(-80, min(80, lat + rng.uniform(-12, 12)))
            path.append([(lon + 180) % 360 - 180, lat])
        paths.append({"type": "LineString", "coordinates": path})
        anchor = path[rng.randrange(len(path))]
        points.append([anchor[0] + rng.uniform(-3, 3), max(-85, min(85, anchor[1] + rng.uniform(-3, 3)))])
    cases, owners = [], []
    for index, (shape, p) in enumerate(zip(paths, points)):
        for a, b in zip(shape["coordinates"], shape["coordinates"][1:]):
            cases.append({"kind": kind, "a": [a[1], a[0]], "b": [b[1], b[0]], "p": [p[1], p[0]], "along": 0})
            owners.append(index)
    best = [math.inf] * len(paths)
    for owner, answer in zip(owners, oracle(cases)):
        best[owner] = min(best[owner], answer["distance"])
    for index, (shape, p) in enumerate(zip(paths, points)):
        (got,) = locate_point(p, [shape], ["--kind", kind])
        assert abs(got["distance_m"] - best[index]) < 1e-3, (index, got, best[index])


def test_fields_of_a_path_and_a_polygon():
    path = {"type": "LineString", "coordinates": [[0, 0], [1, 0], [1, 1]]}
    (loc,) = locate_point([1.0, 0.5], [path])
    assert loc["edge"] == 1 and loc["on_path"] and loc["distance_m"] < 1e-6
    assert abs(loc["along_m"] - (111319.49079327357 + 55287.8)) < 1  # 1° of equator + half a degree of meridian
    assert "inside" not in loc
    square = {"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]],
                                                 [[0.4, 0.4], [0.6, 0.4], [0.6, 0.6], [0.4, 0.6], [0.4, 0.4]]]}
    inside, in_hole, outside = locate_point([0.2, 0.2], [square]), locate_point([0.5, 0.5], [square]), locate_point([2, 2], [square])
    assert inside[0]["inside"] and not in_hole[0]["inside"] and not outside[0]["inside"]
    assert in_hole[0]["edge"] >= 4  # a hole's edges count after the outer ring's
    (edge,) = locate_point([0.5, 0], [square])
    assert edge["inside"] and edge["on_path"]  # the boundary is inside


def test_digits_round_the_nearest_point(tmp_path):
    """--digits rounds the coordinates geo computes (the nearest point), as every command's; the
    record's own geometry is passed through as it came."""
    path = {"type": "LineString", "coordinates": [[2.1111111111, 48.1111111111], [2.9999999999, 48.9999999999]]}
    whole, rounded = locate_point([2.5, 48.5], [path]), locate_point([2.5, 48.5], [path], ["--digits", "4"])
    assert rounded[0]["point"] == [round(c, 4) for c in whole[0]["point"]] and whole[0]["point"] != rounded[0]["point"]
    (tmp_path / "shapes.ndjson").write_bytes(ndjson([{"type": "Feature", "properties": {}, "geometry": path}]))
    point = {"type": "Feature", "properties": {}, "geometry": {"type": "Point", "coordinates": [2.123456789, 48.987654321]}}
    rc, out, err = run(["locate", "--shapes", tmp_path / "shapes.ndjson", "--digits", "3"], ndjson([point]))
    assert rc == 0, err
    record = json.loads(out)
    assert record["geometry"]["coordinates"] == [2.123456789, 48.987654321]
    assert all(c == round(c, 3) for c in record["properties"]["locate"][0]["point"])


def test_inside_follows_the_edge_kind():
    # A long east-west edge at 60° N: the geodesic bulges poleward of the parallel (the rhumb line).
    ring = [[-40, 60], [40, 60], [40, 50], [-40, 50], [-40, 60]]
    polygon = {"type": "Polygon", "coordinates": [ring]}
    point = [0, 62]  # north of the parallel, south of the geodesic's vertex (about 64.5° N)
    assert locate_point(point, [polygon], ["--kind", "geodesic"])[0]["inside"]
    assert not locate_point(point, [polygon], ["--kind", "rhumb"])[0]["inside"]


def test_sphere_reproduces_the_maps_sdk_on_path():
    # GMSGeometryIsLocationOnPath with the SDK's sphere and its default 0.1 m tolerance.
    path = {"type": "LineString", "coordinates": [[-122.4194, 37.7749], [-74.006, 40.7128]]}
    rc, out, err = run(["interpolate", "--fraction", "0.37", *SPHERE], ndjson([path]))
    on = json.loads(out)["geometry"]["coordinates"]
    (loc,) = locate_point(on, [path], SPHERE)
    assert loc["on_path"] and loc["distance_m"] < 1e-6
    (off,) = locate_point([on[0], on[1] + 0.00001], [path], SPHERE)
    assert not off["on_path"] and abs(off["distance_m"] - 1.11) < 0.05


# --- locate --shapes ---------------------------------------------------------------------------

def shapes_fixture(rng, count=120):
    shapes = []
    for index in range(count):
        kind = index % 4
        lat, lon = rng.uniform(-75, 75), rng.uniform(-180, 180)
        if index % 10 == 0:
            lon = rng.choice([-179.95, 179.95])   # across the antimeridian
        if index % 17 == 0:
            lat = rng.choice([-88.0, 88.0])       # near a pole
        if kind == 0:
            geometry = {"type": "Point", "coordinates": [lon, lat]}
        elif kind == 1:
            geometry = {"type": "LineString", "coordinates": [[lon + 0.5 * i, max(-89, min(89, lat + rng.uniform(-0.5, 0.5)))] for i in range(4)]}
        else:
            geometry = {"type": "Polygon", "coordinates": [random_ring(rng, lat=max(-85, min(85, lat)), lon=lon, size=0.5) + []]}
            geometry["coordinates"][0].append(geometry["coordinates"][0][0])
        feature = {"type": "Feature", "properties": {}, "geometry": geometry}
        if index % 3:
            feature["id"] = f"s{index}" if index % 2 else index
        shapes.append(feature)
    return shapes


def brute_force(point, shapes, args):
    """Every shape's location for the point, without the index."""
    return locate_point(point, shapes, args)


@pytest.mark.parametrize("kind", ["geodesic", "rhumb", "projected"])
def test_shapes_finds_what_a_brute_force_finds(tmp_path, kind):
    rng = random.Random(f"shapes-{kind}")
    shapes = shapes_fixture(rng)
    (tmp_path / "shapes.ndjson").write_bytes(ndjson(shapes))
    def anchor(geometry):
        """A vertex of the shape, for points near it."""
        coordinates = geometry["coordinates"]
        if geometry["type"] == "Point":
            return coordinates
        return coordinates[1] if geometry["type"] == "LineString" else coordinates[0][0]
    points = [anchor(s["geometry"]) for s in shapes[:30]]
    points = [[(p[0] + rng.uniform(-0.3, 0.3) + 180) % 360 - 180, max(-89, min(89, p[1] + rng.uniform(-0.3, 0.3)))] for p in points]
    points += [[rng.uniform(-180, 180), rng.uniform(-89, 89)] for _ in range(20)]
    within = 60_000 if kind != "projected" else 120_000
    args = ["--kind", kind]
    for options in (["--within", str(within)], ["--limit", "3"], []):
        rc, out, err = run(["locate", "--shapes", tmp_path / "shapes.ndjson", *options, *args],
                           ndjson([{"type": "Point", "coordinates": p} for p in points]))
        assert rc == 0, err
        found = [json.loads(l)["properties"]["locate"] for l in out.splitlines()]
        for point, matches in zip(points, found):
            every = brute_force(point, shapes, args)
            order = sorted(range(len(shapes)), key=lambda k: (0 if every[k].get("inside") else every[k]["distance_m"], k))
            if options and options[0] == "--within":
                expected = [k for k in order if every[k].get("inside") or every[k]["distance_m"] <= within]
            else:
                expected = order[: 3 if options else 1]
            assert [m["shape"] for m in matches] == expected, (point, options)
            for m in matches:
                assert m["distance_m"] == every[m["shape"]]["distance_m"]
                shape = shapes[m["shape"]]
                assert m.get("id") == shape.get("id")


def test_points_far_from_every_shape_are_not_points_times_shapes(tmp_path):
    """10,000 short lines over Europe and 300 points on other continents and oceans: each far
    point's nearest shape is thousands of km away, where the chord bounded the geodesic so loosely
    that every shape was measured (a minute or more for these; a tenth of a second now that the
    angle from the Earth's centre bounds it too). Every tenth answer is checked against every
    shape measured without the index (`--point`)."""
    rng = random.Random(12)
    shapes = []
    for index in range(10_000):
        lon, lat = rng.uniform(-10, 30), rng.uniform(35, 60)
        shapes.append({"type": "Feature", "properties": {"i": index}, "geometry": {"type": "LineString", "coordinates": [
            [lon, lat], [lon + rng.uniform(-0.05, 0.05), lat + rng.uniform(-0.05, 0.05)]]}})
    (tmp_path / "shapes.ndjson").write_bytes(ndjson(shapes))
    points = [{"type": "Point", "coordinates": [rng.uniform(-170, -40), rng.uniform(-70, 70)]} for _ in range(200)]
    points += [{"type": "Point", "coordinates": [rng.uniform(60, 179), rng.uniform(-70, 10)]} for _ in range(100)]
    proc = subprocess.run([geo_bin(), "locate", "--shapes", str(tmp_path / "shapes.ndjson")], input=ndjson(points),
                          capture_output=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    found = [json.loads(line)["properties"]["locate"][0] for line in proc.stdout.splitlines()]
    assert len(found) == 300 and all(match["distance_m"] > 2e6 for match in found)
    for point, match in list(zip(points, found))[::30]:
        every = brute_force(point["coordinates"], [shape["geometry"] for shape in shapes], [])
        nearest = min(range(len(every)), key=lambda k: (every[k]["distance_m"], k))
        assert nearest == match["shape"] and abs(every[nearest]["distance_m"] - match["distance_m"]) < 1e-6


def test_shapes_bad_input(tmp_path):
    good = tmp_path / "shapes.ndjson"
    good.write_bytes(ndjson([{"type": "LineString", "coordinates": [[0, 0], [1, 1]]}]))
    rc, out, err = run(["locate", "--shapes", good], ndjson([{"type": "LineString", "coordinates": [[0, 0], [1, 1]]},
                                                             {"type": "Point", "coordinates": [0, 0]}]))
    assert rc == 65 and len(out.splitlines()) == 1 and "<stdin>:1: with --shapes each input record is a Point" in err
    rc, out, err = run(["locate", "--shapes", tmp_path / "missing.ndjson"], ndjson([{"type": "Point", "coordinates": [0, 0]}]))
    assert rc == 66 and out == b"" and "missing.ndjson" in err
    bad = tmp_path / "bad.ndjson"
    bad.write_bytes(ndjson([{"type": "LineString", "coordinates": [[0, 0], [1, 1]]}]) + b'{"type":"Point","coordinates":[0,95]}\n')
    rc, out, err = run(["locate", "--shapes", bad], ndjson([{"type": "Point", "coordinates": [0, 0]}]))
    assert rc == 65 and out == b"" and f"{bad}:2:" in err
    for args in (["--point", "1,2", "--shapes", good], ["--within", "5"], ["--point", "1,2", "--limit", "2"]):
        rc, _, err = run(["locate", *args], b"")
        assert rc == 64, (args, err)
