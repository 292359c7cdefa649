"""geo tiles on shapes much larger than a tile: a long path is drawn, in each tile, from the parts of
it near the tile (its boxes in the display list), a tile wholly inside a fill is known without
drawing, and a tile of one colour is encoded once. None of that may change a pixel: every tile is
still `geo render` of its bounds, and a tile's cost does not grow with the size of the shapes it
shows.
"""

import math
import random
import resource
import subprocess

from conftest import geo_bin, ndjson, run
from test_tiles import feature, line, rgba, tile_bounds_degrees, tiles, worst_difference, written


def wiggle(start, count, step, seed, turn=0.3):
    """A seeded random walk of `count` positions, `step` degrees a step, heading mostly east."""
    rng = random.Random(seed)
    lon, lat = start
    heading, points = 0.0, []
    for _ in range(count):
        points.append([round(((lon + 180) % 360) - 180, 7), round(lat, 7)])
        heading += rng.gauss(0, turn)
        lon += step * math.cos(heading) + step * 0.5
        lat = max(-80, min(80, lat + step * math.sin(heading)))
    return points


def ring(centre, radius, count, seed, clockwise=False, jag=0.25):
    """A closed ring of `count` vertices round `centre` (degrees), its radius off by up to `jag`."""
    rng = random.Random(seed)
    points = []
    for k in range(count):
        angle = 2 * math.pi * k / count * (-1 if clockwise else 1)
        r = radius * (1 - jag * rng.random())
        points.append([centre[0] + r * math.cos(angle), centre[1] + 0.8 * r * math.sin(angle)])
    return points + [points[0]]


LONG = [
    # Crosses ±180 twice, wide and half transparent: its caps and the overlaps of its loops show.
    line(wiggle((150, 10), 3000, 0.05, 1), stroke="rgba(31,119,180,0.5)", **{"stroke-width": 24}),
    line(wiggle((-20, -30), 4000, 0.04, 2, turn=0.8), stroke="#d62728", **{"stroke-width": 3}),
    # A big polygon with a hole, outline over a translucent fill; and one across ±180.
    feature({"type": "Polygon", "coordinates": [ring((40, 20), 25, 2000, 3), ring((40, 20), 8, 700, 4, clockwise=True)]},
            fill="rgba(44,160,44,0.6)", stroke="black", **{"stroke-width": 2}),
    feature({"type": "Polygon", "coordinates": [[[170, -40]] + [[175 + 10 * math.cos(k / 300 * math.pi), -40 + 8 * math.sin(k / 300 * math.pi)]
                                                                 for k in range(1, 600)] + [[170, -40]]]},
            fill="#ff7f0e", stroke="#8c564b", **{"stroke-width": 4, "z-index": 1}),
    # Antarctica's way of closing a ring: down the meridian at -180, along -90, up at 180.
    feature({"type": "Polygon", "coordinates": [[[-180, -70]] + [[-180 + 360 * k / 400, -70 + 3 * math.sin(k / 7)] for k in range(1, 400)]
                                                + [[180, -70], [180, -90], [-180, -90], [-180, -70]]]},
            fill="#9467bd"),
    # Drawn whole (spans and a gradient are laid along the whole path): the same either way.
    line(wiggle((-100, 40), 1500, 0.05, 5), stroke="#17becf", spans=[{"segments": 700, "style": "red"}, {"style": "blue"}]),
]


def test_long_shapes_are_render_of_each_tile_s_bounds(tmp_path):
    """The SPEC's fixed reading, on shapes a hundred tiles long, at a zoom where they are."""
    out, err = tiles(tmp_path, LONG, ["--zoom", "5"])
    assert err == ""
    found = written(out)
    assert len(found) > 150
    # Every sixth tile, and every tile at the edges of the world (±180).
    sample = [key for index, key in enumerate(sorted(found)) if index % 12 == 0 or key[1] in (0, 31)]
    for z, x, y in sample:
        w, s, e, n = tile_bounds_degrees(z, x, y)
        picture = tmp_path / "render.png"
        rc, _, err = run(["render", "--projection", "EPSG:3857", "--bbox", f"{w!r},{s!r},{e!r},{n!r}", "--size", "256x256",
                          "--background", "none", "-o", picture], ndjson(LONG))
        assert rc == 0, err
        difference = worst_difference(rgba(found[(z, x, y)]), rgba(picture))
        assert difference <= 2, f"tile {z}/{x}/{y} differs from render of its bounds by {difference} levels"


def test_tiles_wholly_inside_fills_are_the_fills_and_threads_agree(tmp_path):
    """A layer of big polygons at a zoom where most tiles are wholly inside one: those tiles are
    not drawn but known, and must be exactly what drawing gives; one thread and two write the same
    bytes (the tiles known or encoded once are kept a thread)."""
    layer = [feature({"type": "Polygon", "coordinates": [ring((-60 + 40 * k, 10 * (k % 3)), 18, 800, 10 + k, jag=0.01)]},
                     fill=colour, stroke="white", **{"stroke-width": 1})
             for k, colour in enumerate(["#1f77b4", "rgba(255,127,14,0.5)", "#2ca02c", "#d62728"])]
    layer.append(feature({"type": "Polygon", "coordinates": [ring((-20, 10), 30, 900, 20, jag=0.01)]}, fill="rgba(0,0,0,0.25)", **{"z-index": 1}))
    one, _ = tiles(tmp_path, layer, ["--zoom", "3-7", "--jobs", "1"], out="one")
    two, _ = tiles(tmp_path, layer, ["--zoom", "3-7", "--jobs", "2"], out="two")
    a, b = written(one), written(two)
    assert a.keys() == b.keys() and len(a) > 800, len(a)
    assert all(a[key].read_bytes() == b[key].read_bytes() for key in a)
    # Most tiles are one colour; of those, check a sample against render.
    solid = [key for key, path in sorted(a.items()) if len(rgba(path).getcolors(1) or []) == 1]
    assert len(solid) > len(a) / 3, (len(solid), len(a))
    for z, x, y in solid[::60]:
        w, s, e, n = tile_bounds_degrees(z, x, y)
        picture = tmp_path / "render.png"
        rc, _, err = run(["render", "--projection", "EPSG:3857", "--bbox", f"{w!r},{s!r},{e!r},{n!r}", "--size", "256x256",
                          "--background", "none", "-o", picture], ndjson(layer))
        assert rc == 0, err
        assert worst_difference(rgba(a[(z, x, y)]), rgba(picture)) <= 2, f"tile {z}/{x}/{y}"


def cpu_seconds(args, input_path):
    """The user + system CPU time of a run of geo ARGS on a file."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([geo_bin(), *map(str, args), str(input_path)], check=True, capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def test_a_tile_costs_what_it_shows_not_the_size_of_its_features(tmp_path):
    """One 40,000-vertex track against the same track cut into 100 features, at zooms where each
    tile shows a few hundred of its vertices: the CPU time is within 1.5 times (it was 4.3 times
    when every tile walked the whole track)."""
    track = wiggle((5, 45), 40000, 0.0003, 7, turn=0.05)
    style = {"stroke": "#d62728", "stroke-width": 2}
    (tmp_path / "whole.ndjson").write_bytes(ndjson([line(track, **style)]))
    pieces = [line(track[k * 400:(k + 1) * 400 + 1], **style) for k in range(100)]
    (tmp_path / "pieces.ndjson").write_bytes(ndjson(pieces))
    # The least of four runs each, taken in turn, so that a change of load on a busy machine
    # weighs on both.
    costs = {"whole": math.inf, "pieces": math.inf}
    for _ in range(4):
        for name in costs:
            costs[name] = min(costs[name], cpu_seconds(["tiles", "--zoom", "13-15", "--force", "-o", tmp_path / f"{name}-tiles"],
                                                       tmp_path / f"{name}.ndjson"))
    # The same tiles, but for the faintest fringe: each piece is thinned from its own first point
    # (PathThinning, within 1/8 px), so a pixel at the edge of the antialiasing may get a level of
    # ink in one and none in the other.
    whole, cut = written(tmp_path / "whole-tiles"), written(tmp_path / "pieces-tiles")
    assert len(whole.keys() & cut.keys()) > 2000
    for key in whole.keys() ^ cut.keys():
        assert rgba(whole.get(key) or cut[key]).getchannel("A").getextrema()[1] <= 2, key
    assert costs["whole"] <= 1.5 * costs["pieces"] + 0.02, costs


def test_a_polygon_across_the_antimeridian_is_its_split_twin(tmp_path):
    """A ring that crosses ±180 (not split as RFC 7946 asks; users' data often is not) covers what
    the short way across ±180 covers, as the Maps SDK draws it: the same tiles and pixels as the
    same polygon split at ±180 into a MultiPolygon, whose cut is not stroked. Joined straight
    across the map instead, it filled a band round the whole world; a ring round a pole is
    closed along the map's edge at that pole."""
    west = [[150 + 60 * k / 40, -30 + 8 * math.sin(k / 3)] for k in range(41)]
    east = [[210 - 60 * k / 40, 30 + 8 * math.sin(k / 4)] for k in range(41)]
    ring = [[(lon + 180) % 360 - 180, lat] for lon, lat in west + east] + [[150, -30]]

    def split(points):
        """The ring cut at 180 (its edges straight in longitude and latitude, as Web Mercator
        draws them: latitude linear in x only along parallels, so cut where the edge crosses)."""
        parts = {True: [], False: []}
        unwrapped = [[lon + 360 if lon < 0 else lon, lat] for lon, lat in points]
        for (a, b) in zip(unwrapped, unwrapped[1:]):
            side = a[0] < 180
            parts[side].append(a)
            if (a[0] < 180) != (b[0] < 180):
                f = (180 - a[0]) / (b[0] - a[0])
                y = a[1] + f * (b[1] - a[1])
                parts[side].append([180, y])
                parts[not side].append([180, y])
        eastern = [[lon - 360, lat] for lon, lat in parts[False]]
        return [[parts[True] + [parts[True][0]]], [eastern + [eastern[0]]]]

    style = {"fill": "#ff7f0e", "stroke": "#8c564b", "stroke-width": 3}
    whole = [feature({"type": "Polygon", "coordinates": [ring]}, **style)]
    twin = [feature({"type": "MultiPolygon", "coordinates": split(ring)}, **style)]
    a, _ = tiles(tmp_path, whole, ["--zoom", "0-4"], out="whole")
    b, _ = tiles(tmp_path, twin, ["--zoom", "0-4"], out="twin")
    one, two = written(a), written(b)
    assert one.keys() == two.keys()
    assert all(x in (0, 1, 2 ** z - 2, 2 ** z - 1) for z, x, _ in one if z >= 2), sorted(one)
    for key in one:
        assert worst_difference(rgba(one[key]), rgba(two[key])) <= 2, key
    # Round a pole, closed along the map's top edge: filled above the ring, not below. At
    # longitude 31.4 the ring is at 75 degrees: pixel row 181 of tile 2/2/0, column 89.
    cap = [feature({"type": "Polygon", "coordinates": [[[lon, 70 + 5 * math.sin(lon / 20)] for lon in range(-180, 180, 5)] + [[-180, 70]]]},
                   fill="#2ca02c")]
    c, _ = tiles(tmp_path, cap, ["--zoom", "2"], out="cap")
    top = rgba(written(c)[(2, 2, 0)])
    assert top.getpixel((89, 5))[3] > 0 and top.getpixel((89, 240))[3] == 0


def test_memory_does_not_grow_with_the_tiles_a_fill_covers(tmp_path):
    """A country-sized polygon (60° × 40°, a hole) at zoom 14 covers about 7 million tiles: its
    cover is kept as runs along rows, cut to the selection, not tile by tile (which took 150 MB
    and seconds for the few tiles of a --bbox, and would pass 256 MB at zoom 15). The tiles asked
    for are the fill where wholly inside and render's where the hole's edge passes."""
    country = feature({"type": "Polygon", "coordinates": [
        [[-10, 30], [50, 30], [50, 70], [-10, 70], [-10, 30]],
        [[5, 40], [5, 45], [15, 45], [15, 40], [5, 40]]]}, fill="#2ca02c", stroke="black", **{"stroke-width": 1})
    source = tmp_path / "country.ndjson"
    source.write_bytes(ndjson([country]))
    box = "14.99,44.99,15.01,45.01"  # the hole's north-east corner
    peaks = {}
    for zoom in (8, 14):
        target = tmp_path / f"z{zoom}"
        proc = subprocess.run(["/usr/bin/time", "-f", "%M", geo_bin(), "tiles", "--zoom", str(zoom), "--bbox", box, "-o", target, source],
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        peaks[zoom] = int(proc.stderr.strip().splitlines()[-1])
    found = written(tmp_path / "z14")
    assert len(found) == 4, sorted(found)
    colours = {key: rgba(path).getcolors(1) for key, path in found.items()}
    # The hole's corner passes through some; the others are wholly inside the fill: known, not drawn.
    assert 0 < sum(1 for c in colours.values() if c) < 4, colours
    for (z, x, y), path in found.items():
        w, s, e, n = tile_bounds_degrees(z, x, y)
        picture = tmp_path / "render.png"
        rc, _, err = run(["render", "--projection", "EPSG:3857", "--bbox", f"{w!r},{s!r},{e!r},{n!r}", "--size", "256x256",
                          "--background", "none", "-o", picture], ndjson([country]))
        assert rc == 0, err
        assert worst_difference(rgba(path), rgba(picture)) <= 2, f"tile {z}/{x}/{y}"
    assert peaks[14] < peaks[8] + 8 * 1024, peaks  # KB: flat, within 8 MB of a low zoom's run
