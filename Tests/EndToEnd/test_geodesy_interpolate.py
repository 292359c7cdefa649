"""`geo interpolate` against the geodesy oracles (docs/algorithms.md, "Interpolation and
densification").

Every point geo computes is checked against an independent reference, to 1e-6 m on the
ground:
- geodesic: GeographicLib's InverseLine(...).Position(d) gives the expected point; and, by
  GeodSolve, the distances start->P and P->end sum to the edge length and start->P is d;
- rhumb: RhumbSolve gives the edge azimuth and the expected point (RhumbSolve direct); and, by
  RhumbSolve inverse, start->P runs on the edge azimuth and is d long. An edge with an
  endpoint exactly at a pole is the meridian arc (as `geo length` measures it); its points are
  checked against GeodSolve along the meridian of the other endpoint (GeographicLib 2.1 and
  >= 2.2 differ at exact poles, so RhumbSolve is not asked about those edges);
- projected: the straight Web Mercator segment between pyproj's EPSG:3857 coordinates of the
  endpoints (x the short way across the antimeridian), at d Web Mercator metres.
"""

import json
import math
import random
import re
from decimal import ROUND_HALF_UP, Decimal

import pytest

from conftest import ndjson, run
from test_geodesy_oracles import (
    GEODESIC_TOL, NY, POINT_TOL, RHUMB_TOL, SF, WGS84_A, cosd, edges_of,
    geod_direct, geod_inverse, geographiclib_geodesic, merc_dx, merc_forward, merc_inverse,
    merc_x, merc_y, parse_records, random_path, rhumb_direct, rhumb_inverse, wrap_lon,
)

SEED = 20240612
KINDS = ["geodesic", "rhumb", "projected"]


def _is_pole(lat):
    return abs(lat) == 90.0


# --- the oracle: edge lengths, expected points, checks ---------------------------------------

def edge_lengths(kind, edges):
    """Oracle length of each edge (lat1, lon1, lat2, lon2) by KIND."""
    if not edges:
        return []
    if kind == "geodesic":
        return [s for _, _, s in geod_inverse(edges)]
    if kind == "rhumb":
        out = [0.0] * len(edges)
        normal = [i for i, e in enumerate(edges) if not (_is_pole(e[0]) or _is_pole(e[2]))]
        polar = [i for i, e in enumerate(edges) if _is_pole(e[0]) or _is_pole(e[2])]
        for i, (_, s) in zip(normal, rhumb_inverse([edges[i] for i in normal])):
            out[i] = s
        for i, (_, _, s) in zip(polar, geod_inverse([(edges[i][0], 0.0, edges[i][2], 0.0) for i in polar])):
            out[i] = s
        return out
    if kind == "projected":
        # The well-conditioned x = a*lambda, y = a*asinh(tan(phi)) (checked against pyproj's
        # EPSG:3857 in test_geodesy_length.py; pyproj's own y loses a*ulp/cos(phi) near the poles).
        out = []
        for la1, lo1, la2, lo2 in edges:
            out.append(math.hypot(merc_dx(merc_x(lo1), merc_x(lo2)), merc_y(la2) - merc_y(la1)))
        return out
    raise AssertionError(kind)


class PointChecks:
    """Collects (kind, edge, distance along the edge, geo's point) and checks them in batches."""

    def __init__(self, kind):
        self.kind = kind
        self.items = []

    def add(self, edge, d, point, label, s=None):
        self.items.append((edge, d, point, label, s))

    def add_on_path(self, path, d, point, label, cum=None):
        """geo's POINT is D metres from the start of PATH ([lon, lat] positions)."""
        edges = edges_of(path)
        if cum is None:
            cum = cumulative(self.kind, path)
        for i, e in enumerate(edges):
            if cum[i + 1] >= d and cum[i + 1] > cum[i] or i == len(edges) - 1:
                self.add(e, min(max(d - cum[i], 0.0), cum[i + 1] - cum[i]), point, label,
                         cum[i + 1] - cum[i])
                return
        raise AssertionError("empty path")

    def run(self):
        if not self.items:
            return
        bad = []
        for it in self.items:
            lon = it[2][0]
            if not -180 <= lon <= 180:
                bad.append(f"{it[3]}: longitude {lon!r} outside [-180, 180]")
        lengths = [it[4] for it in self.items]
        missing = [i for i, s in enumerate(lengths) if s is None]
        for i, s in zip(missing, edge_lengths(self.kind, [self.items[i][0] for i in missing])):
            lengths[i] = s
        getattr(self, "_" + self.kind)(lengths, bad)
        assert not bad, f"{len(bad)} of {len(self.items)} points wrong:\n" + "\n".join(bad[:25])

    # ground distance between geo's point and the expected one (GeographicLib)
    @staticmethod
    def _ground(p_latlon, q_latlon):
        g = geographiclib_geodesic()
        return g.Inverse(p_latlon[0], p_latlon[1], q_latlon[0], q_latlon[1], g.DISTANCE)["s12"]

    def _geodesic(self, lengths, bad):
        g = geographiclib_geodesic()
        queries = []
        for (edge, d, pt, label, _), s in zip(self.items, lengths):
            line = g.InverseLine(*edge)
            want = line.Position(d)
            got = (pt[1], pt[0])
            off = self._ground(got, (want["lat2"], want["lon2"]))
            if not off <= POINT_TOL:
                bad.append(f"{label}: geo {pt}, InverseLine.Position({d!r}) "
                           f"[{want['lon2']!r}, {want['lat2']!r}]: {off:.3g} m apart")
            queries.append((edge[0], edge[1], got[0], got[1]))
            queries.append((got[0], got[1], edge[2], edge[3]))
        res = geod_inverse(queries)
        for k, ((edge, d, pt, label, _), s) in enumerate(zip(self.items, lengths)):
            s1, s2 = res[2 * k][2], res[2 * k + 1][2]
            if not (abs(s1 + s2 - s) <= POINT_TOL and abs(s1 - d) <= POINT_TOL):
                bad.append(f"{label}: geo {pt} on edge {edge} at {d!r}: GeodSolve start->P {s1!r}, "
                           f"P->end {s2!r}, edge {s!r}: off the edge by {s1 + s2 - s:.3g} m, "
                           f"along it by {s1 - d:.3g} m")

    def _rhumb(self, lengths, bad):
        normal = [k for k, it in enumerate(self.items) if not (_is_pole(it[0][0]) or _is_pole(it[0][2]))]
        polar = [k for k, it in enumerate(self.items) if _is_pole(it[0][0]) or _is_pole(it[0][2])]
        azis = rhumb_inverse([self.items[k][0] for k in normal])
        want = rhumb_direct([(self.items[k][0][0], self.items[k][0][1], az, self.items[k][1])
                             for k, (az, _) in zip(normal, azis)])
        # RhumbSolve's own round trip: its direct problem from the start, on its own (double)
        # azimuth, for the whole edge, misses the end vertex by this much. Near the poles, with
        # nearly east-west azimuths, that is micrometres (3.1e-6 m for (89.99982, 176.39) ->
        # (88.03557, -152.23)); the oracle's point is allowed that much more.
        ends = rhumb_direct([(self.items[k][0][0], self.items[k][0][1], az, s)
                             for k, (az, s) in zip(normal, azis)])
        slack = [self._ground(e, (self.items[k][0][2], self.items[k][0][3]))
                 for k, e in zip(normal, ends)]
        back = rhumb_inverse([(self.items[k][0][0], self.items[k][0][1],
                               self.items[k][2][1], self.items[k][2][0]) for k in normal])
        for k, (az, _), w, (az_p, s_p), sl in zip(normal, azis, want, back, slack):
            edge, d, pt, label, _ = self.items[k]
            off = self._ground((pt[1], pt[0]), w)
            if not off <= POINT_TOL + sl:
                bad.append(f"{label}: geo {pt}, RhumbSolve [{w[1]!r}, {w[0]!r}] at {d!r} on "
                           f"edge {edge}: {off:.3g} m apart (oracle round trip {sl:.3g} m)")
            dazi = math.radians(math.remainder(az_p - az, 360.0))
            lateral = s_p * abs(math.sin(dazi)) if abs(dazi) < math.pi / 2 else s_p
            if not (abs(s_p - d) <= POINT_TOL and lateral <= POINT_TOL):
                bad.append(f"{label}: geo {pt} on rhumb edge {edge} at {d!r}: RhumbSolve start->P "
                           f"azimuth {az_p!r} (edge {az!r}: {lateral:.3g} m sideways), "
                           f"distance {s_p!r} ({s_p - d:.3g} m along)")
        # Edges reaching a pole: the meridian of the endpoint that is not a pole.
        queries, kinds = [], []
        for k in polar:
            (la1, lo1, la2, lo2), d, pt, label, _ = self.items[k]
            s = lengths[k]
            if not _is_pole(la2):              # from a pole: back from the end, toward that pole
                queries.append((la2, lo2, 0.0 if la1 > 0 else 180.0, s - d))
                kinds.append("point")
            elif not _is_pole(la1):            # to a pole
                queries.append((la1, lo1, 0.0 if la2 > 0 else 180.0, d))
                kinds.append("point")
            else:                              # pole to pole: any meridian, check the latitude
                queries.append((la1, 0.0, 180.0 if la1 > 0 else 0.0, d))
                kinds.append("latitude")
        for k, w, how in zip(polar, geod_direct(queries), kinds):
            edge, d, pt, label, _ = self.items[k]
            if how == "point":
                off = self._ground((pt[1], pt[0]), w)
            else:
                off = self._ground((pt[1], 0.0), (w[0], 0.0))
            if not off <= POINT_TOL:
                bad.append(f"{label}: geo {pt} at {d!r} on the meridian edge {edge}: expected "
                           f"[{w[1]!r}, {w[0]!r}] ({how}), {off:.3g} m apart")

    def _projected(self, lengths, bad):
        # The endpoints' EPSG:3857 coordinates: pyproj's, except that near the poles pyproj's
        # y loses a*ulp/cos(phi) (3 cm at 89.999998 degrees, test_geodesy_oracles.py), which
        # moves the point a few micrometres on the ground; there the well-conditioned formula
        # (equal to pyproj elsewhere) is used. The point goes back to lon/lat through pyproj.
        ends = merc_forward([(it[0][0], it[0][1]) for it in self.items]
                            + [(it[0][2], it[0][3]) for it in self.items])
        n = len(self.items)
        for k, it in enumerate(self.items):
            for j, (la, lo) in ((k, it[0][:2]), (n + k, it[0][2:])):
                if abs(la) > 85:
                    ends[j] = (ends[j][0], merc_y(la))
        targets = []
        for k, it in enumerate(self.items):
            (x1, y1), (x2, y2) = ends[k], ends[n + k]
            dx, dy = merc_dx(x1, x2), y2 - y1
            s = math.hypot(dx, dy)
            t = it[1] / s if s > 0 else 0.0
            x = x1 + t * dx
            x = math.remainder(x, 2 * math.pi * WGS84_A)
            targets.append((x, y1 + t * dy))
        want = merc_inverse(targets)
        for k, (it, w) in enumerate(zip(self.items, want)):
            edge, d, pt, label, _ = it
            off = self._ground((pt[1], pt[0]), w)
            if not off <= POINT_TOL:
                bad.append(f"{label}: geo {pt}, expected [{w[1]!r}, {w[0]!r}] at {d!r} Web "
                           f"Mercator metres on edge {edge}: {off:.3g} m apart on the ground")
            # In Web Mercator metres: on the segment, at distance d. The latitude of P is a
            # double: its last bit is a*ulp/cos(phi) Mercator metres near the poles.
            p = (merc_x(pt[0]), merc_y(pt[1]))
            a1 = (merc_x(edge[1]), merc_y(edge[0]))
            a2 = (merc_x(edge[3]), merc_y(edge[2]))
            s_ap = math.hypot(merc_dx(a1[0], p[0]), p[1] - a1[1])
            s_pb = math.hypot(merc_dx(p[0], a2[0]), a2[1] - p[1])
            s = math.hypot(merc_dx(a1[0], a2[0]), a2[1] - a1[1])
            floor = (4 * WGS84_A * math.ulp(math.pi / 2) / max(cosd(pt[1]), 1e-300)
                     + 8 * math.ulp(max(abs(p[1]), abs(a1[1]), abs(a2[1]), WGS84_A * math.pi)))
            if not (abs(s_ap + s_pb - s) <= POINT_TOL + 2 * floor and abs(s_ap - d) <= POINT_TOL + floor):
                bad.append(f"{label}: geo {pt} on the Web Mercator edge {edge} at {d!r}: "
                           f"start->P {s_ap!r}, P->end {s_pb!r}, edge {s!r}")


def cumulative(kind, path):
    per = edge_lengths(kind, edges_of(path))
    return [math.fsum(per[:i]) for i in range(len(per) + 1)]


def path_records(paths, **props):
    return [{"type": "Feature", "properties": dict(props, i=i),
             "geometry": {"type": "LineString", "coordinates": p}} for i, p in enumerate(paths)]


def _same_vertex(point, vertex):
    """A path vertex as geo returns it for a computed point: longitude in [-180, 180]."""
    return point[1] == vertex[1] and (point[0] == vertex[0] or point[0] == wrap_lon(vertex[0])
                                      or abs(point[0]) == 180 == abs(wrap_lon(vertex[0])))


def _paths(seed, count, styles=None, max_points=None):
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        p = random_path(rng, rng.choice(styles) if styles else None)
        if max_points:
            p = p[:max_points]
        out.append(p)
    return out


NO_EXPONENT = re.compile(rb"\d[eE][-+]?\d")


def _geo_kind(args, kind, recs):
    data = ndjson(recs)
    rc, out, err = run(["interpolate", "--kind", kind] + list(args), data)
    assert (rc, err) == (0, ""), f"geo interpolate --kind {kind} {args}: exit {rc}: {err[:3000]}"
    assert not NO_EXPONENT.search(out), "exponent notation in the output"
    got = parse_records(out)
    assert len(got) == len(recs)
    return got


# --- --fraction on two-point paths (GMSGeometryInterpolate, on the ellipsoid) ------------------

FRACTIONS = [0.0, 0.1, 1 / 3, 0.5, 0.9, 0.999999, 1.0]


@pytest.fixture(scope="module")
def two_point_paths():
    paths = _paths(SEED, 120, max_points=2)
    paths += [
        [[179.9, 0.0], [-179.9, 0.0]], [[-179.5, 10.0], [179.5, 11.0]], [[170.0, -40.0], [-170.0, -41.0]],
        [[0.0, 89.9], [180.0, 89.9]], [[10.0, -89.99], [-170.0, -89.99]], [[45.0, 89.999], [46.0, 89.9999]],
        [[0.0, 0.0], [179.5, 0.5]], [[12.0, 45.0], [12.000001, 45.000001]], [[SF[1], SF[0]], [NY[1], NY[0]]],
        [[5.0, 5.0], [5.0, 5.0]],
    ]
    return paths


@pytest.mark.parametrize("kind", KINDS)
def test_fraction_on_two_point_paths(two_point_paths, kind):
    paths = two_point_paths
    lengths = edge_lengths(kind, [edges_of(p)[0] for p in paths])
    checks = PointChecks(kind)
    for f in FRACTIONS:
        got = _geo_kind(["--fraction", repr(f)], kind, path_records(paths, name="x"))
        for p, s, r in zip(paths, lengths, got):
            props = r["properties"]
            assert r["geometry"]["type"] == "Point"
            assert props["name"] == "x" and props["fraction"] == f
            assert abs(props["distance_m"] - f * s) <= RHUMB_TOL + 1e-12 * s, (p, f)
            pt = r["geometry"]["coordinates"]
            checks.add(edges_of(p)[0], f * s, pt, f"--fraction {f} {json.dumps(p)}", s)
    checks.run()


def test_fraction_on_the_maps_sdk_sphere_is_slerp():
    """--sphere 6371009 --fraction: GMSGeometryInterpolate's spherical slerp."""
    fracs = [0.25, 0.5, 0.75]
    a, b = SF, NY
    for f in fracs:
        got = _geo_kind(["--fraction", repr(f), "--sphere", "6371009"], "geodesic",
                        [{"type": "LineString", "coordinates": [[a[1], a[0]], [b[1], b[0]]]}])
        pt = got[0]["geometry"]["coordinates"]
        v1 = _unit(a)
        v2 = _unit(b)
        omega = math.acos(sum(x * y for x, y in zip(v1, v2)))
        k1, k2 = math.sin((1 - f) * omega) / math.sin(omega), math.sin(f * omega) / math.sin(omega)
        v = [k1 * x + k2 * y for x, y in zip(v1, v2)]
        want = (math.degrees(math.atan2(v[2], math.hypot(v[0], v[1]))), math.degrees(math.atan2(v[1], v[0])))
        from geographiclib.geodesic import Geodesic  # noqa: PLC0415
        off = Geodesic(6371009.0, 0.0).Inverse(pt[1], pt[0], want[0], want[1])["s12"]
        assert off <= POINT_TOL, (f, pt, want)
        assert abs(got[0]["properties"]["distance_m"] - f * 4129091.998) <= 1e-3


def _unit(latlon):
    la, lo = map(math.radians, latlon)
    return [math.cos(la) * math.cos(lo), math.cos(la) * math.sin(lo), math.sin(la)]


# --- --fraction and --distance on longer paths ----------------------------------------------------

@pytest.fixture(scope="module")
def long_paths():
    return _paths(SEED + 1, 70)


@pytest.mark.parametrize("kind", KINDS)
def test_fraction_and_distance_on_paths(long_paths, kind):
    paths = long_paths
    cums = [cumulative(kind, p) for p in paths]
    checks = PointChecks(kind)
    for f in (0.37, 0.5, 0.999):
        got = _geo_kind(["--fraction", repr(f)], kind, path_records(paths))
        for p, cum, r in zip(paths, cums, got):
            L = cum[-1]
            assert r["properties"]["fraction"] == f
            assert abs(r["properties"]["distance_m"] - f * L) <= 1e-7 * len(p) + 1e-12 * L
            checks.add_on_path(p, f * L, r["geometry"]["coordinates"], f"--fraction {f} {json.dumps(p)}", cum)
    # --distance, positive and negative, on the paths long enough for it.
    for D in (123456.789, 1.5, -98765.4321, -0.25):
        sel = [i for i, c in enumerate(cums) if c[-1] > abs(D) + 1e-3]
        assert len(sel) > 20
        got = _geo_kind(["--distance", repr(D)], kind, path_records([paths[i] for i in sel]))
        for i, r in zip(sel, got):
            L = cums[i][-1]
            d = D if D >= 0 else L + D
            props = r["properties"]
            assert abs(props["distance_m"] - d) <= 1e-7 * len(paths[i]) + 1e-12 * L, (D, paths[i])
            assert abs(props["fraction"] - d / L) <= 1e-12 + 1e-7 * len(paths[i]) / L
            if D >= 0:
                assert props["distance_m"] == D
            checks.add_on_path(paths[i], d, r["geometry"]["coordinates"], f"--distance {D} {json.dumps(paths[i])}",
                               cums[i])
    checks.run()


@pytest.mark.parametrize("kind", KINDS)
def test_path_ends_are_its_vertices_exactly(long_paths, two_point_paths, kind):
    """At distance 0 and at the full length the point is the path's own first or last vertex,
    copied exactly (its longitude reduced to [-180, 180]): --fraction 0 and 1 (for a two-point
    path GMSGeometryInterpolate returns `from` and `to`), and the ends of --count and --every."""
    paths = [p for p in long_paths + two_point_paths if p[0] != p[-1]]
    bad = []
    for args, which in ((["--fraction", "0"], [0]), (["--fraction", "1"], [-1]),
                        (["--count", "3"], [0, -1]), (["--every", "1000000"], [0, -1])):
        got = _geo_kind(args, kind, path_records(paths))
        for p, r in zip(paths, got):
            c = r["geometry"]["coordinates"]
            pts = [c] if r["geometry"]["type"] == "Point" else c
            for w in which:
                v = p[0] if (w == 0 and args != ["--fraction", "1"]) else p[-1]
                q = pts[0] if args[0] == "--fraction" else pts[w]
                if not _same_vertex(q, v):
                    off = PointChecks._ground((q[1], q[0]), (v[1], v[0]))
                    bad.append(f"geo interpolate --kind {kind} {' '.join(args)} on {json.dumps(p)}: "
                               f"{q} is not the vertex {v} ({off:.2g} m from it)")
    assert not bad, f"{len(bad)} ends are not the path's vertices:\n" + "\n".join(bad[:10])


def test_distance_at_the_ends_gives_the_end_vertices():
    path = [[-122.4194, 37.7749], [-74.006, 40.7128], [-70.0, 41.0]]
    for kind in KINDS:
        rc, out, err = run(["length", "--kind", kind], json.dumps({"type": "LineString", "coordinates": path}))
        assert (rc, err) == (0, "")
        L = json.loads(out)["properties"]["length_m"]
        rec = [{"type": "LineString", "coordinates": path}]
        for args, vertex in ((["--distance", repr(L)], path[-1]), (["--distance", repr(-L)], path[0]),
                             (["--distance", "0"], path[0]), (["--distance", "-0"], path[0]),
                             (["--fraction", "1"], path[-1]), (["--fraction", "0"], path[0])):
            got = _geo_kind(args, kind, rec)
            assert got[0]["geometry"]["coordinates"] == vertex, (kind, args)


@pytest.mark.parametrize("kind", KINDS)
def test_distance_beyond_the_ends_is_a_bad_record(kind):
    short = [[0.0, 0.0], [0.0, 0.001]]            # about 110 m
    long = [[0.0, 0.0], [1.0, 1.0], [2.0, 1.0]]   # about 268 km
    L = cumulative(kind, short)[-1]
    recs = [{"type": "LineString", "coordinates": long}, {"type": "LineString", "coordinates": short},
            {"type": "LineString", "coordinates": long}]
    for D in (L + 1.0, -(L + 1.0), L * (1 + 1e-9) + 1e-6):
        rc, out, err = run(["interpolate", "--kind", kind, "--distance", repr(D)], ndjson(recs))
        assert rc == 65, (kind, D, err)
        got = parse_records(out)
        assert len(got) == 2, "the other records still come out"
        lines = err.splitlines()
        assert len(lines) == 1 and lines[0].startswith("geo interpolate: <stdin>:2: "), err
        assert "beyond" in lines[0]
    # --strict stops there.
    rc, out, err = run(["interpolate", "--kind", kind, "--strict", "--distance", repr(L + 1)], ndjson(recs))
    assert rc == 65 and len(parse_records(out)) == 1


# --- --every, --count ------------------------------------------------------------------------

@pytest.mark.parametrize("kind", KINDS)
def test_every_and_count(long_paths, kind):
    paths = [p for p in long_paths if len(p) >= 2]
    cums = [cumulative(kind, p) for p in paths]
    checks = PointChecks(kind)
    # --every D for paths that are long, and for the tiny ones.
    for D, sel in ((731234.5, [i for i, c in enumerate(cums) if 1e5 < c[-1] < 5e7]),
                   (0.03, [i for i, c in enumerate(cums) if 0 < c[-1] < 3.0])):
        assert len(sel) >= 5, f"too few paths for --every {D}"
        got = _geo_kind(["--every", repr(D)], kind, path_records([paths[i] for i in sel]))
        for i, r in zip(sel, got):
            p, cum = paths[i], cums[i]
            L = cum[-1]
            pts = r["geometry"]["coordinates"]
            assert r["geometry"]["type"] == "MultiPoint"
            n_full = math.floor(L / D)
            # 0, D, 2D, ... and the end (the end once, even when L is a multiple of D).
            ok = {n_full + 2, n_full + 1}
            assert len(pts) in ok, (len(pts), L, D)
            if abs(L / D - round(L / D)) > 1e-9:
                assert len(pts) == n_full + 2, (len(pts), L, D)
            checks.add_on_path(p, 0.0, pts[0], f"--every {D} first point {json.dumps(p)}", cum)
            checks.add_on_path(p, L, pts[-1], f"--every {D} last point {json.dumps(p)}", cum)
            for k, pt in enumerate(pts[1:-1], start=1):
                checks.add_on_path(p, k * D, pt, f"--every {D} point {k} {json.dumps(p)}", cum)
    for N in (2, 7):
        sel = [i for i, c in enumerate(cums) if c[-1] > 0]
        got = _geo_kind(["--count", str(N)], kind, path_records([paths[i] for i in sel]))
        for i, r in zip(sel, got):
            p, cum = paths[i], cums[i]
            pts = r["geometry"]["coordinates"]
            assert r["geometry"]["type"] == "MultiPoint" and len(pts) == N
            for k, pt in enumerate(pts):
                checks.add_on_path(p, cum[-1] * k / (N - 1), pt, f"--count {N} point {k} {json.dumps(p)}", cum)
    checks.run()


# --- --densify ----------------------------------------------------------------------------

def _check_densified(kind, path, out_pts, D, checks, label, edge_len=None):
    """OUT_PTS is PATH densified to edges of at most D: vertices kept exactly, in order; each
    edge cut into ceil(s/D) equal parts along its own kind."""
    edges = edges_of(path)
    lens = edge_len if edge_len is not None else edge_lengths(kind, edges)
    j = 0
    assert out_pts[0] == path[0], f"{label}: first vertex {out_pts[0]} != {path[0]}"
    for (e, s, v_next) in zip(edges, lens, path[1:]):
        # Find the next original vertex (an inserted point never equals it: it is strictly inside).
        k = j + 1
        while k < len(out_pts) and out_pts[k] != v_next:
            k += 1
        assert k < len(out_pts), f"{label}: vertex {v_next} missing from the output"
        inserted = out_pts[j + 1:k]
        parts = len(inserted) + 1
        need = max(1, math.ceil(s / D))
        if abs(s / D - round(s / D)) > 1e-9:
            assert parts == need, f"{label}: edge {e} of {s!r} m cut in {parts} parts, {need} needed for {D}"
        else:
            assert parts in (need, need + 1), f"{label}: edge {e} cut in {parts} parts"
        for m, pt in enumerate(inserted, start=1):
            checks.add(e, s * m / parts, pt, f"{label} edge {e} point {m}/{parts}", s)
        j = k
    assert j == len(out_pts) - 1, f"{label}: {len(out_pts) - 1 - j} points after the last vertex"


def _sub_edges_max(kind, pts):
    """The longest edge of a densified path, by the oracle."""
    lens = edge_lengths(kind, edges_of(pts))
    return max(lens) if lens else 0.0


@pytest.mark.parametrize("kind", KINDS)
def test_densify(long_paths, kind):
    paths = long_paths[:45]
    checks = PointChecks(kind)
    cases = [(1_500_000.0, paths), (0.04, [p for p in paths if cumulative(kind, p)[-1] < 5.0])]
    for D, sel in cases:
        got = _geo_kind(["--densify", repr(D)], kind, path_records(sel))
        all_sub = []
        for p, r in zip(sel, got):
            assert r["geometry"]["type"] == "LineString"
            out_pts = r["geometry"]["coordinates"]
            _check_densified(kind, p, out_pts, D, checks, f"--densify {D} {json.dumps(p)}")
            all_sub.append(out_pts)
        # Every output edge at most D (+1e-6 m), measured by the oracle in one batch.
        flat = [e for pts in all_sub for e in edges_of(pts)]
        lens = edge_lengths(kind, flat)
        worst = max(lens, default=0.0)
        assert worst <= D + POINT_TOL, f"an output edge of {worst!r} m > {D}"
    checks.run()


POLE_AND_ANTIMERIDIAN = {
    "equator across the antimeridian": [[179.9, 0.0], [-179.9, 0.0]],
    "back across the antimeridian": [[-179.5, 10.0], [179.5, 11.0], [-179.0, 12.3]],
    "high latitude across the antimeridian": [[170.0, 80.0], [-170.0, 80.5]],
    "near the north pole": [[0.0, 89.99], [180.0, 89.99], [90.0, 89.999]],
    "near the south pole": [[-45.0, -89.9], [135.0, -89.9]],
    "east-west at 89.9": [[-100.0, 89.9], [100.0, 89.9]],
    "nearly east-west": [[10.0, 60.0], [50.0, 60.000000001]],
    "east-west within 1e-12 degrees": [[0.0, 45.0], [90.0, 45.000000000001], [-175.0, 45.0]],
    "longitudes past 180": [[190.0, 10.0], [200.0, 11.0], [-400.0, 12.0]],
    "lon 180 vertex": [[180.0, 20.0], [170.0, 21.0], [-180.0, 22.0]],
}


@pytest.mark.parametrize("kind", KINDS)
def test_antimeridian_and_near_pole_edges(kind):
    paths = list(POLE_AND_ANTIMERIDIAN.values())
    names = list(POLE_AND_ANTIMERIDIAN)
    checks = PointChecks(kind)
    cums = [cumulative(kind, p) for p in paths]
    for f in (0.25, 0.5, 0.8):
        got = _geo_kind(["--fraction", repr(f)], kind, path_records(paths))
        for name, p, cum, r in zip(names, paths, cums, got):
            checks.add_on_path(p, f * cum[-1], r["geometry"]["coordinates"], f"{name} --fraction {f}", cum)
    D = 20000.0
    got = _geo_kind(["--densify", repr(D)], kind, path_records(paths))
    for name, p, r in zip(names, paths, got):
        pts = r["geometry"]["coordinates"]
        _check_densified(kind, p, pts, D, checks, f"{name} --densify {D}")
        assert _sub_edges_max(kind, pts) <= D + POINT_TOL, name
        # Computed points have longitudes in [-180, 180] (the vertices are copied as given).
        for q in pts:
            assert -180 <= q[0] <= 180 or q in p, (name, q)
    got = _geo_kind(["--count", "9"], kind, path_records(paths))
    for name, p, cum, r in zip(names, paths, cums, got):
        for k, q in enumerate(r["geometry"]["coordinates"]):
            assert -180 <= q[0] <= 180, (name, q)
            if 0 < k < 8:
                checks.add_on_path(p, cum[-1] * k / 8, q, f"{name} --count 9 point {k}", cum)
    checks.run()


POLE_EDGES = {
    "up to the north pole": [[10.0, 80.0], [50.0, 90.0]],
    "down from the north pole": [[50.0, 90.0], [10.0, 80.0]],
    "from the north pole to the equator": [[10.0, 90.0], [50.0, 0.0]],
    "from the south pole to the equator": [[10.0, -90.0], [50.0, 0.0]],
    "to the south pole": [[50.0, 0.0], [10.0, -90.0]],
    "pole to pole": [[10.0, 90.0], [50.0, -90.0]],
    "south pole on": [[-30.0, -90.0], [60.0, -45.0], [61.0, -44.0]],
}


@pytest.mark.parametrize("kind", ["geodesic", "rhumb"])
@pytest.mark.parametrize("name", list(POLE_EDGES))
def test_edges_at_the_poles(kind, name):
    """Edges with an endpoint exactly at a pole: a rhumb line there is the meridian arc of the
    other endpoint (checked against GeodSolve along that meridian, not RhumbSolve: see the
    module docstring); a geodesic is checked against GeographicLib as everywhere."""
    p = POLE_EDGES[name]
    cum = cumulative(kind, p)
    checks = PointChecks(kind)
    for args in (["--fraction", "0.3"], ["--fraction", "0.75"], ["--count", "5"], ["--densify", "500000"]):
        rc, out, err = run(["interpolate", "--kind", kind] + args, json.dumps({"type": "LineString", "coordinates": p}))
        assert (rc, err[:300]) == (0, ""), f"geo interpolate --kind {kind} {' '.join(args)} on {json.dumps(p)}: exit {rc}"
        r = parse_records(out)[0]
        if args[0] == "--fraction":
            f = float(args[1])
            checks.add_on_path(p, f * cum[-1], r["geometry"]["coordinates"], f"{name} {args}", cum)
        elif args[0] == "--count":
            for k, q in enumerate(r["geometry"]["coordinates"][1:-1], start=1):
                checks.add_on_path(p, cum[-1] * k / 4, q, f"{name} --count 5 point {k}", cum)
        else:
            _check_densified(kind, p, r["geometry"]["coordinates"], 500000.0, checks, f"{name} --densify")
    checks.run()


def test_densify_polygons_and_multi_geometries():
    ring = [[0.0, 0.0], [3.0, 0.0], [3.0, 3.0], [0.0, 3.0], [0.0, 0.0]]
    hole = [[1.0, 1.0], [1.0, 2.0], [2.0, 2.0], [1.0, 1.0]]
    mls = [[[179.0, 10.0], [-179.0, 12.0]], [[0.0, 0.0], [0.0, 0.0]], [[5.0, 5.0], [7.0, 5.0], [7.0, 8.0]]]
    D = 50000.0
    for kind in KINDS:
        checks = PointChecks(kind)
        got = _geo_kind(["--densify", repr(D)], kind, [
            {"type": "Polygon", "coordinates": [ring, hole]},
            {"type": "MultiLineString", "coordinates": mls},
            {"type": "MultiPolygon", "coordinates": [[ring], [hole]]},
        ])
        poly, ml, mp = (r["geometry"] for r in got)
        assert poly["type"] == "Polygon" and len(poly["coordinates"]) == 2
        for src, out in zip([ring, hole], poly["coordinates"]):
            _check_densified(kind, src, out, D, checks, f"{kind} ring")
            assert out[0] == out[-1], "a closed ring stays closed"
            assert _sub_edges_max(kind, out) <= D + POINT_TOL
        assert ml["type"] == "MultiLineString"
        for src, out in zip(mls, ml["coordinates"]):
            _check_densified(kind, src, out, D, checks, f"{kind} part")
        assert [len(x) for x in mp["coordinates"]] == [1, 1]
        checks.run()


def test_densify_an_unclosed_ring_densifies_its_closing_edge():
    """geo length closes an unclosed ring (its perimeter counts the edge back to the start), so
    --densify must not leave that edge long: drawn closed, it would still be a straight
    157 km chord in lon/lat."""
    ring = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]]
    D = 50000.0
    for kind in KINDS:
        got = _geo_kind(["--densify", repr(D)], kind, [{"type": "Polygon", "coordinates": [ring]}])
        out = got[0]["geometry"]["coordinates"][0]
        closed = out if out[0] == out[-1] else out + [out[0]]
        worst = _sub_edges_max(kind, closed)
        assert worst <= D + POINT_TOL, (
            f"--kind {kind} --densify {D} on the unclosed ring {ring}: output {out}; its closing "
            f"edge {out[-1]} -> {out[0]} is {worst:.1f} m")


# --- output forms -------------------------------------------------------------------------

def test_to_polyline_decodes_to_the_same_points(polyline, long_paths):
    paths = [[[wrap_lon(q[0]), q[1]] for q in p] for p in long_paths[:30]]
    for args in (["--fraction", "0.4"], ["--count", "5"], ["--densify", "900000"], ["--every", "2000000"]):
        for prec, tol in ((None, 1e-5), ("6", 1e-6)):
            # --to-precision: the output's precision (--precision is the input's).
            extra = ["--to-precision", prec] if prec else []
            geo_json = _geo_kind(args, "geodesic", path_records(paths))
            rc, out, err = run(["interpolate"] + args + extra + ["--to", "polyline"], ndjson(path_records(paths)))
            assert (rc, err) == (0, "")
            lines = out.decode().splitlines()
            assert len(lines) == len(paths)
            for line, r in zip(lines, geo_json):
                g = r["geometry"]
                pts = [g["coordinates"]] if g["type"] == "Point" else g["coordinates"]
                dec = polyline.decode(line, int(prec or 5))
                assert len(dec) == len(pts), (args, prec)
                for (la, lo), q in zip(dec, pts):
                    assert abs(la - q[1]) <= tol * 1.0000001 and abs(math.remainder(lo - q[0], 360)) <= tol * 1.0000001, (
                        args, prec, (la, lo), q)


def test_digits_rounds_half_away_from_zero(long_paths):
    paths = long_paths[:25]
    full = _geo_kind(["--densify", "700000"], "geodesic", path_records(paths))
    for n in (0, 3, 6, 9):
        rc, out, err = run(["interpolate", "--densify", "700000", "--digits", str(n)], ndjson(path_records(paths)))
        assert (rc, err) == (0, "")
        assert not NO_EXPONENT.search(out)
        rounded = parse_records(out)
        for a, b in zip(full, rounded):
            for q, r in zip(a["geometry"]["coordinates"], b["geometry"]["coordinates"]):
                for x, y in zip(q, r):
                    want = float(Decimal(x).quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP))
                    assert y == want, (n, x, y, want)
    # The properties are not coordinates: --digits leaves them alone.
    a = _geo_kind(["--fraction", "0.123"], "geodesic", path_records(paths))
    b = _geo_kind(["--fraction", "0.123", "--digits", "2"], "geodesic", path_records(paths))
    for x, y in zip(a, b):
        assert x["properties"] == y["properties"]
        assert y["geometry"]["coordinates"] == [
            float(Decimal(v).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)) for v in x["geometry"]["coordinates"]]


def test_properties_and_id_pass_through():
    rec = {"type": "Feature", "id": "r1", "properties": {"name": "a", "fraction": "old", "n": [1, {"b": None}]},
           "geometry": {"type": "LineString", "coordinates": [[SF[1], SF[0]], [NY[1], NY[0]]]}}
    rc, out, err = run(["interpolate", "--fraction", "0.5"], json.dumps(rec))
    assert (rc, err) == (0, "")
    r = parse_records(out)[0]             # a duplicate "fraction" key fails here
    assert r["id"] == "r1"
    assert r["properties"]["name"] == "a" and r["properties"]["n"] == [1, {"b": None}]
    assert r["properties"]["fraction"] == 0.5
    s = geod_inverse(edges_of(rec["geometry"]["coordinates"]))[0][2]
    assert abs(r["properties"]["distance_m"] - s / 2) <= GEODESIC_TOL
    # The example in --help: the geodesic midpoint of San Francisco and New York.
    want = geographiclib_geodesic().InverseLine(SF[0], SF[1], NY[0], NY[1]).Position(s / 2)
    pt = r["geometry"]["coordinates"]
    assert PointChecks._ground((pt[1], pt[0]), (want["lat2"], want["lon2"])) <= POINT_TOL
