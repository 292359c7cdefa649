"""`geo render` end to end: pixels, not hopes (docs/render.md, geo-render(1)).

Every probe is placed independently of geo: the view is fitted here from the spec's fixed
readings (the projected extent, scaled to fit --size keeping the aspect, centred), positions are
projected with pyproj, points on geodesic and rhumb edges come from GeodSolve and RhumbSolve.
The SVG (rasterised by rsvg-convert) and the PDF (by pdftoppm) must show what the PNG shows at
the same probes. Pixels are read with Pillow.
"""

import json
import math
import os
import signal
import subprocess
import time

import pytest
from PIL import Image
from pyproj import Transformer

from conftest import REPO, geo_bin, ndjson, run

MERCATOR = Transformer.from_crs("EPSG:4326", "EPSG:3857", always_xy=True)
WHITE = (255, 255, 255)
RED = (255, 0, 0)
BLUE = (0, 0, 255)
FORMATS = ["png", "svg", "pdf"]


# ---- helpers -------------------------------------------------------------------------------

def rasterise(path, fmt, tmp_path):
    """The picture at PATH as an RGBA image: PNG read directly, SVG through rsvg-convert, PDF
    through pdftoppm at 72 dpi (1 pt = 1 px)."""
    if fmt == "png":
        return Image.open(path).convert("RGBA")
    png = tmp_path / f"raster-{fmt}.png"
    if fmt == "svg":
        subprocess.run(["rsvg-convert", "-o", str(png), str(path)], check=True)
    else:
        subprocess.run(["pdftoppm", "-r", "72", "-png", "-singlefile", str(path), str(png)[:-4]], check=True)
    return Image.open(png).convert("RGBA")


def render(tmp_path, records, args=(), fmt="png", expect=0, name="out"):
    out = tmp_path / f"{name}.{fmt}"
    rc, _, err = run(["render", "-o", out, *args], ndjson(records) if not isinstance(records, (bytes, str)) else records)
    assert rc == expect, err
    return rasterise(out, fmt, tmp_path), err


class Fit:
    """The view the spec fixes: projected bounds fitted in W x H less padding, centred."""

    def __init__(self, bounds, width, height, padding):
        minx, miny, maxx, maxy = bounds
        self.scale = min((width - 2 * padding) / (maxx - minx), (height - 2 * padding) / (maxy - miny))
        self.cx, self.cy = (minx + maxx) / 2, (miny + maxy) / 2
        self.width, self.height = width, height

    def pixel(self, x, y):
        return ((x - self.cx) * self.scale + self.width / 2, (self.cy - y) * self.scale + self.height / 2)


def mercator_fit(points, width=1024, height=768, padding=16, centre=None):
    """The fit of the shapes' vertices in Web Mercator (straight edges: the vertices bound them)."""
    xy = [merc(lon, lat, centre) for lon, lat in points]
    xs, ys = [p[0] for p in xy], [p[1] for p in xy]
    return Fit((min(xs), min(ys), max(xs), max(ys)), width, height, padding)


def box_fit(west, south, east, north, width=1024, height=768, centre=None):
    """--bbox: the projected extent of the region, no padding (Web Mercator: its corners)."""
    east_unwrapped = east if east > west else east + 360
    x0, y0 = merc(west, south, centre)
    x1, y1 = merc(east_unwrapped, north, centre)
    if x1 < x0:
        x1 += 2 * math.pi * 6378137
    return Fit((x0, y0, x1, y1), width, height, 0)


def merc(lon, lat, centre=None):
    if centre is not None:
        lon = (lon - centre + 180) % 360 - 180
    return MERCATOR.transform(lon, lat)


def px(image, fit, lon, lat, centre=None):
    x, y = fit.pixel(*merc(lon, lat, centre))
    return image.getpixel((int(x), int(y)))


def close(colour, expected, tolerance=8):
    return all(abs(a - b) <= tolerance for a, b in zip(colour[:3], expected[:3]))


def geodsolve_points(lat1, lon1, lat2, lon2, fractions, rhumb=False):
    """Points at FRACTIONS of the geodesic (RhumbSolve: rhumb line) from 1 to 2."""
    tool = "RhumbSolve" if rhumb else "GeodSolve"
    out = subprocess.run([tool, "-i", "-p", "9"], input=f"{lat1} {lon1} {lat2} {lon2}\n",
                         capture_output=True, text=True, check=True).stdout.split()
    azimuth, distance = float(out[0]), float(out[-1] if rhumb else out[2])
    lines = "".join(f"{lat1} {lon1} {azimuth} {f * distance}\n" for f in fractions)
    direct = subprocess.run([tool, "-p", "9"], input=lines, capture_output=True, text=True, check=True).stdout
    return [(float(l.split()[1]), float(l.split()[0])) for l in direct.splitlines()]


def feature(geometry_type, coordinates, **properties):
    return {"type": "Feature", "properties": properties, "geometry": {"type": geometry_type, "coordinates": coordinates}}


# ---- strokes, the view, the three formats --------------------------------------------------

LINE = [[-0.2, 51.45], [0.0, 51.55]]
BOX = (-0.25, 51.4, 0.05, 51.6)


@pytest.mark.parametrize("fmt", FORMATS)
def test_thick_stroke_is_drawn_where_pyproj_puts_it(tmp_path, fmt):
    image, _ = render(tmp_path, [feature("LineString", LINE, stroke="red", **{"stroke-width": 12})],
                      ["--bbox", ",".join(map(str, BOX))], fmt)
    fit = box_fit(*BOX)
    assert image.size == (1024, 768)
    for f in (0.25, 0.5, 0.75):  # straight in Web Mercator: the chord of the projected ends
        a, b = merc(*LINE[0]), merc(*LINE[1])
        x, y = fit.pixel(a[0] + f * (b[0] - a[0]), a[1] + f * (b[1] - a[1]))
        assert close(image.getpixel((int(x), int(y))), RED), (fmt, f)
        # 20 px across the line: background
        assert close(image.getpixel((int(x) + 20, int(y) + 20)), WHITE), (fmt, f)


def test_default_fit_puts_the_ends_at_the_padding(tmp_path):
    image, _ = render(tmp_path, [feature("LineString", LINE, stroke="blue", **{"stroke-width": 4})], ["--size", "600x600", "--padding", "40"])
    fit = mercator_fit(LINE, 600, 600, 40)
    for lon, lat in LINE:
        assert close(px(image, fit, lon, lat), BLUE)
    # the line is wider than tall in Mercator: its ends touch the left and right padding
    x0, y0 = fit.pixel(*merc(*LINE[0]))
    x1, _ = fit.pixel(*merc(*LINE[1]))
    assert abs(x0 - 40) < 1e-6 and abs(x1 - 560) < 1e-6
    assert close(image.getpixel((int(x0) - 5, int(y0))), WHITE)


def test_svg_on_standard_output_and_format_option(tmp_path):
    rc, out, err = run(["render", "--size", "64x48"], ndjson([feature("Point", [0, 0])]))
    assert rc == 0, err
    assert out.startswith(b"<?xml") and b"<svg" in out and b'width="64px"' in out
    rc, out, err = run(["render", "--format", "png", "--size", "64x48"], ndjson([feature("Point", [0, 0])]))
    assert rc == 0 and out.startswith(b"\x89PNG")
    rc, _, err = run(["render", "-o", tmp_path / "x.gif"], b"")
    assert rc == 64 and ".svg, .png or .pdf" in err
    assert not (tmp_path / "x.gif").exists()


# ---- geodesic and rhumb edges, the antimeridian --------------------------------------------

TOKYO, SAN_FRANCISCO = (139.6917, 35.6895), (-122.4194, 37.7749)
PACIFIC = (120, 15, -110, 65)


def test_geodesic_edge_across_the_pacific_against_geodsolve(tmp_path):
    records = [feature("LineString", [TOKYO, SAN_FRANCISCO], stroke="blue", geodesic=True, **{"stroke-width": 3})]
    image, _ = render(tmp_path, records, ["--bbox", ",".join(map(str, PACIFIC))])
    centre = (120 + 250) / 2  # the middle meridian of the region, 185°
    fit = box_fit(*PACIFIC, centre=centre)
    for lon, lat in geodsolve_points(TOKYO[1], TOKYO[0], SAN_FRANCISCO[1], SAN_FRANCISCO[0], [0.1, 0.25, 0.5, 0.75, 0.9]):
        assert close(px(image, fit, lon, lat, centre), BLUE), (lon, lat)
    # a straight (non-geodesic) edge goes through the Mercator chord instead, 60+ px away
    a, b = merc(*TOKYO, centre), merc(*SAN_FRANCISCO, centre)
    x, y = fit.pixel((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
    assert close(image.getpixel((int(x), int(y))), WHITE)


def test_the_view_fits_shapes_across_the_antimeridian(tmp_path):
    # No --bbox: the view is chosen across the Pacific (Tokyo left, San Francisco right).
    records = [feature("LineString", [TOKYO, SAN_FRANCISCO], stroke="red", **{"stroke-width": 5})]
    image, _ = render(tmp_path, records)
    centre = (TOKYO[0] + SAN_FRANCISCO[0] + 360) / 2
    fit = mercator_fit([TOKYO, (SAN_FRANCISCO[0] + 360, SAN_FRANCISCO[1])], centre=centre)
    tx, _ = fit.pixel(*merc(*TOKYO, centre))
    sx, _ = fit.pixel(*merc(*SAN_FRANCISCO, centre))
    assert abs(tx - 16) < 1 and abs(sx - (1024 - 16)) < 1
    for f in (0.25, 0.5, 0.75):
        a, b = merc(*TOKYO, centre), merc(*SAN_FRANCISCO, centre)
        x, y = fit.pixel(a[0] + f * (b[0] - a[0]), a[1] + f * (b[1] - a[1]))
        assert close(image.getpixel((int(x), int(y))), RED)


def test_densified_geodesic_is_within_a_quarter_pixel(tmp_path):
    # A long geodesic drawn 1 px wide: every GeodSolve point is on a drawn (non-white) pixel,
    # or its neighbour when it falls on a pixel boundary.
    records = [feature("LineString", [[-70, -30], [40, 60]], stroke="black", geodesic=True, **{"stroke-width": 1})]
    image, _ = render(tmp_path, records, ["--bbox", "-90,-60,60,75", "--size", "2000x1500"])
    fit = box_fit(-90, -60, 60, 75, 2000, 1500)
    for lon, lat in geodsolve_points(-30, -70, 60, 40, [i / 40 for i in range(1, 40)]):
        x, y = fit.pixel(*merc(lon, lat))
        darkest = min(image.getpixel((int(x) + dx, int(y) + dy))[0] for dx in (-1, 0, 1) for dy in (-1, 0, 1))
        centre = image.getpixel((int(x), int(y)))[0]
        assert darkest < 100 and centre < 200, (lon, lat, x, y)


def test_rhumb_pattern_spans_against_rhumbsolve(tmp_path):
    # GMSStyleSpans along a rhumb edge: red 100 km, blue 50 km; probes at known distances.
    path = [[-100.0, 30.0], [-80.0, 40.0]]
    rc, out, err = run(["spans", "--kind", "rhumb", "--style", "red", "--style", "blue", "--length", "100000", "--length", "50000"],
                       ndjson([{"type": "LineString", "coordinates": path}]))
    assert rc == 0, err
    record = json.loads(out)
    record["properties"]["stroke-width"] = 6
    image, _ = render(tmp_path, [record], ["--bbox", "-102,28,-78,42", "--kind", "rhumb", "--geodesic"])
    fit = box_fit(-102, 28, -78, 42)
    total = float(subprocess.run(["RhumbSolve", "-i", "-p", "9"], input="30 -100 40 -80\n", capture_output=True,
                                 text=True, check=True).stdout.split()[-1])
    for metres, colour in [(50_000, RED), (125_000, BLUE), (200_000, RED), (275_000, BLUE), (950_000, RED), (1_025_000, BLUE)]:
        (lon, lat), = geodsolve_points(30, -100, 40, -80, [metres / total], rhumb=True)
        assert close(px(image, fit, lon, lat), colour), metres


# ---- spans and gradients --------------------------------------------------------------------

RECTANGLE = [[-122.0, 37.36], [-122.0, 37.45], [-122.2, 37.45], [-122.2, 37.36], [-122.0, 37.36]]


def along(path, t):
    """The Web Mercator point at t = edge + fraction (straight edges: projected length)."""
    edge = min(int(t), len(path) - 2)
    a, b = merc(*path[edge]), merc(*path[edge + 1])
    f = t - edge
    return a[0] + f * (b[0] - a[0]), a[1] + f * (b[1] - a[1])


@pytest.mark.parametrize("fmt", FORMATS)
def test_red_then_gradient_half_through_the_second_segment(tmp_path, fmt):
    record = feature("LineString", RECTANGLE, spans=[{"style": "red", "segments": 1.5}, {"style": "gradient(red,yellow)"}],
                     **{"stroke-width": 10})
    image, _ = render(tmp_path, [record], ["--bbox", "-122.25,37.33,-121.95,37.48"], fmt)
    fit = box_fit(-122.25, 37.33, -121.95, 37.48)
    for t in (0.5, 1.0, 1.25, 1.4):
        assert close(image.getpixel(tuple(map(int, fit.pixel(*along(RECTANGLE, t))))), RED), (fmt, t)
    # The gradient runs from t = 1.5 to 4 by projected length: find t at 1/4, 1/2, 3/4 of it.
    lengths = [math.dist(merc(*RECTANGLE[i]), merc(*RECTANGLE[i + 1])) for i in range(4)]
    start = 0.5 * lengths[1]
    span = start + lengths[2] + lengths[3]
    for q in (0.25, 0.5, 0.75):
        target, t = start + q * span - start, 1.5
        remaining = q * span
        edge, into = 1, 0.5 * lengths[1]
        while remaining > lengths[edge] - into:
            remaining -= lengths[edge] - into
            edge, into = edge + 1, 0.0
        t = edge + (into + remaining) / lengths[edge]
        colour = image.getpixel(tuple(map(int, fit.pixel(*along(RECTANGLE, t)))))
        assert close(colour, (255, round(255 * q), 0), 10), (fmt, q, colour)


def test_split_pieces_draw_their_stroke_end_ramp(tmp_path):
    rc, out, err = run(["spans", "--split", "--width", "10", "--span", "gradient(blue,red)"],
                       ndjson([{"type": "LineString", "coordinates": LINE}]))
    assert rc == 0, err
    pieces = [json.loads(l) for l in out.splitlines()]
    assert pieces[0]["properties"]["stroke-end"] == "#ff0000"
    image, _ = render(tmp_path, pieces, ["--bbox", ",".join(map(str, BOX))])
    fit = box_fit(*BOX)
    for q in (0.25, 0.5, 0.75):
        colour = image.getpixel(tuple(map(int, fit.pixel(*along(LINE, q)))))
        assert close(colour, (round(255 * q), 0, round(255 * (1 - q))), 10), (q, colour)


# ---- polygons -------------------------------------------------------------------------------

HYDE_PARK = ["tpwmEkd|y[QVe@Pk@BsHe@mGc@iNaAKMaBIYIq@qAMo@Eo@@[Fe@DoALu@HUb@c@XUZS^ELGxOhAd@@ZB`@J^BhFRlBN\\BZ@`AFrATAJAR?rAE\\C~BIpD",
             "tlvmEqq|y[NNCXSJQOB[TI",
             "bewmEwk|y[Dm@zAPEj@{AO"]


def hyde_park():
    rc, out, err = run(["decode", "--field", "polyline"],
                       json.dumps({"type": "Feature", "properties": {"polyline": HYDE_PARK[0], "holes": HYDE_PARK[1:]}, "geometry": None}) + "\n")
    assert rc == 0, err
    return json.loads(out)["geometry"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_hollow_polygon_holes_are_holes_whatever_the_winding(tmp_path, fmt):
    polygon = hyde_park()
    rings = polygon["coordinates"]
    record = {"type": "Feature", "properties": {"fill": "#0000ff", "stroke-width": 0}, "geometry": polygon}
    image, _ = render(tmp_path, [record], ["--size", "600x800"], fmt)
    fit = mercator_fit(rings[0], 600, 800, 16)
    # default fill opacity 0.6 over white: 255 * 0.4 = 102 in red and green
    inside_fill = (102, 102, 255)
    for hole in rings[1:]:
        lon = sum(p[0] for p in hole[:-1]) / (len(hole) - 1)
        lat = sum(p[1] for p in hole[:-1]) / (len(hole) - 1)
        assert close(px(image, fit, lon, lat), WHITE), (fmt, "hole")
        # just outside the hole, east of its easternmost vertex: filled
        east = max(hole, key=lambda p: p[0])
        assert close(px(image, fit, east[0] + 0.0002, east[1]), inside_fill), (fmt, "around the hole")
    outer = rings[0]
    lon = sum(p[0] for p in outer) / len(outer)
    lat = sum(p[1] for p in outer) / len(outer)
    assert close(px(image, fit, lon, lat + 0.001), inside_fill), fmt
    assert close(image.getpixel((5, 5)), WHITE)


def test_multipolygon_cut_at_the_antimeridian_has_no_seam(tmp_path):
    rc, out, err = run(["circle-to-polygon", "--center", "10,179.5", "--radius", "300000"])
    assert rc == 0, err
    circle = json.loads(out)
    assert circle["geometry"]["type"] == "MultiPolygon"
    circle["properties"].update({"fill": "#0000ff", "fill-opacity": 1, "stroke": "red", "stroke-width": 3})
    image, _ = render(tmp_path, [circle])
    points = [p for polygon in circle["geometry"]["coordinates"] for p in polygon[0]]
    centre = 179.5
    fit = mercator_fit([(p[0] % 360, p[1]) for p in points], centre=centre)
    x180, _ = fit.pixel(*merc(180, 10, centre))
    _, top = fit.pixel(*merc(180, 12, centre))
    _, bottom = fit.pixel(*merc(180, 8, centre))
    # down the ±180 meridian inside the circle: pure fill, no seam line, no stroke
    for y in range(int(top), int(bottom)):
        for x in (int(x180) - 1, int(x180), int(x180) + 1):
            assert image.getpixel((x, y))[:3] == BLUE, (x, y, image.getpixel((x, y)))


def test_fill_alpha_rules(tmp_path):
    square = [[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]
    cases = [({"fill": "#0000ff80"}, 128 / 255), ({"fill": "#0000ff80", "fill-opacity": 0.5}, 0.5 * 128 / 255),
             ({"fill": "blue"}, 0.6), ({"fill": "blue", "fill-opacity": 1}, 1.0), ({"fill": "rgba(0,0,1,0.25)"}, 0.25)]
    for properties, alpha in cases:
        image, _ = render(tmp_path, [feature("Polygon", [square], **properties, **{"stroke-width": 0})], ["--size", "100x100"])
        red = image.getpixel((50, 50))[0]
        assert abs(red - 255 * (1 - alpha)) <= 2, (properties, red)


# ---- points, stamps, order, background -----------------------------------------------------

def test_markers_by_colour_and_size(tmp_path):
    records = [feature("Point", [0, 0], **{"marker-color": "#00ff00", "marker-size": "large"}),
               feature("Point", [1, 0], **{"marker-color": "#ff0000", "marker-size": "small"})]
    image, _ = render(tmp_path, records, ["--bbox", "-1,-1,2,1", "--size", "300x200"])
    fit = box_fit(-1, -1, 2, 1, 300, 200)
    x, y = fit.pixel(*merc(0, 0))
    assert close(image.getpixel((int(x), int(y))), (0, 255, 0))
    assert close(image.getpixel((int(x) + 7, int(y))), (0, 255, 0))  # large: radius 10
    x, y = fit.pixel(*merc(1, 0))
    assert close(image.getpixel((int(x), int(y))), RED)
    assert close(image.getpixel((int(x) + 8, int(y))), WHITE)  # small: radius 5


def test_sprite_and_texture_stamps(tmp_path):
    arrow, rail = REPO / "examples" / "arrow.png", REPO / "examples" / "rail.png"
    line = [[0, 0], [1, 0]]
    records = [feature("LineString", line, stroke="sprite(arrow)"),
               feature("LineString", [[0, 0.5], [1, 0.5]], stroke="texture(rail)", **{"stroke-width": 16})]
    image, _ = render(tmp_path, records, ["--bbox", "-0.1,-0.2,1.1,0.7", "--size", "600x400",
                                          "--stamp", f"arrow={arrow}", "--stamp", f"rail={rail}"])
    fit = box_fit(-0.1, -0.2, 1.1, 0.7, 600, 400)
    x0, y0 = fit.pixel(*merc(0, 0))
    # sprites every 16 px (the image's height), centred 8 px along: the arrow's body there
    for k in range(5):
        assert close(image.getpixel((int(x0 + 8 + 16 * k), int(y0))), (0, 90, 200), 30), k
    # texture: 8x8 image scaled to width 16 (x2), light top half then dark along the line
    x0, y0 = fit.pixel(*merc(0, 0.5))
    for k in range(4):
        assert image.getpixel((int(x0 + 4 + 16 * k), int(y0)))[0] > 200, k
        assert image.getpixel((int(x0 + 12 + 16 * k), int(y0)))[0] < 80, k


def test_unknown_and_path_like_stamps_are_bad_records(tmp_path):
    arrow = REPO / "examples" / "arrow.png"
    records = [feature("LineString", LINE, stroke="sprite(ghost)"),
               feature("LineString", LINE, stroke="texture(../../etc/passwd)"),
               feature("LineString", LINE, spans=[{"style": "sprite(nope)"}]),
               feature("LineString", LINE, stroke="red", **{"stroke-width": 10})]
    image, err = render(tmp_path, records, ["--bbox", ",".join(map(str, BOX)), "--stamp", f"arrow={arrow}"], expect=65)
    assert "<stdin>:1: properties.stroke: no stamp 'ghost' was registered" in err
    assert "<stdin>:2: properties.stroke: 'texture(../../etc/passwd)' is not a colour or style" in err
    assert "<stdin>:3:" in err
    fit = box_fit(*BOX)
    assert close(image.getpixel(tuple(map(int, fit.pixel(*along(LINE, 0.5))))), RED)
    rc, _, err = run(["render", "--stamp", f"x={tmp_path}/missing.png", "-o", tmp_path / "m.png"], b"")
    assert rc == 66 and "missing.png" in err and not (tmp_path / "m.png").exists()


@pytest.mark.parametrize("width", [20, 10])  # 20: cairo strokes it; 10: geo's line rasterizer does
def test_z_index_then_input_order(tmp_path, width):
    across, down = [[-1, 0], [1, 0]], [[0, -1], [0, 1]]
    records = [feature("LineString", across, stroke="red", zIndex=2, **{"stroke-width": width}),
               feature("LineString", down, stroke="blue", **{"stroke-width": width}),
               feature("LineString", [[-1, 0.5], [1, 0.5]], stroke="#00ff00", **{"z-index": -1, "stroke-width": width}),
               feature("LineString", [[0.5, -1], [0.5, 1]], stroke="black", **{"stroke-width": width}),
               feature("LineString", [[-1, -0.5], [1, -0.5]], stroke="yellow", zIndex=2, **{"stroke-width": width}),
               feature("LineString", [[-0.5, -1], [-0.5, 1]], stroke="#ff00ff", zIndex=2, **{"stroke-width": width})]
    for args in ([], ["--bbox", "-1.2,-1.2,1.2,1.2"]):
        image, _ = render(tmp_path, records, args + ["--size", "400x400"])
        fit = box_fit(-1.2, -1.2, 1.2, 1.2, 400, 400) if args else mercator_fit([[-1, -1], [1, 1]], 400, 400)
        assert close(px(image, fit, 0, 0), RED)  # z 2 over z 0
        assert close(px(image, fit, 0, 0.5), BLUE)  # z 0 over z -1
        assert close(px(image, fit, 0.5, 0.5), (0, 0, 0))  # z 0 over z -1
        assert close(px(image, fit, -0.5, -0.5), (255, 0, 255))  # equal z: the later one on top


def test_background_none_is_transparent(tmp_path):
    image, _ = render(tmp_path, [feature("Point", [0, 0])], ["--background", "none", "--size", "50x50"])
    assert image.getpixel((1, 1))[3] == 0
    image, _ = render(tmp_path, [feature("Point", [0, 0])], ["--background", "#102030", "--size", "50x50"])
    assert image.getpixel((1, 1)) == (16, 32, 48, 255)


def test_lines_on_a_transparent_background_match_cairos(tmp_path):
    """geo's line rasterizer composites onto a transparent picture as cairo does (premultiplied
    source over): half-transparent lines crossing, the PNG against cairo's SVG."""
    records = [feature("LineString", [[-1, -1], [1, 1]], stroke="#ff0000", **{"stroke-width": 8, "stroke-opacity": 0.5}),
               feature("LineString", [[-1, 1], [1, -1]], stroke="#0000ff", **{"stroke-width": 3, "stroke-opacity": 0.6})]
    args = ["--background", "none", "--bbox", "-1.2,-1.2,1.2,1.2", "--size", "200x200"]
    png, _ = render(tmp_path, records, args, fmt="png", name="geo")
    svg, _ = render(tmp_path, records, args, fmt="svg", name="cairo")
    fit = box_fit(-1.2, -1.2, 1.2, 1.2, 200, 200)
    for lon, lat in [(0.5, 0.5), (-0.5, 0.5), (0, 0), (1.15, -1.15)]:
        a, b = px(png, fit, lon, lat), px(svg, fit, lon, lat)
        assert all(abs(x - y) <= 3 for x, y in zip(a, b)), ((lon, lat), a, b)
    assert px(png, fit, 0.5, 0.5)[3] in range(126, 130)  # half opaque red alone
    assert px(png, fit, 1.15, -1.15)[3] == 0  # nothing there


def test_graticule_meridians_and_parallels(tmp_path):
    image, _ = render(tmp_path, [feature("Point", [0, 0])], ["--bbox", "-25,-25,25,25", "--graticule", "10", "--size", "500x500"])
    fit = box_fit(-25, -25, 25, 25, 500, 500)
    for lon in (-20, -10, 0, 10, 20):
        x, y = fit.pixel(*merc(lon, 15))
        assert image.getpixel((int(x), int(y)))[0] < 240, lon
    x, y = fit.pixel(*merc(5, 20))
    assert image.getpixel((int(x), int(y)))[0] < 240
    x, y = fit.pixel(*merc(5, 15))
    assert image.getpixel((int(x), int(y)))[:3] == WHITE


# ---- a globe --------------------------------------------------------------------------------

def test_globe_clips_the_far_side_at_the_horizon(tmp_path):
    ortho = "+proj=ortho +lat_0=0 +lon_0=0"
    to_ortho = Transformer.from_crs("EPSG:4326", ortho + " +type=crs", always_xy=True)
    records = [feature("LineString", [[10, 0], [170, 0]], stroke="red", geodesic=True, **{"stroke-width": 5}),
               feature("LineString", [[-170, 10], [-100, 10]], stroke="blue", geodesic=True, **{"stroke-width": 5})]
    image, _ = render(tmp_path, records, ["--projection", ortho, "--bbox", "-180,-90,180,90", "--size", "700x500"])
    # the whole disc shows: its extent is the limb, radius a on both axes for the sphere-ish ortho
    xs, ys = zip(*[to_ortho.transform(lon, lat) for lon in range(-90, 91) for lat in range(-89, 90, 1)])
    fit = Fit((min(xs), min(ys), max(xs), max(ys)), 700, 500, 0)
    for lon in (20, 45, 80):
        x, y = fit.pixel(*to_ortho.transform(lon, 0))
        assert close(image.getpixel((int(x), int(y))), RED), lon
    # past the horizon: nothing (not folded back over the disc), and the blue line is all hidden
    rx, ry = fit.pixel(*to_ortho.transform(90, 0))
    assert abs(rx - 600) < 2
    assert all(close(image.getpixel((int(rx) + d, int(ry))), WHITE) for d in (4, 8, 50))
    assert not any(close(image.getpixel((x, y)), BLUE, 40) for x in range(0, 700, 2) for y in range(0, 500, 5))


# ---- bad records, options, output -----------------------------------------------------------

def test_bad_records_are_reported_and_the_picture_still_written(tmp_path):
    records = [feature("LineString", LINE, stroke="blurple"),
               feature("LineString", LINE, **{"stroke-width": "NaN"}),
               feature("LineString", LINE, **{"stroke-opacity": 2}),
               feature("LineString", LINE, **{"z-index": "top"}),
               feature("LineString", LINE, stroke="red", **{"stroke-width": 10})]
    data = ndjson(records) + b'{"type":"LineString","coordinates":[[0,91],[1,1]]}\n'
    image, err = render(tmp_path, data, ["--bbox", ",".join(map(str, BOX))], expect=65)
    assert "geo render: <stdin>:1: properties.stroke: 'blurple' is not a colour or style" in err
    assert "geo render: <stdin>:2: properties.stroke-width: \"NaN\" is not a width in pixels, 0 or more" in err
    assert "<stdin>:3: properties.stroke-opacity: 2 is not an opacity from 0 to 1" in err
    assert "<stdin>:4:" in err and "<stdin>:6:" in err
    fit = box_fit(*BOX)
    assert close(image.getpixel(tuple(map(int, fit.pixel(*along(LINE, 0.5))))), RED)


def test_bad_options_are_usage_errors_and_write_nothing(tmp_path):
    out = tmp_path / "o.png"
    for args in (["--size", "10000x10000"], ["--size", "0x5"], ["--bbox", "1,2,3"], ["--bbox", "0,50,1,40"],
                 ["--projection", "EPSG:999999"], ["--background", "nope"], ["--stamp", "a/b=x.png"],
                 ["--padding", "600", "--size", "1000x1000"], ["--bbox", "0,0,1,1", "--padding", "3"]):
        rc, _, err = run(["render", "-o", out, *args], ndjson([feature("Point", [0, 0])]))
        assert rc == 64, (args, err)
        assert "See 'geo render --help'" in err
        assert not out.exists()


def test_output_that_cannot_be_created_or_written(tmp_path):
    rc, _, err = run(["render", "-o", tmp_path / "no" / "such" / "dir.png"], ndjson([feature("Point", [0, 0])]))
    assert rc == 73 and "cannot create" in err
    with open("/dev/full", "wb") as full:
        proc = subprocess.run([geo_bin(), "render"], input=ndjson([feature("Point", [0, 0])]), stdout=full, stderr=subprocess.PIPE)
    assert proc.returncode == 74 and b"cannot write standard output" in proc.stderr
    # a file that exists is replaced whole, never truncated first
    target = tmp_path / "keep.png"
    target.write_bytes(b"old")
    rc, _, err = run(["render", "-o", target], b'{"type":"Point","coordinates":[0,0]}\n')
    assert rc == 0 and target.read_bytes().startswith(b"\x89PNG")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.png"]


def test_a_signal_leaves_no_partial_file(tmp_path):
    out = tmp_path / "slow.png"
    proc = subprocess.Popen([geo_bin(), "render", "--bbox", "0,0,1,1", "-o", str(out)], stdin=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    proc.stdin.write(ndjson([feature("Point", [0.5, 0.5])]))
    proc.stdin.flush()
    deadline = time.time() + 10
    while time.time() < deadline and not any(tmp_path.iterdir()):
        time.sleep(0.05)
    assert any(p.name.startswith(".slow.png.geo-") for p in tmp_path.iterdir())
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=10)
    proc.stdin.close()
    assert proc.returncode == -signal.SIGTERM
    assert list(tmp_path.iterdir()) == []


def test_stdin_is_read_twice_and_files_are_too(tmp_path):
    data = ndjson([feature("LineString", LINE, stroke="red", **{"stroke-width": 8})])
    (tmp_path / "in.ndjson").write_bytes(data)
    a, _ = render(tmp_path, data, name="a")
    out = tmp_path / "b.png"
    rc, _, err = run(["render", "-o", out, tmp_path / "in.ndjson"])
    assert rc == 0, err
    assert a.tobytes() == Image.open(out).convert("RGBA").tobytes()
    fit = mercator_fit(LINE)
    assert close(a.getpixel(tuple(map(int, fit.pixel(*along(LINE, 0.5)))))[:3], RED)


# ---- hostile input --------------------------------------------------------------------------

def png_chunks(data):
    """The chunks of a PNG file as (type, payload), each CRC checked."""
    import zlib
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    chunks, at = [], 8
    while at < len(data):
        length = int.from_bytes(data[at:at + 4], "big")
        kind, payload = data[at + 4:at + 8], data[at + 8:at + 8 + length]
        assert int.from_bytes(data[at + 8 + length:at + 12 + length], "big") == zlib.crc32(kind + payload), kind
        chunks.append((kind.decode(), payload))
        at += 12 + length
    return chunks


def test_the_png_is_valid_chunk_by_chunk_and_unpremultiplied_as_cairo_does(tmp_path):
    """geo's own PNG writer, read here without Pillow: signature, CRCs, IHDR, IDAT in several
    chunks (a 1600-px picture of many translucent lines), one zlib stream (adler32 checked by
    zlib), rows of filter byte + RGBA; the pixels equal Pillow's reading; and every translucent
    pixel's colour is one that cairo's unpremultiplication, (p·255 + a/2) / a, can give."""
    import random, zlib
    rng = random.Random(7)
    records = [feature("LineString", [[rng.uniform(-10, 10), rng.uniform(-10, 10)] for _ in range(6)],
                       stroke=rng.choice(["#d62728", "#1f77b4", "#2ca02c"]),
                       **{"stroke-width": rng.uniform(1, 9), "stroke-opacity": rng.uniform(0.2, 0.9)}) for _ in range(400)]
    image, _ = render(tmp_path, records, ["--background", "none", "--bbox", "-10,-10,10,10", "--size", "1600x1600"])
    chunks = png_chunks((tmp_path / "out.png").read_bytes())
    kinds = [k for k, _ in chunks]
    assert kinds[0] == "IHDR" and kinds[-1] == "IEND" and kinds.count("IDAT") >= 2, kinds[:5]
    ihdr = chunks[0][1]
    assert (int.from_bytes(ihdr[:4], "big"), int.from_bytes(ihdr[4:8], "big"), *ihdr[8:]) == (1600, 1600, 8, 6, 0, 0, 0)
    raw = zlib.decompress(b"".join(p for k, p in chunks if k == "IDAT"))
    assert len(raw) == 1600 * (1 + 4 * 1600) and all(raw[y * 6401] == 0 for y in range(1600))
    pixels = b"".join(raw[y * 6401 + 1:(y + 1) * 6401] for y in range(1600))
    assert pixels == image.tobytes()
    possible = {a: {(p * 255 + a // 2) // a for p in range(a + 1)} for a in range(1, 256)}
    translucent = 0
    for i in range(0, len(pixels), 4 * 97):                     # every 97th pixel
        r, g, b, a = pixels[i:i + 4]
        if a == 0:
            assert (r, g, b) == (0, 0, 0)
        elif a < 255:
            translucent += 1
            assert {r, g, b} <= possible[a], (r, g, b, a)
    assert translucent > 1000


def test_a_million_vertex_path_draws(tmp_path):
    n = 1_000_000
    coordinates = ",".join(f"[{-10 + 20 * i / n:.7f},{5 * math.sin(i / n * 40):.7f}]" for i in range(n))
    data = ('{"type":"Feature","properties":{"stroke":"red"},"geometry":{"type":"LineString","coordinates":[' + coordinates + "]}}\n").encode()
    started = time.time()
    image, _ = render(tmp_path, data, ["--bbox", "-11,-6,11,6"])
    assert time.time() - started < 60
    fit = box_fit(-11, -6, 11, 6)
    # a vertex at a crest: the curve's top, where it is flat
    i = round(n * (math.pi / 2) / 40)
    lon, lat = -10 + 20 * i / n, 5 * math.sin(i / n * 40)
    assert close(px(image, fit, lon, lat), RED, 60)


def test_huge_strokes_and_far_coordinates(tmp_path):
    records = [feature("LineString", [[-80, -80], [80, 80]], stroke="blue", **{"stroke-width": 1e300}),
               feature("LineString", [[-0.1, 0], [0.1, 0]], stroke="red", **{"stroke-width": 4})]
    image, _ = render(tmp_path, records, ["--bbox", "-0.2,-0.2,0.2,0.2", "--size", "200x200"])
    assert close(image.getpixel((5, 5)), BLUE)  # the huge stroke covers the picture
    assert close(image.getpixel((100, 100)), RED)  # a stroke far from the view still draws in it


# ---- the guide's figures (docs/pictures/make.sh) --------------------------------------------

@pytest.fixture(scope="module")
def figures(tmp_path_factory):
    out = tmp_path_factory.mktemp("figures")
    subprocess.run([str(REPO / "docs" / "pictures" / "make.sh"), str(out)], check=True, env={**os.environ, "GEO": geo_bin()})
    return out


def figure(figures, name):
    return Image.open(figures / f"{name}.png").convert("RGBA")


def test_figure_polyline_and_rectangle(figures):
    sydney = [[151.20, -33.85], [151.40, -33.70], [151.41, -33.73]]
    image, fit = figure(figures, "polyline"), mercator_fit(sydney, 480, 360)
    for t in (0.3, 0.7, 1.5):
        assert close(image.getpixel(tuple(map(int, fit.pixel(*along(sydney, t))))), BLUE), t
    image, fit = figure(figures, "rectangle"), mercator_fit(RECTANGLE, 480, 360)
    for t in (0.5, 1.5, 2.5, 3.5):
        assert close(image.getpixel(tuple(map(int, fit.pixel(*along(RECTANGLE, t))))), (0, 0, 0)), t
    assert close(image.getpixel((240, 180)), WHITE)


def test_figure_hollow_polygon(figures):
    rings = hyde_park()["coordinates"]
    image, fit = figure(figures, "hollow-polygon"), mercator_fit(rings[0], 360, 480)
    for hole in rings[1:]:
        lon = sum(p[0] for p in hole[:-1]) / (len(hole) - 1)
        lat = sum(p[1] for p in hole[:-1]) / (len(hole) - 1)
        assert close(px(image, fit, lon, lat), WHITE)
    lon = sum(p[0] for p in rings[0]) / len(rings[0])
    lat = sum(p[1] for p in rings[0]) / len(rings[0])
    assert close(px(image, fit, lon, lat + 0.001), (255, 204, 204), 3)  # red at alpha 0.2 over white


def test_figure_circle_stroke_at_1000_m(figures):
    image = figure(figures, "circle")
    rc, out, _ = run(["circle-to-polygon", "--center", "37.35,-122.0", "--radius", "1000"])
    ring = json.loads(out)["geometry"]["coordinates"][0]
    fit = mercator_fit(ring, 480, 480)
    for azimuth in (0, 90, 200):
        (lon, lat), = [(float(l.split()[1]), float(l.split()[0])) for l in subprocess.run(
            ["GeodSolve", "-p", "9"], input=f"37.35 -122.0 {azimuth} 1000\n", capture_output=True, text=True, check=True).stdout.splitlines()]
        assert close(px(image, fit, lon, lat), RED, 40), azimuth
    # inside: rgba(0.35,0,0,0.05) over white
    assert close(px(image, fit, -122.0, 37.35), (247, 242, 242), 3)


def test_figure_spans_and_pattern(figures):
    image, fit = figure(figures, "spans"), mercator_fit(RECTANGLE, 480, 360)
    for t in (0.5, 1.25):
        assert close(image.getpixel(tuple(map(int, fit.pixel(*along(RECTANGLE, t))))), RED), t
    end = image.getpixel(tuple(map(int, fit.pixel(*along(RECTANGLE, 3.9)))))
    assert close(end, (255, 247, 0), 12), end
    image = figure(figures, "pattern")
    colours = {image.getpixel((x, y))[:3] for x in range(0, 720, 3) for y in range(0, 360, 3)}
    assert (255, 255, 255) in colours and (0, 0, 0) in colours and (0xaa, 0xd3, 0xdf) in colours


def test_figure_stamped_and_pacific(figures):
    image = figure(figures, "stamped")
    colours = [image.getpixel((x, y))[:3] for x in range(480) for y in range(360)]
    assert sum(close(c, (0, 90, 200), 20) for c in colours) > 200  # arrows
    assert sum(close(c, (40, 40, 40), 20) for c in colours) > 200  # rail ties
    image = figure(figures, "pacific")
    centre = (TOKYO[0] + SAN_FRANCISCO[0] + 360) / 2
    # the geodesic's vertex lies north of both ends: the fit includes it (edges densified)
    points = geodsolve_points(TOKYO[1], TOKYO[0], SAN_FRANCISCO[1], SAN_FRANCISCO[0], [i / 200 for i in range(201)])
    fit = mercator_fit([(p[0] % 360, p[1]) for p in points], 720, 360, centre=centre)
    for lon, lat in points[20:181:40]:
        assert close(px(image, fit, lon, lat, centre), (255, 128, 0), 30), (lon, lat)


def test_workers_draw_in_input_order_and_fast_antialiasing_draws_the_same_places(tmp_path):
    import random
    rng = random.Random(7)
    colours = ["red", "blue", "#00aa00", "orange", "black"]
    records = [feature("LineString", [[rng.uniform(-10, 10), rng.uniform(-10, 10)] for _ in range(20)],
                       stroke=rng.choice(colours), **{"stroke-width": rng.choice([1, 3, 8, 20])}) for _ in range(3000)]
    # polygons between the lines: cairo fills them, and --antialias is about what cairo draws
    for index in range(0, 3000, 10):
        x, y = rng.uniform(-10, 8), rng.uniform(-10, 8)
        records.insert(index, feature("Polygon", [[[x, y], [x + 2, y + 0.3], [x + 0.7, y + 1.9], [x, y]]],
                                      fill=rng.choice(colours), **{"stroke-width": 0}))
    data = ndjson(records)
    pictures = []
    for args in (["-j1"], ["-j2"], ["-j2", "--antialias", "fast"]):
        out = tmp_path / f"p{len(pictures)}.png"
        rc, _, err = run(["render", "-o", out, "--bbox", "-11,-11,11,11", "--size", "400x400", *args], data)
        assert rc == 0, err
        pictures.append(Image.open(out).convert("RGBA"))
    assert pictures[0].tobytes() == pictures[1].tobytes()
    # fast antialiasing (of what cairo draws: fills, lines over 16 px): coverage in 17 levels
    # instead of 256, so edge pixels differ a little, never a shape's place
    def inked(picture):
        data = picture.tobytes()
        return {i for i in range(0, len(data), 4) if min(data[i:i + 3]) < 128}
    good, fast = inked(pictures[0]), inked(pictures[2])
    assert pictures[0].tobytes() != pictures[2].tobytes()
    assert len(good ^ fast) < 0.03 * len(good), (len(good ^ fast), len(good))


@pytest.mark.parametrize("projection", ["EPSG:3857", "+proj=ortho +lat_0=20 +lon_0=170"])
def test_the_fit_read_on_several_threads_is_the_fit_read_on_one(tmp_path, projection):
    """The fit's first pass reads the input on --jobs threads in no order and merges their
    extents: on input of many chunks, around the antimeridian and on a globe, -j1 and -j3 must
    give the same picture, byte for byte."""
    import random
    rng = random.Random(5)
    records = []
    for index in range(20000):
        lon, lat = rng.uniform(150, 210), rng.uniform(-40, 60)
        records.append(feature("LineString", [[(lon + rng.uniform(-1, 1) + 180) % 360 - 180, lat + rng.uniform(-1, 1)] for _ in range(8)],
                               geodesic=index % 3 == 0))
    data = ndjson(records)
    assert len(data) > 4 << 20  # several chunks
    source = tmp_path / "in.ndjson"
    source.write_bytes(data if isinstance(data, bytes) else data.encode())
    pictures = []
    for jobs in ("-j1", "-j3"):
        out = tmp_path / f"fit{jobs}.png"
        rc, _, err = run(["render", jobs, "--projection", projection, "--size", "300x200", "-o", out, source])
        assert rc == 0, err
        pictures.append(out.read_bytes())
    assert pictures[0] == pictures[1]


def test_lines_drawn_by_geo_match_cairos(tmp_path):
    """Lines up to 16 px wide are drawn into a PNG by geo's own rasterizer, wider ones and SVG by
    cairo: the PNG must show what rsvg-convert makes of the SVG, the same lines in the same
    places with the same ink: at any angle, widths from a hairline to 16 px, opaque and not,
    dots (one-point lines), overlapping joins painted once."""
    import random
    rng = random.Random(11)
    records = []
    for _ in range(150):
        x, y = rng.uniform(-9, 9), rng.uniform(-9, 9)
        points = [[x + rng.uniform(-1.5, 1.5), y + rng.uniform(-1.5, 1.5)] for _ in range(rng.choice([1, 2, 3, 8]))]
        records.append(feature("LineString" if len(points) > 1 else "Point", points if len(points) > 1 else points[0],
                               stroke=rng.choice(["#c00000", "#0000c0", "#008000"]),
                               **{"stroke-width": rng.choice([0.5, 1, 1.5, 2, 3, 5, 8, 16]),
                                  "stroke-opacity": rng.choice([1, 1, 0.5])}))
    records = [r for r in records if r["geometry"]["type"] == "LineString"]
    args = ["--bbox", "-11,-11,11,11", "--size", "500x500"]
    png, _ = render(tmp_path, records, args, fmt="png", name="geo")
    svg, _ = render(tmp_path, records, args, fmt="svg", name="cairo")
    a, b = png.convert("RGB").tobytes(), svg.convert("RGB").tobytes()
    ink_a, ink_b = sum(255 - v for v in a), sum(255 - v for v in b)
    assert abs(ink_a - ink_b) < 0.005 * ink_b, (ink_a, ink_b)  # measured: 0.06 %
    differing = sum(1 for i in range(0, len(a), 3) if max(abs(a[i + k] - b[i + k]) for k in range(3)) > 96)
    inked = sum(1 for i in range(0, len(b), 3) if min(b[i:i + 3]) < 250)
    assert differing < 0.001 * inked, (differing, inked)  # measured: 8 of 55,447


# ---- the hostile corpus (Tests/Corpus): render reads what area reads ------------------------

CORPUS = REPO / "Tests" / "Corpus"


@pytest.mark.parametrize("name", sorted(json.loads((CORPUS / "manifest.json").read_text())["cases"]))
def test_hostile_case_between_good_records(name, tmp_path):
    """Render is not a filter (one picture out), so each case goes between two good records:
    area's outcome (render reads every geometry type area reads) decides the exit status; the
    good records are drawn either way and the picture is written."""
    expected = json.loads((CORPUS / "manifest.json").read_text())["cases"][name]["area"]
    good = json.dumps(feature("LineString", LINE, stroke="red", **{"stroke-width": 12})).encode() + b"\n"
    data = good + (CORPUS / "cases" / f"{name}.ndjson").read_bytes() + good
    out = tmp_path / "h.png"
    rc, _, err = run(["render", "-o", out, "--bbox", ",".join(map(str, BOX))], data)
    if expected == "ok":
        assert (rc, err) == (0, ""), err
    else:
        assert rc == 65 and "geo render: <stdin>:2" in err, (rc, err)
    image = Image.open(out).convert("RGBA")
    assert close(image.getpixel(tuple(map(int, box_fit(*BOX).pixel(*along(LINE, 0.5))))), RED)


def test_globe_fills_a_polygon_behind_the_horizon_along_the_limb(tmp_path):
    # Half of this quadrilateral is on the far side: its visible part is bounded by the limb,
    # which bulges out to longitude 90 at the equator (a chord between where the rings leave
    # and come back would cut that off).
    ortho = "+proj=ortho +lat_0=0 +lon_0=0"
    to_ortho = Transformer.from_crs("EPSG:4326", ortho + " +type=crs", always_xy=True)
    ring = [[60, -60], [170, -60], [170, 60], [60, 60], [60, -60]]
    records = [feature("Polygon", [ring], fill="#0000ff", geodesic=True, **{"fill-opacity": 1, "stroke-width": 0})]
    image, _ = render(tmp_path, records, ["--projection", ortho, "--bbox", "-180,-90,180,90", "--size", "700x500"])
    xs, ys = zip(*[to_ortho.transform(lon, lat) for lon in range(-90, 91) for lat in range(-89, 90, 1)])
    fit = Fit((min(xs), min(ys), max(xs), max(ys)), 700, 500, 0)
    for lon, lat in [(65, 0), (80, 30), (80, 0), (75, -40)]:
        x, y = fit.pixel(*to_ortho.transform(lon, lat))
        assert close(image.getpixel((int(x), int(y))), BLUE), (lon, lat)
    for lon, lat in [(45, 0), (30, 50)]:  # west of the polygon: not painted by a folded fill
        x, y = fit.pixel(*to_ortho.transform(lon, lat))
        assert close(image.getpixel((int(x), int(y))), WHITE), (lon, lat)
    rx, ry = fit.pixel(*to_ortho.transform(90, 0))
    assert close(image.getpixel((int(rx) + 4, int(ry))), WHITE)


def test_a_straight_edge_across_the_antimeridian_takes_the_short_way_in_a_world_view(tmp_path):
    # The world view is not recentred (the whole world is asked for): an edge from 170° to -170°
    # is cut at ±180 where its Web Mercator line crosses it, one half at each side of the map,
    # and nothing is drawn across the world.
    records = [feature("LineString", [[170, 20], [-170, 30]], stroke="red", **{"stroke-width": 6})]
    image, _ = render(tmp_path, records, ["--bbox", "-180,-60,180,60", "--size", "720x400"])
    fit = box_fit(-180, -60, 179.999999, 60, 720, 400)
    a, b = merc(170, 20), merc(-170, 30)
    b = (b[0] + 2 * math.pi * 6378137, b[1])  # unwrapped: the short way
    for f in (0.25, 0.75):  # on the line, each side of the cut (x of the second half wrapped)
        x, y = a[0] + f * (b[0] - a[0]), a[1] + f * (b[1] - a[1])
        if x > 2 * math.pi * 6378137 / 2:
            x -= 2 * math.pi * 6378137
        px_, py_ = fit.pixel(x, y)
        assert close(image.getpixel((int(px_), int(py_))), RED), f
    _, ymid = fit.pixel(0, (a[1] + b[1]) / 2)
    assert all(close(image.getpixel((x, int(ymid))), WHITE) for x in range(40, 680, 10))
