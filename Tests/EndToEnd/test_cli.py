"""The command line: arguments, help, exit statuses, I/O failures, pipes, parallelism
(docs/records.md: "Command line", "Exit status", "Order and parallelism")."""

import json
import os
import random
import re
import signal
import subprocess

import pytest

from conftest import GOOGLE_P5, GOOGLE_PATH, RS, feature_line, geo_bin, run

P12 = b'{"type":"Point","coordinates":[1,2]}\n'
GOOGLE_FEATURE = feature_line('{"type":"LineString","coordinates":[[-120.2,38.5],[-120.95,40.7],[-126.453,43.252]]}')


def _assert_usage_error(rc, out, err, cmd, problem):
    """Exit 64, nothing on stdout, and: the problem, the usage line, See 'geo CMD --help'."""
    assert rc == 64, err
    assert out == b""
    lines = err.splitlines()
    prefix = "geo" if cmd is None else f"geo {cmd}"
    assert len(lines) == 3, err
    assert lines[0].startswith(prefix + ": "), err
    assert problem in lines[0], err
    if cmd is None:
        assert lines[1] == "Usage: geo [--version] [--help] <command> [<args>...]", err
        assert lines[2] == "See 'geo --help'.", err
    else:
        assert lines[1] == f"Usage: geo {cmd} [OPTIONS] [FILE...]", err
        assert lines[2] == f"See 'geo {cmd} --help'.", err


# --- exit statuses ----------------------------------------------------------------------------

def test_exit_0_on_success():
    assert run(["encode"], P12) == (0, b"_seK_ibE\n", "")


def test_exit_0_on_empty_input():
    assert run(["encode"], b"") == (0, b"", "")
    assert run(["decode"], b"\n\r\n") == (0, b"", "")


def test_exit_65_on_bad_record():
    rc, out, err = run(["decode"], b"!\n")
    assert (rc, out) == (65, b"")
    assert err.startswith("geo decode: <stdin>:1: ") and err.count("\n") == 1


@pytest.mark.parametrize("args,cmd,problem", [
    (["encode", "--bogus"], "encode", "'--bogus'"),
    (["encode", "-x"], "encode", "'-x'"),
    (["encode", "-p"], "encode", "-p"),
    (["encode", "-p", "abc"], "encode", "abc"),
    (["encode", "-p", "99"], "encode", "99"),
    (["encode", "--to-precision="], "encode", "--to-precision"),
    (["encode", "--to", "latlng"], "encode", "latlng"),
    (["encode", "--strict=yes"], "encode", "--strict"),
    (["encode", "-j", "0"], "encode", "-j"),
    (["encode", "--prec", "6"], "encode", "'--prec'"),        # long options are never abbreviated
    (["decode", "--to", "xml"], "decode", "xml"),
    (["decode", "--field"], "decode", "--field"),
    (["decode", "--digits", "99"], "decode", "--digits"),
    (["--bogus"], None, "'--bogus'"),
])
def test_usage_errors(args, cmd, problem, tmp_path):
    # A missing input file and a bad record on stdin: a usage error reads nothing (64, not 66/65).
    if cmd:
        args = [args[0], str(tmp_path / "missing"), *args[1:]]
    rc, out, err = run(args, b"!\n")
    _assert_usage_error(rc, out, err, cmd, problem)


def test_did_you_mean_for_unknown_option():
    rc, out, err = run(["encode", "--precison", "6"], P12)
    _assert_usage_error(rc, out, err, "encode", "'--precison'")
    assert "did you mean '--precision'?" in err


def test_did_you_mean_for_unknown_command():
    rc, out, err = run(["encod"], P12)
    assert (rc, out) == (64, b"")
    lines = err.splitlines()
    assert lines[0].startswith("geo: ") and "'encod'" in lines[0]
    assert "did you mean 'encode'?" in err
    assert "See 'geo --help'" in lines[-1]


def test_unknown_command_error_has_usage_line():
    # docs/records.md, "Exit status" (64): usage errors print the problem, the usage line and
    # See 'geo ... --help'.
    rc, out, err = run(["encod"], P12)
    assert (rc, out) == (64, b"")
    assert "Usage: geo [--version] [--help] <command> [<args>...]" in err.splitlines()


def test_unknown_command_without_near_match(tmp_path):
    rc, out, err = run(["zzzzqq"], b"", env={"GEO_EXEC_PATH": str(tmp_path)})
    assert (rc, out) == (64, b"")
    assert err.startswith("geo: ") and "'zzzzqq'" in err and "did you mean" not in err
    assert "See 'geo --help'" in err


def test_no_command_is_a_usage_error():
    rc, out, err = run([])
    assert (rc, out) == (64, b"")
    assert "geo [--version] [--help] <command>" in err


def test_exit_66_on_missing_input_file(tmp_path):
    good = tmp_path / "good.txt"
    good.write_bytes(b"??\n")
    missing = tmp_path / "no-such-file.txt"
    rc, out, err = run(["decode", good, missing])
    assert rc == 66
    assert err == f"geo decode: cannot open '{missing}': No such file or directory\n"


def test_exit_66_on_directory_operand(tmp_path):
    rc, out, err = run(["decode", tmp_path])
    assert (rc, out) == (66, b"")
    assert str(tmp_path) in err and "Is a directory" in err


def test_exit_73_on_uncreatable_output(tmp_path):
    target = tmp_path / "no" / "such" / "dir" / "x"
    rc, out, err = run(["decode", "-o", target], b"??\n")
    assert (rc, out) == (73, b"")
    assert err == f"geo decode: cannot create '{target}': No such file or directory\n"
    assert run(["decode", "-o", "/nonexistent/dir/x"], b"??\n")[0] == 73


def test_exit_73_on_uncreatable_rejects_file(tmp_path):
    target = tmp_path / "no" / "x"
    rc, out, err = run(["decode", "--rejects", target], b"??\n")
    assert (rc, out) == (73, b"")
    assert str(target) in err and "No such file or directory" in err


# --- write failures ---------------------------------------------------------------------------

def _to_dev_full(args, input=b""):
    assert os.path.exists("/dev/full")
    with open("/dev/full", "wb") as full:
        proc = subprocess.run([geo_bin(), *map(str, args)], input=input, stdout=full, stderr=subprocess.PIPE, timeout=60)
    return proc.returncode, proc.stderr.decode("utf-8", "backslashreplace")


def test_exit_74_writing_to_dev_full():
    assert _to_dev_full(["decode"], b"??\n") == (
        74, "geo decode: cannot write standard output: No space left on device\n")


def test_exit_74_writing_much_to_dev_full():
    rc, err = _to_dev_full(["decode", "--to", "text"], (GOOGLE_P5 + "\n").encode() * 50000)
    assert rc == 74
    assert err == "geo decode: cannot write standard output: No space left on device\n"


def test_exit_74_with_output_file_dev_full():
    rc, out, err = run(["encode", "-o", "/dev/full"], P12)
    assert (rc, out) == (74, b"")
    assert err.count("\n") == 1 and "/dev/full" in err and "No space left on device" in err


def test_exit_74_with_collection_gives_one_message():
    rc, err = _to_dev_full(["decode", "--collection"], b"??\n")
    assert rc == 74
    assert err == "geo decode: cannot write standard output: No space left on device\n"


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["help", "encode"], ["decode", "--help"], ["commands"]])
def test_exit_74_when_help_or_version_cannot_be_written(args):
    rc, err = _to_dev_full(args)
    assert rc == 74, f"geo {' '.join(args)} > /dev/full exited {rc} with stderr {err!r}"
    assert "No space left on device" in err


# --- argument syntax --------------------------------------------------------------------------

def test_precision_spellings_are_equivalent(tmp_path):
    src = tmp_path / "in.ndjson"
    src.write_bytes(b'{"type":"LineString","coordinates":[[-120.2,38.5],[-120.95,40.7],[-126.453,43.252]]}\n')
    expected = (0, b"_izlhA~rlgdF_{geC~ywl@_kwzCn`{nI\n", "")
    for args in (["-p6"], ["-p", "6"], ["--precision=6"], ["--precision", "6"]):
        assert run(["encode", *args, src]) == expected, args
        assert run(["encode", src, *args]) == expected, args        # options after operands
    assert run(["encode", "-p5", "-p6", src]) == expected          # the last one wins
    for args in (["-p6"], ["-p", "6"], ["--precision=6"], ["--precision", "6"]):
        assert run(["decode", *args], b"_izlhA~rlgdF_{geC~ywl@_kwzCn`{nI\n") == (0, GOOGLE_FEATURE, ""), args


def test_double_dash_ends_options(tmp_path):
    (tmp_path / "-p7").write_bytes(P12)
    (tmp_path / "--help").write_bytes(b"??\n")
    assert run(["encode", "--", "-p7"], cwd=tmp_path) == (0, b"_seK_ibE\n", "")
    assert run(["encode", "-p6", "--", "-p7"], cwd=tmp_path) == (0, b"_gayB_c`|@\n", "")
    assert run(["decode", "--to", "text", "--", "--help"], cwd=tmp_path) == (0, b"0,0\n", "")


def test_dash_is_stdin_among_files(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.write_bytes(b"??\n")
    b.write_bytes(b"_ibE_seK\n")
    assert run(["decode", "--to", "text", a, "-", b], b"@@\n") == (0, b"0,0\n-0.00001,-0.00001\n1,2\n", "")
    assert run(["decode", "--to", "text", "-"], b"@@\n") == (0, b"-0.00001,-0.00001\n", "")
    assert run(["decode", "--to", "text", "--", "-"], b"@@\n") == (0, b"-0.00001,-0.00001\n", "")


def test_jobs_spellings(tmp_path):
    for args in (["-j", "1"], ["-j2"], ["--jobs", "3"], ["--jobs=7"]):
        assert run(["decode", "--to", "text", *args], b"??\n@@\n") == (0, b"0,0\n-0.00001,-0.00001\n", ""), args


def test_quiet_and_progress():
    data = (GOOGLE_P5 + "\n").encode() * 2000
    rc, plain, err = run(["decode"], data)
    assert (rc, err) == (0, "")
    assert run(["decode", "-q"], data) == (0, plain, "")
    assert run(["decode", "--quiet"], data) == (0, plain, "")
    rc, out, err = run(["decode", "--progress"], data)
    assert (rc, out) == (0, plain)               # never on stdout
    assert "records" in err


# --- help and version -------------------------------------------------------------------------

def test_help_and_version_go_to_stdout():
    rc, out, err = run(["--help"])
    assert (rc, err) == (0, "")
    text = out.decode()
    assert "geo [--version] [--help] <command>" in text
    assert re.search(r"^\s+encode\s+\S", text, re.M) and re.search(r"^\s+decode\s+\S", text, re.M)
    assert run(["help"]) == (0, out, "")

    rc, out, err = run(["--version"])
    assert (rc, err) == (0, "")
    assert re.fullmatch(rb"geo \d+\.\d+\.\d+\S* \(PROJ \d+\.\d+\.\d+\S*\)\n", out), out


@pytest.mark.parametrize("cmd", ["encode", "decode"])
def test_command_help(cmd):
    rc, out, err = run([cmd, "--help"])
    assert (rc, err) == (0, "")
    assert out.startswith(f"geo {cmd} - ".encode())
    assert f"geo {cmd} [OPTIONS] [FILE...]".encode() in out
    for flag in (b"precision", b"--rs", b"--collection", b"--strict", b"--rejects", b"--jobs", b"--output"):
        assert flag in out, flag
    assert run([cmd, "-h"]) == (0, out, "")
    assert run(["help", cmd]) == (0, out, "")


def test_commands_lists_builtins():
    rc, out, err = run(["commands"])
    assert (rc, err) == (0, "")
    lines = out.decode().splitlines()
    names = [l.split()[0] for l in lines if l.strip()]
    assert "encode" in names and "decode" in names
    for l in lines:
        if l.split()[0] in ("encode", "decode"):
            assert len(l.split(None, 1)) == 2, f"no summary: {l!r}"


# --- closed pipes -----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def big_polylines(tmp_path_factory):
    """~50 MB of polylines: one 30-point path per line."""
    pts_line = ("_p~iF~ps|U_ulLnnqC_mqNvxq`@" + "~hbE~hbE_ibE_ibE" * 14 + "\n").encode()
    path = tmp_path_factory.mktemp("big") / "big.txt"
    path.write_bytes(pts_line * (50 * 1024 * 1024 // len(pts_line) + 1))
    return path


@pytest.mark.parametrize("extra", [[], ["--to", "text"], ["--collection"], ["-j1"]])
def test_reader_closing_early_via_shell_pipeline(big_polylines, tmp_path, extra):
    err_file, out_file = tmp_path / "err", tmp_path / "out"
    script = ('"$GEO" decode "$@" "$BIG" 2>"$ERR" | head -1 >"$OUT"; '
              'echo "${PIPESTATUS[0]} ${PIPESTATUS[1]}"')
    proc = subprocess.run(
        ["bash", "-c", "set -o pipefail; " + script, "bash", *extra],
        env={**os.environ, "GEO": geo_bin(), "BIG": str(big_polylines), "ERR": str(err_file), "OUT": str(out_file)},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60,
    )
    geo_status, head_status = proc.stdout.decode().split()
    assert head_status == "0"
    assert geo_status in ("141", "0"), f"geo exited {geo_status}"
    assert err_file.read_bytes() == b""
    first = out_file.read_bytes()
    assert first.endswith(b"\n") and first.count(b"\n") == 1
    if extra == ["--to", "text"]:
        assert first.startswith(b"38.5,-120.2 40.7,-120.95 43.252,-126.453 ")
    elif extra == ["--collection"]:
        assert first.startswith(b'{"type":"FeatureCollection"')
    else:
        json.loads(first)


def test_reader_closing_early_via_pipe(big_polylines):
    proc = subprocess.Popen([geo_bin(), "encode", "--to", "json"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc2 = subprocess.Popen([geo_bin(), "decode", "--jobs", "2", str(big_polylines)],
                             stdout=proc.stdin, stderr=subprocess.PIPE)
    proc.stdin.close()   # proc2 holds the write end now
    first = proc.stdout.readline()
    proc.stdout.close()  # the reader goes away: proc sees EPIPE, then proc2 does
    rc = proc.wait(timeout=60)
    rc2 = proc2.wait(timeout=60)
    err, err2 = proc.stderr.read(), proc2.stderr.read()
    proc.stderr.close()
    proc2.stderr.close()
    assert json.loads(first)["properties"]["polyline"].startswith(GOOGLE_P5)
    assert rc in (-signal.SIGPIPE, 0), rc
    assert rc2 in (-signal.SIGPIPE, 0), rc2
    assert (err, err2) == (b"", b"")


# --- parallel runs are deterministic ----------------------------------------------------------

def _mixed_input(polyline, seed=7, target=6 * 1024 * 1024):
    """Several MB of NDJSON: good paths, bad records, CRLF, blank lines, RS-led lines, collections.

    Returns (data, expected text-mode output lines, expected bad line numbers)."""
    rng = random.Random(seed)
    lines, expected, bad = [], [], []
    size = 0
    bad_kinds = [
        '{"type":"Point","coordinates":[0,95]}',
        '{"type":"LineString","coordinates":[[1,2],[3,4]',
        '{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]],[[0,0],[0.5,0],[0.5,0.5],[0,0]]]}',
        '{"type":"Point","coordinates":[1e400,0]}',
        "\u00ff garbage",
    ]
    while size < target:
        r = rng.random()
        if r < 0.01:
            text = rng.choice(bad_kinds)
            bad.append(len(lines) + 1)
        elif r < 0.02:
            text = ""
        elif r < 0.025:
            pts = [[[rng.uniform(-180, 180), rng.uniform(-90, 90)] for _ in range(3)] for _ in range(3)]
            text = json.dumps({"type": "FeatureCollection", "features": [
                {"type": "Feature", "properties": {"k": k}, "geometry": {"type": "LineString", "coordinates": p}}
                for k, p in enumerate(pts)]})
            expected.extend(polyline.encode(p, 5, geojson=True) for p in pts)
        else:
            n = rng.randint(1, 120)
            pts = [[round(rng.uniform(-180, 180), rng.choice([5, 6, 9])), round(rng.uniform(-90, 90), 6)]
                   for _ in range(n)]
            text = json.dumps({"type": "Feature", "id": len(lines), "properties": {"n": n, "s": "é" * rng.randint(0, 40)},
                               "geometry": {"type": "LineString", "coordinates": pts}})
            expected.append(polyline.encode(pts, 5, geojson=True))
        raw = text.encode("utf-8") if not text.startswith("\u00ff") else b"\xff garbage"
        if rng.random() < 0.1:
            raw = RS + raw
        raw += b"\r\n" if rng.random() < 0.2 else b"\n"
        lines.append(raw)
        size += len(raw)
    assert not lines[0].startswith(RS)      # NDJSON framing, RS tolerated per line
    return b"".join(lines), expected, bad


@pytest.fixture(scope="module")
def mixed(polyline, tmp_path_factory):
    data, expected, bad = _mixed_input(polyline)
    path = tmp_path_factory.mktemp("mixed") / "mixed.ndjson"
    path.write_bytes(data)
    return path, expected, bad


def test_jobs_give_identical_bytes(mixed, tmp_path):
    path, expected, bad = mixed
    results = {}
    for jobs in ("1", "2", "7"):
        rej = tmp_path / f"rej{jobs}"
        rc, out, err = run(["encode", "--jobs", jobs, "--rejects", rej, path])
        results[jobs] = (rc, out, err, rej.read_bytes())
    assert results["1"][0] == 65
    # -j1 is right ...
    assert results["1"][1] == ("\n".join(expected) + "\n").encode()
    got_bad = [int(m) for m in re.findall(rf"^geo encode: {re.escape(str(path))}:(\d+): ", results["1"][2], re.M)]
    assert got_bad == bad
    assert len(results["1"][2].splitlines()) == len(bad)
    assert [json.loads(l)["line"] for l in results["1"][3].splitlines()] == bad
    # ... and the others are byte-identical to it (stdout, stderr, rejects, status).
    assert results["2"] == results["1"]
    assert results["7"] == results["1"]


def test_jobs_give_identical_bytes_in_json_mode_and_decode(mixed, tmp_path):
    path, _expected, _bad = mixed
    outs = {j: run(["encode", "--to", "json", "-j", j, path]) for j in ("1", "2", "7")}
    assert outs["1"][0] == 65
    assert outs["2"] == outs["1"] and outs["7"] == outs["1"]
    coll = {j: run(["encode", "--to", "json", "--collection", "-j", j, path]) for j in ("1", "7")}
    assert coll["7"] == coll["1"]
    assert json.loads(coll["1"][1])["features"] == [json.loads(l) for l in outs["1"][1].splitlines()]

    # Decode the polylines back, with bad polylines interleaved.
    rc, text, err = run(["encode", "-j2", path])
    lines = text.split(b"\n")[:-1]
    for i in range(0, len(lines), 97):
        lines[i] = lines[i][:-1] + b"!"
    src = tmp_path / "polylines.txt"
    src.write_bytes(b"\n".join(lines) + b"\n")
    assert src.stat().st_size > 1024 * 1024
    decs = {j: run(["decode", "--digits", "5", "-j", j, src]) for j in ("1", "2", "7")}
    assert decs["1"][0] == 65
    assert len(decs["1"][2].splitlines()) == len(range(0, len(lines), 97))
    assert decs["2"] == decs["1"] and decs["7"] == decs["1"]


def test_strict_with_jobs_keeps_exactly_the_earlier_records(mixed, tmp_path):
    path, _expected, bad = mixed
    lines = path.read_bytes().split(b"\n")
    # Good records only, up to well past the first few 256 KiB chunks, then the bad one.
    cut, size = 0, 0
    while size < 1024 * 1024:
        size += len(lines[cut]) + 1
        cut += 1
    good = b"\n".join(l for i, l in enumerate(lines[:cut]) if i + 1 not in bad) + b"\n"
    assert not good.startswith(RS)
    src = tmp_path / "strict.ndjson"
    src.write_bytes(good + b'{"type":"Point","coordinates":[0,91]}\n' + b"\n".join(lines[cut:]))
    bad_line = good.count(b"\n") + 1
    ref_rc, ref_out, ref_err = run(["encode", "-j1"], good)
    assert (ref_rc, ref_err) == (0, "")
    for jobs in ("1", "2", "7"):
        rc, out, err = run(["encode", "--strict", "-j", jobs, src])
        assert rc == 65, jobs
        assert out == ref_out, jobs
        assert len(err.splitlines()) == 1 and err.startswith(f"geo encode: {src}:{bad_line}: "), (jobs, err)


# --- one vocabulary of formats, the old words kept -------------------------------------------

LATLNG = b"38.5,-120.2 40.7,-120.95 43.252,-126.453\n"


@pytest.mark.parametrize("new,old,data", [
    (["encode", "--to", "polyline"], ["encode", "--to", "text"], None),
    (["encode", "--to", "geojson"], ["encode", "--to", "json"], None),
    (["encode", "--to-precision", "6"], ["encode", "-p6"], None),
    (["encode", "--to-precision", "6"], ["encode", "--precision=6"], None),
    (["decode", "--to", "latlng"], ["decode", "--to", "text"], GOOGLE_P5 + "\n"),
    (["decode", "--to", "geojson"], ["decode", "--to", "json"], GOOGLE_P5 + "\n"),
    (["length", "--from", "latlng"], ["length", "--from", "text"], LATLNG),
    (["area", "--from", "latlng"], ["area", "--from", "text"], LATLNG),
    (["locate", "--point", "40,-121", "--from", "latlng"], ["locate", "--point", "40,-121", "--from", "text"], LATLNG),
])
def test_old_format_words_still_work(new, old, data):
    # geojson | polyline | latlng for every --from and --to; scripts with the old words run as before.
    if data is None:
        data = json.dumps({"type": "LineString", "coordinates": GOOGLE_PATH}) + "\n"
    expected = run(new, data)
    assert expected[0] == 0 and expected[1], expected
    assert run(old, data) == expected


@pytest.mark.parametrize("command", ["encode", "decode", "length", "interpolate", "circle-to-polygon", "locate"])
def test_help_shows_only_the_new_words(command):
    rc, out, _ = run([command, "--help"])
    options = out.decode().split("OPTIONS:")[1].split("EXAMPLES:")[0]
    words = {w for choices in re.findall(r"--(?:to|from) (\S+)", options) for w in choices.split("|")}
    assert rc == 0 and words and words <= {"geojson", "polyline", "latlng"}, options
    if command == "encode":
        assert "-p," not in options and "--precision " not in options


def test_every_builtin_declares_the_whole_stream_option_group():
    """Every built-in reads records through the engine's StreamConfiguration, so each takes the
    stream options whole (swift-argument-parser's option groups): -o, --strict, --rejects, --jobs,
    --quiet, --progress; --jobs' default says what it counts."""
    from conftest import builtins
    for command in builtins():
        rc, out, err = run([command, "--help"])
        assert rc == 0, err
        text = " ".join(out.decode().split())
        for option in ("-o, --output", "--strict", "--rejects", "-j, --jobs", "-q, --quiet", "--progress"):
            assert option in text, f"geo {command} --help lacks {option}"
        assert "the usable cores: CPU affinity, cgroup quota" in text and "all cores" not in text, command
