"""geo beyond one machine: the Spark job and the GNU parallel recipe (distributed/).

Both must give, record for record, what one `geo CMD` process gives on the same input, keep
every good record when some are bad, name the partition (Spark) or job (parallel) that had
them, and exit 65 as geo does.

These tests need Java 17, pyspark (pip) and GNU parallel (apt). When one is missing they FAIL,
never skip: CI installs them. The Spark job runs in local[2] mode, mostly in this process on
one shared SparkContext (geo_spark.main(argv, sc)); two cases run it as a command
(python3 and spark-submit) to check its exit status and the shipping of the binary.
"""

import gzip
import importlib.util
import json
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import polyline
import pytest

from conftest import GEO_BIN, REPO, geo_bin
from test_tile_partition import tiles_of

# Every test here starts Spark's JVM or GNU parallel's jobs: `make quick` leaves them out, `make test` runs them.
pytestmark = pytest.mark.slow

DIST = REPO / "distributed"
GEO_SPARK = DIST / "geo_spark.py"
PARALLEL_SH = DIST / "parallel.sh"
CORPUS_PATHS = 2000
SPARK_TIMEOUT = 300

# The three commands of the issue: (name, geo arguments, corpus file, Spark split size: a few
# partitions each).
CASES = [
    ("decode", ["decode"], "polylines.txt", "256k"),
    ("length", ["length"], "paths.ndjson", "512k"),
    ("circle", ["circle-to-polygon", "--radius", "1000"], "points.ndjson", "16k"),
]


# --- prerequisites: fail, never skip ----------------------------------------------------------

def _require_java():
    java = shutil.which("java")
    if not java:
        pytest.fail("java is required by the Spark tests (Debian: apt-get install "
                    "default-jre-headless; Java 17 or later)", pytrace=False)
    return java


def _require_pyspark():
    try:
        import pyspark  # noqa: F401,PLC0415
    except ImportError:
        pytest.fail("pyspark is required by the Spark tests (pip install pyspark)", pytrace=False)


def _require_parallel():
    exe = shutil.which("parallel")
    if not exe:
        pytest.fail("GNU parallel is required (apt-get install parallel)", pytrace=False)
    out = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout
    if "GNU parallel" not in out:
        pytest.fail(f"`parallel` is not GNU parallel (moreutils?): {out[:80]!r}", pytrace=False)
    return exe


def _spark_submit():
    _require_pyspark()
    import pyspark  # noqa: PLC0415

    candidate = Path(pyspark.__file__).parent / "bin" / "spark-submit"
    if candidate.exists():
        return str(candidate)
    found = shutil.which("spark-submit")
    if not found:
        pytest.fail("spark-submit not found (pip install pyspark provides it)", pytrace=False)
    return found


# --- the corpus -------------------------------------------------------------------------------

def random_walk(rng):
    """[lat, lon] positions of one path: 2-200 steps of one of five sizes (half a metre to
    hundreds of kilometres), from anywhere, near a pole, or next to the antimeridian, which
    longer walks then cross. Rounded to 1e-5, so that polylines hold them exactly."""
    lat, lon = rng.uniform(-80, 80), rng.uniform(-180, 180)
    start = rng.random()
    if start < 0.05:
        lat = rng.choice([-1, 1]) * rng.uniform(84, 89.9)
    elif start > 0.95:
        lon = rng.choice([-1, 1]) * rng.uniform(179, 179.99)
    step = rng.choice([5e-4, 5e-3, 5e-2, 0.5, 5.0])
    positions = []
    for _ in range(rng.randint(2, 200)):
        positions.append((round(lat, 5), round(lon, 5)))
        lat = min(89.99, max(-89.99, lat + rng.gauss(0, step)))
        lon = (lon + rng.gauss(0, step) + 180) % 360 - 180
    return positions


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """~2000 random paths as GeoJSON and as polylines (encoded by the `polyline` package, not
    by geo), and Point features for circles."""
    d = tmp_path_factory.mktemp("corpus")
    walks = random.Random(20261202)
    with open(d / "paths.ndjson", "w") as paths, open(d / "polylines.txt", "w") as polylines:
        for index in range(CORPUS_PATHS):
            positions = random_walk(walks)
            feature = {"type": "Feature", "properties": {"id": index},
                       "geometry": {"type": "LineString", "coordinates": [[lon, lat] for lat, lon in positions]}}
            paths.write(json.dumps(feature, separators=(",", ":")) + "\n")
            polylines.write(polyline.encode(positions, 5) + "\n")
    rng = random.Random(8)
    lines = []
    for i in range(1000):
        lat, lng = round(rng.uniform(-80, 80), 5), round(rng.uniform(-180, 180), 5)
        if i % 97 == 5:      # crosses the antimeridian: a MultiPolygon
            lng = 179.99995
        if i % 89 == 7:      # contains a pole
            lat = 89.99999
        point = {"type": "Point", "coordinates": [lng, lat]}
        if i % 10 == 3:      # a bare geometry becomes a Feature
            lines.append(json.dumps(point, separators=(",", ":")))
        else:
            lines.append(json.dumps({"type": "Feature", "properties": {"id": i}, "geometry": point},
                                    separators=(",", ":")))
    (d / "points.ndjson").write_text("\n".join(lines) + "\n")
    return d


def single(args, *files):
    """What one geo process writes for FILES (stdout bytes, exit status). The reference is
    checked against itself first: geo with all cores and with -j1 must agree, so that a
    mismatch below is the distributed run's, never the reference's."""
    outs = [subprocess.run([geo_bin(), *args, *jobs, *map(str, files)], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=300) for jobs in ([], ["-j1"])]
    same(outs[0].stdout, outs[1].stdout, "geo with all cores vs geo -j1 (the reference)")
    assert outs[0].returncode == outs[1].returncode
    return outs[0].stdout, outs[0].returncode


def same(got, expected, what, context=""):
    """Asserts got == expected; when not, says where they part in records, not a 100 KB diff."""
    if got == expected:
        return
    got_lines, want_lines = got.split(b"\n"), expected.split(b"\n")
    first = next((i for i, (a, b) in enumerate(zip(got_lines, want_lines)) if a != b),
                 min(len(got_lines), len(want_lines)))
    common = next((i for i, (a, b) in enumerate(zip(got, expected)) if a != b),
                  min(len(got), len(expected)))
    shape = ("a prefix of" if expected.startswith(got) else
             "longer than, starting with," if got.startswith(expected) else "different from")
    newline = b"\n"
    got_at = got_lines[first][:120] if first < len(got_lines) else b"<end>"
    want_at = want_lines[first][:120] if first < len(want_lines) else b"<end>"
    pytest.fail(
        f"{what}: output ({len(got)} bytes, {got.count(newline)} records) is {shape} the "
        f"expected ({len(expected)} bytes, {expected.count(newline)} records); they part at byte "
        f"{common}, record {first + 1} (got {got_at!r}..., want {want_at!r}...)"
        + (f"\n{context}" if context else ""), pytrace=False)


def with_bad_lines(src, dst, bad):
    """Copy SRC to DST with the (1-based) line numbers in BAD replaced by a bad record."""
    lines = src.read_bytes().split(b"\n")
    for n in bad:
        lines[n - 1] = b"bad!" if src.suffix == ".txt" else b'{"type":"Point","coordinates":[1]}'
    dst.write_bytes(b"\n".join(lines))
    return dst


# --- Spark ------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def geo_spark():
    spec = importlib.util.spec_from_file_location("geo_spark", GEO_SPARK)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def sc():
    """One SparkContext, local[2], for the in-process runs of this module."""
    _require_java()
    _require_pyspark()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark import SparkConf, SparkContext  # noqa: PLC0415

    conf = (SparkConf().setMaster("local[2]").setAppName("geo e2e")
            .set("spark.ui.enabled", "false").set("spark.ui.showConsoleProgress", "false")
            .set("spark.log.level", "ERROR"))
    context = SparkContext.getOrCreate(conf)
    yield context
    context.stop()


def part_files(out):
    parts = sorted(out.glob("part-*"))
    assert parts, f"no part files in {out}"
    assert (out / "_SUCCESS").exists()
    return parts


def spark_output(out):
    return b"".join(p.read_bytes() for p in part_files(out))


@pytest.mark.parametrize("name,args,source,split", CASES, ids=[c[0] for c in CASES])
def test_spark_matches_single_process(geo_spark, sc, corpus, tmp_path, name, args, source, split):
    out = tmp_path / "out"
    status = geo_spark.main(["--input", str(corpus / source), "--output", str(out),
                             "--geo", str(GEO_BIN), "--split-size", split, "--", *args], sc=sc)
    expected, single_status = single(args, corpus / source)
    assert (status, single_status) == (0, 0)
    assert len(part_files(out)) >= 3, "the input should be split into several partitions"
    assert expected.count(b"\n") > 0
    same(spark_output(out), expected, f"Spark ({len(part_files(out))} partitions)")


@pytest.mark.parametrize("whole_files", [False, True], ids=["lines", "whole-files"])
def test_spark_many_files_in_path_order(geo_spark, sc, corpus, tmp_path, whole_files):
    """A directory: files in sorted path order, recursively, _ and . files skipped, gzip read,
    names with glob characters and commas taken literally."""
    src = (corpus / "polylines.txt").read_bytes().splitlines(keepends=True)
    d = tmp_path / "in"
    (d / "2026" / "12").mkdir(parents=True)
    files = [d / "a,[1]{x}.txt", d / "b.txt", d / "2026" / "12" / "c.txt.gz"]
    files[0].write_bytes(b"".join(src[:300]))
    files[1].write_bytes(b"".join(src[300:1100]))
    files[2].write_bytes(gzip.compress(b"".join(src[1100:1500])))
    (d / "_SUCCESS").write_bytes(b"")
    (d / ".hidden.txt").write_bytes(b"bad!\n")
    out = tmp_path / "out"
    argv = ["--input", str(d), "--output", str(out), "--geo", str(GEO_BIN),
            "--split-size", "64k", "--", "decode"]
    if whole_files:
        argv.insert(0, "--whole-files")
    assert geo_spark.main(argv, sc=sc) == 0
    in_order = sorted(str(f) for f in files)
    expected = b"".join(single(["decode"], f)[0] if not f.endswith(".gz")
                        else subprocess.run([geo_bin(), "decode"], input=gzip.decompress(
                            Path(f).read_bytes()), capture_output=True).stdout
                        for f in in_order)
    same(spark_output(out), expected, "Spark, many files")
    parts = part_files(out)
    assert len(parts) == 3 if whole_files else len(parts) > 3


def test_spark_whole_files_is_byte_exact(geo_spark, sc, tmp_path, capsys):
    """--whole-files hands geo the file's bytes: an invalid UTF-8 byte and a lone CR are bad
    records as with geo alone (the lines mode's text reader would have let them through)."""
    src = tmp_path / "in.ndjson"
    src.write_bytes(b'{"type":"Feature","properties":{"a":"\xff"},"geometry":null}\n'
                    b'{"type":"Point","coordinates":[1,2]}\r{"type":"Point","coordinates":[3,4]}\n'
                    b'{"type":"Point","coordinates":[5,6]}\n')
    out, rejects = tmp_path / "out", tmp_path / "rejects"
    status = geo_spark.main(["--whole-files", "--input", str(src), "--output", str(out),
                             "--geo", str(GEO_BIN), "--rejects-dir", str(rejects), "--",
                             "length"], sc=sc)
    expected, single_status = single(["length"], src)
    assert (status, single_status) == (65, 65)
    same(spark_output(out), expected, "Spark")
    err = capsys.readouterr().err
    assert f"geo length: {src}:1: invalid JSON at byte 37: invalid UTF-8" in err
    assert f"geo length: {src}:2: " in err
    entries = [json.loads(x) for x in (rejects / "rejects-00000.ndjson").read_text().splitlines()]
    assert [(e["source"], e["line"]) for e in entries] == [(str(src), 1), (str(src), 2)]


def test_spark_bad_records_rejects_per_partition_and_status_65(corpus, tmp_path):
    """Run as a command (python3 geo_spark.py --master local[2]): two bad records in two
    partitions; each partition's rejects file holds its own, with the input file and its line;
    the exit status is 65 and every other record is written."""
    _require_java()
    _require_pyspark()
    bad = [2, 1700]
    src = with_bad_lines(corpus / "polylines.txt", tmp_path / "routes.txt", bad)
    out, rejects = tmp_path / "out", tmp_path / "rejects"
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    proc = subprocess.run(
        [sys.executable, str(GEO_SPARK), "--master", "local[2]", "--conf",
         "spark.ui.enabled=false", "--input", str(src), "--output", str(out), "--geo",
         str(GEO_BIN), "--rejects-dir", str(rejects), "--split-size", "256k", "--", "decode"],
        capture_output=True, text=True, env=env, timeout=SPARK_TIMEOUT)
    assert proc.returncode == 65, proc.stderr[-3000:]
    expected, single_status = single(["decode"], src)
    assert single_status == 65
    same(spark_output(out), expected, "Spark")  # all the good records, in order

    # stderr: each bad record as geo reports it, with the input file and its line there,
    # then the partitions and their statuses.
    for n in bad:
        assert re.search(rf"^geo decode: {re.escape(str(src))}:{n}: invalid polyline",
                         proc.stderr, re.M), proc.stderr[-3000:]
    parts = {int(m.group(1)): (int(m.group(2)), int(m.group(3)))
             for m in re.finditer(r"partition (\d+) \(.*?, lines (\d+)-(\d+), host .*?\): "
                                  r"exit 65, 1 bad record", proc.stderr)}
    assert len(parts) == 2, proc.stderr[-3000:]
    for index, (first, last) in parts.items():
        inside = [n for n in bad if first <= n <= last]
        assert len(inside) == 1
        rejects_file = rejects / f"rejects-{index:05d}.ndjson"
        entries = [json.loads(x) for x in rejects_file.read_text().splitlines()]
        assert [(e["source"], e["line"], e["input"]) for e in entries] == \
            [(str(src), inside[0], "bad!")]
        assert "invalid polyline" in entries[0]["error"]
    assert sorted(p.name for p in rejects.iterdir()) == \
        sorted(f"rejects-{i:05d}.ndjson" for i in parts)


def test_spark_submit_ships_the_binary_with_files(corpus, tmp_path):
    """spark-submit --files geo: no --geo, and no geo on PATH."""
    _require_java()
    submit = _spark_submit()
    path = os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep)
                           if p and not (Path(p) / "geo").exists())
    env = dict(os.environ, PATH=path, PYSPARK_PYTHON=sys.executable)
    out = tmp_path / "out"
    src = corpus / "points.ndjson"
    proc = subprocess.run(
        [submit, "--master", "local[2]", "--conf", "spark.ui.enabled=false",
         "--files", str(GEO_BIN), str(GEO_SPARK), "--input", str(src), "--output", str(out),
         "--split-size", "32k", "--", "circle-to-polygon", "--radius", "1000", "--segments", "8"],
        capture_output=True, text=True, env=env, timeout=SPARK_TIMEOUT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    expected, _ = single(["circle-to-polygon", "--radius", "1000", "--segments", "8"], src)
    same(spark_output(out), expected, "Spark")


def test_spark_geo_cannot_run(geo_spark, sc, corpus, tmp_path, capsys):
    src = str(corpus / "points.ndjson")
    # In local mode the driver's view is the executors': checked before any task runs.
    assert geo_spark.main(["--input", src, "--output", str(tmp_path / "o1"), "--geo",
                           "/nonexistent/geo", "--", "length"], sc=sc) == 69
    assert "geo not found: /nonexistent/geo" in capsys.readouterr().err
    # Not checked on the driver: the executors find out.
    assert geo_spark.main(["--input", src, "--output", str(tmp_path / "o1"), "--geo",
                           "/nonexistent/geo", "--no-preflight", "--", "length"], sc=sc) == 69
    assert "geo could not run on the executors" in capsys.readouterr().err
    # A geo whose libraries are missing: its task fails (Spark retries it elsewhere on a
    # cluster), the job exits 69 with the loader's message, and no _SUCCESS is written.
    fake = tmp_path / "geo"
    fake.write_text("#!/bin/sh\necho 'geo: error while loading shared libraries: libproj.so.25:"
                    " cannot open shared object file' >&2\nexit 127\n")
    fake.chmod(0o755)
    out = tmp_path / "o2"
    assert geo_spark.main(["--input", src, "--output", str(out), "--geo", str(fake),
                           "--no-preflight", "--", "length"], sc=sc) == 69
    err = capsys.readouterr().err
    assert "geo could not run on the executors" in err and "libproj.so.25" in err
    assert not (out / "_SUCCESS").exists()


def test_spark_usage_errors(geo_spark, corpus, tmp_path, capsys):
    """Found before Spark starts (no SparkContext is passed: none is created)."""
    src = str(corpus / "points.ndjson")
    base = ["--input", src, "--output", str(tmp_path / "o"), "--geo", str(GEO_BIN), "--"]
    assert geo_spark.main(base + ["length", "-o", "x"]) == 64
    assert "-o cannot be used" in capsys.readouterr().err
    assert geo_spark.main(base + ["length", "--no-such-option"]) == 64
    assert "--no-such-option" in capsys.readouterr().err
    assert geo_spark.main(base[:-1]) == 64
    assert not (tmp_path / "o").exists()


# --- GNU parallel -----------------------------------------------------------------------------

def run_parallel_sh(opts, geo_args, stdin_path=None, timeout=300):
    _require_parallel()
    stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
    try:
        proc = subprocess.run(["bash", str(PARALLEL_SH), "--geo", str(GEO_BIN), *opts, "--",
                               *geo_args], stdin=stdin, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=timeout)
    finally:
        if stdin_path:
            stdin.close()
    return proc.returncode, proc.stdout, proc.stderr.decode("utf-8", "replace")


def joblog_rows(path):
    rows = [line.split("\t") for line in path.read_text().splitlines()[1:]]
    return [{"seq": int(r[0]), "host": r[1], "send": int(r[4]), "receive": int(r[5]),
             "exit": int(r[6])} for r in rows]


def joblog_account(path, sent, received):
    """GNU parallel's own account of the bytes it sent each job and got back, beside what the
    test gave it and got from it: when output is lost, this says on which side. (With
    --pipepart the jobs read the file themselves and parallel records 0 bytes sent.)"""
    rows = joblog_rows(path)
    return (f"job log: {len(rows)} jobs sent {sum(r['send'] for r in rows)} bytes (input "
            f"{sent}) and received {sum(r['receive'] for r in rows)} (stdout {received}); "
            + ", ".join(f"{r['seq']}:{r['send']}>{r['receive']}/{r['exit']}" for r in rows))


@pytest.mark.parametrize("name,args,source,split", CASES, ids=[c[0] for c in CASES])
def test_parallel_matches_single_process(corpus, tmp_path, name, args, source, split):
    joblog = tmp_path / "jobs.tsv"
    status, out, err = run_parallel_sh(["-j2", "--block", split, "--joblog", str(joblog)], args,
                                       corpus / source)
    expected, single_status = single(args, corpus / source)
    assert (status, single_status) == (0, 0), err
    size = (corpus / source).stat().st_size
    same(out, expected, "parallel.sh", joblog_account(joblog, size, len(out)) + "\n" + err)
    rows = joblog_rows(joblog)
    assert len(rows) >= 4 and all(r["exit"] == 0 for r in rows)
    assert sum(r["send"] for r in rows) == size and sum(r["receive"] for r in rows) == len(out)


def test_parallel_recipe_by_hand(corpus):
    """The README's one-liner, exactly: parallel --pipe --keep-order --block SIZE geo CMD -j1."""
    _require_parallel()
    src = corpus / "polylines.txt"
    with open(src, "rb") as f:
        proc = subprocess.run(["parallel", "--will-cite", "--pipe", "--keep-order", "--block",
                               "64k", "-j2", str(GEO_BIN), "decode", "-j1"], stdin=f,
                              capture_output=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    same(proc.stdout, single(["decode"], src)[0], "the parallel one-liner",
         proc.stderr.decode("utf-8", "replace"))


def fake_ssh(tmp_path, login_shells):
    """An ssh stand-in that runs the remote command here. Like sshd it starts the command with
    the host's login shell and sets SHELL to it (GNU parallel's remote wrapper runs each job
    with $SHELL); login_shells maps a host to that shell, or to None for a host whose
    environment has no SHELL (as under `docker exec`). Each host reached is logged."""
    path = tmp_path / "fake-ssh"
    cases = "".join(f"  {host}) login={shell or ''} ;;\n" for host, shell in login_shells.items())
    path.write_text(
        "#!/bin/bash\n"
        "while [ $# -gt 0 ]; do case $1 in\n"
        "  -[BbcDEeFIiJLlmOopQRSWw]) shift 2 ;; -*) shift ;; *) break ;; esac; done\n"
        "host=$1; shift; echo \"$host\" >> \"$(dirname \"$0\")/hosts.log\"\n"
        "[ \"${1:-}\" = -- ] && shift\n"
        f"case $host in\n{cases}  *) echo \"ssh: unknown host $host\" >&2; exit 255 ;; esac\n"
        "if [ -n \"$login\" ]; then SHELL=$login exec \"$login\" -c \"$*\"; fi\n"
        "unset SHELL; exec bash -c \"$*\"\n")
    path.chmod(0o755)
    return path


def test_parallel_pipepart_over_ssh_logins(corpus, tmp_path):
    """-a FILE (--pipepart) on two "hosts", one whose login shell is bash and one whose is
    dash: each job runs here, through the same remote command line that real ssh would get."""
    ssh = fake_ssh(tmp_path, {"hostA": "/bin/bash", "hostB": "/bin/sh"})
    src = corpus / "paths.ndjson"
    joblog = tmp_path / "jobs.tsv"
    args = ["length", "--kind", "rhumb", "--field", "len gth"]  # an argument to quote remotely
    status, out, err = run_parallel_sh(
        ["--block", "256k", "-a", str(src), "--ssh", str(ssh), "-S", "1/hostA,1/hostB",
         "--joblog", str(joblog)], args)
    assert status == 0, err
    same(out, single(args, src)[0], "parallel.sh over two hosts",
         joblog_account(joblog, src.stat().st_size, len(out)) + "\n" + err)
    rows = joblog_rows(joblog)
    assert {r["host"] for r in rows} == {"hostA", "hostB"}
    # Through the stand-in: one probe per host, then every job.
    reached = (tmp_path / "hosts.log").read_text().split()
    assert sorted(reached) == sorted(["hostA", "hostB"] + [r["host"] for r in rows])


@pytest.mark.parametrize("pipepart", [False, True], ids=["pipe", "pipepart"])
def test_parallel_refuses_a_host_that_cannot_run_jobs(corpus, tmp_path, pipepart):
    """GNU parallel's remote jobs on a host without SHELL exit 0 having run nothing: the
    probe must stop the run (69, naming the host) before a block is lost."""
    ssh = fake_ssh(tmp_path, {"hostA": "/bin/bash", "noshell": None})
    src = corpus / "paths.ndjson"
    joblog = tmp_path / "jobs.tsv"
    opts = ["--ssh", str(ssh), "-S", "1/hostA,1/noshell", "--joblog", str(joblog)]
    status, out, err = run_parallel_sh(opts + (["-a", str(src)] if pipepart else []),
                                       ["length"], None if pipepart else src)
    assert (status, out) == (69, b""), err
    assert "host noshell ran a job but it printed nothing" in err and "SHELL" in err
    assert not joblog.exists(), "no block may be sent"
    assert (tmp_path / "hosts.log").read_text().split().count("noshell") == 1  # the probe


def test_parallel_refuses_a_host_without_geo(corpus, tmp_path):
    ssh = fake_ssh(tmp_path, {"hostA": "/bin/bash"})
    status, out, err = run_parallel_sh(
        ["--geo", str(tmp_path / "not-installed" / "geo"), "--ssh", str(ssh), "-S", "1/hostA"],
        ["length"], corpus / "points.ndjson")
    assert (status, out) == (69, b""), err
    assert "cannot run geo" in err and "on host hostA" in err


def test_parallel_bad_records_rejects_per_job_and_status_65(corpus, tmp_path):
    bad = [3, 1500]
    src = with_bad_lines(corpus / "paths.ndjson", tmp_path / "paths.ndjson", bad)
    rejects = tmp_path / "rejects"
    status, out, err = run_parallel_sh(["-j2", "--block", "128k", "--rejects-dir", str(rejects)],
                                       ["length"], src)
    expected, single_status = single(["length"], src)
    assert (status, single_status) == (65, 65), err
    same(out, expected, "parallel.sh", err)  # every good record, in order
    failed = [int(m.group(1)) for m in re.finditer(r"job (\d+) \(block \d+, host .*?\): exit 65",
                                                   err)]
    assert len(failed) == 2, err
    files = sorted(rejects.iterdir())
    assert sorted(int(f.name.split("-")[1]) for f in files) == sorted(failed), \
        "one rejects file per failed job, and none for the others"
    entries = [json.loads(line) for f in files for line in f.read_text().splitlines()]
    assert len(entries) == 2
    assert all(e["input"] == '{"type":"Point","coordinates":[1]}' for e in entries)
    assert len(re.findall(r"^geo length: <stdin>:\d+: ", err, re.M)) == 2


def test_parallel_usage_and_cannot_run(corpus, tmp_path):
    src = corpus / "points.ndjson"
    status, out, err = run_parallel_sh([], ["length", "--no-such-option"], src)
    assert (status, out) == (64, b"") and "--no-such-option" in err
    status, out, err = run_parallel_sh([], ["length", "--output", "x"], src)
    assert (status, out) == (64, b"")
    fake = tmp_path / "geo"
    fake.write_text("#!/bin/sh\necho 'error while loading shared libraries: libproj.so.25' >&2\n"
                    "exit 127\n")
    fake.chmod(0o755)
    proc = subprocess.run(["bash", str(PARALLEL_SH), "--geo", str(fake), "--", "length"],
                          stdin=open(src, "rb"), capture_output=True, text=True, timeout=60)
    assert proc.returncode == 69 and "libproj.so.25" in proc.stderr


# --- tiles: one pyramid from subtrees, each drawn from its own records --------------------------

TILES_SH = DIST / "tiles.sh"
TILES_SPARK = DIST / "tiles_spark.py"
SUMMARY = re.compile(r"([\d,]+) records; ([\d,]+) subtree (?:tasks|jobs) read ([\d,]+) lines")


@pytest.fixture(scope="module")
def tile_input(tmp_path_factory):
    """Routes over Europe and one across the antimeridian, as the tiles' input."""
    rng = random.Random(7)
    lines = []
    for index in range(300):
        lon, lat = rng.uniform(-10, 30), rng.uniform(36, 60)
        coordinates = [[lon, lat]]
        for _ in range(rng.randint(2, 30)):
            lon += rng.uniform(-0.3, 0.3)
            lat += rng.uniform(-0.2, 0.2)
            coordinates.append([round(lon, 6), round(lat, 6)])
        lines.append({"type": "Feature", "properties": {"stroke": ["red", "#1f77b4"][index % 2], "stroke-width": 1 + index % 4},
                      "geometry": {"type": "LineString", "coordinates": coordinates}})
    lines.append({"type": "Feature", "properties": {}, "geometry": {"type": "LineString", "coordinates": [[170, -40], [-170, -35]]}})
    path = tmp_path_factory.mktemp("tiles") / "routes.ndjson"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


@pytest.fixture(scope="module")
def europe(tmp_path_factory):
    """bench/tiles.py's Europe corpus (20,000 seeded GPS-like paths), made by its own generator."""
    spec = importlib.util.spec_from_file_location("bench_tiles", REPO / "bench" / "tiles.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    bench.OUT = tmp_path_factory.mktemp("europe")
    bench.make_corpus("europe", 20000, regional=False)
    return bench.OUT / "europe.ndjson"


def lines_read(stderr):
    """(records, lines the subtree tasks read) from the recipe's summary line."""
    found = SUMMARY.search(stderr)
    assert found, stderr
    return int(found[1].replace(",", "")), int(found[3].replace(",", ""))


@pytest.mark.parametrize("out", ["spark.mbtiles", "spark.pmtiles"])
def test_tiles_spark_is_one_run_s_pyramid_and_no_task_reads_more_than_its_records(europe, tmp_path, out):
    """local[4], the Europe corpus at zooms 0-10 split at 6: the tiles a single run makes, and
    the subtree tasks read at most 1.5 times the input's records between them."""
    _require_java()
    _require_pyspark()
    single = tmp_path / ("single" + Path(out).suffix)
    subprocess.run([geo_bin(), "tiles", "--zoom", "0-10", "-o", single, europe], check=True)
    result = subprocess.run([sys.executable, str(TILES_SPARK), "--master", "local[4]", "--zoom", "0-10", "--split", "6",
                             "--input", str(europe), "--output", str(tmp_path / out), "--geo", geo_bin()],
                            capture_output=True, text=True, timeout=SPARK_TIMEOUT,
                            env={**os.environ, "PYSPARK_PYTHON": sys.executable})
    assert result.returncode == 0, result.stderr[-3000:]
    expected = tiles_of(single)
    assert len(expected) > 10000
    assert tiles_of(tmp_path / out) == expected
    records, lines = lines_read(result.stderr)
    assert records == 20000 and records < lines <= 1.5 * records
    assert not (tmp_path / f"{out}.parts").exists()


def test_tiles_spark_reports_bad_records_as_65(sc, tile_input, tmp_path):
    """In this process, on the module's SparkContext: the worst status is the job's."""
    spec = importlib.util.spec_from_file_location("tiles_spark", TILES_SPARK)
    tiles_spark = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tiles_spark)
    source = tmp_path / "bad.ndjson"
    source.write_text(tile_input.read_text() + '{"type":"Point","coordinates":[10,95]}\n')
    status, counts = tiles_spark.make_pyramid(sc, geo_bin(), str(source), 0, 5, 2, tmp_path / "out.mbtiles")
    assert status == 65 and counts["records"] == 302
    single = tmp_path / "single.mbtiles"
    subprocess.run([geo_bin(), "tiles", "-q", "--zoom", "0-5", "-o", single, source], stderr=subprocess.DEVNULL)
    assert tiles_of(tmp_path / "out.mbtiles") == tiles_of(single)
    assert not (tmp_path / "out.mbtiles.parts").exists()


@pytest.mark.parametrize("out", ["merged", "merged.pmtiles"])
def test_tiles_sh_is_one_run_s_pyramid(tile_input, tmp_path, out):
    _require_parallel()
    single = tmp_path / ("single" + Path(out).suffix)
    subprocess.run([geo_bin(), "tiles", "--zoom", "0-7", "-o", single, tile_input], check=True)
    result = subprocess.run([str(TILES_SH), "--zoom", "0-7", "--split", "3", "--jobs", "2", "-o", tmp_path / out, tile_input],
                            env={**os.environ, "GEO": geo_bin()}, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    expected = tiles_of(single)
    assert len(expected) > 100
    assert tiles_of(tmp_path / out) == expected
    records, lines = lines_read(result.stderr)
    assert records == 301 and records <= lines <= 1.5 * records
    result = subprocess.run([str(TILES_SH), "--zoom", "0-7", "--split", "3", "-o", tmp_path / out, tile_input],
                            env={**os.environ, "GEO": geo_bin()}, capture_output=True, text=True, timeout=600)
    assert result.returncode == 73 and "--force" in result.stderr


def test_tiles_sh_reports_bad_records_as_65(tile_input, tmp_path):
    _require_parallel()
    source = tmp_path / "bad.ndjson"
    source.write_text(tile_input.read_text() + '{"type":"Point","coordinates":[10,95]}\n')
    result = subprocess.run([str(TILES_SH), "--zoom", "0-5", "--split", "2", "-o", tmp_path / "out", source],
                            env={**os.environ, "GEO": geo_bin()}, capture_output=True, text=True, timeout=600)
    assert result.returncode == 65, result.stderr
    assert result.stderr.count(":302: ") == 1  # reported once, by the partitioning run
    assert tiles_of(tmp_path / "out")
