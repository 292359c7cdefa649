"""`geo locate --shapes FILE --join NAME[,NAME...]`: each match carries the matched shape's
properties (`--join '*'`: all of them) as its own `properties` object, beside `shape` and `id`.

Oracles: shapely's point-in-polygon on Natural Earth's countries for the country of each city,
and shapely distances in a metric projection (pyproj, ETRS-TM35FIN) for the OpenStreetMap roads
of Helsinki within a distance of a point; what a match carries is compared with FILE's own
properties, read by Python's json."""

import json
import random
import subprocess

import pytest

from conftest import geo_bin, not_under_asan, ndjson, run
from test_real_data import data  # noqa: F401  (the real-data fixture)


def lines_of(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def located(out):
    return [json.loads(line) for line in out.splitlines()]


def selected(properties, names):
    """What a match should carry: the named members the shape has (none for those it lacks)."""
    return {name: properties[name] for name in names if name in (properties or {})}


def test_cities_get_their_country_name_and_continent(data):
    """The country each city lies in, by shapely, and the name and continent its match carries.
    Cities within 0.05 degrees of a border are left out (planar and geodesic edges part there)."""
    from shapely.geometry import Point, shape
    countries = lines_of(data / "countries.geojsonl")
    shapes = [shape(c["geometry"]) for c in countries]
    rc, out, err = run(["locate", "--shapes", data / "countries.geojsonl", "--join", "name,continent", data / "cities.geojsonl"])
    assert rc == 0, err
    cities = located(out)
    assert len(cities) == 243
    compared = 0
    for city in cities:
        matches = city["properties"]["locate"]
        assert len(matches) == 1
        # The city's own name stays; the country's is in the match.
        assert set(city["properties"]) == {"name", "locate"}
        for match in matches:
            assert match["properties"] == selected(countries[match["shape"]]["properties"], ["name", "continent"])
        point = Point(city["geometry"]["coordinates"])
        if any(s.boundary.distance(point) < 0.05 for s in shapes if s.distance(point) < 0.05):
            continue
        holding = [k for k, s in enumerate(shapes) if s.contains(point)]
        if holding:
            country = countries[holding[0]]["properties"]
            assert matches[0]["inside"] and matches[0]["properties"] == {"name": country["name"], "continent": country["continent"]}, \
                (city["properties"]["name"], matches[0]["properties"], country["name"])
            compared += 1
    assert compared > 100
    # Paris is in France, which is in Europe (the name the test is about, not an index).
    paris = next(c for c in cities if c["properties"]["name"] == "Paris")
    assert paris["properties"]["locate"][0]["properties"] == {"name": "France", "continent": "Europe"}


def test_join_star_copies_every_property(data):
    countries = lines_of(data / "countries.geojsonl")
    rc, out, err = run(["locate", "--shapes", data / "countries.geojsonl", "--join", "*", "--limit", "3", data / "cities.geojsonl"])
    assert rc == 0, err
    matches = [m for city in located(out) for m in city["properties"]["locate"]]
    assert len(matches) == 3 * 243
    for match in matches:
        assert match["properties"] == countries[match["shape"]]["properties"]
        assert list(match)[:2] == ["shape", "properties"]  # beside the shape's number (no id here)


def test_without_join_matches_carry_no_properties(data):
    rc, out, err = run(["locate", "--shapes", data / "countries.geojsonl", data / "cities.geojsonl"])
    assert rc == 0, err
    assert all("properties" not in m for city in located(out) for m in city["properties"]["locate"])


def test_roads_within_a_distance_carry_their_name_or_none(data):
    """--within on paths: Helsinki's roads (two thirds of them have no name: ogr2ogr leaves the
    member out) within 60 m of random points, against shapely in ETRS-TM35FIN metres."""
    from pyproj import Transformer
    from shapely.geometry import LineString, Point
    to_metres = Transformer.from_crs("EPSG:4326", "EPSG:3067", always_xy=True).transform
    roads = lines_of(data / "helsinki-roads.geojsonl")
    lines = [LineString([to_metres(*p) for p in r["geometry"]["coordinates"]]) for r in roads]
    rng = random.Random("helsinki")
    points = [[rng.uniform(24.936, 24.953), rng.uniform(60.165, 60.178)] for _ in range(40)]
    within = 60
    rc, out, err = run(["locate", "--shapes", data / "helsinki-roads.geojsonl", "--within", within, "--join", "name,highway"],
                       ndjson([{"type": "Feature", "properties": {"n": k}, "geometry": {"type": "Point", "coordinates": p}}
                               for k, p in enumerate(points)]))
    assert rc == 0, err
    unnamed = 0
    # TM35FIN's scale at 24.9 E, 60.2 N is 0.99976: distances on the ground are 1.00024 times these.
    scale = 0.99976
    for point, record in zip(points, located(out)):
        matches = record["properties"]["locate"]
        metres = Point(to_metres(*point))
        distances = [line.distance(metres) / scale for line in lines]
        found = [m["shape"] for m in matches]
        assert [k for k, d in enumerate(distances) if d < within - 0.5] == sorted(k for k in found if distances[k] < within - 0.5)
        for match in matches:
            assert abs(match["distance_m"] - distances[match["shape"]]) < 0.05, (point, match)
            road = roads[match["shape"]]["properties"]
            assert match["properties"] == selected(road, ["name", "highway"])
            assert match["properties"]["highway"] == road["highway"]
            unnamed += "name" not in road
        assert [m["distance_m"] for m in matches] == sorted(m["distance_m"] for m in matches)
    assert unnamed > 20 and sum(len(r["properties"]["locate"]) for r in located(out)) > 100


def test_missing_null_and_escaped_properties_of_a_document(tmp_path):
    """FILE as a pretty-printed FeatureCollection: a joined value that spans lines comes out on
    the record's one line; a name escaped in FILE (`na\\u006de`) is the name; a shape without a
    named property, with null properties or with none gives the match no such member."""
    properties = [{"name": "A", "code": 1, "nested": {"x": [1, 2]}}, {"code": "B"}, None, "absent", {"name": "escaped", "other": True}]
    features = []
    for k, props in enumerate(properties):
        feature = {"type": "Feature", "geometry": {"type": "Point", "coordinates": [0.001 * k, 0]}}
        if props != "absent":
            feature["properties"] = props
        features.append(feature)
    text = json.dumps({"type": "FeatureCollection", "features": features}, indent=2)
    assert text.count('"name": "escaped"') == 1
    (tmp_path / "shapes.geojson").write_text(text.replace('"name": "escaped"', '"na\\u006de": "escaped"'))
    query = ndjson([{"type": "Point", "coordinates": [0.002, 0]}])
    expected = {
        "name,nested": [{"name": "A", "nested": {"x": [1, 2]}}, {}, {}, {}, {"name": "escaped"}],
        "*": [properties[0], properties[1], {}, {}, {"name": "escaped", "other": True}],
        "missing": [{}] * 5,
    }
    for join, wanted in expected.items():
        rc, out, err = run(["locate", "--shapes", tmp_path / "shapes.geojson", "--within", "1000", "--join", join], query)
        assert rc == 0, err
        assert out.count(b"\n") == 1
        matches = json.loads(out)["properties"]["locate"]
        assert [m["properties"] for m in sorted(matches, key=lambda m: m["shape"])] == wanted, join


@pytest.mark.parametrize("args,problem", [
    (["--point", "1,2", "--join", "name"], "--join go with --shapes"),
    (["--join", "name"], "give --point LAT,LNG"),
    (["--shapes", "SHAPES", "--join", ""], "option '--join' takes property names separated by commas"),
    (["--shapes", "SHAPES", "--join", "name,,code"], "option '--join' takes property names separated by commas"),
    (["--shapes", "SHAPES", "--join"], "'--join' needs a value"),
])
def test_join_usage_errors(tmp_path, args, problem):
    shapes = tmp_path / "shapes.ndjson"
    shapes.write_bytes(ndjson([{"type": "Point", "coordinates": [0, 0]}]))
    rc, out, err = run(["locate", *[str(shapes) if a == "SHAPES" else a for a in args]], ndjson([{"type": "Point", "coordinates": [0, 0]}]))
    assert (rc, out) == (64, b""), err
    assert problem in err and "See 'geo locate --help'" in err, err


def peak_kb(args, input):
    proc = subprocess.run(["/usr/bin/time", "-f", "%M", geo_bin(), *map(str, args)], input=input, capture_output=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return int(proc.stderr.decode().split()[-1])


@not_under_asan
def test_join_keeps_only_the_named_properties_once(tmp_path):
    """100,000 shapes with 500 bytes of properties each (50 MB): --join name keeps their names,
    not their properties; --join '*' keeps the properties once, not a copy per shape and match."""
    shapes = tmp_path / "shapes.ndjson"
    blob = "x" * 500
    shapes.write_text("".join(
        f'{{"type":"Feature","properties":{{"name":"p{k}","blob":"{blob}"}},"geometry":{{"type":"Point","coordinates":[{k % 360 - 180},{k // 360 % 170 - 85}]}}}}\n'
        for k in range(100_000)))
    query = ndjson([{"type": "Point", "coordinates": [0.2, 0.3]}])
    plain = peak_kb(["locate", "--shapes", shapes], query)
    named = peak_kb(["locate", "--shapes", shapes, "--join", "name"], query)
    every = peak_kb(["locate", "--shapes", shapes, "--join", "*"], query)
    properties_kb = 100_000 * 530 // 1024
    # The names are 2 MB; a growing array may briefly hold its old copy too.
    assert named - plain < properties_kb / 8, (plain, named, properties_kb)
    assert every - plain < 1.5 * properties_kb, (plain, every, properties_kb)
