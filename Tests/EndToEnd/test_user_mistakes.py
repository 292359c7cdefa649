"""Mistakes people make in their first minutes with geo: writing over the input, a step far too
small. Each of these lost data or crashed once (issue 11, high severity)."""

import json
import os
import re
import subprocess

import pytest

from conftest import SUMMARY_LINE, geo_bin, ndjson, run

LINE = {"type": "LineString", "coordinates": [[0, 0], [1, 1]]}  # 157 km
LINE_BYTES = ndjson([LINE])


# --- -o over an input --------------------------------------------------------------------------

def _refused(rc, err, *names):
    assert rc == 64, err
    assert "would empty it" in err, err
    for name in names:
        assert name in err, (name, err)


@pytest.mark.parametrize("option", ["-o", "--output", "--rejects"])
def test_output_naming_an_input_is_refused_and_the_input_survives(tmp_path, option):
    path = tmp_path / "f.ndjson"
    path.write_bytes(LINE_BYTES)
    extra = ["-o", str(tmp_path / "out")] if option == "--rejects" else []
    rc, out, err = run(["length", option, str(path), *extra, str(path)])
    _refused(rc, err, "-o" if option == "--output" else option, "f.ndjson")
    assert path.read_bytes() == LINE_BYTES
    assert out == b""
    assert not (tmp_path / "out").exists(), "nothing may be opened for writing"


def test_output_over_standard_input_is_refused(tmp_path):
    path = tmp_path / "f.ndjson"
    path.write_bytes(LINE_BYTES)
    with open(path, "rb") as stdin:
        proc = subprocess.run([geo_bin(), "length", "-o", str(path)], stdin=stdin,
                              capture_output=True, timeout=60)
    _refused(proc.returncode, proc.stderr.decode(), "standard input")
    assert path.read_bytes() == LINE_BYTES


def test_output_through_a_symlink_or_another_name_is_refused(tmp_path):
    path = tmp_path / "f.ndjson"
    path.write_bytes(LINE_BYTES)
    (tmp_path / "link.ndjson").symlink_to(path)
    os.link(path, tmp_path / "hard.ndjson")
    for other in ("link.ndjson", "hard.ndjson", "./f.ndjson"):
        rc, _, err = run(["length", "-o", other, "f.ndjson"], cwd=tmp_path)
        _refused(rc, err, other, "f.ndjson")
        assert path.read_bytes() == LINE_BYTES


def test_output_and_rejects_the_same_file_through_a_link(tmp_path):
    (tmp_path / "out").write_text("")
    (tmp_path / "alias").symlink_to(tmp_path / "out")
    rc, _, err = run(["length", "-o", "out", "--rejects", "alias", "-"], LINE_BYTES, cwd=tmp_path)
    assert rc == 64 and "same file" in err, err


def shell(command, cwd):
    """COMMAND in sh, with geo_bin() as $GEO: the redirections are the shell's, as a user's are."""
    return subprocess.run(["sh", "-c", command], cwd=cwd, env={**os.environ, "GEO": geo_bin()},
                          capture_output=True, text=True, timeout=60)


def test_standard_output_over_the_input_says_the_shell_emptied_it(tmp_path):
    """`geo length f > f`: the shell truncated f before geo ran, so the records are already lost,
    and the refusal says so rather than that geo would read for ever."""
    (tmp_path / "f").write_bytes(LINE_BYTES)
    result = shell('"$GEO" length f > f', tmp_path)
    assert result.returncode == 64, result.stderr
    assert "the shell emptied" in result.stderr and "already lost" in result.stderr, result.stderr
    # `>> f` empties nothing: geo would read what it appends for ever, and says that.
    (tmp_path / "f").write_bytes(LINE_BYTES)
    result = shell('"$GEO" length f >> f', tmp_path)
    assert result.returncode == 64 and "for ever" in result.stderr, result.stderr
    assert "emptied" not in result.stderr and (tmp_path / "f").read_bytes() == LINE_BYTES


def test_dash_means_standard_output_for_output_and_rejects(tmp_path):
    rc, out, err = run(["length", "-o", "-"], LINE_BYTES, cwd=tmp_path)
    assert rc == 0 and json.loads(out)["properties"]["length_m"] > 0, err
    assert not (tmp_path / "-").exists()
    bad = b'{"type":"Point"}\n'
    rc, out, err = run(["length", "-o", "good.ndjson", "--rejects", "-"], LINE_BYTES + bad, cwd=tmp_path)
    assert rc == 65, err
    assert json.loads(out)["line"] == 2
    assert json.loads((tmp_path / "good.ndjson").read_bytes())["properties"]["length_m"] > 0
    assert not (tmp_path / "-").exists()
    # Both on standard output would interleave them: a usage error.
    rc, _, err = run(["length", "--rejects", "-"], LINE_BYTES)
    assert rc == 64 and "standard output" in err, err


def test_output_that_is_not_an_input_still_works(tmp_path):
    path = tmp_path / "f.ndjson"
    path.write_bytes(LINE_BYTES)
    rc, _, err = run(["length", "-o", str(tmp_path / "g.ndjson"), str(path)])
    assert rc == 0, err
    assert json.loads((tmp_path / "g.ndjson").read_bytes())["properties"]["length_m"] > 0
    rc, _, err = run(["length", "-o", "/dev/null", "/dev/null"])  # not a regular file: nothing to lose
    assert rc == 0, err


# --- steps too small for any memory ------------------------------------------------------------

TOO_MANY = [
    (["interpolate", "--every", "1e-6"], "--every"),
    (["interpolate", "--every", "0.1"], "--every"),
    (["interpolate", "--densify", "0.000001"], "--densify"),
    (["spans", "--style", "red", "--length", "0.000001"], "--length"),
    (["spans", "--style", "red", "--length", "0.1", "--split"], "--length"),
    (["circle-to-polygon", "--radius", "1000", "--tolerance", "1e-9"], "--tolerance"),
]


@pytest.mark.parametrize("args,option", TOO_MANY, ids=[" ".join(a) for a, _ in TOO_MANY])
def test_a_tiny_step_is_a_bad_record_not_a_crash(args, option):
    records = [LINE, LINE] if args[0] != "circle-to-polygon" else [{"type": "Point", "coordinates": [1, 2]}] * 2
    proc = subprocess.run(["/usr/bin/time", "-f", "%M", geo_bin(), *args], input=ndjson(records),
                          capture_output=True, timeout=120)
    err = proc.stderr.decode()
    assert proc.returncode == 65, err
    assert proc.stdout == b""
    lines = err.splitlines()
    messages = [l for l in lines if l.startswith("geo ") and not SUMMARY_LINE.match(l)]
    assert [m.split(": ")[1] for m in messages] == ["<stdin>:1", "<stdin>:2"], err
    assert "limit of 1,000,000 per record" in messages[0] and option in messages[0], err
    assert not re.search(r"\d[eE][-+]?\d", messages[0]), err  # numbers as geo writes them
    peak_kb = int(lines[-1])
    assert peak_kb < 200_000, f"memory must stay flat: {peak_kb} kB"


def test_the_message_says_how_many_and_what_step_fits():
    rc, _, err = run(["interpolate", "--every", "1e-6"], ndjson([LINE]))
    assert rc == 65
    assert "156,899,568,293 points" in err, err
    assert "use --every 0.157 or more" in err, err


def test_a_step_that_fits_still_works():
    rc, out, err = run(["interpolate", "--every", "0.2"], ndjson([LINE]))
    assert rc == 0, err
    assert len(json.loads(out)["geometry"]["coordinates"]) == 784_499


def test_densify_counts_the_whole_record():
    # Each ring alone fits, together they do not.
    ring = [[0, 0], [0.5, 0], [0.5, 0.5], [0, 0.5], [0, 0]]  # about 220 km around
    polygon = {"type": "Polygon", "coordinates": [ring, ring, ring, ring, ring, ring]}
    rc, _, err = run(["interpolate", "--densify", "1"], ndjson([polygon]))
    assert rc == 65 and "limit of 1,000,000 per record" in err, err


@pytest.mark.parametrize("args", [
    ["interpolate", "--count", "2000000"],
    ["circle-to-polygon", "--radius", "10", "--segments", "2000000"],
    ["circle-to-polygon", "--center", "10,10", "--radius", "1000", "--tolerance", "1e-9"],
    ["spans", "--style", "red", "--length", "0"],
])
def test_sizes_fixed_by_options_alone_are_usage_errors(args):
    rc, out, err = run(args, ndjson([{"type": "Point", "coordinates": [1, 2]}]))
    assert rc == 64, err
    assert out == b""
    assert "Traceback" not in err and "Fatal error" not in err
