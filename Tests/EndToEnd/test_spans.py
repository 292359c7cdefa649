"""End-to-end tests of `geo spans` (docs/algorithms.md, "Style spans"; the man page geo-spans(1)).

Three layers, so that a bug shared by geo and one reference cannot hide:

1. The worked example of docs/algorithms.md (equator, sphere R = 6371009), against its listed
   values and against a reimplementation fed with the exact spherical edge lengths.
2. A Python reference of GMSStyleSpans (pattern) and GMSPolyline.spans (explicit), written from
   docs/algorithms.md and fed with per-edge lengths from independent oracles — GeographicLib's
   `GeodSolve` (geodesic) and `RhumbSolve` (rhumb), pyproj's EPSG:3857 (projected) — compared
   with geo on random patterns, random paths and random offsets (fixed seeds).
3. Properties that must hold whatever the implementation: segment counts add up to the path's
   segments, --split pieces join exactly, keep the original vertices, cut on the edge by --kind,
   measure (by the oracles) exactly the pattern's lengths, carry simplestyle properties, and a
   FeatureCollection of them reads in GDAL.

A missing oracle (GeodSolve, RhumbSolve, pyproj, polyline, ogrinfo) makes the tests FAIL, never
skip. GeographicLib's tools read `e` as a hemisphere letter, so every number fed to them is a
plain decimal (`dec`).
"""

import bisect
import json
import math
import random
import re
import shutil
import subprocess
from decimal import Decimal
from fractions import Fraction

import pytest

from conftest import dec, geo_bin, ndjson, run, not_under_asan

SDK_R = 6371009.0           # kGMSEarthRadius
WGS84_A = 6378137.0
SEG_TOL = 1e-9              # segments: geo against the references
M_TOL = 1e-6                # metres: lengths and positions measured by the oracles
HEX_RE = re.compile(r"^#[0-9a-fA-F]{6}$")

# --- oracles -------------------------------------------------------------------------------




def _tool(name):
    exe = shutil.which(name)
    if exe is None:
        pytest.fail(f"the oracle `{name}` is missing: install the Debian package "
                    "geographiclib-tools (make setup)", pytrace=False)
    return exe


def _solve(name, args, lines):
    """Run a GeographicLib tool once on all LINES; its output lines, split into fields."""
    if not lines:
        return []
    proc = subprocess.run([_tool(name)] + args, input="\n".join(lines) + "\n",
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, f"{name} {args} failed: {proc.stderr}"
    out = [ln.split() for ln in proc.stdout.splitlines()]
    assert len(out) == len(lines), f"{name}: {len(lines)} queries, {len(out)} answers"
    for q, a in zip(lines, out):
        assert "nan" not in " ".join(a).lower(), f"{name} returned nan for {q!r}"
    return out


_TRANSFORMER = None


def _mercator(points):
    """[lon, lat] points -> EPSG:3857 (x, y) by pyproj."""
    global _TRANSFORMER
    if _TRANSFORMER is None:
        try:
            from pyproj import Transformer  # noqa: PLC0415
        except ImportError:
            pytest.fail("the oracle pyproj is missing (pip install pyproj)", pytrace=False)
        _TRANSFORMER = Transformer.from_crs("EPSG:4326", "EPSG:3857", always_xy=True)
    xs, ys = _TRANSFORMER.transform([p[0] for p in points], [p[1] for p in points])
    return list(zip(xs, ys))


class Oracle:
    """Distances (and directions) between points by --kind, from the independent references.

    measure(pairs) returns {(A, B): (s, azimuth_deg)} for pairs of positions (tuples lon, lat):
    s in metres along the geodesic / rhumb line, or Web Mercator metres along the straight
    line (short way across the antimeridian); the azimuth is the direction at A.
    """

    def __init__(self, kind, sphere=None):
        self.kind = kind
        self.sphere = sphere

    def _figure(self):
        return [] if self.sphere is None else ["-e", dec(self.sphere), "0"]

    def measure(self, pairs):
        pairs = list(dict.fromkeys((tuple(a), tuple(b)) for a, b in pairs))
        if not pairs:
            return {}
        if self.kind == "projected":
            assert self.sphere is None
            xy = _mercator([p for ab in pairs for p in ab])
            out = {}
            for i, ab in enumerate(pairs):
                (xa, ya), (xb, yb) = xy[2 * i], xy[2 * i + 1]
                dx = math.remainder(xb - xa, 2 * math.pi * WGS84_A)
                dy = yb - ya
                out[ab] = (math.hypot(dx, dy), math.degrees(math.atan2(dx, dy)))
            return out
        lines = [f"{dec(a[1])} {dec(a[0])} {dec(b[1])} {dec(b[0])}" for a, b in pairs]
        if self.kind == "geodesic":
            res = _solve("GeodSolve", ["-i", "-p", "9"] + self._figure(), lines)
            return {ab: (float(r[2]), float(r[0])) for ab, r in zip(pairs, res)}
        assert self.kind == "rhumb"
        res = _solve("RhumbSolve", ["-i", "-p", "9"] + self._figure(), lines)
        return {ab: (float(r[1]), float(r[0])) for ab, r in zip(pairs, res)}

    def geo_args(self):
        args = ["--kind", self.kind]
        if self.sphere is not None:
            args += ["--sphere", dec(self.sphere)]
        return args


def edges_of(path):
    return [(tuple(path[i]), tuple(path[i + 1])) for i in range(len(path) - 1)]


def cumulative(path, measured):
    cum = [0.0]
    for e in edges_of(path):
        cum.append(cum[-1] + measured[e][0])
    return cum


# --- reference implementation (docs/algorithms.md, "Style spans") --------------------------


def ref_segment_index(distance, cum):
    """GMSPath segmentsForLength: i + (L - cum_i)/len_i on the edge holding L, clamped to N-1."""
    last = len(cum) - 1
    if distance >= cum[last]:
        return float(last)
    i = bisect.bisect_right(cum, distance) - 1
    edge = cum[i + 1] - cum[i]
    return i + ((distance - cum[i]) / edge if edge > 0 else 0.0)


def ref_pattern(cum, styles, lengths, offset):
    """GMSStyleSpans / GMSStyleSpansOffset as Google's port computes them (docs/algorithms.md,
    "Style spans", steps 1-5)."""
    if not styles or sum(lengths) <= 0 or len(cum) < 2:
        return []
    n_l, n_s = len(lengths), len(styles)
    period = sum(lengths) * (n_s // math.gcd(n_l, n_s))
    wrapped = math.fmod(offset, period)
    if wrapped < 0:
        wrapped += period
    position = -wrapped
    total = cum[-1]
    spans, previous, k = [], 0.0, 0
    while position < total:
        position += lengths[k % n_l]
        style = styles[k % n_s]
        k += 1
        if position <= 0:
            continue
        index = ref_segment_index(position, cum)
        if index - previous > 0:
            spans.append((style, index - previous))
            previous = index
    return spans


def ref_explicit(n_points, spans):
    """GMSPolyline.spans resolved: end to end, the last covers the rest, past the end ignored."""
    remaining = float(max(n_points - 1, 0))
    out = []
    for i, (style, segments) in enumerate(spans):
        if remaining <= 0:
            break
        s = remaining if i == len(spans) - 1 else min(segments, remaining)
        out.append((style, s))
        remaining -= s
    return out


# --- colours -------------------------------------------------------------------------------

# UIKit's named colours, components 0..1 (UIColor class properties), alpha last.
UIKIT = {
    "black": (0, 0, 0, 1), "blue": (0, 0, 1, 1), "brown": (0.6, 0.4, 0.2, 1),
    "clear": (0, 0, 0, 0), "cyan": (0, 1, 1, 1), "darkGray": (1 / 3, 1 / 3, 1 / 3, 1),
    "gray": (0.5, 0.5, 0.5, 1), "green": (0, 1, 0, 1), "lightGray": (2 / 3, 2 / 3, 2 / 3, 1),
    "magenta": (1, 0, 1, 1), "orange": (1, 0.5, 0, 1), "purple": (0.5, 0, 0.5, 1),
    "red": (1, 0, 0, 1), "white": (1, 1, 1, 1), "yellow": (1, 1, 0, 1),
}
# The names whose 8-bit value is unambiguous (no x.5 to round), for exact expectations.
EXACT_NAMES = {n: tuple(round(c * 255) for c in v) for n, v in UIKIT.items()
               if n not in ("gray", "orange", "purple")}


def rgba_of(text):
    """A colour as (r, g, b, a) 0..255, from a name with an exact value or #RRGGBB[AA]."""
    if text.startswith("#"):
        h = text[1:]
        assert len(h) in (6, 8)
        vals = [int(h[i:i + 2], 16) for i in range(0, len(h), 2)]
        return tuple(vals + [255] * (4 - len(vals)))
    return EXACT_NAMES[{k.lower(): k for k in EXACT_NAMES}[text.lower()]]


def parse_style(text):
    """('solid', rgba) or ('gradient', rgba_from, rgba_to)."""
    m = re.fullmatch(r"gradient\((.*),(.*)\)", text, re.IGNORECASE)
    if m:
        return ("gradient", rgba_of(m.group(1).strip()), rgba_of(m.group(2).strip()))
    return ("solid", rgba_of(text.strip()))


def hex_rgb(rgba):
    return "#%02x%02x%02x" % tuple(rgba[:3])


def rgb_of_hex(h):
    assert HEX_RE.match(h), f"stroke {h!r} is not #rrggbb"
    return tuple(int(h[i:i + 2], 16) for i in (1, 3, 5))


# --- running geo ---------------------------------------------------------------------------


def loads_strict(text):
    """json.loads that fails on duplicate object keys."""
    def hook(pairs):
        keys = [k for k, _ in pairs]
        dup = {k for k in keys if keys.count(k) > 1}
        assert not dup, f"duplicate keys {dup} in {text[:300]}"
        return dict(pairs)
    return json.loads(text, object_pairs_hook=hook)


def geo_records(args, records, *, expect_rc=0):
    rc, out, err = run(["spans"] + [str(a) for a in args], ndjson(records))
    assert rc == expect_rc, f"geo spans {args}: rc {rc}, stderr {err}"
    return [loads_strict(ln) for ln in out.decode().splitlines() if ln.strip()]


def feature(path, rec=None, **props):
    if rec is not None:
        props["rec"] = rec
    return {"type": "Feature", "properties": props,
            "geometry": {"type": "LineString", "coordinates": [list(p) for p in path]}}


def spans_of(path_records, args):
    """Run geo spans (no --split) on the paths; the spans of each, as (style, segments) lists."""
    out = geo_records(args, [feature(p, i) for i, p in enumerate(path_records)])
    assert [f["properties"]["rec"] for f in out] == list(range(len(path_records)))
    return [[(s["style"], s["segments"]) for s in f["properties"]["spans"]] for f in out]


def pieces_of(path_records, args):
    """Run geo spans --split; the pieces of each record, in output order."""
    out = geo_records(list(args) + ["--split"], [feature(p, i) for i, p in enumerate(path_records)])
    grouped = [[] for _ in path_records]
    recs = [f["properties"]["rec"] for f in out]
    assert recs == sorted(recs), "pieces of different records are interleaved"
    for f in out:
        grouped[f["properties"]["rec"]].append(f)
    return grouped


def assert_spans_close(actual, expected, context, tol=SEG_TOL):
    assert len(actual) == len(expected), (
        f"{context}: {len(actual)} spans, expected {len(expected)}\n actual   {actual}\n expected {expected}")
    for i, ((sa, xa), (se, xe)) in enumerate(zip(actual, expected)):
        assert sa == se, f"{context}: span {i} style {sa!r}, expected {se!r}\n actual {actual}"
        assert abs(xa - xe) <= tol, (
            f"{context}: span {i} has {xa!r} segments, expected {xe!r} (diff {xa - xe:.3g})\n"
            f" actual   {actual}\n expected {expected}")


# --- random inputs -------------------------------------------------------------------------


def wrap180(lon):
    lon = math.remainder(lon, 360.0)
    return 180.0 if lon == -180.0 else lon


def random_path(rng, n, *, antimeridian=False, zero_edges=True, max_lat=70.0):
    if antimeridian:
        lon, lat = rng.uniform(176.0, 179.5), rng.uniform(-50, 50)
    else:
        lon, lat = rng.uniform(-180, 180), rng.uniform(-60, 60)
    pts = [(round(wrap180(lon), 6), round(lat, 6))]
    for _ in range(n - 1):
        if zero_edges and len(pts) > 1 and rng.random() < 0.15:
            pts.append(pts[-1])                    # a zero-length edge
            continue
        big = rng.random() < 0.15
        while True:
            dlat = rng.uniform(-1, 1) * (10 if big else 1.2)
            dlon = rng.uniform(-1, 1) * (12 if big else 1.6)
            if antimeridian:
                dlon = abs(dlon) + 0.3
            if abs(dlat) + abs(dlon) > 0.08:
                break
        lat = max(-max_lat, min(max_lat, lat + dlat))
        lon = lon + dlon
        pts.append((round(wrap180(lon), 6), round(lat, 6)))
    return pts


STYLE_POOL = ["red", "blue", "white", "black", "#ff8800", "#11223380", "darkGray", "Cyan",
              "gradient(red,blue)", "gradient(#000000,#ffcc00)", "gradient(white,#00000040)"]


def random_pattern(rng, scale):
    n_s, n_l = rng.randint(1, 4), rng.randint(1, 4)
    styles = [rng.choice(STYLE_POOL) for _ in range(n_s)]
    lengths = [round(rng.uniform(0.05, 1.0) * scale, 3) for _ in range(n_l)]
    return styles, lengths


def period_of(styles, lengths):
    return sum(lengths) * (len(styles) // math.gcd(len(lengths), len(styles)))


def random_offset(rng, period):
    choice = rng.randrange(6)
    if choice == 0:
        return 0.0
    if choice == 1:
        return round(rng.uniform(-3 * period, -1), 3)       # negative, possibly < -period
    if choice == 2:
        return round(period + rng.uniform(1, period), 3)    # more than one period
    if choice == 3:
        return round(rng.uniform(1, period), 3)
    if choice == 4:
        return round(rng.uniform(50, 5000) * period, 2)      # many periods
    return round(-rng.uniform(50, 5000) * period, 2)


def pattern_args(styles, lengths, offset):
    args = []
    for s in styles:
        args.append(f"--style={s}")
    for length in lengths:
        args.append(f"--length={dec(length)}")
    args.append(f"--offset={dec(offset)}")
    return args


KINDS = [
    pytest.param(Oracle("geodesic"), id="geodesic-WGS84"),
    pytest.param(Oracle("geodesic", SDK_R), id="geodesic-sphere"),
    pytest.param(Oracle("rhumb"), id="rhumb-WGS84"),
    pytest.param(Oracle("rhumb", SDK_R), id="rhumb-sphere"),
    pytest.param(Oracle("projected"), id="projected"),
]

# ============================================================================================
# 1. The worked example of docs/algorithms.md
# ============================================================================================

EQUATOR = [(0, 0), (1, 0), (2, 0), (3, 0)]
WE_STYLES = ["white", "black"]
WE_LENGTHS = [100000, 50000]
WE_PERIOD = 150000
W, B = "white", "black"
WE_EXPECTED = {
    0: [(W, 0.89932), (B, 0.44966), (W, 0.89932), (B, 0.44966), (W, 0.302039)],
    25000: [(W, 0.67449), (B, 0.44966), (W, 0.89932), (B, 0.44966), (W, 0.526869)],
    -25000: [(B, 0.22483), (W, 0.89932), (B, 0.44966), (W, 0.89932), (B, 0.44966), (W, 0.077209)],
    WE_PERIOD + 25000: [(W, 0.67449), (B, 0.44966), (W, 0.89932), (B, 0.44966), (W, 0.526869)],
}


def _equator_cum():
    edge = SDK_R * math.pi / 180          # exact spherical length of 1 degree of equator
    return [0.0, edge, 2 * edge, 3 * edge]


def test_worked_example_edge_length():
    # docs/algorithms.md: each edge 111195.0837 m on the SDK sphere; the oracle agrees.
    assert abs(_equator_cum()[1] - 111195.0837) < 1e-4
    m = Oracle("geodesic", SDK_R).measure(edges_of(EQUATOR))
    assert abs(m[((0, 0), (1, 0))][0] - _equator_cum()[1]) < 1e-8


@pytest.mark.parametrize("offset", [0, 25000, -25000, WE_PERIOD + 25000],
                         ids=["offset0", "offset25000", "offset-25000", "offset-period+25000"])
def test_worked_example(offset):
    args = ["--sphere", "6371009", "--style", "white", "--style", "black",
            "--length", "100000", "--length", "50000", "--offset", str(offset)]
    got = spans_of([EQUATOR], args)[0]
    assert_spans_close(got, WE_EXPECTED[offset], f"gms.md worked example, offset {offset}", tol=1e-5)
    ref = ref_pattern(_equator_cum(), WE_STYLES, WE_LENGTHS, offset)
    assert_spans_close(got, ref, f"worked example vs exact reimplementation, offset {offset}")
    assert abs(sum(x for _, x in got) - 3) <= SEG_TOL


@pytest.mark.parametrize("offset", [-WE_PERIOD - 25000, 7 * WE_PERIOD - 25000, 1e6 * WE_PERIOD + 25000])
def test_worked_example_offsets_wrap(offset):
    """Offsets a whole number of periods apart give the same spans (wrapping: docs/algorithms.md,
    "Style spans", step 3)."""
    args = ["--sphere", "6371009", "--style", "white", "--style", "black",
            "--length", "100000", "--length", "50000", "--offset", dec(offset)]
    got = spans_of([EQUATOR], args)[0]
    base = 25000 if (offset % WE_PERIOD) == 25000 else -25000
    assert_spans_close(got, WE_EXPECTED[base], f"offset {offset}", tol=1e-5)
    assert_spans_close(got, ref_pattern(_equator_cum(), WE_STYLES, WE_LENGTHS, offset), f"offset {offset}")


def test_worked_example_split_cut_points():
    """On the equator of a sphere, the cut at segment index x is exactly at longitude x."""
    args = ["--sphere", "6371009", "--style", "white", "--style", "black",
            "--length", "100000", "--length", "50000"]
    pieces = pieces_of([EQUATOR], args)[0]
    ref = ref_pattern(_equator_cum(), WE_STYLES, WE_LENGTHS, 0)
    assert len(pieces) == len(ref)
    x = 0.0
    for i, (piece, (style, seg)) in enumerate(zip(pieces, ref)):
        coords = piece["geometry"]["coordinates"]
        assert piece["properties"]["span"] == i and piece["properties"]["style"] == style
        assert piece["properties"]["stroke"] == {"white": "#ffffff", "black": "#000000"}[style]
        assert abs(coords[0][0] - x) < 1e-9 and coords[0][1] == 0
        x += seg
        assert abs(coords[-1][0] - min(x, 3)) < 1e-9 and coords[-1][1] == 0
        inner = [c[0] for c in coords[1:-1]]
        assert inner == [v for v in (1, 2) if coords[0][0] < v < coords[-1][0]]


# ============================================================================================
# 2. geo against the reference implementation fed by the oracles
# ============================================================================================


def _reference_paths(rng):
    paths = [
        [(12.5, 41.9)],                                    # one point
        [(12.5, 41.9), (13.4, 52.5)],                      # two points
        [(2.35, 48.85), (2.35, 48.85)],                    # two identical points
        [(-3.7, 40.4), (-3.7, 40.4), (2.17, 41.39), (2.17, 41.39), (2.17, 41.39), (5.37, 43.3)],
        random_path(rng, 9, antimeridian=True),
    ]
    paths += [random_path(rng, rng.randint(2, 14)) for _ in range(7)]
    return paths


@pytest.mark.parametrize("oracle", KINDS)
def test_pattern_matches_reference(oracle):
    rng = random.Random(f"pattern-{oracle.kind}-{oracle.sphere}")
    paths = _reference_paths(rng)
    measured = oracle.measure([e for p in paths for e in edges_of(p)])
    cums = [cumulative(p, measured) for p in paths]
    positive = sorted(c[-1] for c in cums if c[-1] > 0)
    scale = positive[len(positive) // 2] / 6          # a handful of spans on a typical path
    cases = [(["red", "blue"], [scale, scale / 2]), (["gradient(red,blue)"], [scale])]
    cases += [random_pattern(rng, scale) for _ in range(7)]
    cases += [(["red", "#00ff00", "blue"], [scale, 0.0, scale / 3, 0.0])]   # zero-length elements
    for styles, lengths in cases:
        period = period_of(styles, lengths)
        for offset in (random_offset(rng, period), random_offset(rng, period)):
            args = oracle.geo_args() + pattern_args(styles, lengths, offset)
            got = spans_of(paths, args)
            for i, (path, cum) in enumerate(zip(paths, cums)):
                expected = ref_pattern(cum, styles, lengths, offset)
                assert_spans_close(got[i], expected,
                                   f"geo spans {' '.join(args)} on path {path}")


def test_pattern_all_zero_lengths_is_a_usage_error():
    """A pattern whose lengths sum to 0 would cover nothing (the SDK draws no spans): like a
    negative length, it is a usage error; zero-length elements among others stay allowed."""
    rc, out, err = run(["spans", "--style", "red", "--length", "0", "--length", "0"], ndjson([feature(EQUATOR, 0)]))
    assert rc == 64 and out == b"" and "--length" in err, err


@pytest.mark.parametrize("oracle", KINDS)
def test_explicit_matches_reference(oracle):
    rng = random.Random(f"explicit-{oracle.kind}-{oracle.sphere}")
    paths = _reference_paths(rng)
    for _ in range(10):
        spans = []
        for _ in range(rng.randint(1, 6)):
            style = rng.choice(STYLE_POOL)
            seg = rng.choice([None, 1, 2, round(rng.uniform(0.05, 3), 4)])
            spans.append((style, seg))
        args = oracle.geo_args() + [f"--span={s}" if g is None else f"--span={s}:{dec(g)}"
                                    for s, g in spans]
        got = spans_of(paths, args)
        for i, path in enumerate(paths):
            expected = ref_explicit(len(path), [(s, 1.0 if g is None else g) for s, g in spans])
            assert_spans_close(got[i], expected, f"geo spans {' '.join(args)} on {len(path)} points")


# ============================================================================================
# 3. Implementation-independent properties
# ============================================================================================


def split_measurements(oracle, paths, pieces_by_path, spans_by_path):
    """One oracle batch for everything check_split needs."""
    pairs = []
    for path, pieces, spans in zip(paths, pieces_by_path, spans_by_path):
        pairs += edges_of(path)
        for p in pieces:
            pairs += edges_of(p["geometry"]["coordinates"])
        for cut, edge, _frac in boundary_cuts(path, pieces, spans):
            if edge is not None:
                a, b = edge
                pairs += [(a, cut), (cut, b)]
    return oracle.measure(pairs)


def boundary_cuts(path, pieces, spans):
    """(cut point, original edge or None, fraction) at each boundary between two spans."""
    out = []
    x = 0.0
    by_span = {}
    for p in pieces:
        by_span.setdefault(p["properties"]["span"], []).append(p)
    for k in range(len(spans) - 1):
        x += spans[k][1]
        if k + 1 not in by_span:
            continue                               # reported by check_split
        cut = tuple(by_span[k + 1][0]["geometry"]["coordinates"][0])
        e = min(int(math.floor(x)), len(path) - 2)
        frac = x - e
        out.append((cut, (tuple(path[e]), tuple(path[e + 1])), frac))
    return out


def check_split(oracle, path, spans, pieces, m, *, width=None, context=""):
    """Every --split property that holds whatever the implementation. Returns the length of
    each span measured by the oracle on its pieces."""
    ctx = f"{context} path {path}"
    n = len(path)
    assert spans, f"{ctx}: no spans"
    assert pieces, f"{ctx}: no pieces for {spans}"
    # Piece properties.
    last_span = -1
    for p in pieces:
        props, geom = p["properties"], p["geometry"]
        assert geom["type"] == "LineString" and len(geom["coordinates"]) >= 2, f"{ctx}: bad piece {p}"
        k = props["span"]
        assert isinstance(k, int) and not isinstance(k, bool), f"{ctx}: span {k!r} not an integer"
        assert k in (last_span, last_span + 1), f"{ctx}: span index {k} after {last_span}"
        last_span = k
        style = spans[k][0]
        assert props["style"] == style, f"{ctx}: piece of span {k} has style {props['style']!r}"
        assert isinstance(props["stroke"], str) and HEX_RE.match(props["stroke"]), f"{ctx}: {props}"
        kind = parse_style(style)
        if kind[0] == "solid":
            assert props["stroke"].lower() == hex_rgb(kind[1]), f"{ctx}: {props} for {style}"
            assert "stroke-end" not in props, f"{ctx}: solid piece with stroke-end {props}"
            alpha = kind[1][3]
            if alpha < 255:
                assert abs(props["stroke-opacity"] - alpha / 255) < 1e-9, f"{ctx}: {props}"
            else:
                assert props.get("stroke-opacity", 1) == 1, f"{ctx}: {props}"
        else:
            assert HEX_RE.match(props["stroke-end"]), f"{ctx}: gradient piece {props}"
        if width is not None:
            assert props["stroke-width"] == width, f"{ctx}: {props}"
        else:
            assert "stroke-width" not in props, f"{ctx}: {props}"
    assert pieces[0]["properties"]["span"] == 0 and last_span == len(spans) - 1, (
        f"{ctx}: pieces cover spans 0..{last_span}, expected 0..{len(spans) - 1}")
    # Ends and joins.
    coords = [[tuple(c) for c in p["geometry"]["coordinates"]] for p in pieces]
    assert coords[0][0] == tuple(path[0]), f"{ctx}: first piece starts at {coords[0][0]}"
    assert coords[-1][-1] == tuple(path[-1]), f"{ctx}: last piece ends at {coords[-1][-1]}"
    for a, b in zip(coords, coords[1:]):
        assert a[-1] == b[0], f"{ctx}: consecutive pieces do not share their cut point: {a[-1]} {b[0]}"
    for c in (c for cs in coords for c in cs):
        assert -180 <= c[0] <= 180 and -90 <= c[1] <= 90, f"{ctx}: position {c} out of range"
    # The original vertices appear unchanged, in order; the only other points are the span
    # boundaries (cuts), each between the vertices its segment index says.
    cuts = boundary_cuts(path, pieces, spans)
    assert len(cuts) == len(spans) - 1
    cum = cumulative(path, m)
    merged, boundary = list(coords[0]), {}
    for k, cs in enumerate(coords[1:]):
        if pieces[k + 1]["properties"]["span"] != pieces[k]["properties"]["span"]:
            boundary[len(merged) - 1] = pieces[k]["properties"]["span"]     # span s | s+1
        merged += cs[1:]
    xs = [sum(x for _, x in spans[:k + 1]) for k in range(len(spans) - 1)]

    def along(x):
        e = min(int(math.floor(x)), n - 2)
        return cum[e] + (x - e) * (cum[e + 1] - cum[e])

    states = {0}                       # how many original vertices matched so far
    for i, c in enumerate(merged):
        nxt = set()
        for j in states:
            k = boundary.get(i)
            if j < n and c == tuple(path[j]) and (k is None or abs(along(xs[k]) - cum[j]) < M_TOL):
                nxt.add(j + 1)         # the original vertex j, unchanged
            if k is not None and j >= 1 and j - 1 - SEG_TOL <= xs[k] <= j + SEG_TOL:
                nxt.add(j)             # a cut between vertices j-1 and j
        assert nxt, (f"{ctx}: point {c} (#{i} of the pieces) is neither the next original vertex "
                     f"nor a span boundary on the current edge; states {sorted(states)}")
        states = nxt
    assert n in states, (f"{ctx}: the pieces do not hold every original vertex unchanged "
                         f"(matched {max(states)} of {n})")
    # Cut points lie on their edge, at the fraction of it the spans say.
    for cut, (a, b), frac in cuts:
        length, azimuth = m[(a, b)]
        if length == 0:
            assert cut in (a, b), f"{ctx}: cut {cut} on the zero-length edge at {a}"
            continue
        d1, az1 = m[(a, cut)]
        d2, _ = m[(cut, b)]
        assert abs(d1 + d2 - length) < M_TOL, (
            f"{ctx}: cut {cut} is off the {oracle.kind} edge {a}->{b}: "
            f"{d1!r} + {d2!r} != {length!r}")
        assert abs(d1 - frac * length) < M_TOL, (
            f"{ctx}: cut {cut} is {d1!r} m along edge {a}->{b}, expected {frac!r} x {length!r}")
        lateral = d1 * abs(math.radians(math.remainder(az1 - azimuth, 360)))
        assert lateral < M_TOL, (
            f"{ctx}: cut {cut} leaves the {oracle.kind} edge {a}->{b}: azimuth {az1!r} vs {azimuth!r}")
    # Lengths add up.
    piece_len = [sum(m[e][0] for e in edges_of(p["geometry"]["coordinates"])) for p in pieces]
    total = sum(m[e][0] for e in edges_of(path))
    assert abs(sum(piece_len) - total) < M_TOL, (
        f"{ctx}: pieces measure {sum(piece_len)!r} m, the path {total!r} m")
    span_len = [0.0] * len(spans)
    for p, length in zip(pieces, piece_len):
        span_len[p["properties"]["span"]] += length
    # Gradients: stroke at the start is FROM, stroke-end at the end is TO, the colours join,
    # run monotonically, and follow the distance along the span (by --kind).
    for k, (style, _) in enumerate(spans):
        kind = parse_style(style)
        if kind[0] != "gradient":
            continue
        mine = [(p, length) for p, length in zip(pieces, piece_len) if p["properties"]["span"] == k]
        frm, to = kind[1], kind[2]
        assert mine[0][0]["properties"]["stroke"].lower() == hex_rgb(frm), f"{ctx}: {mine[0][0]}"
        assert mine[-1][0]["properties"]["stroke-end"].lower() == hex_rgb(to), f"{ctx}: {mine[-1][0]}"
        along = 0.0
        prev = None
        for p, length in mine:
            props = p["properties"]
            start, end = rgb_of_hex(props["stroke"]), rgb_of_hex(props["stroke-end"])
            if prev is not None:
                assert start == prev, f"{ctx}: gradient pieces do not join: {prev} then {start}"
            for t_along, colour in ((along, start), (along + length, end)):
                t = t_along / span_len[k] if span_len[k] > 0 else 0
                for ch in range(3):
                    want = frm[ch] + (to[ch] - frm[ch]) * t
                    assert abs(colour[ch] - want) <= 1.0, (
                        f"{ctx}: gradient {style} at {t:.6f} of the span is {colour}, expected ~{want}")
            for ch in range(3):
                sign = (to[ch] > frm[ch]) - (to[ch] < frm[ch])
                assert (end[ch] - start[ch]) * sign >= 0 and (sign != 0 or end[ch] == start[ch]), (
                    f"{ctx}: gradient {style} not monotonic: {start} -> {end}")
            prev = end
            along += length
    return span_len


def check_pattern_lengths(span_len, spans, styles, lengths, offset, total, ctx):
    """Span k (0 < k < last) is pattern element k0+k: exactly its length, its style; the first
    is the rest of the element the offset falls in; the last does not exceed its element."""
    n_l, n_s = len(lengths), len(styles)
    assert all(x > 0 for x in lengths)
    lcm = n_l * n_s // math.gcd(n_l, n_s)
    period = period_of(styles, lengths)
    skip = float(Fraction(offset) % Fraction(period))
    ends = []
    acc = 0.0
    for k in range(lcm + 1):
        acc += lengths[k % n_l]
        ends.append(acc)
    k0 = next(k for k, e in enumerate(ends) if e > skip)
    first_rest = ends[k0] - skip
    count = len(spans)
    for i, ((style, _), length) in enumerate(zip(spans, span_len)):
        k = k0 + i
        assert style == styles[k % n_s], (
            f"{ctx}: span {i} has style {style!r}, pattern element {k} is {styles[k % n_s]!r}")
        element = lengths[k % n_l]
        if count == 1:
            assert abs(length - total) < M_TOL and length <= first_rest + M_TOL, ctx
        elif i == 0:
            assert abs(length - first_rest) < M_TOL, (
                f"{ctx}: first span measures {length!r} m, expected {first_rest!r}")
        elif i < count - 1:
            assert abs(length - element) < M_TOL, (
                f"{ctx}: span {i} ({style}) measures {length!r} m by the oracle, "
                f"the pattern element is {element!r} m")
        else:
            assert length <= element + M_TOL, f"{ctx}: last span {length!r} m > element {element!r}"


PROPERTY_KINDS = [
    pytest.param(Oracle("geodesic"), id="geodesic-WGS84"),
    pytest.param(Oracle("geodesic", SDK_R), id="geodesic-sphere"),
    pytest.param(Oracle("rhumb"), id="rhumb-WGS84"),
    pytest.param(Oracle("projected"), id="projected"),
]


def _property_paths(rng):
    paths = [[(12.5, 41.9), (13.4, 52.5)],
             [(-3.7, 40.4), (-3.7, 40.4), (2.17, 41.39), (2.17, 41.39), (5.37, 43.3)],
             random_path(rng, 8, antimeridian=True)]
    paths += [random_path(rng, rng.randint(3, 10)) for _ in range(4)]
    return paths


@pytest.mark.parametrize("oracle", PROPERTY_KINDS)
def test_pattern_properties(oracle):
    rng = random.Random(f"props-{oracle.kind}-{oracle.sphere}")
    paths = _property_paths(rng)
    measured = oracle.measure([e for p in paths for e in edges_of(p)])
    totals = [cumulative(p, measured)[-1] for p in paths]
    scale = sorted(totals)[len(totals) // 2] / 5
    patterns = [(["white", "gradient(red,#0000ff)", "#11223380"], [scale, scale / 2]),
                random_pattern(rng, scale), random_pattern(rng, scale)]
    for styles, lengths in patterns:
        offset = random_offset(rng, period_of(styles, lengths))
        args = oracle.geo_args() + pattern_args(styles, lengths, offset)
        spans = spans_of(paths, args)
        pieces = pieces_of(paths, args + ["--width", "2.5"])
        m = split_measurements(oracle, paths, pieces, spans)
        for path, sp, pc, total in zip(paths, spans, pieces, totals):
            ctx = f"geo spans {' '.join(args)} --split:"
            assert abs(sum(x for _, x in sp) - (len(path) - 1)) <= SEG_TOL, (
                f"{ctx} segments {sp} sum to {sum(x for _, x in sp)!r}, the path has {len(path) - 1}")
            span_len = check_split(oracle, path, sp, pc, m, width=2.5, context=ctx)
            check_pattern_lengths(span_len, sp, styles, lengths, offset, total, f"{ctx} path {path}")


@pytest.mark.parametrize("oracle", PROPERTY_KINDS)
def test_explicit_properties(oracle):
    rng = random.Random(f"explicit-props-{oracle.kind}-{oracle.sphere}")
    paths = _property_paths(rng)
    span_sets = [
        ["red:0.5", "gradient(green,blue):1.75", "#ff880080:0.3", "white"],
        ["gradient(#000000,#ffffff):2.5", "blue"],
        ["black:0.25", "white:0.25", "black:0.25", "white:0.25", "red:0.5", "blue:0.5"],
    ]
    for span_args in span_sets:
        args = oracle.geo_args() + [f"--span={s}" for s in span_args]
        spans = spans_of(paths, args)
        pieces = pieces_of(paths, args)
        m = split_measurements(oracle, paths, pieces, spans)
        for path, sp, pc in zip(paths, spans, pieces):
            ctx = f"geo spans {' '.join(args)} --split:"
            assert abs(sum(x for _, x in sp) - (len(path) - 1)) <= SEG_TOL, f"{ctx} {sp}"
            check_split(oracle, path, sp, pc, m, context=ctx)


# --- explicit mode rules -------------------------------------------------------------------

FOUR = [(0, 0), (1, 0.5), (2, 0.2), (3, 1)]     # 3 segments


@pytest.mark.parametrize("span_args, expected", [
    (["red"], [("red", 3)]),                                                  # last covers the rest
    (["red", "blue"], [("red", 1), ("blue", 2)]),                             # default 1 segment
    (["red:0.5", "blue:1.25", "green:0.5"], [("red", 0.5), ("blue", 1.25), ("green", 1.25)]),
    (["red:1.5"], [("red", 3)]),
    (["red:2", "blue:2", "green:1"], [("red", 2), ("blue", 1)]),              # clipped, ignored
    (["red:5", "blue"], [("red", 3)]),
    (["red:3", "blue:1"], [("red", 3)]),
    (["gradient(red,blue):2", "white"], [("gradient(red,blue)", 2), ("white", 1)]),
    (["#ff000080:0.25", "red:0.25"], [("#ff000080", 0.25), ("red", 2.75)]),
    (["red:1e-3", "blue:2.999"], [("red", 0.001), ("blue", 2.999)]),
])
def test_explicit_rules(span_args, expected):
    got = spans_of([FOUR], [f"--span={s}" for s in span_args])[0]
    assert_spans_close(got, expected, f"--span {span_args}", tol=1e-12)
    assert abs(sum(x for _, x in got) - 3) <= 1e-12


def test_explicit_short_paths():
    got = spans_of([[(1, 2)], [(1, 2), (1, 3)]], ["--span=red:0.3", "--span=blue:0.3", "--span=green"])
    assert got[0] == []
    assert_spans_close(got[1], [("red", 0.3), ("blue", 0.3), ("green", 0.4)], "two-point path")


@pytest.mark.parametrize("bad", ["red:0", "red:-1", "red:-0.5", "red:0.0", "red:nan", "red:abc", "red:"])
def test_explicit_bad_segments_is_usage_error(bad):
    rc, out, err = run(["spans", "--span", "blue", "--span", bad], ndjson([feature(FOUR)]))
    assert rc == 64, f"--span {bad}: rc {rc}, stderr {err}"
    assert out == b""
    assert bad in err and "geo spans --help" in err, err


def test_explicit_and_pattern_do_not_mix():
    rc, out, err = run(["spans", "--span", "red", "--style", "red", "--length", "5"], ndjson([feature(FOUR)]))
    assert rc == 64 and out == b"", err


# --- styles --------------------------------------------------------------------------------


def _variants(name):
    return sorted({name, name.lower(), name.upper(), name[0].upper() + name[1:]})


@pytest.mark.parametrize("name", sorted(UIKIT))
def test_uikit_colour_names(name):
    variants = _variants(name)
    path = [(i * 0.1, 0) for i in range(len(variants) + 1)]
    args = [f"--span={v}" for v in variants]
    got = spans_of([path], args)[0]
    assert [s for s, _ in got] == variants
    pieces = pieces_of([path], args)[0]
    assert len(pieces) == len(variants)
    for piece, v in zip(pieces, variants):
        props = piece["properties"]
        rgb = rgb_of_hex(props["stroke"])
        comps = UIKIT[name]
        for ch in range(3):
            assert abs(rgb[ch] - comps[ch] * 255) <= 0.5 + 1e-9, f"{v}: stroke {props['stroke']}"
        if comps[3] < 1:
            assert props["stroke-opacity"] == 0, f"{v}: {props}"
        else:
            assert props.get("stroke-opacity", 1) == 1, f"{v}: {props}"


@pytest.mark.parametrize("style, stroke, opacity", [
    ("#FF8800", "#ff8800", None),
    ("#ff8800", "#ff8800", None),
    ("#11223380", "#112233", 128 / 255),
    ("#AbCdEf00", "#abcdef", 0.0),
    ("#abcdefFF", "#abcdef", None),
])
def test_hex_colours(style, stroke, opacity):
    pieces = pieces_of([FOUR], ["--style", style, "--length", "1e9"])[0]
    assert len(pieces) == 1
    props = pieces[0]["properties"]
    assert props["style"] == style
    assert props["stroke"].lower() == stroke and HEX_RE.match(props["stroke"])
    if opacity is None:
        assert props.get("stroke-opacity", 1) == 1
    else:
        assert abs(props["stroke-opacity"] - opacity) < 1e-9


@pytest.mark.parametrize("style", ["gradient(red,blue)", "GRADIENT(Red,Blue)", "gradient(#000000,#ffffff80)",
                                   "gradient(darkGray,lightgray)"])
def test_gradient_style_accepted(style):
    got = spans_of([FOUR], ["--style", style, "--length", "1e9"])[0]
    assert got == [(style, 3)]
    pieces = pieces_of([FOUR], ["--style", style, "--length", "1e9"])[0]
    assert all("stroke" in p["properties"] and "stroke-end" in p["properties"] for p in pieces)


BAD_STYLES = ["reddish", "#12345", "gradient(red)", "#1234567", "#GGGGGG", "gradient(red,blue",
              "gradient(red,nocolour)", "#+12345", "#-00000", "#+1234567"]


@pytest.mark.parametrize("bad", BAD_STYLES)
@pytest.mark.parametrize("mode", ["style", "span"])
def test_bad_style_is_usage_error(bad, mode):
    args = (["--style", "red", "--style", bad, "--length", "1000"] if mode == "style"
            else ["--span", "red", "--span", bad + ":2"])
    rc, out, err = run(["spans"] + args, ndjson([feature(FOUR)]))
    assert rc == 64, f"--{mode} {bad!r} accepted: rc {rc}, stdout {out[:200]!r}"
    assert out == b""
    assert bad in err, f"the message does not name {bad!r}: {err}"
    assert "geo spans --help" in err


def test_negative_length_is_usage_error():
    rc, out, err = run(["spans", "--style", "red", "--length", "-5"], ndjson([feature(FOUR)]))
    assert rc == 64 and out == b"" and "-5" in err, err


@pytest.mark.parametrize("width", ["3", "0.5", "0"])
def test_width_gives_stroke_width(width):
    pieces = pieces_of([FOUR], ["--style", "red", "--style", "gradient(red,blue)", "--length", "50000",
                                "--width", width])[0]
    assert pieces
    for p in pieces:
        w = p["properties"]["stroke-width"]
        assert isinstance(w, (int, float)) and not isinstance(w, bool) and w == float(width), p


def test_negative_width_is_not_written():
    """simplestyle-spec: stroke-width is a number >= 0. A negative --width is a usage error (or
    at least never reaches the output)."""
    rc, out, err = run(["spans", "--span", "red", "--split", "--width", "-1"], ndjson([feature(FOUR)]))
    if rc == 0:
        for ln in out.decode().splitlines():
            w = json.loads(ln)["properties"].get("stroke-width", 0)
            assert w >= 0, f"--width -1 wrote stroke-width {w}: {ln}"
    else:
        assert rc == 64 and out == b"", err


def test_width_needs_split():
    rc, out, err = run(["spans", "--span", "red", "--width", "2"], ndjson([feature(FOUR)]))
    assert rc == 64 and out == b"", err


# --- records -------------------------------------------------------------------------------

GOOD = {"type": "LineString", "coordinates": [[0, 0], [1, 0.5], [2, 0.2]]}


@pytest.mark.parametrize("bad", [
    {"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 0]]]},
    {"type": "MultiLineString", "coordinates": [[[0, 0], [1, 0]], [[2, 0], [3, 95]]]},  # a bad part
    {"type": "LineString", "coordinates": [[0, 0], [1, 95]]},
])
@pytest.mark.parametrize("split", [False, True])
def test_bad_record_reported_others_output(bad, split):
    good2 = {"type": "LineString", "coordinates": [[5, 5], [6, 6]]}
    args = ["spans", "--span", "red"] + (["--split"] if split else [])
    rc, out, err = run(args, ndjson([GOOD, bad, good2]))
    assert rc == 65, f"rc {rc}, stderr {err}"
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("geo spans: ") and ":2:" in lines[0], err
    recs = [json.loads(ln) for ln in out.decode().splitlines()]
    assert [r["geometry"]["coordinates"] for r in recs] == [GOOD["coordinates"], good2["coordinates"]]


def test_split_record_without_spans_is_not_silent():
    """docs/records.md, "Bad records": every input record yields its output or an error report,
    never silence. With --split, a path that has no spans (a single point; a zero-length path
    with offset 0, where the pattern walk of docs/algorithms.md emits nothing) must still give
    a Feature or a report."""
    records = [{"type": "LineString", "coordinates": [[1, 2]]},
               {"type": "LineString", "coordinates": [[1, 2], [1, 2]]}]
    for args in (["--style", "red", "--length", "1000"], ["--span", "red"]):
        for rec in records:
            rc, out, err = run(["spans", "--split"] + args, ndjson([rec]))
            assert out.strip() or (rc == 65 and err.strip()), (
                f"geo spans --split {' '.join(args)} on {json.dumps(rec)}: no output, no report "
                f"(rc {rc}, stderr {err!r})")


def test_from_polyline(polyline):
    path = [(-120.2, 38.5), (-120.95, 40.7), (-126.453, 43.252), (-126.453, 43.252), (-127.1, 44.00001)]
    args = ["--style", "red", "--style", "blue", "--length", "77777", "--length", "12345.5", "--offset", "-1000"]
    from_json = geo_records(args, [feature(path)])[0]["properties"]["spans"]
    enc5 = polyline.encode([(lat, lon) for lon, lat in path], 5)
    enc6 = polyline.encode([(lat, lon) for lon, lat in path], 6)
    for extra, text in ((["--from", "polyline"], enc5 + "\n" + json.dumps(enc5) + "\n"),
                        (["--from", "polyline", "--precision", "6"], enc6 + "\n")):
        rc, out, err = run(["spans"] + extra + args, text)
        assert rc == 0, err
        recs = [json.loads(ln) for ln in out.decode().splitlines()]
        assert recs and all(r["properties"]["spans"] == from_json for r in recs), (recs, from_json)
        assert all(r["geometry"]["coordinates"] == [list(p) for p in path] for r in recs)
    # The reference agrees too.
    m = Oracle("geodesic").measure(edges_of(path))
    assert_spans_close([(s["style"], s["segments"]) for s in from_json],
                       ref_pattern(cumulative(path, m), ["red", "blue"], [77777, 12345.5], -1000), "polyline")


def test_properties_pass_through():
    rec = {"type": "Feature", "id": "route-7",
           "properties": {"name": "Ruta 7", "n": 3, "nested": {"a": [1, 2.5, None]}},
           "geometry": GOOD}
    out = geo_records(["--span", "red:0.5", "--span", "gradient(red,blue)"], [rec])
    assert len(out) == 1
    props = out[0]["properties"]
    assert out[0]["id"] == "route-7"
    assert {k: props[k] for k in ("name", "n", "nested")} == rec["properties"]
    assert props["spans"] == [{"style": "red", "segments": 0.5}, {"style": "gradient(red,blue)", "segments": 1.5}]
    assert out[0]["geometry"] == GOOD
    pieces = geo_records(["--span", "red:0.5", "--span", "gradient(red,blue)", "--split"], [rec])
    assert len(pieces) >= 2
    for p in pieces:
        assert p["id"] == "route-7"
        assert {k: p["properties"][k] for k in ("name", "n", "nested")} == rec["properties"]


def test_computed_properties_replace_input_ones():
    """Input properties named like the output ones are replaced, never duplicated."""
    rec = {"type": "Feature", "properties": {"spans": "old", "stroke": "#123456", "span": 9,
                                             "style": "x", "keep": True}, "geometry": GOOD}
    out = geo_records(["--span", "red"], [rec])          # loads_strict rejects duplicate keys
    assert out[0]["properties"]["spans"] == [{"style": "red", "segments": 2}]
    assert out[0]["properties"]["keep"] is True
    pieces = geo_records(["--span", "red", "--split"], [rec])
    assert len(pieces) == 1
    props = pieces[0]["properties"]
    assert props["stroke"] == "#ff0000" and props["span"] == 0 and props["style"] == "red"
    assert props["keep"] is True


# --- a FeatureCollection for viewers -------------------------------------------------------


def _simplestyle_valid(fc):
    assert fc["type"] == "FeatureCollection"
    assert fc["features"]
    for f in fc["features"]:
        assert f["type"] == "Feature"
        g = f["geometry"]
        assert g["type"] == "LineString" and len(g["coordinates"]) >= 2
        for lon, lat in g["coordinates"]:
            assert -180 <= lon <= 180 and -90 <= lat <= 90
        props = f["properties"]
        stroke = props["stroke"]
        assert isinstance(stroke, str) and len(stroke) == 7 and HEX_RE.match(stroke), props
        if "stroke-end" in props:
            assert HEX_RE.match(props["stroke-end"]), props
        w = props["stroke-width"]
        assert isinstance(w, (int, float)) and not isinstance(w, bool) and w >= 0, props
        if "stroke-opacity" in props:
            o = props["stroke-opacity"]
            assert isinstance(o, (int, float)) and not isinstance(o, bool) and 0 <= o <= 1, props


def test_split_collection_for_viewers(tmp_path):
    rng = random.Random("viewer")
    paths = [random_path(rng, 6, zero_edges=False) for _ in range(3)]
    args = ["spans", "--style", "white", "--style", "gradient(red,#0000ff80)", "--style", "#11223380",
            "--length", "90000", "--length", "40000", "--split", "--width", "4", "--collection"]
    rc, out, err = run(args, ndjson([feature(p) for p in paths]))
    assert rc == 0, err
    fc = loads_strict(out.decode())
    _simplestyle_valid(fc)
    n = len(fc["features"])
    target = tmp_path / "spans.geojson"
    target.write_bytes(out)
    ogrinfo = shutil.which("ogrinfo")
    if ogrinfo is None:
        pytest.fail("GDAL's ogrinfo is missing: apt-get install gdal-bin", pytrace=False)
    proc = subprocess.run([ogrinfo, "-ro", "-al", "-so", str(target)], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "Geometry: Line String" in proc.stdout, proc.stdout
    assert f"Feature Count: {n}" in proc.stdout, proc.stdout
    assert re.search(r"^stroke: String", proc.stdout, re.M), proc.stdout
    assert re.search(r"^stroke-width: (Integer|Real)", proc.stdout, re.M), proc.stdout
    # And the strokes ogrinfo reads are the ones written.
    full = subprocess.run([ogrinfo, "-ro", "-al", str(target)], capture_output=True, text=True, timeout=60)
    assert full.returncode == 0, full.stderr
    strokes = re.findall(r"^\s+stroke \(String\) = (\S+)$", full.stdout, re.M)
    assert strokes == [f["properties"]["stroke"] for f in fc["features"]]


# --- long paths under a short pattern: bounded memory (issue 15) ------------------------------

SPLIT_5KM = ["spans", "--split", "--style", "red", "--style", "gradient(red,blue)", "--length", "5000"]


def _world_tour(turn):
    """200 vertices, 3.4 times round the world (~135,000 km, like the corpus' longest path): about
    27,000 spans of 5 km, 6.5 MB of pieces."""
    return [[round(wrap180(-179 + i * 6.2 + turn), 6), round(20 * math.sin(i / 5 + turn), 6)] for i in range(200)]


def _peak_run(args, source, target):
    """Runs geo ARGS SOURCE > TARGET; (exit status, stderr, peak RSS in kB)."""
    with open(target, "wb") as out:
        proc = subprocess.run(["/usr/bin/time", "-f", "%M", geo_bin(), *args, str(source)], stdout=out,
                              stderr=subprocess.PIPE, timeout=300)
    err = proc.stderr.decode()
    return proc.returncode, err, int(err.split()[-1])


@pytest.mark.slow
@not_under_asan
def test_split_of_long_paths_stays_under_32_mb_and_a_bad_feature_writes_nothing(tmp_path):
    # Each long path writes ~7 MB of pieces: geo writes them out as it goes (a record commits once
    # nothing can fail) instead of holding whole records, with -j1 and -j2 alike (it held 48 and
    # 63 MB before).
    tours = [feature(_world_tour(turn), turn) for turn in range(6)]
    (tmp_path / "plain.ndjson").write_bytes(ndjson(tours))
    plain = {}
    for jobs in ("1", "2"):
        rc, err, peak_kb = _peak_run(SPLIT_5KM + ["-j", jobs], tmp_path / "plain.ndjson", tmp_path / "plain.out")
        assert rc == 0, err
        assert peak_kb < 32 * 1024, f"-j{jobs}: peak RSS {peak_kb} kB"
        plain[jobs] = (tmp_path / "plain.out").read_bytes()
    assert len(plain["1"]) > 6 * 6_000_000
    assert plain["1"] == plain["2"]
    # The collection's long path is written before its Polygon fails: the first pass over the
    # collection takes that back whole (a feature that is not the last does not commit), and the
    # retry feature by feature keeps the path alone.
    polygon = {"type": "Feature", "properties": {}, "geometry": {"type": "Polygon", "coordinates": [[[0, 0], [1, 1], [1, 0], [0, 0]]]}}
    (tmp_path / "in.ndjson").write_bytes(ndjson(tours[:2] + [{"type": "FeatureCollection", "features": [tours[2], polygon]}] + tours[3:]))
    for jobs in ("1", "2"):
        rc, err, _ = _peak_run(SPLIT_5KM + ["-j", jobs], tmp_path / "in.ndjson", tmp_path / "in.out")
        assert rc == 65, err
        assert "in.ndjson:3: features[1]: a Polygon is not a path" in err, err
        assert (tmp_path / "in.out").read_bytes() == plain["1"], f"-j{jobs}"
