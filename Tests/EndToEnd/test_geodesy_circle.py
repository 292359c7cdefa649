"""Exactness tests for `geo circle-to-polygon` against independent oracles.

What is demanded (docs/algorithms.md, "Circles"; the man page geo-circle-to-polygon(1)):
- every vertex at geodesic distance R from the centre within 1e-6 m (GeographicLib's
  `GeodSolve -i -p 10`), for random centres everywhere (poles and antimeridian included) and
  radii from 1 m to 10,000 km;
- rings closed and counter-clockwise, N+1 positions for --segments N, radius_m and center set,
  input properties kept, --radius-field, --center, --to polyline;
- --tolerance M holds at the geodesic midpoint of every edge and uses the fewest vertices;
- antimeridian circles are MultiPolygons cut where the geodesic edge crosses +-180 (latitude by
  bisection along the geodesic, 1e-9 deg), and the pieces' areas add up to the uncut ring's;
- pole caps are one Polygon through (+-180, +-90), containing the pole and not the outside;
- bad records (radius <= 0, non-finite, past the cut locus, both poles, not a Point) are
  reported with their line (exit 65), or are usage errors with --center (exit 64);
- GDAL's ogrinfo reads the output.

Oracles: GeographicLib's `GeodSolve` and `Planimeter` (Debian geographiclib-tools), the Python
`geographiclib`, `pyproj`, `shapely` and `polyline` packages, and GDAL's `ogrinfo` (Debian
gdal-bin, with its SQLite/SpatiaLite dialect for ST_IsValid). A missing oracle makes the tests
FAIL, never skip.

GeographicLib's tools read angles as DMS and `e` as a hemisphere letter: every number fed to them
goes through `dec()` (plain decimals, never exponent notation).

Real circle vertices are told from the points geo adds (cut points at +-180, pole corners at
+-90) by |lon| == 180 or |lat| == 90: those added points are not on the circle.
"""

import json
import math
import random
import re
import shutil
import subprocess
from decimal import Decimal

import pytest

from conftest import dec, ndjson, run

VERTEX_TOL = 1e-6        # m: every vertex at R (docs/algorithms.md, "Circles")
CUT_LAT_TOL = 1e-9       # deg: a cut point on the geodesic edge
AREA_TOL = 1.0           # m^2: pieces of a cut circle add up to the uncut ring
TOL_SLACK = 1e-9         # m: --tolerance bound at the edge midpoints

WGS84 = (6378137.0, 1 / 298.257223563)
MAPS_SPHERE = (6371009.0, 0.0)
INTL = (6378388.0, 1 / 297.0)

CMD = "circle-to-polygon"


# --- oracles ---------------------------------------------------------------------------------

def _import(name, pip):
    try:
        return __import__(name, fromlist=["_"])
    except ImportError:
        pytest.fail(f"the oracle `{name}` is missing (pip install {pip})", pytrace=False)


def _tool(name, package):
    exe = shutil.which(name)
    if exe is None:
        pytest.fail(f"the oracle `{name}` is missing: install the Debian package {package}",
                    pytrace=False)
    return exe


def geodesic(figure=WGS84):
    Geodesic = _import("geographiclib.geodesic", "geographiclib").Geodesic
    return Geodesic(*figure)


def GEO():
    return _import("geographiclib.geodesic", "geographiclib").Geodesic


def shapely_geom():
    return _import("shapely.geometry", "shapely")


def pyproj_geod(figure=WGS84):
    pyproj = _import("pyproj", "pyproj")
    return pyproj.Geod(a=figure[0], f=figure[1])




def _figure_args(figure):
    if figure == WGS84:
        return []
    return ["-e", dec(figure[0]), dec(figure[1])]


def _tool_run(name, args, lines):
    exe = _tool(name, "geographiclib-tools")
    proc = subprocess.run([exe] + args, input="".join(l + "\n" for l in lines),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"{name} {args}: {proc.stderr}"
    rows = [l.split() for l in proc.stdout.splitlines()]
    for row in rows:
        assert row and row[0] != "ERROR", f"{name} {args}: {row}"
    return rows


def geodsolve_inverse(pairs, figure=WGS84):
    """[(azi1, azi2, s12)] for [((lat1, lon1), (lat2, lon2))] by `GeodSolve -i -p 10`."""
    if not pairs:
        return []
    lines = [f"{dec(a[0])} {dec(a[1])} {dec(b[0])} {dec(b[1])}" for a, b in pairs]
    rows = _tool_run("GeodSolve", ["-i", "-p", "10"] + _figure_args(figure), lines)
    assert len(rows) == len(lines)
    return [tuple(float(v) for v in r[:3]) for r in rows]


def planimeter_areas(rings, figure=WGS84):
    """Areas (m^2, counter-clockwise positive, in [0, total)) of rings [(lon, lat), ...] by
    `Planimeter -s -p 10` (-s: the interpretation with a positive area, so a counter-clockwise
    ring larger than half the Earth is still its own inside)."""
    lines = []
    for ring in rings:
        pts = list(ring)
        if len(pts) > 1 and pts[0] == pts[-1]:
            pts = pts[:-1]
        if lines:
            lines.append("")
        lines += [f"{dec(lat)} {dec(lon)}" for lon, lat in pts]
    rows = _tool_run("Planimeter", ["-s", "-p", "10"] + _figure_args(figure), lines)
    assert len(rows) == len(rings), f"Planimeter: {len(rings)} rings, {len(rows)} answers"
    return [float(r[2]) for r in rows]


def ogrinfo():
    return _tool("ogrinfo", "gdal-bin")


# --- geo -------------------------------------------------------------------------------------

EXPONENT = re.compile(rb"[0-9][eE][-+]?[0-9]")


def circles(args, records=None):
    """Run geo circle-to-polygon; its Features (exit 0 demanded)."""
    rc, out, err = run([CMD] + [str(a) for a in args],
                       ndjson(records) if records is not None else None)
    assert rc == 0, f"geo {CMD} {args}: exit {rc}: {err}"
    assert not EXPONENT.search(out), f"exponent notation in the output: {out[:300]!r}"
    return [json.loads(line) for line in out.decode().splitlines() if line.strip()]


def point_feature(lat, lon, **props):
    return {"type": "Feature", "properties": props,
            "geometry": {"type": "Point", "coordinates": [lon, lat]}}


# --- the circle in geo's output ---------------------------------------------------------------

def is_added(pos):
    """A cut point (|lon| == 180) or a pole corner (|lat| == 90): not on the circle."""
    return abs(pos[0]) == 180 or abs(pos[1]) == 90


def rings_of(geom):
    if geom["type"] == "Polygon":
        return [geom["coordinates"][0]]
    assert geom["type"] == "MultiPolygon", geom["type"]
    return [poly[0] for poly in geom["coordinates"]]


def kind_of(geom):
    if geom["type"] == "MultiPolygon":
        return "antimeridian"
    assert geom["type"] == "Polygon", geom["type"]
    if any(abs(p[1]) == 90 for p in geom["coordinates"][0]):
        return "cap"
    return "ordinary"


def real_vertices(geom, g, centre, radius):
    """The circle's vertices in geo's output: every position but the added ones, the closing
    repeats removed. A position at |lon| == 180 is a real vertex only when it is on the circle
    (a vertex can fall exactly on the antimeridian, e.g. the azimuth-0 vertex of a circle
    centred on lon 0 or 180 that contains the North Pole); it is then kept once."""
    pts, on_cut = [], set()
    for ring in rings_of(geom):
        for p in ring[:-1]:
            if abs(p[1]) == 90:
                continue
            if abs(p[0]) == 180:
                d = g.Inverse(centre[0], centre[1], p[1], p[0])["s12"]
                if abs(d - radius) <= VERTEX_TOL and p[1] not in on_cut:
                    on_cut.add(p[1])
                    pts.append((180.0, p[1]))
                continue
            pts.append(tuple(p))
    return pts


def uncut_ring(g, centre, verts):
    """The circle's vertices in counter-clockwise order (azimuth from the centre decreasing),
    each with its azimuth: [((lon, lat), azi)]."""
    lat0, lon0 = centre
    out = [(v, g.Inverse(lat0, lon0, v[1], v[0])["azi1"]) for v in verts]
    out.sort(key=lambda t: -t[1])
    return out


def check_azimuths(uncut, n, radius, what):
    """The vertices are the n directions -360 i/n (the documented placement), each once."""
    seen = set()
    for (v, azi) in uncut:
        i = round((-azi % 360.0) * n / 360.0) % n
        want = -360.0 * i / n
        err = abs(math.remainder(azi - want, 360.0))
        assert math.radians(err) * radius <= 1e-6 or err <= 1e-9, \
            f"{what}: vertex {v} at azimuth {azi}, not a multiple of -360/{n}"
        assert i not in seen, f"{what}: two vertices at azimuth {want}"
        seen.add(i)
    assert len(seen) == n, f"{what}: {len(seen)} distinct vertices, wanted {n}"


def winding(g, ring):
    """Sum of the geodesic edges' longitude changes around the closed ring (0 or +-360)."""
    tot = 0.0
    for k in range(len(ring)):
        p, q = ring[k], ring[(k + 1) % len(ring)]
        r = g.Inverse(p[1], p[0], q[1], q[0], GEO().STANDARD | GEO().LONG_UNROLL)
        tot += r["lon2"] - r["lon1"]
    return tot


def antimeridian_crossings(g, p, q):
    """Latitudes where the geodesic edge p -> q ((lon, lat), |lon| < 180) crosses +-180,
    by bisection on the distance along the edge: [(lat, lon_sign_before, lon_sign_after)]."""
    Geo = GEO()
    line = g.InverseLine(p[1], p[0], q[1], q[0])
    s13 = line.s13
    mask = Geo.LATITUDE | Geo.LONGITUDE | Geo.LONG_UNROLL

    def lon_at(s):
        return line.Position(s, mask)["lon2"]

    lon_end = lon_at(s13)
    lo_l, hi_l = sorted((p[0], lon_end))
    out = []
    k = math.floor(lo_l / 180.0)
    for m in range(k, math.floor(hi_l / 180.0) + 1):
        t = 180.0 * m
        if m % 2 == 0 or not (lo_l < t < hi_l):
            continue
        a, b = 0.0, s13
        up = lon_end > p[0]
        for _ in range(200):
            mid = 0.5 * (a + b)
            if mid in (a, b):
                break
            if (lon_at(mid) < t) == up:
                a = mid
            else:
                b = mid
        lat = line.Position(0.5 * (a + b), mask)["lat2"]
        out.append(lat)
    return out


def check_circle(g, feat, centre, radius, n, what, **_):
    """Structural checks of one circle; returns a summary used by the batch checks."""
    Poly = shapely_geom()
    geom = feat["geometry"]
    props = feat["properties"]
    assert props["radius_m"] == radius, f"{what}: radius_m {props['radius_m']}"
    assert props["center"] == [centre[1], centre[0]], f"{what}: center {props['center']}"
    kind = kind_of(geom)
    for ring in rings_of(geom):
        assert ring[0] == ring[-1], f"{what}: ring not closed"
        for lon, lat in ring:
            assert -180 <= lon <= 180 and -90 <= lat <= 90, f"{what}: position {[lon, lat]}"
    verts = real_vertices(geom, g, centre, radius)
    uncut = uncut_ring(g, centre, verts)
    check_azimuths(uncut, n, radius, what)
    ring = [v for v, _ in uncut]
    info = {"kind": kind, "verts": verts, "ring": ring, "geom": geom, "what": what,
            "cuts": [], "pieces": []}
    # the kind geo must make: a cap when the circle contains a pole (docs/algorithms.md,
    # "Circles": the pole's geodesic distance from the centre is below R), else cut when the
    # ring crosses +-180
    lat0, lon0 = centre
    north = g.Inverse(lat0, lon0, 90.0, 0.0)["s12"] < radius
    south = g.Inverse(lat0, lon0, -90.0, 0.0)["s12"] < radius
    assert not (north and south)
    if north or south:
        want = "cap"
        info["pole"] = 90.0 if north else -90.0
    elif expected_cuts(g, ring):
        want = "antimeridian"
    else:
        want = "ordinary"
    assert kind == want, f"{what}: geo made a {kind} polygon, the circle is {want}"
    if kind == "ordinary":
        coords = geom["coordinates"]
        assert len(coords) == 1, f"{what}: a circle has no holes"
        assert len(coords[0]) == n + 1, f"{what}: {len(coords[0])} positions for {n} segments"
        lr = Poly.LinearRing(coords[0])
        assert lr.is_ccw, f"{what}: exterior ring is clockwise"
        return info
    if kind == "antimeridian":
        polys = geom["coordinates"]
        assert len(polys) == 2, f"{what}: {len(polys)} pieces"
        cut_sets = []
        for poly in polys:
            assert len(poly) == 1, f"{what}: a piece has a hole"
            r = poly[0]
            assert Poly.LinearRing(r).is_ccw, f"{what}: a piece is clockwise"
            sides = {math.copysign(1, p[0]) for p in r if abs(p[0]) == 180}
            assert len(sides) == 1, f"{what}: a piece touches both -180 and 180"
            cut_sets.append(sorted({p[1] for p in r if abs(p[0]) == 180}))
            info["pieces"].append(r)
        assert cut_sets[0] == cut_sets[1] and len(cut_sets[0]) == 2, \
            f"{what}: the pieces' cut points differ: {cut_sets}"
        info["cuts"] = cut_sets[0]
        assert len(verts) == n
        return info
    # pole cap
    coords = geom["coordinates"]
    assert len(coords) == 1, f"{what}: a cap has no holes"
    r = coords[0]
    pole = info["pole"]
    poles = [p for p in r if abs(p[1]) == 90]
    assert sorted(map(tuple, poles)) == [(-180.0, pole), (180.0, pole)], \
        f"{what}: pole corners {poles}"
    assert all(p[1] == pole for p in poles), f"{what}: corners at the wrong pole"
    cuts = sorted({p[1] for p in r if abs(p[0]) == 180 and abs(p[1]) != 90})
    assert len(cuts) == 1, f"{what}: cap cut points {cuts}"
    assert [-180.0, cuts[0]] in r and [180.0, cuts[0]] in r, f"{what}: cut points {cuts}"
    info["cuts"] = cuts
    assert Poly.LinearRing(r).is_ccw, f"{what}: cap ring is clockwise"
    return info


def expected_cuts(g, ring):
    """Latitudes where the closed geodesic ring meets +-180: its edges' crossings, and its
    vertices that lie on the antimeridian."""
    want = [p[1] for p in ring if abs(p[0]) == 180]
    for k in range(len(ring)):
        want += antimeridian_crossings(g, ring[k], ring[(k + 1) % len(ring)])
    return sorted(want)


def check_cuts(g, info):
    """The cut latitudes are where the uncut ring's geodesic edges cross +-180."""
    want = expected_cuts(g, info["ring"])
    got = info["cuts"]
    assert len(want) == len(got), \
        f"{info['what']}: the geodesic ring crosses +-180 at {want}, geo cut at {got}"
    for w, c in zip(want, got):
        assert abs(w - c) <= CUT_LAT_TOL, \
            f"{info['what']}: cut at latitude {c!r}, the geodesic edge crosses at {w!r}"


def check_vertex_distances(items, figure=WGS84):
    """items: [(centre (lat, lon), radius, [(lon, lat)], what)]: every vertex at the radius."""
    pairs, meta = [], []
    for centre, radius, verts, what in items:
        for v in verts:
            pairs.append((centre, (v[1], v[0])))
            meta.append((radius, v, what))
    res = geodsolve_inverse(pairs, figure)
    bad = []
    for (radius, v, what), (_, _, s12) in zip(meta, res):
        if not abs(s12 - radius) <= VERTEX_TOL:
            bad.append(f"{what}: vertex {list(v)} at {s12!r} m, not {radius!r}")
    assert not bad, f"{len(bad)} vertices off the circle:\n" + "\n".join(bad[:20])


def check_areas(infos, figure=WGS84):
    """The output polygons' areas (pieces summed; a cap with its pole detour) equal the
    uncut geodesic ring's, by Planimeter."""
    rings, index = [], []
    for info in infos:
        parts = info["pieces"] if info["kind"] == "antimeridian" else \
            [info["geom"]["coordinates"][0]]
        index.append((len(rings), len(parts)))
        rings += parts
        rings.append(info["ring"])
    areas = planimeter_areas(rings, figure)
    bad = []
    for info, (start, k) in zip(infos, index):
        parts = math.fsum(areas[start:start + k])
        whole = areas[start + k]
        if not abs(parts - whole) <= AREA_TOL:
            bad.append(f"{info['what']}: output area {parts!r} m^2, uncut ring {whole!r} m^2")
    assert not bad, "\n".join(bad)


# --- the example of docs/algorithms.md ("Circles") and the bisection helper -----------------

def test_bisection_helper_matches_the_research_example():
    g = geodesic()
    lats = antimeridian_crossings(g, (179.0, 40.0), (-179.0, 50.0))
    assert len(lats) == 1
    assert abs(lats[0] - 45.443651197717) <= 1e-11
    # and the other way round, and mirrored across the equator
    assert abs(antimeridian_crossings(g, (-179.0, 50.0), (179.0, 40.0))[0]
               - 45.443651197717) <= 1e-11
    assert abs(antimeridian_crossings(g, (179.0, -40.0), (-179.0, -50.0))[0]
               + 45.443651197717) <= 1e-11
    # the linear midpoint (45.0) is far off: the helper really follows the geodesic
    assert abs(lats[0] - 45.0) > 0.4
    assert antimeridian_crossings(g, (170.0, 10.0), (175.0, 20.0)) == []


# --- random circles everywhere ----------------------------------------------------------------

SEGMENTS = [None, 3, 5, 8, 100, 361]    # None: the default (64)


def _random_centre(rng):
    u = rng.random()
    if u < 0.3:
        lat = rng.uniform(85.0, 90.0) * rng.choice((1, -1))
        lon = rng.uniform(-180.0, 180.0)
    elif u < 0.55:
        lat = math.degrees(math.asin(rng.uniform(-1.0, 1.0)))
        lon = rng.choice((1, -1)) * (180.0 - 10 ** rng.uniform(-6, 0.5))
    else:
        lat = math.degrees(math.asin(rng.uniform(-1.0, 1.0)))
        lon = rng.uniform(-180.0, 180.0)
    return lat, lon


def _random_cases(seed, per_group):
    rng = random.Random(seed)
    groups = {}
    for n in SEGMENTS:
        cases = []
        for k in range(per_group):
            lat, lon = _random_centre(rng)
            radius = 10 ** rng.uniform(0.0, 7.0)
            cases.append((lat, lon, radius))
        groups[n] = cases
    return groups


def _run_random(figure, figure_args, seed, per_group, least):
    g = geodesic(figure)
    groups = _random_cases(seed, per_group)
    items, infos, kinds, gap = [], [], {}, []
    for n, cases in groups.items():
        recs = [point_feature(lat, lon, r=radius, id=k, tag=f"c{k}")
                for k, (lat, lon, radius) in enumerate(cases)]
        args = ["--radius-field", "r"] + figure_args + ([] if n is None else ["--segments", n])
        feats = circles(args, recs)
        assert len(feats) == len(cases)
        nn = 64 if n is None else n
        for k, (feat, (lat, lon, radius)) in enumerate(zip(feats, cases)):
            what = f"centre ({lat!r}, {lon!r}) radius {radius!r} segments {nn}"
            props = feat["properties"]
            assert props["r"] == radius and props["id"] == k and props["tag"] == f"c{k}", \
                f"{what}: input properties lost: {props}"
            info = check_circle(g, feat, (lat, lon), radius, nn, what, figure=figure)
            items.append(((lat, lon), radius, info["verts"], what))
            kinds[info["kind"]] = kinds.get(info["kind"], 0) + 1
            if info["kind"] == "cap" and abs(winding(g, info["ring"])) < 180:
                # The pole is inside the circle but in the gap between the circle and a
                # polygon edge (a south cap with odd N): the geodesic ring does not enclose
                # it, so there is no geodesic edge across +-180 to compare the cut with.
                gap.append(what)
                continue
            check_cuts(g, info)
            infos.append(info)
    check_vertex_distances(items, figure)
    check_areas([i for i in infos if i["kind"] != "ordinary"], figure)
    # the sample really covers the three shapes
    assert all(kinds.get(k, 0) >= least for k in ("ordinary", "antimeridian", "cap")), kinds
    return kinds, gap


@pytest.mark.slow
def test_random_circles_wgs84():
    _run_random(WGS84, [], seed=20240611, per_group=45, least=20)


def test_random_circles_on_the_maps_sphere():
    _run_random(MAPS_SPHERE, ["--sphere", "6371009"], seed=7, per_group=20, least=8)


def test_random_circles_on_another_ellipsoid():
    _run_random(INTL, ["--ellps", "intl"], seed=99, per_group=12, least=4)


# --- chosen circles ---------------------------------------------------------------------------

CHOSEN = [
    # (lat, lon, radius, segments), with the kind geo must make
    ((37.7749, -122.4194, 5000.0, 64), "ordinary"),
    ((0.0, 0.0, 1.0, 16), "ordinary"),
    ((0.0, 10.0, 9.9e6, 64), "ordinary"),
    ((-33.8688, 151.2093, 1e7, 64), "cap"),
    ((40.0, 179.5, 200000.0, 8), "antimeridian"),
    ((-16.5, -179.99, 150000.0, 100), "antimeridian"),
    ((65.0, 180.0, 1e6, 17), "antimeridian"),
    ((89.0, 0.0, 500000.0, 6), "cap"),
    ((-89.0, 10.0, 500000.0, 6), "cap"),
    ((90.0, 0.0, 100000.0, 4), "cap"),
    ((-90.0, 0.0, 100000.0, 9), "cap"),
    ((89.9, 0.0, 1.99e7, 64), "cap"),
    ((60.0, 10.0, 1.5e7, 64), "cap"),
    ((-75.0, 120.0, 1.8e7, 360), "cap"),
    ((89.99999, 45.0, 1.0, 12), "ordinary"),
    ((85.5, 179.9999, 600000.0, 50), "cap"),
]


@pytest.mark.parametrize("case,kind", CHOSEN, ids=[f"{c[0]}_{c[1]}_{c[2]:g}_{c[3]}"
                                                   for c, _ in CHOSEN])
def test_chosen_circles(case, kind):
    lat, lon, radius, n = case
    g = geodesic()
    feats = circles(["--center", f"{dec(lat)},{dec(lon)}", "--radius", dec(radius),
                     "--segments", n])
    assert len(feats) == 1
    what = f"--center {lat},{lon} --radius {radius} --segments {n}"
    info = check_circle(g, feats[0], (lat, lon), radius, n, what)
    assert info["kind"] == kind, f"{what}: a {info['kind']} circle, wanted {kind}"
    check_vertex_distances([((lat, lon), radius, info["verts"], what)])
    if kind != "ordinary":
        check_cuts(g, info)
        check_areas([info])


def test_ordinary_circle_shape_and_properties():
    feats = circles(["--center", "37.7749,-122.4194", "--radius", "5000"])
    f = feats[0]
    assert f["type"] == "Feature"
    assert f["geometry"]["type"] == "Polygon"
    ring = f["geometry"]["coordinates"][0]
    assert len(ring) == 65 and ring[0] == ring[-1]
    assert f["properties"] == {"radius_m": 5000, "center": [-122.4194, 37.7749]}
    Poly = shapely_geom()
    poly = Poly.Polygon(ring)
    assert poly.is_valid and poly.exterior.is_ccw
    assert poly.contains(Poly.Point(-122.4194, 37.7749))


def test_small_coordinates_never_in_exponent_notation():
    rc, out, err = run([CMD, "--center", "0,0", "--radius", "1", "--segments", "8"])
    assert rc == 0, err
    assert not EXPONENT.search(out), out
    ring = json.loads(out)["geometry"]["coordinates"][0]
    assert any(0 < abs(c) < 1e-4 for p in ring for c in p)


def test_segments_count(run):
    for n in (3, 4, 7, 64, 1000):
        f = circles(["--center", "10,20", "--radius", "12345.5", "--segments", n])[0]
        assert len(f["geometry"]["coordinates"][0]) == n + 1


def test_center_reads_no_input():
    rc, out, err = run([CMD, "--center", "10,20", "--radius", "1000"],
                       b"this is not json\n{\"type\":\"Point\"}\n")
    assert rc == 0, err
    feats = [json.loads(l) for l in out.decode().splitlines()]
    assert len(feats) == 1 and feats[0]["properties"]["center"] == [20, 10]


def test_radius_option_on_point_records():
    g = geodesic()
    recs = [point_feature(48.8566, 2.3522, name="Paris", n=1),
            {"type": "Point", "coordinates": [-58.3816, -34.6037]},
            point_feature(-89.5, 100.0, name="pole")]
    feats = circles(["--radius", "250000", "--segments", "40"], recs)
    assert [f["properties"].get("name") for f in feats] == ["Paris", None, "pole"]
    assert feats[0]["properties"]["n"] == 1
    assert feats[1]["properties"] == {"radius_m": 250000, "center": [-58.3816, -34.6037]}
    items = []
    for f, (lat, lon) in zip(feats, [(48.8566, 2.3522), (-34.6037, -58.3816), (-89.5, 100.0)]):
        info = check_circle(g, f, (lat, lon), 250000, 40, f"{lat},{lon}")
        items.append(((lat, lon), 250000, info["verts"], f"{lat},{lon}"))
    check_vertex_distances(items)


def test_feature_id_is_kept():
    rec = point_feature(1.0, 2.0, a={"b": [1, 2]})
    rec["id"] = "station-7"
    f = circles(["--radius", "10", "--segments", "5"], [rec])[0]
    assert f["id"] == "station-7"
    assert f["properties"]["a"] == {"b": [1, 2]}


def test_longitude_modulo_360():
    a = circles(["--center", "12.5,-0.5", "--radius", "80000", "--segments", "12"])[0]
    b = circles(["--center", "12.5,359.5", "--radius", "80000", "--segments", "12"])[0]
    ra, rb = a["geometry"]["coordinates"][0], b["geometry"]["coordinates"][0]
    assert len(ra) == len(rb)
    for p, q in zip(ra, rb):
        assert abs(p[0] - q[0]) <= 1e-9 and abs(p[1] - q[1]) <= 1e-9
        assert -180 <= q[0] <= 180


# --- --to polyline ----------------------------------------------------------------------------

@pytest.mark.parametrize("centre,radius,n", [
    ((37.7749, -122.4194), 5000.0, 64),
    ((40.0, 179.5), 200000.0, 8),
    ((89.0, 0.0), 500000.0, 6),
    ((-88.0, 30.0), 400000.0, 10),
])
def test_to_polyline_is_the_uncut_ring(polyline, centre, radius, n):
    g = geodesic()
    lat0, lon0 = centre
    base = ["--center", f"{dec(lat0)},{dec(lon0)}", "--radius", dec(radius), "--segments", n]
    feat = circles(base)[0]
    uncut = uncut_ring(g, centre, real_vertices(feat["geometry"], g, centre, radius))
    verts = [v for v, _ in uncut]
    for prec in (5, 6):
        rc, out, err = run([CMD] + [str(a) for a in base] + ["--to", "polyline",
                                                             "--to-precision", str(prec)])
        assert rc == 0, err
        lines = out.decode().splitlines()
        assert len(lines) == 1
        pts = polyline.decode(lines[0], prec)          # [(lat, lng)]
        assert len(pts) == n + 1, f"{len(pts)} points for {n} segments"
        assert pts[0] == pts[-1], "the encoded ring is not closed"
        q = 10.0 ** -prec
        # each point is a circle vertex, rounded; in counter-clockwise order
        order = []
        for la, lo in pts[:-1]:
            k = min(range(n), key=lambda j: abs(math.remainder(verts[j][0] - lo, 360.0))
                    + abs(verts[j][1] - la))
            v = verts[k]
            assert abs(v[1] - la) <= 0.5 * q + 1e-12
            assert abs(math.remainder(v[0] - lo, 360.0)) <= 0.5 * q + 1e-12
            order.append(k)
        assert sorted(order) == list(range(n))
        start = order[0]
        assert order == [(start + j) % n for j in range(n)], \
            f"the encoded ring is not in counter-clockwise order: {order}"
        # an ordinary circle's polyline is its GeoJSON ring, rounded, from the same start
        if kind_of(feat["geometry"]) == "ordinary":
            ring = feat["geometry"]["coordinates"][0]
            assert all(abs(la - p[1]) <= 0.5 * q + 1e-12 and abs(lo - p[0]) <= 0.5 * q + 1e-12
                       for (la, lo), p in zip(pts, ring))


# --- --tolerance ------------------------------------------------------------------------------

def _max_gap(g, centre, radius, ring):
    """R - d at the geodesic midpoint of every edge of the closed ring; the largest."""
    worst = -math.inf
    for k in range(len(ring)):
        p, q = ring[k], ring[(k + 1) % len(ring)]
        line = g.InverseLine(p[1], p[0], q[1], q[0])
        m = line.Position(0.5 * line.s13)
        d = g.Inverse(centre[0], centre[1], m["lat2"], m["lon2"])["s12"]
        worst = max(worst, radius - d)
    return worst


TOLERANCE_CASES = [
    ((37.7749, -122.4194), 1000.0, 1.0),
    ((37.7749, -122.4194), 5000.0, 0.05),
    ((0.0, 0.0), 1e6, 100.0),
    ((-60.0, 45.0), 3e6, 2000.0),
    ((10.0, 100.0), 1e7, 100.0),
    ((51.5, -0.1), 25.0, 0.001),
    ((40.0, 179.5), 200000.0, 10.0),     # antimeridian
    ((89.0, 0.0), 500000.0, 20.0),       # north cap
    ((-87.0, -120.0), 800000.0, 50.0),   # south cap
    ((70.0, -30.0), 1.2e7, 20.0),        # a cap larger than a hemisphere: edges bulge out
]


@pytest.mark.slow
@pytest.mark.parametrize("centre,radius,tol", TOLERANCE_CASES,
                         ids=[f"{c}_{r:g}_{t:g}" for c, r, t in TOLERANCE_CASES])
def test_tolerance_holds_and_is_the_fewest(centre, radius, tol):
    g = geodesic()
    base = ["--center", f"{dec(centre[0])},{dec(centre[1])}", "--radius", dec(radius)]
    feat = circles(base + ["--tolerance", dec(tol)])[0]
    verts = real_vertices(feat["geometry"], g, centre, radius)
    n = len(verts)
    what = f"--center {centre} --radius {radius} --tolerance {tol}"
    info = check_circle(g, feat, centre, radius, n, what)
    check_vertex_distances([(centre, radius, verts, what)])
    gap = _max_gap(g, centre, radius, info["ring"])
    assert gap <= tol + TOL_SLACK, \
        f"{what}: {n} vertices, an edge midpoint is {gap!r} m inside the circle"
    if n == 3:
        # The fewest there is. Only right when even a triangle keeps the bound: a circle
        # larger than a great circle's (r > about 10,000 km) has its geodesic edges bulge
        # outward (midpoints beyond R).
        assert radius > 9.9e6, f"{what}: 3 vertices"
        return
    # the fewest: one vertex less breaks the bound
    feat2 = circles(base + ["--segments", n - 1])[0]
    info2 = check_circle(g, feat2, centre, radius, n - 1, what + " (N-1)")
    gap2 = _max_gap(g, centre, radius, info2["ring"])
    assert gap2 > tol, f"{what}: {n - 1} vertices already keep within {tol} m ({gap2!r}), " \
                       f"but geo used {n}"


def test_tolerance_agrees_with_the_research_estimate():
    """N >= pi / sqrt(2 delta / r) for small circles (docs/algorithms.md, "Circles")."""
    for radius, tol in ((1000.0, 1.0), (10000.0, 0.1), (500.0, 0.01)):
        f = circles(["--center", "45,7", "--radius", dec(radius), "--tolerance", dec(tol)])[0]
        n = len(f["geometry"]["coordinates"][0]) - 1
        est = math.pi / math.sqrt(2 * tol / radius)
        assert abs(n - est) <= 2, f"r={radius} tol={tol}: {n} vertices, estimate {est:.2f}"


# --- antimeridian -----------------------------------------------------------------------------

def test_antimeridian_multipolygon_in_lonlat():
    g = geodesic()
    Poly = shapely_geom()
    centre, radius = (-12.0, 179.7), 300000.0
    f = circles(["--center", "-12,179.7", "--radius", "300000", "--segments", "720"])[0]
    assert f["geometry"]["type"] == "MultiPolygon"
    for poly in f["geometry"]["coordinates"]:
        for lon, lat in poly[0]:
            assert -180 <= lon <= 180
    info = check_circle(g, f, centre, radius, 720, "antimeridian")
    check_cuts(g, info)
    check_areas([info])
    mp = Poly.shape(f["geometry"])
    assert mp.is_valid, "the MultiPolygon is not valid in lon/lat"
    west = [p for p in f["geometry"]["coordinates"] if any(q[0] == -180 for q in p[0])]
    east = [p for p in f["geometry"]["coordinates"] if any(q[0] == 180 for q in p[0])]
    assert len(west) == 1 and len(east) == 1
    assert all(q[0] < 0 for q in west[0][0]), "the west piece has points east of the cut"
    assert all(q[0] > 0 for q in east[0][0]), "the east piece has points west of the cut"
    _check_containment(g, mp, centre, radius)


def _check_containment(g, shape, centre, radius, pole=None):
    Poly = shapely_geom()
    for az in (3.0, 41.0, 97.0, 133.0, 171.0, 205.0, 251.0, 288.0, 333.0):
        for frac, inside in ((1.001, False), (0.99, True)):
            d = g.Direct(centre[0], centre[1], az, frac * radius)
            lon, lat = d["lon2"], d["lat2"]
            assert abs(abs(lon) - 180) > 1e-6
            got = shape.contains(Poly.Point(lon, lat))
            assert got == inside, \
                f"point at {frac} R, azimuth {az} ({lon}, {lat}): contains={got}"
    if pole is not None:
        for lon in (0.0, 90.0, -135.0):
            pt = Poly.Point(lon, math.copysign(89.999, pole))
            assert shape.contains(pt), f"the cap does not contain {pt}"


# --- pole caps --------------------------------------------------------------------------------

@pytest.mark.parametrize("centre,radius", [
    ((89.0, 0.0), 500000.0),
    ((-87.5, 33.0), 600000.0),
    ((86.0, -150.0), 1500000.0),
])
def test_pole_cap(centre, radius):
    g = geodesic()
    Poly = shapely_geom()
    n = 2000
    f = circles(["--center", f"{dec(centre[0])},{dec(centre[1])}", "--radius", dec(radius),
                 "--segments", n])[0]
    assert f["geometry"]["type"] == "Polygon"
    info = check_circle(g, f, centre, radius, n, f"cap {centre}")
    assert info["kind"] == "cap"
    assert info["pole"] == math.copysign(90.0, centre[0])
    check_vertex_distances([(centre, radius, info["verts"], f"cap {centre}")])
    check_cuts(g, info)
    check_areas([info])
    poly = Poly.shape(f["geometry"])
    assert poly.is_valid, "the cap is not valid in lon/lat"
    _check_containment(g, poly, centre, radius, pole=info["pole"])
    # the ring runs along the circle sorted by longitude from -180 to 180 (north) or back
    ring = f["geometry"]["coordinates"][0]
    body = [p for p in ring if abs(p[1]) != 90]
    lons = [p[0] for p in body[:-1]] if body[0] == body[-1] else [p[0] for p in body]
    if info["pole"] > 0:
        assert lons == sorted(lons), "north cap ring not running west to east"
    else:
        assert lons == sorted(lons, reverse=True), "south cap ring not running east to west"


def test_south_cap_with_the_pole_between_polygon_edges():
    """A south cap with odd N: the pole is inside the circle (223 km from the centre, R = 230
    km) but in the gap between the circle and the edge joining the vertices at azimuths 144
    and 216, so the geodesic ring through the vertices does not enclose it. geo still makes a
    cap (the circle contains the pole, as docs/algorithms.md says); here only what holds
    either way is demanded: a cap containing the pole, valid in lon/lat, every vertex at R."""
    g = geodesic()
    Poly = shapely_geom()
    centre, radius, n = (-88.0, 0.0), 230000.0, 5
    f = circles(["--center", "-88,0", "--radius", "230000", "--segments", n])[0]
    info = check_circle(g, f, centre, radius, n, "gap cap")
    assert info["kind"] == "cap" and info["pole"] == -90.0
    assert winding(g, info["ring"]) == 0, "the geodesic ring does enclose the pole"
    check_vertex_distances([(centre, radius, info["verts"], "gap cap")])
    poly = Poly.shape(f["geometry"])
    assert poly.is_valid
    assert poly.contains(Poly.Point(0.0, -89.999))


def test_antimeridian_pieces_against_pyproj():
    g = geodesic()
    centre, radius, n = (55.0, -179.2), 750000.0, 256
    f = circles(["--center", "55,-179.2", "--radius", "750000", "--segments", n])[0]
    info = check_circle(g, f, centre, radius, n, "pyproj pieces")
    assert info["kind"] == "antimeridian"
    geod = pyproj_geod()
    parts = [geod.polygon_area_perimeter([p[0] for p in r], [p[1] for p in r])[0]
             for r in info["pieces"]]
    ring = info["ring"]
    whole, _ = geod.polygon_area_perimeter([p[0] for p in ring], [p[1] for p in ring])
    assert all(a > 0 for a in parts), f"a piece is clockwise for pyproj: {parts}"
    assert abs(math.fsum(parts) - whole) <= AREA_TOL, f"pieces {parts}, whole {whole}"


@pytest.mark.parametrize("centre,radius,n", [
    ((87.0, 20.0), 600000.0, 360),
    ((-85.0, -100.0), 1200000.0, 720),
    ((-60.0, 0.0), 4e6, 1000),
])
def test_cap_area_on_the_sphere(centre, radius, n):
    """pyproj's geodesic area of the true vertices vs the spherical cap 2 pi R^2 (1 - cos r/R),
    less the chord gaps; relative 1e-3."""
    R = MAPS_SPHERE[0]
    g = geodesic(MAPS_SPHERE)
    f = circles(["--center", f"{dec(centre[0])},{dec(centre[1])}", "--radius", dec(radius),
                 "--segments", n, "--sphere", "6371009"])[0]
    info = check_circle(g, f, centre, radius, n, f"sphere cap {centre}", figure=MAPS_SPHERE)
    assert info["kind"] == "cap"
    check_vertex_distances([(centre, radius, info["verts"], "sphere cap")], MAPS_SPHERE)
    ring = info["ring"]
    geod = pyproj_geod(MAPS_SPHERE)
    area, _ = geod.polygon_area_perimeter([p[0] for p in ring], [p[1] for p in ring])
    cap = 2 * math.pi * R * R * (1 - math.cos(radius / R))
    assert area > 0, f"pyproj says the ring is clockwise: {area}"
    assert abs(area - cap) <= 1e-3 * cap, f"area {area}, cap {cap}"
    assert area < cap, "the inscribed polygon is larger than the cap"
    # and the output polygon (cut over the pole) has the same area (Planimeter)
    check_areas([info], MAPS_SPHERE)


def test_cap_area_pieces_on_wgs84_match_pyproj():
    g = geodesic()
    centre, radius, n = (88.2, 77.0), 900000.0, 500
    f = circles(["--center", "88.2,77", "--radius", "900000", "--segments", n])[0]
    info = check_circle(g, f, centre, radius, n, "cap")
    ring = info["ring"]
    area, _ = pyproj_geod().polygon_area_perimeter([p[0] for p in ring], [p[1] for p in ring])
    pl = planimeter_areas([f["geometry"]["coordinates"][0], ring])
    assert abs(pl[1] - area) <= AREA_TOL
    assert abs(pl[0] - area) <= AREA_TOL


# --- bad records ------------------------------------------------------------------------------

MSG = re.compile(r"^geo circle-to-polygon: (.+):(\d+): (.+)$")


def test_bad_records_are_reported_with_their_line():
    good = lambda i: json.dumps(point_feature(10.0 + i, 20.0, r=1000 + i, i=i))  # noqa: E731
    pt = lambda r, lat=1.0: '{"type":"Feature","properties":{"r":' + r + '},' \
        '"geometry":{"type":"Point","coordinates":[2,' + str(lat) + ']}}'  # noqa: E731
    lines = [
        good(0),                                              # 1
        pt("0"),                                              # 2 radius 0
        pt("-5"),                                             # 3 negative
        good(1),                                              # 4
        pt("1e999"),                                          # 5 infinite
        pt("NaN"),                                            # 6 not JSON
        pt('"NaN"'),                                          # 7 a string
        pt("2e7"),                                            # 8 past the cut locus
        pt("1.5e7", 0.0),                                     # 9 both poles
        '{"type":"Feature","properties":{"r":100},'
        '"geometry":{"type":"LineString","coordinates":[[1,2],[3,4]]}}',  # 10 not a Point
        good(2),                                              # 11
        '{"type":"Feature","properties":{"r":100},"geometry":null}',      # 12 no geometry
        pt("-0.0"),                                           # 13 minus zero
        pt("19970400"),                                       # 14 just past pi*b
        good(3),                                              # 15
    ]
    bad_lines = {2, 3, 5, 6, 7, 8, 9, 10, 12, 13, 14}
    rc, out, err = run([CMD, "--radius-field", "r", "--segments", "8"],
                       "\n".join(lines) + "\n")
    assert rc == 65, f"exit {rc}: {err}"
    feats = [json.loads(l) for l in out.decode().splitlines()]
    assert [f["properties"]["i"] for f in feats] == [0, 1, 2, 3]
    reported = {}
    for line in err.splitlines():
        m = MSG.match(line)
        assert m, f"not a line-numbered message: {line!r}"
        reported[int(m.group(2))] = m.group(3)
    assert set(reported) == bad_lines, f"reported lines {sorted(reported)}:\n{err}"
    # the good records are right
    g = geodesic()
    items = []
    for f in feats:
        i = f["properties"]["i"]
        info = check_circle(g, f, (10.0 + i, 20.0), 1000 + i, 8, f"good {i}")
        items.append(((10.0 + i, 20.0), 1000 + i, info["verts"], f"good {i}"))
    check_vertex_distances(items)


def test_bad_record_strict_and_rejects(tmp_path):
    rej = tmp_path / "rejects.ndjson"
    lines = [json.dumps(point_feature(1.0, 2.0, r=10)),
             json.dumps(point_feature(1.0, 2.0, r=-1)),
             json.dumps(point_feature(1.0, 2.0, r=10))]
    rc, out, err = run([CMD, "--radius-field", "r", "--rejects", rej], "\n".join(lines) + "\n")
    assert rc == 65
    assert len(out.decode().splitlines()) == 2
    rows = [json.loads(l) for l in rej.read_text().splitlines()]
    assert len(rows) == 1 and rows[0]["line"] == 2 and rows[0]["input"] == lines[1]
    rc, out, err = run([CMD, "--radius-field", "r", "--strict"], "\n".join(lines) + "\n")
    assert rc == 65
    assert len(out.decode().splitlines()) == 1
    assert re.search(r":2: ", err)


def test_radius_option_bad_for_every_record():
    rc, out, err = run([CMD, "--radius", "2e7"], ndjson([point_feature(1.0, 2.0),
                                                          point_feature(3.0, 4.0)]))
    assert rc in (64, 65), err
    assert out == b""


@pytest.mark.parametrize("args", [
    ["--center", "10,20", "--radius", "0"],
    ["--center", "10,20", "--radius", "-3"],
    ["--center", "10,20", "--radius", "nan"],
    ["--center", "10,20", "--radius", "1e999"],
    ["--center", "10,20", "--radius", "inf"],
    ["--center", "10,20", "--radius", "20000000"],
    ["--center", "10,20", "--radius", "19970400"],
    ["--center", "0,0", "--radius", "15000000"],
    ["--center", "95,0", "--radius", "1000"],
    ["--center", "nan,0", "--radius", "1000"],
    ["--center", "10,20", "--radius", "1000", "--segments", "2"],
    ["--center", "10,20", "--radius", "1000", "--tolerance", "0"],
    ["--center", "10,20", "--radius", "1000", "--tolerance", "-1"],
])
def test_center_usage_errors(args):
    rc, out, err = run([CMD] + args)
    assert rc == 64, f"{args}: exit {rc}: {err}"
    assert out == b""
    assert err.startswith("geo circle-to-polygon: ")
    assert "See 'geo circle-to-polygon --help'" in err


def test_largest_radius_below_the_cut_locus():
    """A 19,960 km circle around a point near the North Pole: one cap, every vertex at R."""
    g = geodesic()
    centre, radius = (89.95, 12.0), 19960000.0
    f = circles(["--center", "89.95,12", "--radius", "19960000", "--segments", "90"])[0]
    info = check_circle(g, f, centre, radius, 90, "huge cap")
    assert info["kind"] == "cap"
    check_vertex_distances([(centre, radius, info["verts"], "huge cap")])
    check_cuts(g, info)
    check_areas([info])


# --- GDAL -------------------------------------------------------------------------------------

OGR_CIRCLES = [
    ["--center", "37.7749,-122.4194", "--radius", "5000"],
    ["--center", "40,179.5", "--radius", "200000"],
    ["--center", "89,0", "--radius", "500000"],
    ["--center", "-88,30", "--radius", "400000"],
]


def _ogr(args):
    proc = subprocess.run([ogrinfo()] + args, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, f"ogrinfo {args}: {proc.stderr}"
    assert "ERROR" not in proc.stderr and "ERROR" not in proc.stdout, proc.stderr
    return proc.stdout


@pytest.mark.parametrize("args", OGR_CIRCLES, ids=["ordinary", "antimeridian", "north-cap",
                                                   "south-cap"])
def test_gdal_reads_the_output(tmp_path, args):
    path = tmp_path / "circle.geojson"
    rc, out, err = run([CMD] + args + ["--collection", "-o", path])
    assert rc == 0, err
    info = _ogr(["-al", "-so", str(path)])
    assert "using driver `GeoJSON' successful" in info
    assert "Feature Count: 1" in info
    want = "Multi Polygon" if "179.5" in args[1] else "Polygon"
    assert re.search(r"^Geometry: " + want + "$", info, re.M), info
    sql = _ogr(["-dialect", "sqlite", "-sql",
                "SELECT ST_IsValid(geometry) AS ok FROM circle", str(path)])
    assert re.search(r"ok \(Integer\) = 1", sql), sql


def test_gdal_reads_an_ndjson_stream(tmp_path):
    path = tmp_path / "circles.geojsonl"
    recs = [point_feature(37.7749, -122.4194, r=5000), point_feature(40.0, 179.5, r=200000),
            point_feature(89.0, 0.0, r=500000)]
    rc, out, err = run([CMD, "--radius-field", "r", "-o", path], ndjson(recs))
    assert rc == 0, err
    info = _ogr(["-al", "-so", str(path)])
    assert "Feature Count: 3" in info, info
    sql = _ogr(["-dialect", "sqlite", "-sql",
                "SELECT ST_IsValid(geometry) AS ok FROM circles", str(path)])
    assert len(re.findall(r"ok \(Integer\) = 1", sql)) == 3, sql
