"""The hostile-input corpus (Tests/Corpus): every case, between good records, through every
command. Each must give its documented outcome (a record out, or one line-numbered error), never
crash, keep the other records whole and in order, and leave exactly the bad lines in --rejects.
"""
import base64
import json
import os
import subprocess

import pytest

from conftest import GEO_BIN, REPO, listed, run, sample_id

HOSTILE = REPO / "Tests" / "Corpus"
MANIFEST = json.loads((HOSTILE / "manifest.json").read_text())
COMMANDS = MANIFEST["commands"]
CASES = MANIFEST["cases"]

GOOD_PATH = b'{"type":"Feature","id":"good","properties":{"k":1},"geometry":{"type":"LineString","coordinates":[[10,20],[10.5,20.5]]}}'
GOOD_POINT = b'{"type":"Feature","id":"good","properties":{"k":1},"geometry":{"type":"Point","coordinates":[10,20]}}'


def good(command):
    return GOOD_POINT if command == "circle" else GOOD_PATH


def outputs(command, data):
    rc, out, err = run(COMMANDS[command] + ["-j1"], data)
    return rc, out.splitlines(keepends=True), err


def test_manifest_is_what_the_generator_writes(tmp_path):
    # The corpus is generated: a hand edit to a case or to the manifest must go through make_cases.py.
    copy = tmp_path / "hostile"
    copy.mkdir()
    script = (HOSTILE / "make_cases.py").read_text()
    (copy / "make_cases.py").write_text(script)
    (copy / "cases").mkdir()
    subprocess.run(["python3", str(copy / "make_cases.py")], check=True)
    assert json.loads((copy / "manifest.json").read_text()) == MANIFEST
    for name in CASES:
        assert (copy / "cases" / f"{name}.ndjson").read_bytes() == (HOSTILE / "cases" / f"{name}.ndjson").read_bytes(), name


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_case_between_good_records(command, tmp_path):
    good_rc, good_out, good_err = outputs(command, good(command) + b"\n")
    assert (good_rc, good_err) == (0, "")
    data = b""
    expected_out = []
    expected_bad = []
    line = 0
    for name in sorted(CASES):
        case = (HOSTILE / "cases" / f"{name}.ndjson").read_bytes()
        data += good(command) + b"\n" + case
        line += 2
        expected_out += good_out
        # The case after one good record (not first in its file, where a BOM is allowed).
        rc, alone, err = outputs(command, good(command) + b"\n" + case)
        assert alone[:len(good_out)] == good_out
        alone = alone[len(good_out):]
        if CASES[name][command] == "partial":
            # A collection: its good features come out, each bad one is reported by itself.
            features = json.loads(case)["features"]
            reports = err.splitlines()
            assert rc == 65 and reports and all(f"<stdin>:2: features[" in l for l in reports), f"{name}: {err!r}"
            expected_out += alone
            for report in reports:
                index = int(report.split("features[")[1].split("]")[0])
                expected_bad.append((line, name, json.dumps(features[index], separators=(",", ":")).encode()))
        elif CASES[name][command] == "ok":
            assert (rc, err) == (0, ""), f"{name}: expected a record out of {command}, got {rc}: {err}"
            assert alone, f"{name}: no output from {command}"
            expected_out += alone
        else:
            assert rc == 65 and alone == [] and err.count("\n") == 1 and err.startswith(f"geo {COMMANDS[command][0]}: <stdin>:2: "), \
                f"{name}: expected one bad record from {command}, got {rc}: {err!r}"
            expected_bad.append((line, name, case.rstrip(b"\n")))
    data += good(command) + b"\n"
    expected_out += good_out
    source = tmp_path / "hostile.ndjson"
    source.write_bytes(data)
    rejects = tmp_path / "rejects.ndjson"
    for jobs in ["1", "2"]:
        rc, out, err = run(COMMANDS[command] + ["-j", jobs, "--rejects", rejects, source])
        assert rc == (65 if expected_bad else 0), err
        assert out.splitlines(keepends=True) == expected_out, "records lost, changed or out of order"
        reported = [l for l in err.splitlines() if l]
        assert [int(l.split(":")[2]) for l in reported] == [l for l, _, _ in expected_bad], reported
        assert all(l.startswith(f"geo {COMMANDS[command][0]}: {source}:") for l in reported)
        kept = [json.loads(l) for l in rejects.read_text().splitlines()]
        assert [(r["line"], r["source"]) for r in kept] == [(l, str(source)) for l, _, _ in expected_bad]
        for record, (_, name, case) in zip(kept, expected_bad):
            # Exactly the bad line: as a JSON string, or in base64 when it is not UTF-8.
            kept = record["input"].encode() if "input" in record else base64.b64decode(record["input_base64"])
            assert kept == case.strip(b" \t"), name


@pytest.mark.parametrize("sample", listed("samples"), ids=sample_id)
def test_every_builtin_with_each_of_its_sample_arguments_survives_every_case(sample):
    # Every built-in the binary lists (one added after the manifest was written too), with each of
    # its sample arguments, on every case between good records on standard input: exit 0 or 65,
    # one message per bad record naming its line, never a crash.
    data = b""
    for name in sorted(CASES):
        data += GOOD_PATH + b"\n" + GOOD_POINT + b"\n" + (HOSTILE / "cases" / f"{name}.ndjson").read_bytes()
    data += GOOD_PATH + b"\n"
    for jobs in ["1", "2"]:
        rc, out, err = run(sample + ["-j", jobs], data)
        assert rc in (0, 65), f"{sample}: exit {rc}: {err[-2000:]}"
        for report in err.splitlines():
            assert report.startswith(f"geo {sample[0]}: <stdin>:"), report
            assert 1 <= int(report.split(":")[2]) <= data.count(b"\n"), report


POLYLINE_CASES = {
    "byte-below-range": (b"_p~iF ~ps|U", "byte 5"),
    "byte-above-range": (b"_p~iF\x7f", "byte 5"),
    "nul-byte": (b"_p~i\x00F", "byte 4"),
    "non-ascii": ("_p~iF~ps|U_ulL\u00e9".encode(), "byte 14"),
    "truncated": (b"_p~iF~ps|U_ulLnnqC_mqNvxq", "byte 22"),
    "latitude-without-longitude": (b"_p~iF", "byte 0"),
    "overflow": (b"~~~~~~~~~~~~~?", "byte 0"),
    "unterminated-json-string": (b'"_p~iF~ps|U', "byte 0"),
    "wrong-precision": (b"_izlhA~rlgdF_{geC~ywl@_kwzCn`{nI", "--precision"),
}


def test_hostile_polylines_between_good_ones(tmp_path):
    data = b""
    for case, _ in POLYLINE_CASES.values():
        data += b"_p~iF~ps|U\n" + case + b"\n"
    data += b"_p~iF~ps|U\n"
    rc, out, err = run(["decode", "-j2"], data)
    assert rc == 65
    assert out.splitlines() == run(["decode"], b"_p~iF~ps|U\n")[1].splitlines() * (len(POLYLINE_CASES) + 1)
    reported = err.splitlines()
    assert len(reported) == len(POLYLINE_CASES)
    for index, (message, (_, fragment)) in enumerate(zip(reported, POLYLINE_CASES.values())):
        assert message.startswith(f"geo decode: <stdin>:{2 * index + 2}: ") and fragment in message, message


# --- cases too big for git: built here -------------------------------------------------------

@pytest.mark.slow
def test_a_100_mb_line_streams_through(tmp_path):
    path = tmp_path / "big.ndjson"
    count = 4_800_000
    with open(path, "wb") as f:
        f.write(b'{"type":"LineString","coordinates":[')
        f.write(b",".join(b"[%d.%05d,%d.%05d]" % (i % 360 - 180, i % 99991, (i // 360) % 170 - 85, i % 97) for i in range(count)))
        f.write(b"]}\n" + GOOD_PATH + b"\n")
    assert path.stat().st_size > 100_000_000
    rc, out, err = run(["encode", "-p", "5", path])
    assert (rc, err) == (0, "")
    lines = out.splitlines()
    assert len(lines) == 2 and len(lines[0]) >= 2 * count  # at least one byte per value
    rc, out, err = run(["length", path])
    assert (rc, err) == (0, "")
    assert [json.loads(l)["properties"]["length_m"] > 0 for l in out.splitlines()] == [True, True]


def test_nesting_100000_deep_is_a_bad_record_in_every_command(tmp_path):
    deep = b'{"type":"Feature","properties":{"x":' + b"[" * 100_000 + b"]" * 100_000 + b'},"geometry":null}'
    for command in COMMANDS:
        rc, out, err = run(COMMANDS[command], good(command) + b"\n" + deep + b"\n" + good(command) + b"\n")
        assert rc == 65 and len(out.splitlines()) >= 2, command
        assert err.startswith(f"geo {COMMANDS[command][0]}: <stdin>:2: ") and "nesting deeper than" in err, err


@pytest.mark.slow
def test_a_feature_collection_of_a_million_features_on_one_line(tmp_path):
    path = tmp_path / "fc.ndjson"
    with open(path, "wb") as f:
        f.write(b'{"type":"FeatureCollection","features":[')
        f.write(b",".join(b'{"type":"Feature","id":%d,"properties":{},"geometry":{"type":"Point","coordinates":[%d.5,%d.25]}}'
                          % (i, i % 360 - 180, i % 170 - 85) for i in range(1_000_000)))
        f.write(b"]}\n")
    rc, out, err = run(["encode", path])
    assert (rc, err) == (0, "")
    assert len(out.splitlines()) == 1_000_000
    rc, out, err = run(["length", path])
    assert (rc, err) == (0, "")
    lines = out.splitlines()
    assert len(lines) == 1_000_000 and json.loads(lines[-1])["id"] == 999_999


# --- fuzzing: every seed and every input that ever crashed a harness, replayed ----------------

FUZZ_BIN = GEO_BIN.parent / "geo-fuzz"
# The harnesses as the binary lists them: one added later is replayed with no edit here.
HARNESSES = subprocess.run([str(FUZZ_BIN), "--list"], capture_output=True, text=True).stdout.split() if FUZZ_BIN.is_file() else []


def test_every_fuzz_harness_is_listed_and_seeded():
    assert FUZZ_BIN.is_file(), f"{FUZZ_BIN} is missing: build with 'swift build -c release'"
    assert {"scanner", "polyline", "arguments", "records", "rasterizer"} <= set(HARNESSES)
    assert sorted(p.name for p in (REPO / "fuzz" / "seeds").iterdir()) == sorted(HARNESSES)


@pytest.mark.parametrize("harness", HARNESSES)
def test_fuzz_seeds_and_regressions_replay_without_a_crash(harness):
    assert FUZZ_BIN.is_file(), f"{FUZZ_BIN} is missing: build with 'swift build -c release'"
    inputs = sorted((REPO / "fuzz" / "seeds" / harness).iterdir())
    regressions = REPO / "Tests" / "Corpus" / "fuzz-regressions" / harness
    if regressions.is_dir():
        inputs += sorted(regressions.iterdir())
    inputs += sorted((HOSTILE / "cases").iterdir())  # the corpus is fair game for every harness
    result = subprocess.run([str(FUZZ_BIN), harness] + [str(p) for p in inputs], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout == f"replayed {len(inputs)} input(s) through {harness}: no crash\n"
