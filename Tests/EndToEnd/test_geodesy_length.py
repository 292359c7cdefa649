"""`geo length` against the geodesy oracles (docs/algorithms.md: "Geodesic edges", "Summing
lengths", "Rhumb lines", "Projected edges").

Every length is compared with an independent reference, edge by edge, summed exactly
(math.fsum), with the tolerances docs/algorithms.md states: 1e-8 m per edge for geodesics
(GeodSolve, and pyproj as a second opinion), 1e-7 m per edge for rhumb lines (RhumbSolve), and
relative 1e-12 for Web Mercator lengths (pyproj's EPSG:3857 coordinates; hypot of the
differences, x taken the short way across the antimeridian). A path's tolerance is the edge
tolerance times its number of edges.

Rhumb lines with an endpoint exactly at a pole: geo takes such an edge as the meridian arc
between the two latitudes (a rhumb line reaching a pole is a meridian). GeographicLib 2.1
(Debian 12) and >= 2.2 disagree with each other there, so those edges are checked against the
meridian arc from GeodSolve only, never against RhumbSolve.
"""

import json
import math
import random

import pytest

from conftest import ndjson, run
from test_geodesy_oracles import (
    GEODESIC_TOL, NY, RHUMB_TOL, SF, WGS84_A, dec, edges_of, figure_of, geo_ok, geod_dist,
    merc_dx, merc_edge_len, merc_forward, merc_tol, merc_x, merc_y, parse_records, planimeter,
    pyproj_geod, pyproj_mod, random_path, rhumb_inverse, wrap_lon,
)

SEED = 20240611
N_RANDOM = 240

# name -> (geo options, GeographicLib figure (a, f); None is WGS84)
FIGURES = {
    "WGS84": ([], None),
    "GRS80": (["--ellps", "GRS80"], "GRS80"),
    "intl": (["--ellps", "intl"], "intl"),
    "sphere": (["--sphere", "6371009"], (6371009.0, 0.0)),
}


def _figure(name):
    opts, fig = FIGURES[name]
    if isinstance(fig, str):
        fig = figure_of(fig)
    return opts, fig


# --- random paths ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def random_paths():
    rng = random.Random(SEED)
    return [random_path(rng) for _ in range(N_RANDOM)]


def _is_pole(lat):
    return abs(lat) == 90.0


def oracle_edges(kind, edges, figure=None):
    """Per-edge (length, tolerance) by the oracle for KIND."""
    if not edges:
        return []
    if kind == "geodesic":
        return [(s, GEODESIC_TOL) for s in geod_dist(edges, figure)]
    if kind == "rhumb":
        out = [None] * len(edges)
        normal = [i for i, e in enumerate(edges) if not (_is_pole(e[0]) or _is_pole(e[2]))]
        polar = [i for i, e in enumerate(edges) if _is_pole(e[0]) or _is_pole(e[2])]
        for i, (_, s) in zip(normal, rhumb_inverse([edges[i] for i in normal], figure)):
            out[i] = (s, RHUMB_TOL)
        # The meridian arc between the two latitudes (see the module docstring).
        arcs = geod_dist([(edges[i][0], 0.0, edges[i][2], 0.0) for i in polar], figure)
        for i, s in zip(polar, arcs):
            out[i] = (s, GEODESIC_TOL)
        return out
    if kind == "projected":
        # pyproj's EPSG:3857 coordinates (WGS84's a).
        assert figure is None
        pts = merc_forward([(e[0], e[1]) for e in edges] + [(e[2], e[3]) for e in edges])
        n = len(edges)
        res = []
        for i, e in enumerate(edges):
            p, q = pts[i], pts[n + i]
            s = merc_edge_len(p, q)
            res.append((s, merc_tol(s, p, q, lats=(e[0], e[2]))))
        return res
    if kind == "projected_formula":
        # x = a*lambda, y = a*asinh(tan(phi)) with degree-reduced sin and cos: no pole term.
        a = WGS84_A if figure is None else figure[0]
        res = []
        for la1, lo1, la2, lo2 in edges:
            p, q = (merc_x(lo1, a), merc_y(la1, a)), (merc_x(lo2, a), merc_y(la2, a))
            s = math.hypot(merc_dx(p[0], q[0], a), q[1] - p[1])
            res.append((s, merc_tol(s, p, q, a=a)))
        return res
    raise AssertionError(kind)


def oracle_length(kind, lonlats, figure=None, closed=False):
    """(length, tolerance, per-edge lengths) of a path."""
    per = oracle_edges(kind, edges_of(lonlats, closed), figure)
    return math.fsum(s for s, _ in per), math.fsum(t for _, t in per), [s for s, _ in per]


def _check_cumulative(cum, per_edge, per_tol, what):
    assert isinstance(cum, list) and len(cum) == len(per_edge) + 1, f"{what}: shape {cum!r}"
    assert cum[0] == 0, what
    for i in range(1, len(cum)):
        want = math.fsum(per_edge[:i])
        tol = math.fsum(per_tol[:i])
        assert abs(cum[i] - want) <= tol, f"{what}: cumulative_m[{i}] {cum[i]!r} != {want!r}"


def _batch_check(kind, paths, geo_opts, figure, *, cumulative=True, oracle=None):
    """Run geo length on all paths at once; compare with the oracle's per-edge sums."""
    recs = [{"type": "Feature", "properties": {"i": i},
             "geometry": {"type": "LineString", "coordinates": p}} for i, p in enumerate(paths)]
    args = ["length", "--kind", kind] + geo_opts + (["--cumulative"] if cumulative else [])
    out = geo_ok(args, recs)
    all_edges, spans = [], []
    for p in paths:
        e = edges_of(p)
        spans.append((len(all_edges), len(all_edges) + len(e)))
        all_edges += e
    per = oracle_edges(oracle or kind, all_edges, figure)
    worst = []
    for i, (p, r, (a, b)) in enumerate(zip(paths, out, spans)):
        assert r["properties"]["i"] == i
        assert r["geometry"]["coordinates"] == p, "the geometry must be copied unchanged"
        want = math.fsum(s for s, _ in per[a:b])
        tol = math.fsum(t for _, t in per[a:b])
        got = r["properties"]["length_m"]
        if abs(got - want) > tol:
            worst.append((abs(got - want) / max(b - a, 1), i, got, want, p))
        if cumulative:
            _check_cumulative(r["properties"]["cumulative_m"], [s for s, _ in per[a:b]],
                              [t for _, t in per[a:b]], f"path {i}")
        else:
            assert "cumulative_m" not in r["properties"]
    worst.sort(reverse=True)
    assert not worst, (
        f"{len(worst)} of {len(paths)} paths off by more than the tolerance; worst per edge "
        f"{worst[0][0]:.3g} m: path {worst[0][1]} {json.dumps(worst[0][4])}: geo {worst[0][2]!r}, "
        f"oracle {worst[0][3]!r}")
    return out


# --- random paths against the oracles -------------------------------------------------------

@pytest.mark.parametrize("figure", list(FIGURES))
def test_random_paths_geodesic(random_paths, figure):
    opts, fig = _figure(figure)
    _batch_check("geodesic", random_paths, opts, fig)


@pytest.mark.parametrize("figure", list(FIGURES))
def test_random_paths_rhumb(random_paths, figure):
    opts, fig = _figure(figure)
    _batch_check("rhumb", random_paths, opts, fig)


def test_random_paths_projected(random_paths):
    _batch_check("projected", random_paths, [], None)


def test_random_paths_projected_exact_formula(random_paths):
    """Near the poles pyproj's own y is only good to a*ulp/cos(phi); the well-conditioned
    formula holds geo to relative 1e-12 there too."""
    _batch_check("projected", random_paths, [], None, oracle="projected_formula")


def test_random_paths_projected_on_a_sphere(random_paths):
    """--sphere R --kind projected: x = R*lambda, y = R*asinh(tan phi), as PROJ's merc on that
    sphere gives them."""
    pyproj = pyproj_mod()
    R = 6371009.0
    tr = pyproj.Transformer.from_crs("EPSG:4326", f"+proj=merc +a={R:.1f} +b={R:.1f} +type=crs",
                                     always_xy=True)
    recs = [{"type": "LineString", "coordinates": p} for p in random_paths[:80]]
    out = geo_ok(["length", "--kind", "projected", "--sphere", "6371009"], recs)
    for p, r in zip(random_paths, out):
        xs, ys = tr.transform([wrap_lon(q[0]) for q in p], [q[1] for q in p])
        total = tol = 0.0
        for i in range(len(p) - 1):
            a, b = (xs[i], ys[i]), (xs[i + 1], ys[i + 1])
            s = math.hypot(merc_dx(a[0], b[0], R), b[1] - a[1])
            total += s
            tol += merc_tol(s, a, b, lats=(p[i][1], p[i + 1][1]), a=R)
        assert abs(r["properties"]["length_m"] - total) <= tol, json.dumps(p)
        want, tol, _ = oracle_length("projected_formula", p, (R, 0.0))
        assert abs(r["properties"]["length_m"] - want) <= tol, json.dumps(p)


@pytest.mark.parametrize("figure", list(FIGURES))
def test_random_paths_geodesic_against_pyproj(random_paths, figure):
    """A second geodesic oracle: pyproj's Geod(a=..., f=...) (PROJ's geod_inverse), path by path."""
    opts, fig = _figure(figure)
    g = pyproj_geod(fig)
    out = geo_ok(["length"] + opts, [{"type": "LineString", "coordinates": p} for p in random_paths])
    for p, r in zip(random_paths, out):
        lons = [wrap_lon(q[0]) for q in p]
        lats = [q[1] for q in p]
        _, _, d = g.inv(lons[:-1], lats[:-1], lons[1:], lats[1:])
        want = math.fsum(d)
        assert abs(r["properties"]["length_m"] - want) <= GEODESIC_TOL * (len(p) - 1), json.dumps(p)
        assert abs(g.line_length(lons, lats) - want) <= GEODESIC_TOL * len(p)


def test_longitudes_are_taken_modulo_360(random_paths):
    """The same path with every longitude shifted by a multiple of 360 has the same length
    (within the oracle tolerance: the shift itself rounds the longitudes)."""
    rng = random.Random(SEED + 1)
    paths = random_paths[:60]
    shifted = [[[q[0] + 360 * rng.choice([-3, -1, 1, 2]), q[1]] for q in p] for p in paths]
    for kind, tol in (("geodesic", GEODESIC_TOL), ("rhumb", RHUMB_TOL)):
        a = geo_ok(["length", "--kind", kind], [{"type": "LineString", "coordinates": p} for p in paths])
        b = geo_ok(["length", "--kind", kind], [{"type": "LineString", "coordinates": p} for p in shifted])
        for p, s, x, y in zip(paths, shifted, a, b):
            # Longitudes far from 0 lose bits when shifted: allow the shift's own rounding.
            slack = max(abs(u[0] - v[0]) - 360 * round((u[0] - v[0]) / 360) for u, v in zip(p, s))
            allowance = tol * (len(p) - 1) + abs(slack) * 111320 * 2 * len(p)
            assert abs(x["properties"]["length_m"] - y["properties"]["length_m"]) <= allowance


# --- the Maps SDK's sphere -------------------------------------------------------------------

def test_san_francisco_to_new_york_on_the_maps_sdk_sphere():
    path = [[SF[1], SF[0]], [NY[1], NY[0]]]
    out = geo_ok(["length", "--sphere", "6371009"], [{"type": "LineString", "coordinates": path}])
    assert abs(out[0]["properties"]["length_m"] - 4129091.998) <= 1e-3
    want = geod_dist(edges_of(path), (6371009.0, 0.0))[0]
    assert abs(out[0]["properties"]["length_m"] - want) <= GEODESIC_TOL
    # On WGS84 (docs/algorithms.md, "The Maps SDK model geo reproduces": 4,139,145.5 m).
    out = geo_ok(["length"], [{"type": "LineString", "coordinates": path}])
    assert abs(out[0]["properties"]["length_m"] - 4139145.5) <= 0.05
    assert abs(out[0]["properties"]["length_m"] - geod_dist(edges_of(path))[0]) <= GEODESIC_TOL


# --- fixed nasty cases ------------------------------------------------------------------------

NEAR_EW = [
    [[lon0, lat], [lon0 + dlon, lat + dlat]]
    for dlat in (1e-12, 1e-9, 1e-6, -1e-12, -1e-9, -1e-6)
    for lat, lon0 in ((0.5, 0.0), (45.0, -170.0), (60.0, 100.0), (-70.0, 179.5), (89.9, -30.0),
                      (-89.9, 0.0), (0.0, 10.0))
    for dlon in (1.0, 90.0, 179.5, -45.0)
]

EXACT_EW = [
    [[lon0, lat], [lon0 + dlon, lat]]
    for lat in (0.0, 45.0, -45.0, 89.9, -89.9, 89.999999, 1e-9)
    for lon0, dlon in ((0.0, 0.001), (10.0, 1.0), (-100.0, 179.0), (170.0, 20.0), (0.0, -135.0),
                       (5.0, 359.5), (-179.9, -0.2))
]

NASTY = {
    "equator 179.9 to -179.9": [[179.9, 0.0], [-179.9, 0.0]],
    "equator -179.9 to 179.9": [[-179.9, 0.0], [179.9, 0.0]],
    "several antimeridian crossings": [[170.0, 10.0], [-170.0, 20.0], [175.0, -5.0], [-175.0, 30.0],
                                       [179.999999, 30.000001], [-179.999999, 30.0]],
    "180 and -180 are one point": [[180.0, 45.0], [-180.0, 45.0], [180.0, 45.0]],
    "tiny across the antimeridian": [[179.9999999, 60.0], [-179.9999999, 60.0000001]],
    "zero-length edges": [[1.0, 2.0], [1.0, 2.0], [3.0, 4.0], [3.0, 4.0], [3.0, 4.0]],
    "near the north pole": [[0.0, 89.99999], [180.0, 89.99999], [90.0, 89.9999999], [-90.0, 89.9999999]],
    "near the south pole": [[0.0, -89.9999], [90.0, -89.9999], [180.0, -89.9999], [-90.0, -89.9999]],
    "nearly antipodal": [[0.0, 0.0], [179.5, 0.5], [0.0, -0.3], [179.8, 29.9], [0.0, -30.0]],
    "antipodal on the equator": [[0.0, 0.0], [180.0, 0.0]],
    "meridian": [[10.0, -80.0], [10.0, 80.0], [-170.0, 80.0]],
    "longitudes beyond 180": [[190.0, 0.0], [-190.0, 1.0], [540.0, 2.0], [-720.5, 3.0]],
    "micro steps": [[12.345678, 45.678901], [12.345679, 45.678901], [12.345679, 45.678902],
                    [12.3456790001, 45.6789020001]],
    "1e-12 degree steps": [[0.0, 0.0], [1e-12, 0.0], [1e-12, 1e-12], [-1e-12, -1e-12]],
}


def _path_case(kind, paths, names):
    out = geo_ok(["length", "--kind", kind], [{"type": "LineString", "coordinates": p} for p in paths])
    bad = []
    for name, p, r in zip(names, paths, out):
        want, tol, _ = oracle_length(kind, p)
        got = r["properties"]["length_m"]
        if not abs(got - want) <= tol:
            bad.append(f"{name}: {json.dumps(p)}: geo {got!r}, oracle {want!r}, "
                       f"off by {abs(got - want):.3g} m (tolerance {tol:.3g})")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("kind", ["geodesic", "rhumb", "projected"])
def test_nasty_paths(kind):
    _path_case(kind, list(NASTY.values()), list(NASTY))


@pytest.mark.parametrize("kind", ["rhumb", "geodesic", "projected"])
def test_nearly_east_west_edges(kind):
    """|dlat| = 1e-12, 1e-9, 1e-6 degrees: the naive rhumb formula m12/psi12 is wrong by
    centimetres to tens of kilometres here (docs/algorithms.md, "Rhumb lines")."""
    _path_case(kind, NEAR_EW, [json.dumps(p) for p in NEAR_EW])


@pytest.mark.parametrize("kind", ["rhumb", "geodesic", "projected"])
def test_exactly_east_west_edges(kind):
    _path_case(kind, EXACT_EW, [json.dumps(p) for p in EXACT_EW])


def test_equator_across_the_antimeridian_closed_form():
    """179.9 -> -179.9 on the equator is 0.2 degrees of the equator: a*0.2*pi/180 for every
    kind (the geodesic and the rhumb line are the equator; Web Mercator x = a*lambda)."""
    want = WGS84_A * math.radians(0.2)
    for kind in ("geodesic", "rhumb", "projected"):
        for path in ([[179.9, 0.0], [-179.9, 0.0]], [[-179.9, 0.0], [179.9, 0.0]]):
            out = geo_ok(["length", "--kind", kind], [{"type": "LineString", "coordinates": path}])
            assert abs(out[0]["properties"]["length_m"] - want) <= 1e-8, (kind, path)


def test_exact_east_west_rhumb_closed_form():
    """An exactly east-west rhumb edge is an arc of the parallel: N(phi)*cos(phi)*dlambda."""
    a, f = WGS84_A, 1 / 298.257223563
    e2 = f * (2 - f)
    cases = [(lat, dlon) for lat in (0.0, 30.0, -45.0, 60.0, 89.9, -89.9) for dlon in (0.5, 10.0, 179.0)]
    paths = [[[-20.0, lat], [-20.0 + dlon, lat]] for lat, dlon in cases]
    out = geo_ok(["length", "--kind", "rhumb"], [{"type": "LineString", "coordinates": p} for p in paths])
    for (lat, dlon), r in zip(cases, out):
        s = math.sin(math.radians(lat))
        want = a * math.cos(math.radians(lat)) / math.sqrt(1 - e2 * s * s) * math.radians(dlon)
        assert abs(r["properties"]["length_m"] - want) <= RHUMB_TOL, (lat, dlon)


POLE_PATHS = {
    "up to the north pole": [[10.0, 80.0], [50.0, 90.0]],
    "down from the north pole": [[50.0, 90.0], [10.0, 80.0]],
    "pole to pole": [[10.0, 90.0], [50.0, -90.0]],
    "around the south pole": [[0.0, -90.0], [100.0, -90.0]],
    "from the south pole on": [[-30.0, -90.0], [60.0, -45.0], [61.0, -44.0]],
    "through the north pole": [[0.0, 45.0], [0.0, 90.0], [90.0, 45.0]],
    "from the equator to the pole": [[123.0, 0.0], [-57.0, 90.0]],
}


@pytest.mark.parametrize("kind", ["geodesic", "rhumb"])
def test_pole_endpoints(kind):
    """Rhumb edges to or from a pole are meridian arcs; checked against GeodSolve's meridian
    arc only (GeographicLib 2.1 and >= 2.2 differ at exact poles)."""
    _path_case(kind, list(POLE_PATHS.values()), list(POLE_PATHS))


def test_pole_rhumb_edge_is_the_meridian_arc():
    # (80 N, 10 E) -> the north pole: the meridian arc from 80 to 90 degrees.
    out = geo_ok(["length", "--kind", "rhumb"], [{"type": "LineString", "coordinates": [[10, 80], [50, 90]]}])
    want = geod_dist([(80.0, 0.0, 90.0, 0.0)])[0]
    assert want == pytest.approx(1116825.8573758, abs=1e-6)
    assert abs(out[0]["properties"]["length_m"] - want) <= GEODESIC_TOL


# --- geometries of length zero ---------------------------------------------------------------

@pytest.mark.parametrize("kind", ["geodesic", "rhumb", "projected"])
def test_zero_length_geometries(kind):
    geoms = [
        {"type": "LineString", "coordinates": [[1.5, 2.5]]},
        {"type": "LineString", "coordinates": []},
        None,
        {"type": "Point", "coordinates": [1.0, 2.0]},
        {"type": "MultiPoint", "coordinates": [[1.0, 2.0], [30.0, 40.0], [-170.0, -80.0]]},
        {"type": "MultiPoint", "coordinates": []},
        {"type": "LineString", "coordinates": [[7.0, 8.0], [7.0, 8.0], [7.0, 8.0]]},
        {"type": "MultiLineString", "coordinates": []},
        {"type": "GeometryCollection", "geometries": []},
    ]
    recs = [{"type": "Feature", "properties": {"n": i}, "geometry": g} for i, g in enumerate(geoms)]
    out = geo_ok(["length", "--kind", kind], recs)
    for i, (g, r) in enumerate(zip(geoms, out)):
        assert r["properties"] == {"n": i, "length_m": 0}, g
        assert r["geometry"] == g


# --- polygons, multi-geometries ------------------------------------------------------------------

def _random_ring(rng, closed):
    style = rng.random()
    if style < 0.15:
        # Around a pole: every longitude, never closed over the pole itself.
        lat = rng.choice([-1, 1]) * rng.uniform(70, 89.9)
        k = rng.randint(3, 12)
        ring = [[-180 + 360 * i / k + rng.uniform(0, 1), lat + rng.uniform(-0.5, 0.5)] for i in range(k)]
    else:
        clat = rng.uniform(-75, 75)
        clon = rng.choice([rng.uniform(-180, 180), 179.5, -179.8])   # some across the antimeridian
        r = rng.choice([1e-5, 0.01, 1.0, 10.0])
        k = rng.randint(3, 14)
        angs = sorted(rng.uniform(0, 2 * math.pi) for _ in range(k))
        ring = [[wrap_lon(clon + r * math.cos(t) / max(math.cos(math.radians(clat)), 0.2)),
                 clat + r * math.sin(t)] for t in angs]
    if closed:
        ring.append(list(ring[0]))
    return ring


def _ring_perimeter_oracles(rings, kind):
    """Perimeters by Planimeter (-R for rhumb), each ring closed."""
    latlon = [[(q[1], q[0]) for q in ring] for ring in rings]
    return [p for _, p, _ in planimeter(latlon, rhumb=(kind == "rhumb"))]


def _closed_edges(ring):
    pts = ring[:-1] if len(ring) > 1 and ring[0] == ring[-1] else ring
    return len(pts)


@pytest.mark.parametrize("kind", ["geodesic", "rhumb"])
def test_polygon_perimeters_against_planimeter(kind):
    rng = random.Random(SEED + 2)
    polys = []
    for _ in range(60):
        nrings = rng.choice([1, 1, 2, 3])
        polys.append([_random_ring(rng, rng.random() < 0.5) for _ in range(nrings)])
    out = geo_ok(["length", "--kind", kind, "--cumulative"],
                 [{"type": "Polygon", "coordinates": p} for p in polys])
    rings = [ring for p in polys for ring in p]
    perims = iter(_ring_perimeter_oracles(rings, kind))
    tol_edge = GEODESIC_TOL if kind == "geodesic" else RHUMB_TOL
    g = pyproj_geod()
    for p, r in zip(polys, out):
        want = [next(perims) for _ in p]
        nedges = sum(_closed_edges(ring) for ring in p)
        got = r["properties"]["length_m"]
        assert abs(got - math.fsum(want)) <= tol_edge * nedges, json.dumps(p)
        if kind == "geodesic":
            closed = [ring if ring[0] == ring[-1] else ring + [ring[0]] for ring in p]
            py = math.fsum(g.line_length([wrap_lon(q[0]) for q in c], [q[1] for q in c]) for c in closed)
            assert abs(got - py) <= tol_edge * nedges, json.dumps(p)
        # cumulative_m: one array per ring, one value per given vertex, each from 0; a ring
        # given closed ends at its perimeter.
        cum = r["properties"]["cumulative_m"]
        assert [len(c) for c in cum] == [len(ring) for ring in p]
        for ring, c, per in zip(p, cum, want):
            assert c[0] == 0
            if ring[0] == ring[-1]:
                assert abs(c[-1] - per) <= tol_edge * len(ring), json.dumps(ring)
            else:
                closing = oracle_edges(kind, edges_of([ring[-1], ring[0]]))[0][0]
                assert abs(c[-1] + closing - per) <= tol_edge * (len(ring) + 1), json.dumps(ring)


def test_unclosed_ring_is_closed():
    open_ring = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]]
    closed_ring = open_ring + [[0.0, 0.0]]
    for kind in ("geodesic", "rhumb", "projected"):
        out = geo_ok(["length", "--kind", kind], [{"type": "Polygon", "coordinates": [open_ring]},
                                                  {"type": "Polygon", "coordinates": [closed_ring]}])
        want, tol, _ = oracle_length(kind, closed_ring)
        assert abs(out[0]["properties"]["length_m"] - want) <= tol, kind
        assert abs(out[1]["properties"]["length_m"] - want) <= tol, kind


def test_projected_polygon_perimeter():
    ring = [[179.0, 10.0], [-179.0, 10.0], [-179.0, 12.0], [179.0, 12.0]]
    out = geo_ok(["length", "--kind", "projected"], [{"type": "Polygon", "coordinates": [ring]}])
    want, tol, per = oracle_length("projected", ring, closed=True)
    assert len(per) == 4
    assert abs(out[0]["properties"]["length_m"] - want) <= tol
    # Two east-west edges of 2 degrees the short way, two north-south edges.
    assert want == pytest.approx(2 * WGS84_A * math.radians(2) + 2 * abs(
        merc_forward([(12.0, 179.0)])[0][1] - merc_forward([(10.0, 179.0)])[0][1]), rel=1e-12)


@pytest.mark.parametrize("kind", ["geodesic", "rhumb", "projected"])
def test_multi_geometries_sum_their_parts(random_paths, kind):
    rng = random.Random(SEED + 3)
    parts = [random_paths[i:i + rng.randint(1, 4)] for i in range(0, 120, 4)]
    polys = [[_random_ring(rng, True)] for _ in range(6)]
    recs = [{"type": "MultiLineString", "coordinates": ps} for ps in parts]
    recs.append({"type": "MultiPolygon", "coordinates": polys})
    recs.append({"type": "GeometryCollection", "geometries": [
        {"type": "LineString", "coordinates": parts[0][0]},
        {"type": "Point", "coordinates": [5.0, 5.0]},
        {"type": "Polygon", "coordinates": polys[0]},
        {"type": "MultiLineString", "coordinates": parts[1]},
    ]})
    out = geo_ok(["length", "--kind", kind, "--cumulative"], recs)
    for ps, r in zip(parts, out):
        pieces = [oracle_length(kind, p) for p in ps]
        want = math.fsum(w for w, _, _ in pieces)
        tol = math.fsum(t for _, t, _ in pieces)
        assert abs(r["properties"]["length_m"] - want) <= tol, json.dumps(ps)
        cum = r["properties"]["cumulative_m"]
        assert len(cum) == len(ps)
        for c, (_, _, per) in zip(cum, pieces):
            _check_cumulative(c, per, [tol] * len(per), "MultiLineString part")
    mp = [oracle_length(kind, poly[0], closed=True) for poly in polys]
    assert abs(out[-2]["properties"]["length_m"] - math.fsum(w for w, _, _ in mp)) <= math.fsum(
        t for _, t, _ in mp)
    assert [[len(ring) for ring in poly] for poly in out[-2]["properties"]["cumulative_m"]] == [
        [len(ring) for ring in poly] for poly in polys]
    gc = [oracle_length(kind, parts[0][0]), mp[0]] + [oracle_length(kind, p) for p in parts[1]]
    assert abs(out[-1]["properties"]["length_m"] - math.fsum(w for w, _, _ in gc)) <= math.fsum(
        t for _, t, _ in gc)


# --- --cumulative, --field, --from polyline, pass-through ---------------------------------------

def test_cumulative_shape_and_values():
    path = [[-122.4194, 37.7749], [-74.006, 40.7128], [-70.0, 41.0], [-70.0, 41.0], [2.35, 48.85]]
    for kind in ("geodesic", "rhumb", "projected"):
        out = geo_ok(["length", "--kind", kind, "--cumulative"], [{"type": "LineString", "coordinates": path}])
        _, tol, per = oracle_length(kind, path)
        cum = out[0]["properties"]["cumulative_m"]
        _check_cumulative(cum, per, [tol / len(per)] * len(per), kind)
        assert cum[3] == cum[2], "a zero-length edge adds nothing"
        assert all(x <= y for x, y in zip(cum, cum[1:]))
        assert abs(cum[-1] - out[0]["properties"]["length_m"]) <= tol
    out = geo_ok(["length", "--cumulative"], [{"type": "MultiPoint", "coordinates": [[1, 2], [3, 4]]},
                                              {"type": "LineString", "coordinates": [[1, 2]]}])
    assert out[0]["properties"]["cumulative_m"] == [0, 0]
    assert out[1]["properties"]["cumulative_m"] == [0]


def test_field_renames_the_length():
    path = [[SF[1], SF[0]], [NY[1], NY[0]]]
    rec = {"type": "Feature", "properties": {"name": "sf-ny"}, "geometry": {"type": "LineString", "coordinates": path}}
    out = geo_ok(["length", "--field", "dist", "--cumulative"], [rec])
    props = out[0]["properties"]
    assert set(props) == {"name", "dist", "cumulative_m"}
    assert abs(props["dist"] - geod_dist(edges_of(path))[0]) <= GEODESIC_TOL
    out = geo_ok(["length", "--field=metres", "--kind", "rhumb"], [rec])
    assert set(out[0]["properties"]) == {"name", "metres"}
    assert abs(out[0]["properties"]["metres"] - rhumb_inverse(edges_of(path))[0][1]) <= RHUMB_TOL


def test_from_polyline_precision_6(polyline, random_paths):
    """--from polyline -p 6: the length of the decoded path (values integer / 10^6)."""
    paths = [[[round(q[0], 6), round(q[1], 6)] for q in p if abs(q[0]) <= 180] for p in random_paths[:80]]
    paths = [p for p in paths if len(p) >= 2]
    lines = [polyline.encode([(q[1], q[0]) for q in p], 6) for p in paths]
    # Raw lines and JSON string literals, both accepted.
    data = "".join((json.dumps(s) if i % 2 else s) + "\n" for i, s in enumerate(lines))
    for kind in ("geodesic", "rhumb"):
        rc, out, err = run(["length", "--from", "polyline", "-p", "6", "--kind", kind], data)
        assert (rc, err) == (0, "")
        recs = parse_records(out)
        assert len(recs) == len(lines)
        for s, r in zip(lines, recs):
            dec_pts = _decode_exact(s, 6)
            assert r["geometry"] == {"type": "LineString", "coordinates": dec_pts}
            want, tol, _ = oracle_length(kind, dec_pts)
            assert abs(r["properties"]["length_m"] - want) <= tol, s


def _decode_exact(s, precision):
    """Decode a polyline to [lon, lat] with integer / 10^p (docs/algorithms.md, "Encoded
    polylines")."""
    vals, i, b = [], 0, s.encode()
    while i < len(b):
        result = shift = 0
        while True:
            c = b[i] - 63
            i += 1
            result |= (c & 0x1F) << shift
            shift += 5
            if c < 0x20:
                break
        vals.append(~(result >> 1) if result & 1 else result >> 1)
    lat = lon = 0
    pts = []
    for k in range(0, len(vals), 2):
        lat += vals[k]
        lon += vals[k + 1]
        pts.append([lon / 10 ** precision, lat / 10 ** precision])
    return pts


def test_properties_and_id_pass_through():
    recs = [
        {"type": "Feature", "id": "route-7", "properties": {"name": "x", "nested": {"a": [1, 2, None]},
                                                          "length_m": "old"},
         "geometry": {"type": "LineString", "coordinates": [[0, 0], [1, 1]]}},
        {"type": "Feature", "id": 42, "properties": None,
         "geometry": {"type": "LineString", "coordinates": [[0, 0], [0, 1]]}},
        {"type": "LineString", "coordinates": [[0, 0], [1, 0]]},
        {"type": "FeatureCollection", "features": [
            {"type": "Feature", "properties": {"k": 1}, "geometry": {"type": "Point", "coordinates": [0, 0]}},
            {"type": "Feature", "properties": {"k": 2}, "geometry": {"type": "LineString", "coordinates": [[0, 0], [2, 0]]}},
        ]},
    ]
    rc, out, err = run(["length"], ndjson(recs))
    assert (rc, err) == (0, "")
    got = parse_records(out)          # duplicate keys (a second length_m) fail here
    assert len(got) == 5
    d = geod_dist([(0, 0, 1, 1), (0, 0, 1, 0), (0, 0, 0, 1), (0, 0, 0, 2)])
    assert got[0]["id"] == "route-7"
    assert got[0]["properties"]["name"] == "x" and got[0]["properties"]["nested"] == {"a": [1, 2, None]}
    assert abs(got[0]["properties"]["length_m"] - d[0]) <= GEODESIC_TOL
    assert got[1]["id"] == 42
    assert set(got[1]["properties"]) == {"length_m"}
    assert abs(got[1]["properties"]["length_m"] - d[1]) <= GEODESIC_TOL
    assert got[2]["type"] == "Feature" and "id" not in got[2]
    assert abs(got[2]["properties"]["length_m"] - d[2]) <= GEODESIC_TOL
    assert got[3]["properties"] == {"k": 1, "length_m": 0}
    assert got[4]["properties"]["k"] == 2
    assert abs(got[4]["properties"]["length_m"] - d[3]) <= GEODESIC_TOL
    assert [g["geometry"] for g in got[:3]] == [r["geometry"] if r["type"] == "Feature" else r for r in recs[:3]]


# --- bad records -------------------------------------------------------------------------------

def test_projected_latitude_90_is_a_bad_record():
    good = {"type": "LineString", "coordinates": [[0, 0], [1, 1]]}
    recs = [
        {"type": "LineString", "coordinates": [[0, 10], [10, 90]]},        # line 1: bad
        good,                                                                # line 2
        {"type": "LineString", "coordinates": [[0, -90], [10, 10]]},       # line 3: bad
        {"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1]]]},     # line 4
    ]
    rc, out, err = run(["length", "--kind", "projected"], ndjson(recs))
    assert rc == 65
    got = parse_records(out)
    assert len(got) == 2
    want, tol, _ = oracle_length("projected", good["coordinates"])
    assert abs(got[0]["properties"]["length_m"] - want) <= tol
    assert got[1]["geometry"]["type"] == "Polygon"
    lines = err.splitlines()
    assert len(lines) == 2, err
    assert lines[0].startswith("geo length: <stdin>:1: "), err
    assert lines[1].startswith("geo length: <stdin>:3: "), err
    # Geodesic and rhumb lengths take the poles.
    for kind in ("geodesic", "rhumb"):
        rc, out, err = run(["length", "--kind", kind], ndjson(recs))
        assert (rc, err) == (0, "")
        assert len(parse_records(out)) == 4


def test_latitude_out_of_range_is_a_bad_record():
    recs = [{"type": "LineString", "coordinates": [[0, 0], [0, 90.0000001]]},
            {"type": "LineString", "coordinates": [[0, 0], [0, 1]]}]
    for kind in ("geodesic", "rhumb", "projected"):
        rc, out, err = run(["length", "--kind", kind], ndjson(recs))
        assert rc == 65, kind
        assert len(parse_records(out)) == 1
        assert err.startswith("geo length: <stdin>:1: "), err


def test_output_never_uses_exponent_notation():
    # A tiny length (about 1.1e-7 m) must print as a plain decimal.
    rc, out, err = run(["length", "--cumulative"],
                       '{"type":"LineString","coordinates":[[0,0],[0,0.000000000001]]}\n')
    assert (rc, err) == (0, "")
    text = out.decode()
    assert "e-" not in text and "E-" not in text, text
    rec = json.loads(text)
    assert rec["properties"]["length_m"] == pytest.approx(1.1057e-7, rel=1e-3)
    assert dec(rec["properties"]["length_m"]) in text

