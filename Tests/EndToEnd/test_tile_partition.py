"""geo tiles beyond one machine (issue 43): --partition keys each record by the subtrees it
draws into, a subtree drawn from its key's records alone is the whole run's tile for tile, and
--merge joins parts of any kind into one output, refusing parts that disagree.

The Spark job and the GNU parallel recipe built on these are tested in test_distributed.py.
"""

import gzip
import json
import random
import sqlite3
import subprocess
from collections import defaultdict

import pytest
from pmtiles.reader import MmapSource, Reader, all_tiles
from pmtiles.tile import Compression, Entry, TileType, serialize_directory, serialize_header, zxy_to_tileid
from pmtiles.writer import Writer

from conftest import geo_bin, ndjson, not_under_asan, run
from test_tile_archives import check_archive
from test_tiles import SCENE, feature, line, point, written

# The corner of subtrees 3/4/1, 3/5/1, 3/4/2 and 3/5/2: longitude 45, the latitude of row 2's top.
CORNER = (45.0, 66.51326044311186)
# At zoom 3 a pixel is 360 / 2048 degrees of longitude.
PIXEL_3 = 360 / 2048

# Records whose ink crosses the edges of zoom 3's subtrees in every way the cover must follow.
CROSSING = SCENE + [
    line([[-50, 10], [50, 10]], stroke="navy", **{"stroke-width": 6}),
    # Across ±180, a line and a filled polygon (Fiji).
    line([[170, -40], [-170, -35]], stroke="red", **{"stroke-width": 5}),
    feature({"type": "Polygon", "coordinates": [[[177, -19], [-179, -19], [-179, -15], [177, -15], [177, -19]]]},
            fill="teal", stroke="black"),
    # Markers on a subtree corner, on the world's centre, and just outside an edge, reaching in.
    point(*CORNER, **{"marker-color": "blue", "marker-size": "large"}),
    point(0, 0, **{"marker-color": "green", "marker-size": "large"}),
    point(45 + 3 * PIXEL_3, 30, **{"marker-color": "red"}),
    # A wide stroke 10 pixels west of the meridian between columns 4 and 5: its ink reaches over.
    line([[45 - 10 * PIXEL_3, 0], [45 - 10 * PIXEL_3, 40]], stroke="orange", **{"stroke-width": 40}),
    # z-index across records: drawn first, on top; and two of one z-index in input order.
    line([[40, 20], [50, 25]], stroke="red", **{"stroke-width": 12, "z-index": 5}),
    line([[40, 25], [50, 20]], stroke="blue", **{"stroke-width": 12, "z-index": 1}),
    line([[40, 22], [50, 22]], stroke="rgba(0,128,0,0.5)", **{"stroke-width": 10}),
    line([[40, 23], [50, 21]], stroke="rgba(255,0,255,0.5)", **{"stroke-width": 10}),
    # A geodesic over the pole region, and a large polygon with a hole over many subtrees.
    line([[-120, 50], [120, 50]], stroke="purple", geodesic=True),
    feature({"type": "Polygon", "coordinates": [[[60, -50], [150, -50], [150, 10], [60, 10], [60, -50]],
                                                [[80, -30], [120, -30], [120, -5], [80, -5], [80, -30]]]},
            fill="rgba(200,100,0,0.4)", stroke="brown", **{"stroke-width": 3}),
    # Per-feature zooms: drawn above the split only (not keyed), and below it only.
    line([[-100, -20], [-80, -25]], stroke="gray", maxzoom=2),
    line([[-100, -30], [-80, -35]], stroke="black", minzoom=5, **{"stroke-width": 3}),
]


def keyed(stdout):
    """{key: [record lines]} of --partition's output, each key's records in output order."""
    groups = defaultdict(list)
    for line_ in stdout.decode().splitlines():
        key, tab, record = line_.partition("\t")
        assert tab and key.count("/") == 2, line_
        groups[key].append(record)
    return groups


def tiles_of(path):
    """{(z, x, y): bytes} of a directory, an MBTiles file or a PMTiles archive."""
    path = str(path)
    if path.endswith(".mbtiles"):
        with sqlite3.connect(path) as db:
            return {(z, x, (1 << z) - 1 - row): bytes(data)
                    for z, x, row, data in db.execute("SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles")}
    if path.endswith(".pmtiles"):
        with open(path, "rb") as file:
            return dict(all_tiles(MmapSource(file)))
    return {zxy: p.read_bytes() for zxy, p in written(path).items()}


def by_subtrees(tmp_path, records, split, zooms, options=()):
    """The whole run's tiles, and the tiles of every subtree drawn from its key's records alone
    (each subtree in a folder of its own); checks that each key's records are in input order."""
    source = tmp_path / "records.ndjson"
    source.write_bytes(ndjson(records))
    low, high = zooms
    whole = tmp_path / "whole"
    rc, _, err = run(["tiles", "--zoom", f"{low}-{high}", "-o", whole, *options, source])
    assert rc == 0, err
    rc, out, err = run(["tiles", "--partition", str(split), *options, source])
    assert rc == 0, err
    groups = keyed(out)
    lines = source.read_text().splitlines()
    for key, group in groups.items():
        indices = [lines.index(record) for record in group]
        assert indices == sorted(indices), f"{key}: records out of input order"
    parts = {}
    (tmp_path / "parts").mkdir()
    for key, group in groups.items():
        part = tmp_path / "parts" / key.replace("/", "-")
        rc, _, err = run(["tiles", "--tile", key, "--zoom", f"{split}-{high}", "-o", part, *options], "\n".join(group) + "\n")
        assert rc == 0, err
        for zxy, data in tiles_of(part).items():
            assert zxy not in parts, f"{zxy} drawn by two subtrees"
            parts[zxy] = data
    return tiles_of(whole), parts, groups


@pytest.mark.parametrize("options", [[], ["--scale", "2", "--geodesic"]], ids=["plain", "scale-2-geodesic"])
def test_each_subtree_from_its_own_records_is_the_whole_run_s(tmp_path, options):
    whole, parts, groups = by_subtrees(tmp_path, CROSSING, 3, (0, 7), options)
    below = {zxy: data for zxy, data in whole.items() if zxy[0] >= 3}
    assert len(below) > 300
    missing = sorted(set(below) - set(parts))
    assert not missing, f"tiles of the whole run no subtree drew: {missing[:5]}"
    different = sorted(zxy for zxy in below if parts[zxy] != below[zxy])
    assert not different, f"tiles that differ from the whole run's: {different[:5]}"
    assert set(parts) == set(below)
    # The marker on the corner is keyed to the four subtrees that meet there.
    marker = ndjson([CROSSING[len(SCENE) + 3]]).decode().strip()
    assert {key for key, group in groups.items() if marker in group} >= {"3/4/1", "3/5/1", "3/4/2", "3/5/2"}
    # A record drawn only above the split is never sent; one drawn only below it is.
    assert not any('"maxzoom":2' in r for group in groups.values() for r in group)
    assert any('"minzoom":5' in r for group in groups.values() for r in group)


def test_many_random_records_cross_subtrees_exactly(tmp_path):
    """Random tracks, wide strokes and markers over a small region split at zoom 5: many
    records on subtree edges."""
    rng = random.Random(43)
    records = []
    for index in range(400):
        lon, lat = rng.uniform(0, 22.5), rng.uniform(40, 55)
        if index % 5 == 0:
            records.append(point(lon, lat, **{"marker-color": "red", "marker-size": rng.choice(["small", "medium", "large"])}))
            continue
        path = [[lon, lat]]
        for _ in range(rng.randint(1, 12)):
            lon, lat = lon + rng.uniform(-1, 1), lat + rng.uniform(-0.7, 0.7)
            path.append([round(lon, 5), round(lat, 5)])
        records.append(line(path, stroke=rng.choice(["red", "rgba(0,0,255,0.6)", "#2ca02c"]),
                            **{"stroke-width": rng.choice([1, 2, 8, 25]), "z-index": rng.choice([0, 0, 1, -1])}))
    whole, parts, groups = by_subtrees(tmp_path, records, 5, (5, 9))
    assert parts == whole and len(whole) > 500
    assert sum(map(len, groups.values())) > len(records) * 1.2  # many records met two subtrees


def test_partition_is_a_streaming_filter(tmp_path):
    source = tmp_path / "scene.ndjson"
    source.write_bytes(ndjson(CROSSING))
    rc, out, err = run(["tiles", "--partition", "2", "-j1", source])
    assert rc == 0 and err == ""
    assert run(["tiles", "--partition", "2", "-j", "3", source])[1] == out
    rc, _, err = run(["tiles", "--partition", "2", "-o", tmp_path / "keyed.tsv", source])
    assert rc == 0 and (tmp_path / "keyed.tsv").read_bytes() == out
    # Keys in order within a record, each once; every line a key, a tab and the record itself.
    lines = source.read_text().splitlines()
    keys_of = defaultdict(list)
    for entry in out.decode().splitlines():
        key, _, record = entry.partition("\t")
        keys_of[record].append(tuple(map(int, key.split("/"))))
    assert all(keys == sorted(set(keys)) and all(k[0] == 2 for k in keys) for keys in keys_of.values())
    assert set(keys_of) <= set(lines)
    # --bbox and --tile keep the keys within them; --zoom leaves out what it does not draw.
    rc, boxed, _ = run(["tiles", "--partition", "2", "--bbox", "-10,35,30,60", source])
    assert rc == 0 and boxed and set(k for k in keyed(boxed)) == {"2/1/1", "2/2/1"}
    rc, sub, _ = run(["tiles", "--partition", "3", "--tile", "1/1/0", source])
    assert rc == 0 and all(k.startswith("3/") and 4 <= int(k.split("/")[1]) < 8 and int(k.split("/")[2]) < 4 for k in keyed(sub))
    rc, shallow, _ = run(["tiles", "--partition", "3", "--zoom", "0-4", source])
    assert rc == 0 and '"minzoom":5' not in shallow.decode() and '"minzoom":5' in out.decode()


def test_partition_puts_a_record_on_one_line_and_reports_bad_ones(tmp_path):
    document = tmp_path / "parks.geojson"
    document.write_text(json.dumps({"type": "FeatureCollection", "features": SCENE[:2]}, indent=2) + "\n")
    rc, out, err = run(["tiles", "--partition", "1", document])
    assert rc == 0, err
    records = [json.loads(entry.split("\t", 1)[1]) for entry in out.decode().splitlines()]
    assert {json.dumps(r, sort_keys=True) for r in records} == {json.dumps(r, sort_keys=True) for r in SCENE[:2]}
    crlf = tmp_path / "crlf.ndjson"
    crlf.write_bytes(ndjson(SCENE[:1]).replace(b"\n", b"\r\n"))
    assert b"\r" not in run(["tiles", "--partition", "1", crlf])[1]
    bad = tmp_path / "bad.ndjson"
    bad.write_bytes(ndjson([SCENE[0]]) + b'{"type":"Point","coordinates":[10,95]}\n' + ndjson([SCENE[3]]))
    rc, out, err = run(["tiles", "--partition", "1", "--rejects", tmp_path / "rejects.ndjson", bad])
    assert rc == 65 and err.startswith(f"geo tiles: {bad}:2: ") and len(err.splitlines()) == 1
    assert out and b"95" not in out
    assert json.loads((tmp_path / "rejects.ndjson").read_text())["line"] == 2


@pytest.mark.parametrize("args,message", [
    (["--partition", "3", "--empty"], "--partition writes records, not tiles: --empty does not apply"),
    (["--partition", "3", "--merge"], "--partition and --merge cannot be combined"),
    (["--partition", "3", "--tile", "4/1/1"], "--tile 4/1/1 is below --partition's zoom, 3"),
    (["--partition", "3", "--zoom", "4-6"], "--partition 3 is outside --zoom 4-6"),
    (["--partition", "25"], "--partition"),
    (["--merge", "-o", "x.pmtiles"], "--merge needs the parts to join"),
    (["--merge", "-o", "x.pmtiles", "--zoom", "3", "a"], "--merge copies tiles and draws none: --zoom does not apply"),
    (["--merge", "-o", "x.pmtiles", "-"], "'-' (standard input) is not a directory"),
    (["--merge", "a"], "-o OUT is required"),
])
def test_usage_errors(tmp_path, args, message):
    rc, out, err = run(["tiles", *args], cwd=tmp_path)
    assert rc == 64 and out == b"" and message in err, err
    assert list(tmp_path.iterdir()) == []


# --- --merge -----------------------------------------------------------------------------------

@pytest.fixture
def parts(tmp_path):
    """The scene drawn whole (zooms 0-5), and as parts of every kind: zooms 0-1 in a directory,
    the subtrees of zoom 2 in MBTiles and PMTiles files by turns."""
    source = tmp_path / "scene.ndjson"
    source.write_bytes(ndjson(CROSSING))
    assert run(["tiles", "--zoom", "0-5", "-o", tmp_path / "whole", source])[0] == 0
    made = [tmp_path / "upper"]
    assert run(["tiles", "--zoom", "0-1", "-o", made[0], source])[0] == 0
    groups = keyed(run(["tiles", "--partition", "2", source])[1])
    for index, (key, group) in enumerate(sorted(groups.items())):
        part = tmp_path / f"{key.replace('/', '-')}{['.mbtiles', '.pmtiles'][index % 2]}"
        assert run(["tiles", "--tile", key, "--zoom", "2-5", "-o", part], "\n".join(group) + "\n")[0] == 0
        made.append(part)
    return tiles_of(tmp_path / "whole"), made


@pytest.mark.parametrize("out", ["merged", "merged.mbtiles", "merged.pmtiles"])
def test_merge_of_parts_of_every_kind_is_the_whole_run(tmp_path, parts, out):
    whole, made = parts
    rc, stdout, err = run(["tiles", "--merge", "-o", tmp_path / out, *made])
    assert (rc, stdout, err) == (0, b"", "")
    assert tiles_of(tmp_path / out) == whole
    if out.endswith(".pmtiles"):
        header, metadata, _, _ = check_archive(tmp_path / out, written(tmp_path / "whole"), (0, 5))
        assert metadata["name"] == "merged"
    if out.endswith(".mbtiles"):
        with sqlite3.connect(tmp_path / out) as db:
            metadata = dict(db.execute("SELECT name, value FROM metadata"))
            distinct = db.execute("SELECT count(*) FROM images").fetchone()[0]
        assert (metadata["minzoom"], metadata["maxzoom"], metadata["format"]) == ("0", "5", "png")
        assert distinct == len(set(whole.values())) < len(whole)
        # The parts' bounds together: the upper run's band (Fiji's side included) and the subtrees'.
        west, south, east, north = map(float, metadata["bounds"].split(","))
        assert -85.06 < south < -60 and 66 < north < 85.06


def test_merge_accepts_identical_overlaps_and_refuses_different_ones(tmp_path, parts):
    whole, made = parts
    # The whole pyramid overlaps every part, with the same tiles: fine.
    rc, _, err = run(["tiles", "--merge", "-o", tmp_path / "again.pmtiles", tmp_path / "whole", *made])
    assert rc == 0, err
    assert tiles_of(tmp_path / "again.pmtiles") == whole
    # A part drawn in another colour disagrees: nothing is written, and the message names both.
    other = tmp_path / "other.mbtiles"
    assert run(["tiles", "--zoom", "0-1", "-o", other, "--background", "white"], ndjson(CROSSING))[0] == 0
    target = tmp_path / "refused.pmtiles"
    rc, _, err = run(["tiles", "--merge", "-o", target, made[0], other])
    assert rc == 65 and not target.exists()
    assert err == f"geo tiles: '{made[0]}' and '{other}' both hold tile 0/0/0, with different bytes: parts of one pyramid " \
                  "may overlap only where they agree; nothing written\n"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_merge_replaces_outputs_as_every_run_does(tmp_path, parts):
    whole, made = parts
    target = tmp_path / "out.mbtiles"
    target.write_bytes(b"precious")
    rc, _, err = run(["tiles", "--merge", "-o", target, *made])
    assert rc == 73 and "give --force" in err and target.read_bytes() == b"precious"
    target.unlink()
    assert run(["tiles", "--merge", "-o", target, made[0]])[0] == 0
    rc, _, err = run(["tiles", "--merge", "--force", "-o", target, *made])
    assert rc == 0 and tiles_of(target) == whole
    # OUT may not be one of the parts, by any name.
    rc, _, err = run(["tiles", "--merge", "--force", "-o", target, tmp_path / "." / "out.mbtiles"])
    assert rc == 64 and "is a part and -o OUT both" in err and tiles_of(target) == whole
    # A directory OUT holding a file of the user's is never replaced.
    folder = tmp_path / "folder"
    (folder / "notes").mkdir(parents=True)
    rc, _, err = run(["tiles", "--merge", "--force", "-o", folder, *made])
    assert rc == 73 and (folder / "notes").is_dir()


def test_merge_refuses_what_is_not_a_pyramid(tmp_path, parts):
    whole, made = parts
    text = tmp_path / "notes.txt"
    text.write_text("hello\n")
    rc, _, err = run(["tiles", "--merge", "-o", tmp_path / "a.pmtiles", made[0], text])
    assert (rc, err) == (65, f"geo tiles: cannot merge '{text}': it is not a tile directory, an MBTiles file or a PMTiles archive\n")
    rc, _, err = run(["tiles", "--merge", "-o", tmp_path / "a.pmtiles", tmp_path / "missing"])
    assert rc == 66 and f"cannot open '{tmp_path / 'missing'}'" in err
    broken = tmp_path / "broken.pmtiles"
    broken.write_bytes(made[2].read_bytes()[:200] if made[2].suffix == ".pmtiles" else made[1].read_bytes()[:200])
    rc, _, err = run(["tiles", "--merge", "-o", tmp_path / "a.pmtiles", broken])
    assert rc == 65 and "runs past the end of the file" in err and len(err.splitlines()) == 1
    jpeg = tmp_path / "jpeg.mbtiles"
    with sqlite3.connect(jpeg) as db:
        db.execute("CREATE TABLE metadata (name TEXT, value TEXT)")
        db.execute("INSERT INTO metadata VALUES ('format', 'jpg')")
        db.execute("CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB)")
    rc, _, err = run(["tiles", "--merge", "-o", tmp_path / "a.pmtiles", jpeg])
    assert rc == 65 and "its tiles are jpg (metadata format), not PNG" in err
    stray = tmp_path / "stray"
    (stray / "3" / "1").mkdir(parents=True)
    (stray / "3" / "1" / "2.jpg").write_bytes(b"x")
    rc, _, err = run(["tiles", "--merge", "-o", tmp_path / "a.pmtiles", stray])
    assert rc == 65 and f"'{stray}/3/1/2.jpg', which is not a tile" in err
    assert not (tmp_path / "a.pmtiles").exists()


def fake_png(n, width=256):
    """Bytes that start as a PNG of that width does (all the merge reads of a tile), then n."""
    return b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\x0dIHDR" + width.to_bytes(4, "big") * 2 + n.to_bytes(4, "big")


def test_merge_reads_archives_other_writers_make(tmp_path):
    """The reference Python writer's archive, with leaf directories (20,000 distinct tiles), and
    an archive whose directories are not compressed, read tile for tile."""
    rng = random.Random(8)
    tiles = {(z, x, y): fake_png(i) for i, (z, x, y) in enumerate(
        sorted({(z, rng.randrange(1 << z), rng.randrange(1 << z)) for z in (7, 8, 9, 10) for _ in range(6000)}))}
    assert len(tiles) > 20000
    reference = tmp_path / "reference.pmtiles"
    with open(reference, "wb") as file:
        writer = Writer(file)
        for zxy in sorted(tiles, key=lambda t: zxy_to_tileid(*t)):
            writer.write_tile(zxy_to_tileid(*zxy), tiles[zxy])
        writer.finalize({"tile_type": TileType.PNG, "tile_compression": Compression.NONE, "min_zoom": 0, "max_zoom": 10,
                         "min_lon_e7": -1800000000, "min_lat_e7": -850000000, "max_lon_e7": 1800000000, "max_lat_e7": 850000000,
                         "center_zoom": 0, "center_lon_e7": 0, "center_lat_e7": 0}, {})
    with open(reference, "rb") as file:
        assert Reader(MmapSource(file)).header()["leaf_directory_length"] > 0
    plain = tmp_path / "plain.pmtiles"
    few = {zxy: data for zxy, data in tiles.items() if zxy[0] <= 7}
    entries = [Entry(zxy_to_tileid(*zxy), 0, len(few[zxy]), 1) for zxy in sorted(few, key=lambda t: zxy_to_tileid(*t))]
    offset = 0
    for entry in entries:
        entry.offset, offset = offset, offset + entry.length
    root = gzip.decompress(serialize_directory(entries))
    data = b"".join(few[zxy] for zxy in sorted(few, key=lambda t: zxy_to_tileid(*t)))
    header = {"root_offset": 127, "root_length": len(root), "metadata_offset": 127 + len(root), "metadata_length": 2,
              "leaf_directory_offset": 129 + len(root), "leaf_directory_length": 0, "tile_data_offset": 129 + len(root),
              "tile_data_length": len(data), "addressed_tiles_count": len(few), "tile_entries_count": len(few),
              "tile_contents_count": len(few), "clustered": True, "internal_compression": Compression.NONE,
              "tile_compression": Compression.NONE, "tile_type": TileType.PNG, "min_zoom": 7, "max_zoom": 7,
              "min_lon_e7": 0, "min_lat_e7": 0, "max_lon_e7": 100000000, "max_lat_e7": 100000000,
              "center_zoom": 0, "center_lon_e7": 0, "center_lat_e7": 0}
    plain.write_bytes(serialize_header(header) + root + b"{}" + data)
    rc, _, err = run(["tiles", "--merge", "-o", tmp_path / "out.mbtiles", reference, plain])
    assert rc == 0, err
    assert tiles_of(tmp_path / "out.mbtiles") == tiles


@not_under_asan
def test_partition_and_merge_keep_memory_flat(tmp_path):
    """--partition at flat memory on a few hundred thousand records, and --merge of a part with
    tens of thousands of tiles (GNU time's peak RSS)."""
    rng = random.Random(5)
    walk = []
    for _ in range(60000):
        lon, lat = rng.uniform(-10, 30), rng.uniform(36, 60)
        walk.append(json.dumps(line([[round(lon, 5), round(lat, 5)], [round(lon + 0.05, 5), round(lat + 0.03, 5)]])))
    source = tmp_path / "many.ndjson"
    source.write_text("\n".join(walk) + "\n")
    result = subprocess.run(["/usr/bin/time", "-f", "%M", geo_bin(), "tiles", "--partition", "8", "-o", tmp_path / "keyed", source],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert int(result.stderr.split()[-1]) < 32 * 1024
