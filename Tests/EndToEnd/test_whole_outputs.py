"""Outputs replaced whole or not at all (SPEC section 3, "When every record was bad, what exists
stays", and "tiles": outputs replaced whole, `--empty`'s extent, `--max-tiles`, progress).

A pyramid is built, rebuilt with --force, interrupted, refused and served as users do: what
a reader finds under OUT is always one whole run's output, never a mix, never a blank that
replaced a good picture, never a user's file removed.
"""

import hashlib
import os
import pty
import select
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

from PIL import Image

from conftest import geo_bin, ndjson, run
from test_tiles import line, pixel_in_tile, point, written

FRANCE = [line([[2, 46], [3, 47], [5, 45]], stroke="red")]
BOSTON = [line([[-71, 42], [-70, 43]], stroke="blue")]
BAD = b'{"type":"LineString","coordinates":[[2,200],[3,47]]}\n{"type": nope}\n'


def tiles(out, records, *args, expect=0):
    rc, _, err = run(["tiles", "-o", out, *args], records if isinstance(records, bytes) else ndjson(records))
    assert rc == expect, err
    return err


def digest(folder):
    """Every file under `folder`, by its path inside it, with a hash of its bytes."""
    return {str(path.relative_to(folder)): hashlib.sha1(path.read_bytes()).hexdigest()
            for path in sorted(Path(folder).rglob("*")) if path.is_file()}


def leftovers(folder):
    return [path for path in Path(folder).rglob("*") if ".geo-" in path.name]


def tile_of(lon, lat, z):
    x, y, _, _ = pixel_in_tile(lon, lat, z)
    return x, y


def many_lines(count=10000):
    return ndjson([line([[-180 + i * 0.036, -60 + (i % 97)], [-179 + i * 0.036, -59 + (i % 89)]], stroke="red") for i in range(count)])


def test_a_forced_rerun_is_exactly_a_fresh_run(tmp_path):
    """--force over a pyramid of other data (and with a page) leaves no tile or page of it."""
    tiles(tmp_path / "out", FRANCE, "--zoom", "0-6", "--html")
    tiles(tmp_path / "fresh", BOSTON, "--zoom", "0-6")
    os.chmod(tmp_path / "out", 0o750)
    tiles(tmp_path / "out", BOSTON, "--zoom", "0-6", "--force")
    assert digest(tmp_path / "out") == digest(tmp_path / "fresh")
    assert not (tmp_path / "out" / "index.html").exists()
    assert os.stat(tmp_path / "out").st_mode & 0o777 == 0o750  # the folder keeps its mode
    assert leftovers(tmp_path) == []


def test_a_folder_through_a_link_is_replaced_at_its_target(tmp_path):
    tiles(tmp_path / "real", FRANCE, "--zoom", "0-3")
    (tmp_path / "link").symlink_to("real")
    tiles(tmp_path / "link", BOSTON, "--zoom", "0-3", "--force")
    tiles(tmp_path / "fresh", BOSTON, "--zoom", "0-3")
    assert (tmp_path / "link").is_symlink() and digest(tmp_path / "real") == digest(tmp_path / "fresh")


def test_a_folder_holding_the_users_files_is_never_replaced(tmp_path):
    out = tmp_path / "out"
    tiles(out, FRANCE, "--zoom", "0-3")
    (out / "2" / "notes.txt").write_text("mine")
    before = digest(out)
    err = tiles(out, BOSTON, "--zoom", "0-3", "--force", expect=73)
    assert "notes.txt" in err and "did not write" in err and len(err.strip().splitlines()) == 1, err
    assert digest(out) == before and leftovers(tmp_path) == []


def test_an_empty_folder_is_used_as_if_new(tmp_path):
    (tmp_path / "out").mkdir()
    tiles(tmp_path / "out", FRANCE, "--zoom", "0-2")
    assert written(tmp_path / "out")


def test_a_run_that_writes_no_tile_makes_no_output(tmp_path):
    err = tiles(tmp_path / "out", FRANCE, "--zoom", "5-6", "--bbox", "100,10,110,20")
    assert "no tile was written" in err and not (tmp_path / "out").exists()
    tiles(tmp_path / "db.mbtiles", FRANCE, "--zoom", "5-6", "--bbox", "100,10,110,20")
    assert not (tmp_path / "db.mbtiles").exists() and leftovers(tmp_path) == []


def test_every_record_bad_leaves_the_existing_output_as_it_was(tmp_path):
    tiles(tmp_path / "out", FRANCE, "--zoom", "0-3")
    tiles(tmp_path / "db.mbtiles", FRANCE, "--zoom", "0-3")
    folder, database = digest(tmp_path / "out"), (tmp_path / "db.mbtiles").read_bytes()
    for out in ("out", "db.mbtiles"):
        err = tiles(tmp_path / out, BAD, "--zoom", "0-3", "--force", expect=65)
        assert f"every record was bad; '{tmp_path / out}' left as it was" in err, err
    assert digest(tmp_path / "out") == folder and (tmp_path / "db.mbtiles").read_bytes() == database
    err = tiles(tmp_path / "new", BAD, "--zoom", "0-3", expect=65)
    assert "not written" in err and not (tmp_path / "new").exists()


def test_every_record_bad_leaves_a_good_picture(tmp_path):
    picture = tmp_path / "good.png"
    rc, _, err = run(["render", "-o", picture], ndjson(FRANCE))
    assert rc == 0, err
    before = picture.read_bytes()
    rc, _, err = run(["render", "-o", picture], BAD)
    assert rc == 65 and f"every record was bad; '{picture}' left as it was" in err, err
    assert picture.read_bytes() == before
    rc, _, err = run(["render", "-o", tmp_path / "new.svg"], BAD)
    assert rc == 65 and not (tmp_path / "new.svg").exists()
    # One good record is enough for the picture to be written.
    rc, _, err = run(["render", "-o", picture], BAD + ndjson(BOSTON))
    assert rc == 65 and picture.read_bytes() != before


def test_an_interrupted_run_leaves_the_last_pyramid_whole(tmp_path):
    """SIGINT and SIGTERM while tiles are drawn: the run ends by the signal, what it built is
    removed, and the pyramid of the last run is there untouched (or no OUT at all)."""
    source = tmp_path / "many.ndjson"
    source.write_bytes(many_lines())
    tiles(tmp_path / "out", FRANCE, "--zoom", "0-4")
    before = digest(tmp_path / "out")
    for sig, out, delay in [(signal.SIGINT, "out", 2.0), (signal.SIGTERM, "out", 3.0), (signal.SIGINT, "new", 2.5)]:
        process = subprocess.Popen([geo_bin(), "tiles", "--force", "--zoom", "0-11", "-o", str(tmp_path / out), str(source)],
                                   stderr=subprocess.PIPE)
        time.sleep(delay)
        process.send_signal(sig)
        process.wait(timeout=60)
        assert process.returncode == -sig, process.stderr.read().decode()
        assert leftovers(tmp_path) == []
        assert digest(tmp_path / "out") == before
        assert not (tmp_path / "new").exists()


def test_empty_fills_the_extent_of_the_data_not_the_world(tmp_path):
    """At zoom 12 the world is 16.7 million tiles; a 1° line's extent is a few hundred."""
    out = tmp_path / "out"
    tiles(out, [line([[2, 46], [3, 47]])], "--zoom", "10-12", "--empty")
    found = written(out)
    ink = {key for key, path in found.items() if Image.open(path).convert("RGBA").getextrema()[3][1] > 0}
    for z in (10, 11, 12):
        xs = [x for (zoom, x, _) in ink if zoom == z]
        ys = [y for (zoom, _, y) in ink if zoom == z]
        rectangle = {(z, x, y) for x in range(min(xs), max(xs) + 1) for y in range(min(ys), max(ys) + 1)}
        assert {key for key in found if key[0] == z} == rectangle
    # --bbox (and --tile) give the extent instead.
    tiles(tmp_path / "box", [point(10, 10)], "--zoom", "1", "--empty", "--bbox", "-180,-85,180,85")
    assert set(written(tmp_path / "box")) == {(1, x, y) for x in range(2) for y in range(2)}


def test_a_run_above_max_tiles_is_refused_before_drawing(tmp_path):
    err = tiles(tmp_path / "out", [line([[2, 46], [3, 47]])], "--zoom", "0-20", "--empty", "--max-tiles", "1000", expect=64)
    assert "more than --max-tiles 1,000" in err and not (tmp_path / "out").exists() and leftovers(tmp_path) == []
    # The count is the line's box of tiles at each zoom (and at most a tile more each way, where
    # the stroke reaches over a tile edge).
    count = int(err.split("would write ")[1].split(" tiles")[0].replace(",", ""))
    def box(z, grow):
        west, north = tile_of(2, 47, z)
        east, south = tile_of(3, 46, z)
        return (east - west + 1 + 2 * grow) * (south - north + 1 + 2 * grow)
    assert sum(box(z, 0) for z in range(21)) <= count <= sum(box(z, 1) for z in range(21))
    tiles(tmp_path / "world", [line([[-170, -80], [170, 80]])], "--zoom", "0-14", "--max-tiles", "5", expect=64)


def test_progress_on_a_terminal_and_one_line_at_the_end(tmp_path):
    """stderr a terminal (stdout a pipe or not): tiles done of the total, a percentage and the
    time left while drawing; one summary line when the run ends."""
    source = tmp_path / "many.ndjson"
    source.write_bytes(many_lines(3000))
    master, slave = pty.openpty()
    out = tmp_path / "db.mbtiles"
    process = subprocess.Popen([geo_bin(), "tiles", "--zoom", "0-9", "--jobs", "1", "-o", str(out), str(source)],
                               stdin=subprocess.DEVNULL, stdout=slave, stderr=slave)
    os.close(slave)
    text = b""
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        try:
            chunk = os.read(master, 65536) if ready else b""
        except OSError:
            chunk = b""
        if not chunk:
            break
        text += chunk
    os.close(master)
    assert process.wait(timeout=60) == 0
    screen = text.decode()
    stored = sqlite3.connect(out).execute("select count(*) from tiles").fetchone()[0]
    assert " tiles/s  ETA " in screen and "% " in screen, screen[-500:]
    # Tiles drawn of the tiles to draw (those with entries; not all of them show ink).
    total = int(screen.split(" of ")[-1].split(" tiles")[0].replace(",", ""))
    assert stored <= total < 2 * stored
    last = [part for part in screen.replace("\x1b[K", "").replace("\r", "\n").split("\n") if part.strip()][-1]
    assert last.startswith(f"geo tiles: wrote {stored:,} tiles (") and f"at zooms 0-9 to {out} in " in last, last
    # Not a terminal: nothing at all.
    rc, _, err = run(["tiles", "--zoom", "0-3", "-o", tmp_path / "quiet"], ndjson(FRANCE))
    assert rc == 0 and err == ""
