"""geo simplify against independent oracles: android-maps-utils' PolyUtilTest vectors (and a
transcription of PolyUtil.simplify for the points), Douglas-Peucker and Visvalingam written
again here with geographiclib on the ellipsoid, shapely's validity in Web Mercator (pyproj), and
the polyline reference codec for --max-chars."""
import heapq
import json
import math
import random
import time

import pytest
from geographiclib.geodesic import Geodesic
from pyproj import Transformer
from shapely import transform as transform_coordinates
from shapely.geometry import Polygon, shape

from conftest import run
from test_real_data import data  # noqa: F401  (the session fixture)

WGS84 = Geodesic.WGS84
TO_MERCATOR = Transformer.from_crs("EPSG:4326", "EPSG:3857", always_xy=True).transform


def simplify(args, geometries):
    """geo simplify ARGS over GEOMETRIES (one a line); their simplified geometries."""
    rc, out, err = run(["simplify", *args], "".join(json.dumps(g) + "\n" for g in geometries))
    assert (rc, err) == (0, ""), err
    return [json.loads(line)["geometry"] for line in out.splitlines()]


def indices_in(original, result):
    """Where each position of RESULT is in ORIGINAL, matched in order (a subsequence)."""
    found, k = [], 0
    for position in result:
        while original[k] != position:
            k += 1
        found.append(k)
        k += 1
    return found


def decode(text):
    import polyline
    return [[lng, lat] for lat, lng in polyline.decode(text, 5)]


# --- android-maps-utils' PolyUtilTest.testSimplify -------------------------------------------

LINE = ("elfjD~a}uNOnFN~Em@fJv@tEMhGDjDe@hG^nF??@lA?n@IvAC`Ay@A{@DwCA{CF_EC{CEi@PBTFDJBJ?V?n@?D@?A@?@?F?F?LAf@?n@@`@@"
        "T@~@FpA?fA?p@?r@?vAH`@OR@^ETFJCLD?JA^?J?P?fAC`B@d@?b@A\\@`@Ad@@\\?`@?f@?V?H?DD@DDBBDBD?D?B?B@B@@@B@B@B@D?D?JA"
        "F@H@FCLADBDBDCFAN?b@Af@@x@@")
OVAL = "}wgjDxw_vNuAd@}AN{A]w@_Au@kAUaA?{@Ke@@_@C]D[FULWFOLSNMTOVOXO\\I\\CX?VJXJTDTNXTVVLVJ`@FXA\\AVLZBTATBZ@ZAT?\\?VFT@XGZ"
TRIANGLE = [[-82.41030, 28.06025], [-82.40945, 28.06129], [-82.40917, 28.06206],
            [-82.40850, 28.06125], [-82.40834, 28.06035], [-82.40924, 28.06038]]
EARTH_RADIUS = 6371009


def poly_util_simplify(poly, tolerance):
    """PolyUtil.simplify transcribed: Douglas-Peucker with PolyUtil.distanceToLine."""
    def hav(x):
        return math.sin(x / 2) ** 2

    def distance(a, b):
        la, lb = math.radians(a[1]), math.radians(b[1])
        h = hav(la - lb) + hav(math.radians(a[0] - b[0])) * math.cos(la) * math.cos(lb)
        return EARTH_RADIUS * 2 * math.asin(math.sqrt(h))

    def to_line(p, start, end):
        if start == end:
            return distance(end, p)
        s0lat, s0lng, s1lat, s1lng, s2lat, s2lng = map(math.radians, (p[1], p[0], start[1], start[0], end[1], end[0]))
        u = ((s0lat - s1lat) * (s2lat - s1lat) + (s0lng - s1lng) * (s2lng - s1lng)) / ((s2lat - s1lat) ** 2 + (s2lng - s1lng) ** 2)
        if u <= 0:
            return distance(p, start)
        if u >= 1:
            return distance(p, end)
        return distance(p, [start[0] + u * (end[0] - start[0]), start[1] + u * (end[1] - start[1])])

    work = list(poly)
    if work[0] == work[-1]:
        work[-1] = [work[-1][0] + 1e-11, work[-1][1] + 1e-11]
    keep = {0, len(work) - 1}
    stack = [(0, len(work) - 1)]
    while stack:
        low, high = stack.pop()
        best, index = 0, None
        for k in range(low + 1, high):
            d = to_line(work[k], work[low], work[high])
            if d > best:
                best, index = d, k
        if best > tolerance:
            keep.add(index)
            stack += [(low, index), (index, high)]
    return [poly[k] for k in sorted(keep)]


@pytest.mark.parametrize("tolerance,count", [(5, 20), (10, 14), (15, 10), (20, 8), (50, 6), (500, 3), (1000, 2)])
def test_poly_util_line_vectors(tolerance, count):
    line = decode(LINE)
    assert len(line) == 95
    [result] = simplify(["--sphere", "6371009", "--tolerance", str(tolerance)], [{"type": "LineString", "coordinates": line}])
    assert len(result["coordinates"]) == count
    assert result["coordinates"] == poly_util_simplify(line, tolerance)


@pytest.mark.parametrize("name,path,tolerance,count", [
    ("open triangle", TRIANGLE, 88, 4), ("closed triangle", TRIANGLE + TRIANGLE[:1], 88, 4),
    ("open oval", None, 10, 13), ("closed oval", None, 10, 13)])
def test_poly_util_polygon_vectors(name, path, tolerance, count):
    if path is None:
        path = decode(OVAL) + (decode(OVAL)[:1] if name.startswith("closed") else [])
    [result] = simplify(["--sphere", "6371009", "--tolerance", str(tolerance)], [{"type": "LineString", "coordinates": path}])
    assert len(result["coordinates"]) == count
    assert result["coordinates"] == poly_util_simplify(path, tolerance)


# --- Douglas-Peucker on the ellipsoid ---------------------------------------------------------

def nearest_on_geodesic(a, b, p):
    """The geodesic distance from p to the geodesic edge a-b: a fine sampling, then a golden
    section search around the best sample."""
    line = WGS84.InverseLine(a[1], a[0], b[1], b[0])
    length = line.s13

    def d(s):
        q = line.Position(s)
        return WGS84.Inverse(p[1], p[0], q["lat2"], q["lon2"])["s12"]
    if length == 0:
        return d(0)
    samples = 64
    best = min(range(samples + 1), key=lambda i: d(length * i / samples))
    lo, hi = length * max(0, best - 1) / samples, length * min(samples, best + 1) / samples
    ratio = (math.sqrt(5) - 1) / 2
    for _ in range(80):
        m1, m2 = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
        if d(m1) < d(m2):
            hi = m2
        else:
            lo = m1
    return min(d(0), d(length), d((lo + hi) / 2))


def dp_reference(path, tolerance):
    keep = {0, len(path) - 1}
    stack = [(0, len(path) - 1)]
    while stack:
        low, high = stack.pop()
        best, index = -1, None
        for k in range(low + 1, high):
            dist = nearest_on_geodesic(path[low], path[high], path[k])
            if dist > best:
                best, index = dist, k
        if index is not None and best > tolerance:
            keep.add(index)
            stack += [(low, index), (index, high)]
    return sorted(keep)


def wiggly(seed, count, step, lon=8.5, lat=47.3, digits=7):
    rng = random.Random(seed)
    path, heading = [], rng.uniform(0, 360)
    for _ in range(count):
        path.append([round(lon, digits), round(lat, digits)])
        heading += rng.gauss(0, 40)
        g = WGS84.Direct(lat, lon, heading, step * rng.uniform(0.3, 1.5))
        lat, lon = g["lat2"], g["lon2"]
    return path


@pytest.mark.parametrize("seed,tolerance", [(1, 10), (2, 40), (3, 150)])
def test_douglas_peucker_is_exact_on_the_ellipsoid(seed, tolerance):
    path = wiggly(seed, 60, 50)
    [result] = simplify(["--tolerance", str(tolerance)], [{"type": "LineString", "coordinates": path}])
    kept = indices_in(path, result["coordinates"])
    assert kept == dp_reference(path, tolerance)
    # Every removed vertex lies within the tolerance of the edge that replaced it.
    for low, high in zip(kept, kept[1:]):
        for k in range(low + 1, high):
            assert nearest_on_geodesic(path[low], path[high], path[k]) <= tolerance + 1e-6


@pytest.mark.parametrize("seed,step,tolerance", [(4, 0.01, 0.005), (5, 0.3, 0.1), (6, 0.01, 0.002)])
def test_douglas_peucker_is_exact_on_centimetre_steps(seed, step, tolerance):
    # Where an edge's normal is taken from nearly equal unit vectors, its rounding is metres for
    # a centimetre edge: a bound built that way picked the wrong vertices here. Coordinates to
    # 1e-11° (1 µm): at 1e-7° centimetre steps land on a grid, and vertices on one grid line
    # tie to 1e-15 m, where the reference's rounding and geo's choose differently.
    path = wiggly(seed, 80, step, digits=11)
    [result] = simplify(["--tolerance", str(tolerance)], [{"type": "LineString", "coordinates": path}])
    assert indices_in(path, result["coordinates"]) == dp_reference(path, tolerance)


def test_every_part_and_ring_is_simplified_on_its_own_and_points_pass():
    a, b = wiggly(4, 40, 80), wiggly(5, 40, 80, lon=9)
    geometries = [{"type": "MultiLineString", "coordinates": [a, b, []]}, {"type": "Point", "coordinates": [1, 2]},
                  {"type": "MultiPoint", "coordinates": [[1, 2], [3, 4]]}, {"type": "Feature", "properties": {}, "geometry": None}]
    rc, out, err = run(["simplify", "--tolerance", "30"], "".join(json.dumps(g) + "\n" for g in geometries))
    assert rc == 0, err
    first, point, points, empty = [json.loads(line)["geometry"] for line in out.splitlines()]
    assert first["coordinates"] == [[a[k] for k in dp_reference(a, 30)], [b[k] for k in dp_reference(b, 30)], []]
    assert (point, points, empty) == (geometries[1], geometries[2], None)


# --- Visvalingam, plain and weighted ------------------------------------------------------------

def triangle_area(a, b, c):
    polygon = WGS84.Polygon()
    for p in (a, b, c):
        polygon.AddPoint(p[1], p[0])
    return abs(polygon.Compute()[2])


def visvalingam_reference(path, threshold, weighted):
    def metric(i, j, k):
        area = triangle_area(path[i], path[j], path[k])
        if not weighted:
            return area
        to_a = WGS84.Inverse(path[j][1], path[j][0], path[i][1], path[i][0])["azi1"]
        to_c = WGS84.Inverse(path[j][1], path[j][0], path[k][1], path[k][0])["azi1"]
        return area * (1 - 0.7 * math.cos(math.radians(to_a - to_c)))
    prev, nxt = list(range(-1, len(path) - 1)), list(range(1, len(path) + 1))
    current = {j: metric(j - 1, j, j + 1) for j in range(1, len(path) - 1)}
    heap = [(v, j) for j, v in current.items()]
    heapq.heapify(heap)
    removed, floor = set(), 0
    while heap and len(removed) < len(path) - 2:
        value, j = heapq.heappop(heap)
        if j in removed or current[j] != value:
            continue
        floor = max(floor, value)
        if floor >= threshold:
            break
        removed.add(j)
        nxt[prev[j]], prev[nxt[j]] = nxt[j], prev[j]
        for n in (prev[j], nxt[j]):
            if 0 < n < len(path) - 1:
                current[n] = metric(prev[n], n, nxt[n])
                heapq.heappush(heap, (current[n], n))
    return [k for k in range(len(path)) if k not in removed]


@pytest.mark.parametrize("method", ["visvalingam", "weighted"])
def test_visvalingam_against_geographiclib(method):
    path = wiggly(6, 50, 60)
    for tolerance in (5, 20, 60):
        [result] = simplify(["--method", method, "--tolerance", str(tolerance)], [{"type": "LineString", "coordinates": path}])
        assert [path.index(c) for c in result["coordinates"]] == visvalingam_reference(path, tolerance ** 2, method == "weighted")


# --- the other amounts ----------------------------------------------------------------------------

@pytest.mark.parametrize("method", ["dp", "visvalingam", "weighted"])
def test_max_points_and_keep(method):
    a, b = wiggly(7, 80, 40), wiggly(8, 30, 40)
    geometry = {"type": "MultiLineString", "coordinates": [a, b]}
    [result] = simplify(["--method", method, "--max-points", "12"], [geometry])
    assert [len(p) for p in result["coordinates"]] == [12, 12]
    [result] = simplify(["--method", method, "--max-points", "50"], [geometry])
    assert [len(p) for p in result["coordinates"]] == [50, 30]
    # --keep shares the record's removable vertices (78 + 28) among its parts.
    [result] = simplify(["--method", method, "--keep", "25%"], [geometry])
    assert sum(len(p) for p in result["coordinates"]) == 4 + math.floor(0.25 * 106 + 0.5)  # half away from zero
    [kept_all] = simplify(["--method", method, "--keep", "100%"], [geometry])
    assert kept_all == geometry
    # The most important first: a ranking, so a smaller amount keeps a subset.
    [fewer] = simplify(["--method", method, "--max-points", "8"], [{"type": "LineString", "coordinates": a}])
    [more] = simplify(["--method", method, "--max-points", "16"], [{"type": "LineString", "coordinates": a}])
    assert set(map(tuple, fewer["coordinates"])) < set(map(tuple, more["coordinates"]))


def test_max_points_follows_douglas_peucker_order():
    # The N most important by Douglas-Peucker are what some tolerance keeps.
    path = wiggly(9, 60, 50)
    for tolerance in (20, 60, 200):
        [by_tolerance] = simplify(["--tolerance", str(tolerance)], [{"type": "LineString", "coordinates": path}])
        [by_count] = simplify(["--max-points", str(len(by_tolerance["coordinates"]))], [{"type": "LineString", "coordinates": path}])
        assert by_count == by_tolerance


@pytest.mark.parametrize("method", ["dp", "visvalingam", "weighted"])
@pytest.mark.parametrize("budget,precision", [(120, 5), (200, 5), (150, 6)])
def test_max_chars_fits_with_the_fewest_removals(method, budget, precision):
    import polyline
    path = wiggly(10, 120, 30)
    geometry = {"type": "LineString", "coordinates": path}

    def length(coordinates):
        return len(polyline.encode([(lat, lng) for lng, lat in coordinates], precision))
    assert length(path) > budget
    [result] = simplify(["--method", method, "--max-chars", str(budget), "--to-precision", str(precision)], [geometry])
    kept = len(result["coordinates"])
    assert length(result["coordinates"]) <= budget
    # One vertex more, in the method's order, would not fit.
    [more] = simplify(["--method", method, "--max-points", str(kept + 1)], [geometry])
    [same] = simplify(["--method", method, "--max-points", str(kept)], [geometry])
    assert same == result
    assert length(more["coordinates"]) > budget
    # --to polyline writes what was counted.
    rc, out, err = run(["simplify", "--method", method, "--max-chars", str(budget), "--to", "polyline", "--to-precision", str(precision)],
                       json.dumps(geometry) + "\n")
    assert rc == 0 and len(out.strip()) <= budget


def test_max_chars_that_cannot_fit_is_a_bad_record():
    rc, out, err = run(["simplify", "--max-chars", "5"], json.dumps({"type": "LineString", "coordinates": [[10, 20], [30, 40]]}) + "\n")
    assert rc == 65 and out == b"" and "--max-chars 5" in err


@pytest.mark.parametrize("args,problem", [([], "give one of"), (["--tolerance", "1", "--keep", "5%"], "cannot be combined"),
                                          (["--keep", "120%"], "percentage"), (["--tolerance", "0"], "greater than 0"),
                                          (["--tolerance", "1", "--to-precision", "6"], "--to-precision")])
def test_usage_errors(args, problem):
    rc, out, err = run(["simplify", *args], "")
    assert rc == 64 and problem in err


# --- topology ---------------------------------------------------------------------------------------

def transform(function, geometry):
    return transform_coordinates(geometry, lambda xy: list(zip(*function(*xy.T))))


def mercator(geometry):
    return transform(TO_MERCATOR, shape(geometry))


def comb(teeth=6, depth=0.01, lon=2.0, lat=48.0):
    """A valid polygon whose rings plain Douglas-Peucker breaks at 300 m: a comb of thin teeth,
    its gaps narrower than the tolerance, and a hole by the teeth's tips."""
    shell = [[lon, lat]]
    width = 0.004
    for i in range(teeth):
        x = lon + i * width
        shell += [[x + width * 0.1, lat + depth], [x + width * 0.5, lat + depth], [x + width * 0.55, lat + 0.002],
                  [x + width * 0.95, lat + 0.002], [x + width, lat + depth]]
    end = lon + teeth * width
    shell += [[end, lat - 0.006], [lon, lat - 0.006], [lon, lat]]
    hole = [[lon + 0.002, lat - 0.001], [lon + 0.002, lat - 0.004], [end - 0.002, lat - 0.004], [end - 0.002, lat - 0.001],
            [lon + 0.002, lat - 0.001]]
    return {"type": "Polygon", "coordinates": [shell, hole]}


@pytest.mark.parametrize("method,tolerance", [("dp", 400), ("dp", 1000), ("visvalingam", 500), ("visvalingam", 900), ("weighted", 500)])
def test_a_valid_polygon_stays_valid_where_plain_simplification_breaks_it(method, tolerance):
    polygon = comb()
    assert mercator(polygon).is_valid
    # The rings as LineStrings have no topology to keep: simplified alone, they break the polygon.
    lines = simplify(["--method", method, "--tolerance", str(tolerance)], [{"type": "LineString", "coordinates": r} for r in polygon["coordinates"]])
    rings = [line["coordinates"] for line in lines]
    assert min(map(len, rings)) < 4 or not transform(TO_MERCATOR, Polygon(rings[0], rings[1:])).is_valid
    [result] = simplify(["--method", method, "--tolerance", str(tolerance)], [polygon])
    assert mercator(result).is_valid
    assert sum(map(len, result["coordinates"])) < sum(map(len, polygon["coordinates"]))


def test_a_hole_does_not_leave_its_shell():
    # A shell with a long thin inlet, a hole beside the inlet's tip: cutting the inlet away
    # crosses nothing, yet leaves the hole outside.
    lon, lat = 10.0, 50.0
    shell = [[lon, lat], [lon + 0.02, lat], [lon + 0.02, lat + 0.02], [lon + 0.0101, lat + 0.02], [lon + 0.0101, lat + 0.005],
             [lon + 0.0099, lat + 0.005], [lon + 0.0099, lat + 0.02], [lon, lat + 0.02], [lon, lat]]
    hole = [[lon + 0.0096, lat + 0.008], [lon + 0.0098, lat + 0.008], [lon + 0.0098, lat + 0.009], [lon + 0.0096, lat + 0.008]]
    polygon = {"type": "Polygon", "coordinates": [shell, hole]}
    assert mercator(polygon).is_valid
    for method, tolerance in [("dp", 50), ("dp", 2000), ("visvalingam", 200), ("weighted", 200)]:
        [result] = simplify(["--method", method, "--tolerance", str(tolerance)], [polygon])
        assert mercator(result).is_valid, (method, tolerance, result)


def test_rings_keep_four_positions_and_lines_two():
    ring = [[0, 0], [0.001, 0], [0.001, 0.001], [0.0005, 0.0011], [0, 0.001], [0, 0]]
    [polygon, line] = simplify(["--tolerance", "1000000"], [{"type": "Polygon", "coordinates": [ring]},
                                                           {"type": "LineString", "coordinates": ring[:-1]}])
    assert len(polygon["coordinates"][0]) == 4 and polygon["coordinates"][0][0] == polygon["coordinates"][0][-1] == [0, 0]
    assert line["coordinates"] == [[0, 0], [0, 0.001]]


# --- real data ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("layer", ["countries", "nybb"])
@pytest.mark.parametrize("tolerance", [10, 100, 1000])
def test_real_polygons_stay_valid_and_within_tolerance(data, layer, tolerance):  # noqa: F811
    source = (data / f"{layer}.geojsonl").read_text().splitlines()
    rc, out, err = run(["simplify", "--tolerance", str(tolerance)], "\n".join(source) + "\n")
    assert (rc, err) == (0, ""), err
    results = [json.loads(line) for line in out.splitlines()]
    assert len(results) == len(source)
    before = after = 0
    for original, result in zip(map(json.loads, source), results):
        assert result["properties"] == original["properties"]
        if mercator(original["geometry"]).is_valid:
            assert mercator(result["geometry"]).is_valid, original["properties"]
        rings_in = original["geometry"]["coordinates"]
        rings_out = result["geometry"]["coordinates"]
        if original["geometry"]["type"] == "Polygon":
            rings_in, rings_out = [rings_in], [rings_out]
        for polygon_in, polygon_out in zip(rings_in, rings_out):
            for ring_in, ring_out in zip(polygon_in, polygon_out):
                before, after = before + len(ring_in), after + len(ring_out)
                assert len(ring_out) >= min(4, len(ring_in)) and ring_out[0] == ring_in[0] and ring_out[-1] == ring_in[-1]
    assert after < before
    # Every removed vertex within the tolerance, checked by brute force on a sample of rings
    # (topology only ever adds vertices back, which keeps this true).
    rng = random.Random(tolerance)
    checked = 0
    for original, result in zip(map(json.loads, source), results):
        polygons_in = original["geometry"]["coordinates"]
        polygons_out = result["geometry"]["coordinates"]
        if original["geometry"]["type"] == "Polygon":
            polygons_in, polygons_out = [polygons_in], [polygons_out]
        ring_in, ring_out = polygons_in[0][0], polygons_out[0][0]
        if len(source) > 20 and rng.random() > 0.2:
            continue
        index = indices_in(ring_in, ring_out)
        # A window of the ring's kept edges, to bound the brute force's time.
        start = rng.randrange(len(index) - 1)
        for low, high in list(zip(index, index[1:]))[start:start + 15]:
            for k in range(low + 1, min(high, low + 40)):
                assert nearest_on_geodesic(ring_in[low], ring_in[high], ring_in[k]) <= tolerance + 1e-6
                checked += 1
    assert checked > 0


def test_a_real_gps_track(data):  # noqa: F811
    source = (data / "tracks.geojsonl").read_text()
    rc, out, err = run(["simplify", "--tolerance", "5"], source)
    assert (rc, err) == (0, ""), err
    for original, result in zip(map(json.loads, source.splitlines()), map(json.loads, out.splitlines())):
        for part_in, part_out in zip(original["geometry"]["coordinates"], result["geometry"]["coordinates"]):
            if len(part_in) > 1:
                assert part_out[0] == part_in[0] and part_out[-1] == part_in[-1] and len(part_out) <= len(part_in)


# --- speed ---------------------------------------------------------------------------------------------

def test_a_million_vertex_track_and_a_spiral_take_seconds(tmp_path):
    # The timing against shapely is bench/simplify.py's; here only a generous bound.
    rng = random.Random(11)
    lon, lat, heading, track = 8.0, 47.0, 0.0, []
    for _ in range(1_000_000):
        track.append(f"[{lon:.6f},{lat:.6f}]")
        heading += rng.gauss(0, 10)
        lon += 0.00005 * math.sin(math.radians(heading))
        lat += 0.00004 * math.cos(math.radians(heading))
    spiral = [f"[{8 + 0.5 * t / 1e6 * math.cos(t / 500):.7f},{47 + 0.4 * t / 1e6 * math.sin(t / 500):.7f}]" for t in range(1_000_000)]
    for name, coordinates in [("track", track), ("spiral", spiral)]:
        path = tmp_path / f"{name}.ndjson"
        path.write_text('{"type":"LineString","coordinates":[' + ",".join(coordinates) + "]}\n")
        start = time.monotonic()
        rc, out, err = run(["simplify", "--tolerance", "5", path], timeout=120)
        assert (rc, err) == (0, ""), err
        assert time.monotonic() - start < 60, name
        assert 2 <= len(json.loads(out)["geometry"]["coordinates"]) < 1_000_000
