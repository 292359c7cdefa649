"""`geo bbox` end to end: every position inside its box; the smallest box across ±180 (Fiji,
Russia, an antimeridian-cut MultiPolygon); a polygon round a pole reaching it (a circle from
`geo circle-to-polygon`); shapely's bounds where no ±180 is involved; with --geodesic, boxes
that hold the edges densified by `geo interpolate --densify`; --all."""

import json
import random

from shapely.geometry import shape

from conftest import REPO, ndjson, run


def boxes(args, records):
    rc, out, err = run(["bbox", *args], ndjson(records))
    assert rc == 0, err
    return [json.loads(l).get("bbox") for l in out.splitlines()]


def inside(box, lng, lat, slack=1e-12):
    west, south, east, north = box
    if not south - slack <= lat <= north + slack:
        return False
    if west <= east:
        return west - slack <= lng <= east + slack
    return lng >= west - slack or lng <= east + slack


def width(box):
    return (box[2] - box[0]) % 360


def positions(geometry):
    def walk(c):
        if isinstance(c[0], (int, float)):
            yield c
        else:
            for x in c:
                yield from walk(x)
    if geometry["type"] == "GeometryCollection":
        for g in geometry["geometries"]:
            yield from positions(g)
    else:
        yield from walk(geometry["coordinates"])


FIJI = {"type": "LineString", "coordinates": [[177.3, -18.3], [179.9, -17.0], [-179.8, -16.0]]}
RUSSIA = {"type": "MultiPolygon", "coordinates": [
    [[[27.0, 41.0], [180.0, 41.0], [180.0, 82.0], [27.0, 82.0], [27.0, 41.0]]],
    [[[-180.0, 64.0], [-169.0, 64.0], [-169.0, 71.0], [-180.0, 71.0], [-180.0, 64.0]]],
    [[[19.6, 54.3], [22.9, 54.3], [22.9, 55.3], [19.6, 55.3], [19.6, 54.3]]],
]}


def test_fiji_and_russia_cross_the_antimeridian():
    fiji, russia = boxes([], [FIJI, RUSSIA])
    assert fiji == [177.3, -18.3, -179.8, -16.0]
    assert russia == [19.6, 41.0, -169.0, 82.0]


def test_every_position_is_inside_and_the_box_is_smallest():
    rng = random.Random(11)
    records = []
    for _ in range(300):
        centre = rng.uniform(-180, 180)
        spread = rng.choice([1, 30, 150, 300])
        records.append({"type": "MultiPoint", "coordinates": [
            [(centre + rng.uniform(0, spread) + 180) % 360 - 180, rng.uniform(-90, 90)] for _ in range(rng.randint(1, 12))]})
    for record, box in zip(records, boxes([], records)):
        points = record["coordinates"]
        assert all(inside(box, lng, lat) for lng, lat in points)
        assert -180 <= box[0] <= 180 and -180 <= box[2] <= 180
        # The smallest arc: 360 minus the widest gap between neighbouring longitudes.
        longitudes = sorted(lng % 360 for lng, _ in points)
        gaps = [b - a for a, b in zip(longitudes, longitudes[1:])] + [longitudes[0] + 360 - longitudes[-1]]
        assert abs(width(box) - (360 - max(gaps))) < 1e-9
        assert box[1] == min(lat for _, lat in points) and box[3] == max(lat for _, lat in points)


def test_agrees_with_shapely_away_from_the_antimeridian():
    rng = random.Random(12)
    records = []
    for _ in range(200):
        x, y = rng.uniform(-150, 100), rng.uniform(-60, 60)
        ring = [[x + rng.uniform(0, 20), y + rng.uniform(0, 20)] for _ in range(6)]
        records.append({"type": "Polygon", "coordinates": [ring + [ring[0]]]})
        records.append({"type": "LineString", "coordinates": ring})
    for record, box in zip(records, boxes([], records)):
        assert tuple(box) == shape(record).bounds


def test_a_circle_round_the_pole_reaches_it():
    rc, out, err = run(["circle-to-polygon", "--center", "85,30", "--radius", "1000000"])
    assert rc == 0, err
    circle = json.loads(out)
    # Its ring as plain vertices too, without the closing over the pole: the pole is inside.
    ring = [p for p in circle["geometry"]["coordinates"][0] if abs(p[1]) != 90]
    plain = {"type": "Polygon", "coordinates": [ring + [ring[0]]]}
    south_cap = {"type": "Polygon", "coordinates": [[[lng, -lat] for lng, lat in ring + [ring[0]]]]}
    for box in boxes([], [circle, plain]) + boxes(["--geodesic"], [plain]):
        assert box[0] == -180 and box[2] == 180 and box[3] == 90
    [south] = boxes([], [south_cap])
    assert south[0] == -180 and south[2] == 180 and south[1] == -90
    # A line along the same vertices holds no pole: its box is its vertices'.
    [line] = boxes([], [{"type": "LineString", "coordinates": ring}])
    assert line[3] < 90


def test_an_antimeridian_cut_multipolygon_is_one_small_box():
    cut = {"type": "MultiPolygon", "coordinates": [
        [[[170, -10], [180, -10], [180, 10], [170, 10], [170, -10]]],
        [[[-180, -10], [-170, -10], [-170, 10], [-180, 10], [-180, -10]]]]}
    assert boxes([], [cut]) == [[170, -10, -170, 10]]


def densified(args, record, step="20000"):
    rc, out, err = run(["interpolate", "--densify", step, *args], ndjson([record]))
    assert rc == 0, err
    return list(positions(json.loads(out)["geometry"]))


def test_geodesic_boxes_hold_the_edges():
    at_60 = {"type": "LineString", "coordinates": [[-30, 60], [30, 60]]}
    [vertices] = boxes([], [at_60])
    [edges] = boxes(["--geodesic"], [at_60])
    assert vertices == [-30, 60, 30, 60] and edges[3] > 62
    [rhumb] = boxes(["--geodesic", "--kind", "rhumb"], [at_60])
    assert rhumb == vertices
    rng = random.Random(13)
    for _ in range(40):
        path = [[rng.uniform(-180, 180), rng.uniform(-80, 80)] for _ in range(3)]
        record = {"type": "LineString", "coordinates": path}
        for kind in (["--kind", "geodesic"], ["--kind", "rhumb"]):
            [box] = boxes(["--geodesic", *kind], [record])
            points = densified(kind, record)
            assert all(inside(box, lng, lat, slack=1e-9) for lng, lat in points), (path, kind, box)
            # and no bigger than needed: the densified points reach the box's latitudes
            assert max(lat for _, lat in points) >= box[3] - 0.01 and min(lat for _, lat in points) <= box[1] + 0.01


def test_records_without_positions_get_no_bbox_and_old_ones_are_replaced():
    records = [{"type": "Feature", "properties": {}, "geometry": None},
               {"type": "Feature", "bbox": [0, 0, 0, 0], "properties": {"a": 1}, "geometry": {"type": "Point", "coordinates": [5, 6]}},
               {"type": "LineString", "coordinates": []}]
    rc, out, err = run(["bbox"], ndjson(records))
    assert rc == 0, err
    lines = [json.loads(l) for l in out.splitlines()]
    assert "bbox" not in lines[0] and "bbox" not in lines[2]
    assert lines[1]["bbox"] == [5, 6, 5, 6] and lines[1]["properties"] == {"a": 1}
    assert out.splitlines()[1].count(b'"bbox"') == 1


def test_all_is_one_feature_holding_every_record(tmp_path):
    rc, out, err = run(["bbox", "--all"], ndjson([FIJI, {"type": "Point", "coordinates": [170, -20]}, RUSSIA]))
    assert rc == 0, err
    [feature] = [json.loads(l) for l in out.splitlines()]
    assert feature["bbox"] == [19.6, -20, -169.0, 82.0]
    assert feature["geometry"]["type"] == "MultiPolygon"  # cut at ±180, as RFC 7946 asks
    parts = feature["geometry"]["coordinates"]
    assert [p[0][0][0] for p in parts] == [19.6, -180] and [p[0][1][0] for p in parts] == [180, -169.0]
    rc, out, err = run(["bbox", "--all"], ndjson([{"type": "Point", "coordinates": [1, 2]}, {"type": "Point", "coordinates": [3, 4]}]))
    assert json.loads(out)["geometry"] == {"type": "Polygon", "coordinates": [[[1, 2], [3, 2], [3, 4], [1, 4], [1, 2]]]}


def test_all_reports_bad_records_and_writes_the_box_of_the_good_ones(tmp_path):
    path = tmp_path / "in.ndjson"
    path.write_bytes(ndjson([{"type": "Point", "coordinates": [1, 2]}, {"type": "Point", "coordinates": [3, 200]},
                             {"type": "Point", "coordinates": [5, 6]}]))
    rc, out, err = run(["bbox", "--all", "-o", tmp_path / "out.ndjson", path])
    assert rc == 65
    assert err.strip().startswith(f"geo bbox: {path}:2: ") and len(err.strip().splitlines()) == 1
    assert json.loads((tmp_path / "out.ndjson").read_text())["bbox"] == [1, 2, 5, 6]
    rc, out, err = run(["bbox", "--all", "-o", path, path])
    assert rc == 64


def test_examples_boxes():
    rc, out, err = run(["bbox", REPO / "examples/routes.ndjson"])
    assert rc == 0, err
    by_id = {r["id"]: r["bbox"] for r in map(json.loads, out.splitlines())}
    assert by_id["across"] == [179.7, -17.1, -179.6, -16.77]
