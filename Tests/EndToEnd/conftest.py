"""End-to-end tests for the `geo` command-line tool.

The tests run the built binary exactly as a user would, through subprocess.
The binary is $GEO_BIN, or <repo>/.build/release/geo (build it with
`swift build -c release`). A missing binary, or a missing `polyline`
package (the reference codec the oracle tests compare against), makes the
tests FAIL: they are never skipped.
"""

import atexit
import json
import math
import os
import re
import shutil
import subprocess
import tempfile
from decimal import Decimal
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
GEO_BIN = Path(os.environ.get("GEO_BIN") or (REPO / ".build" / "release" / "geo")).absolute()

RS = b"\x1e"
BOM = b"\xef\xbb\xbf"

# The three-point vector of Google's documentation, as GeoJSON positions.
GOOGLE_PATH = [[-120.2, 38.5], [-120.95, 40.7], [-126.453, 43.252]]
GOOGLE_P5 = "_p~iF~ps|U_ulLnnqC_mqNvxq`@"
GOOGLE_P6 = "_izlhA~rlgdF_{geC~ywl@_kwzCn`{nI"
GOOGLE_P0 = "mAnFC@CH"


# `make sanitize` runs this suite against AddressSanitizer builds (GEO_SANITIZED=1): ASan's shadow
# memory multiplies a run's peak RSS, and its interceptors (remquo among them) are what the
# libraries bind to, so the tests of peak memory and of symbol binding measure ASan there.
not_under_asan = pytest.mark.skipif(os.environ.get("GEO_SANITIZED") == "1",
                                    reason="measures peak memory or symbol binding, which ASan changes")


def geo_bin() -> str:
    """The binary under test; fails the calling test if it is missing."""
    if not GEO_BIN.is_file() or not os.access(GEO_BIN, os.X_OK):
        pytest.fail(
            f"geo binary not found or not executable at {GEO_BIN}: build it with "
            "`swift build -c release` or point GEO_BIN at it",
            pytrace=False,
        )
    return str(GEO_BIN)


def _scratch_folder() -> str:
    folder = tempfile.mkdtemp(prefix="geo-e2e-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


# The $TMPDIR of every program the tests run (geo's spools, the folder it makes for the tiles
# samples' output, `Tiles.sampleArguments`, in the listing below and in the fuzz replayer, GNU
# parallel's files): a folder of this test process's own, removed when it exits, so that nothing
# is shared with another process (pytest-xdist's workers, another user's run) or left behind.
# pytest's own tmp_path stays where it was (tempfile read $TMPDIR above, once).
SCRATCH = _scratch_folder()
os.environ["TMPDIR"] = SCRATCH


def listed(kind):
    """What `geo --list-cmds=KIND` prints, one list of words a line (tab-separated), as git's
    tests read `git --list-cmds`: "builtins", the built-in commands (the dispatcher's one list
    of them); "samples", each built-in's sample arguments, the command's name first. Read at
    collection time, so a missing binary fails the run."""
    result = subprocess.run([str(GEO_BIN), f"--list-cmds={kind}"], capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{GEO_BIN} --list-cmds={kind} failed ({result.returncode}): {result.stderr}")
    return [line.split("\t") for line in result.stdout.splitlines()]


def sample_id(words) -> str:
    """A test id for sample arguments: the words, a path as its last part only. The folder of a
    path differs from process to process (SCRATCH), and pytest-xdist needs every worker
    to collect the same ids."""
    return " ".join(os.path.basename(w) if w.startswith("/") else w for w in words)


def builtins():
    """The built-in commands, in the order `geo commands` lists them."""
    return [words[0] for words in listed("builtins")]


def _as_bytes(data):
    if data is None:
        return b""
    if isinstance(data, str):
        return data.encode("utf-8")
    return bytes(data)


# The lines geo adds around its per-record reports: a hint after the first failure of a kind,
# the count of messages not shown, and the closing count of rejected records. Tests of the
# reports themselves see stderr without them (`run`); test_messages.py checks them (`run_full`).
SUMMARY_LINE = re.compile(r"^geo [\w-]+: (hint: .*|[\d,]+ of [\d,]+ records? rejected|[\d,]+ more like .* not shown"
                          r"|\(further messages like this one are counted, not shown\))$")


def without_summary(stderr: str) -> str:
    return "".join(l for l in stderr.splitlines(keepends=True) if not SUMMARY_LINE.match(l.rstrip("\n")))


def run(args, input=None, *, cwd=None, env=None, timeout=120):
    """Run `geo ARGS...` with INPUT (bytes or str) on stdin.

    Returns (returncode, stdout bytes, stderr str without the summary lines). stdin is always a
    pipe (empty if INPUT is None), so geo never waits on a terminal.
    """
    rc, out, err = run_full(args, input, cwd=cwd, env=env, timeout=timeout)
    return rc, out, without_summary(err)


def run_full(args, input=None, *, cwd=None, env=None, timeout=120):
    """`run`, with stderr whole."""
    cmd = [geo_bin()] + [str(a) for a in args]
    full_env = None
    if env is not None:
        full_env = dict(os.environ)
        full_env.update(env)
    proc = subprocess.run(
        cmd,
        input=_as_bytes(input),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=cwd,
        env=full_env,
        timeout=timeout,
    )
    return proc.returncode, proc.stdout, proc.stderr.decode("utf-8", "backslashreplace")


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "slow: seconds each: a scale run (100 MB, a million features, memory kept flat), one that "
        "waits on real time (a signal part way, shells in tmux), Spark, GNU parallel, the Debian package. "
        "`make test` (CI's command) runs them; `make quick` (-m 'not slow') leaves them out")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """With pytest-xdist's --dist loadgroup (`make test`), the tests that share a module-scoped
    fixture (the Debian package, the SparkContext, a corpus, the guide's figures) run in one
    worker, so that the fixture is made once, not once a worker. Before xdist's own hook, which
    reads the mark."""
    for item in items:
        fixtures = getattr(item, "_fixtureinfo", None)
        if fixtures and any(defs[-1].scope == "module" for defs in fixtures.name2fixturedefs.values()):
            item.add_marker(pytest.mark.xdist_group(item.module.__name__))


@pytest.fixture(scope="session")
def geo():
    """Path of the geo binary (fails, never skips, when it is missing)."""
    return geo_bin()


@pytest.fixture(name="run")
def run_fixture():
    return run


@pytest.fixture(scope="session")
def polyline():
    """The reference codec (`pip install polyline`); fails if missing."""
    try:
        import polyline as mod  # noqa: PLC0415
    except ImportError:
        pytest.fail(
            "the Python package `polyline` is required by the e2e tests "
            "(pip install polyline==2.0.4)",
            pytrace=False,
        )
    return mod


def ndjson(records) -> bytes:
    """Records (dicts or already-serialised strings) as NDJSON bytes."""
    out = []
    for r in records:
        out.append(r if isinstance(r, str) else json.dumps(r, separators=(",", ":")))
    return ("\n".join(out) + "\n").encode("utf-8") if out else b""


def feature_line(geometry_json: str, properties_json: str = "{}") -> bytes:
    """geo's exact output shape for a decoded record."""
    return (
        '{"type":"Feature","properties":' + properties_json + ',"geometry":' + geometry_json + "}\n"
    ).encode()


def err_lines(stderr: str):
    """stderr as a list of lines (no trailing empty element)."""
    return stderr.splitlines()


def dec(x) -> str:
    """The exact shortest decimal of the double x, never in exponent notation (GeographicLib's
    tools read `e` as a hemisphere letter)."""
    x = float(x)
    assert math.isfinite(x), x
    s = repr(x)
    if "e" in s or "E" in s:
        s = format(Decimal(s), "f")
    return s
