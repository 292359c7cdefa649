"""Signals and partial failure: an output file never ends in half a record."""
import json
import random
import signal
import subprocess
import time

import pytest

from conftest import GEO_BIN

GEO = str(GEO_BIN)


def big_points(tmp_path, count=30_000):
    path = tmp_path / "points.ndjson"
    rng = random.Random(7)
    with open(path, "w") as f:
        for i in range(count):
            f.write('{"type":"Feature","properties":{"i":%d},"geometry":{"type":"Point","coordinates":[%.5f,%.5f]}}\n'
                    % (i, rng.uniform(-180, 180), rng.uniform(-80, 80)))
    return path


def whole_records(path):
    # A signal before geo created the file leaves no file: nothing half-written either.
    data = path.read_bytes() if path.exists() else b""
    assert data == b"" or data.endswith(b"\n"), "the file ends in half a record"
    lines = data.splitlines()
    for line in lines:
        json.loads(line)
    return lines


def test_disk_full_cuts_back_to_the_last_whole_record_and_exits_74(tmp_path):
    # A file-size limit makes write(2) fail with EFBIG part way through, as a full disk does.
    points = big_points(tmp_path, 3000)
    out = tmp_path / "out.ndjson"
    result = subprocess.run(["bash", "-c", f"trap '' XFSZ; ulimit -f 200; exec '{GEO}' circle-to-polygon --radius 500 -o '{out}' '{points}'"],
                            capture_output=True, text=True)
    assert result.returncode == 74
    assert result.stderr.startswith("geo circle-to-polygon: cannot write ") and "File too large" in result.stderr
    lines = whole_records(out)
    assert 0 < len(lines) < 3000
    assert [json.loads(l)["properties"]["i"] for l in lines] == list(range(len(lines)))


# With -j1 the thread that takes the signal is the one writing; with -j2 and -j4 the workers
# write in turn while that thread waits, and the signal must still wait for a write under way.
@pytest.mark.slow
@pytest.mark.parametrize("jobs", [1, 2, 4])
@pytest.mark.parametrize("signal_number", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_never_leaves_half_a_record(tmp_path, signal_number, jobs):
    points = big_points(tmp_path)
    rng = random.Random(signal_number * 10 + jobs)
    for attempt in range(6):
        out = tmp_path / f"out{attempt}.ndjson"
        process = subprocess.Popen([GEO, "circle-to-polygon", "--radius", "1000", f"-j{jobs}", "-o", str(out), str(points)],
                                   stderr=subprocess.PIPE)
        time.sleep(rng.uniform(0.02, 0.3))
        process.send_signal(signal_number)
        process.wait(timeout=60)
        if process.returncode == 0:
            continue  # finished before the signal: nothing to check
        assert process.returncode == -signal_number
        lines = whole_records(out)
        assert [json.loads(l)["properties"]["i"] for l in lines] == list(range(len(lines)))
