#!/usr/bin/env python3
"""Side-by-side benchmark: geo against two sets of Python peers from ../shared/bench/.

The peer sets (PEER_SETS): `python`, ../shared/bench/peers.py (the `polyline` package + json,
pyproj + json, as users would script them), and `fast`, ../shared/bench/peers_fast.py (the
fastest a Python user would reach for: Rust-backed pypolyline, orjson, pyproj). Missing peer
packages are installed with pip first (--no-install: say which, and stop).

For every job in JOBS it runs each peer and geo (all cores, then -j1) --runs times, timing each
process (wall clock: median, min-max) and reading its peak RSS from os.wait4, checks that geo's
answers agree with every peer's, then streams a big input (~--big-mb MB made by repeating the
corpus) through geo to check that memory stays flat. Prints a markdown report and whether the
goals are met (GOALS: speed-up of geo on all cores over each peer set, per job; geo's peak RSS
under 32 MB whatever the input size); --readme-table prints the README's speed table from the
last run's bench/out/results.json.

With the length job it also measures the floor for one core: bench/geod_floor.c (built into
bench/out/geod_floor with `cc -O2 ... -lproj` when missing or older than its source) times
PROJ's geod_inverse over every edge of the corpus (read into memory first; best of 3), and
compares geo -j1 with it. And, unless --no-cli-peers, it times PROJ's `geod -I` and
GeographicLib's `GeodSolve -i` once each on the same edges as text (several seconds each).
The edge lists (bench/out/edges.bin, doubles lat1 lon1 lat2 lon2; bench/out/edges.txt, the
same as text lines) are made once from paths.ndjson and rebuilt when it is newer.

Exit status: 0 when all answers agree (1 on any mismatch or failed command; with
--check-goals, 2 when they agree but a goal is missed).

usage: python3 bench/run.py [--corpus DIR] [--shared DIR] [--geo PATH] [--runs N]
                            [--big-mb N] [--only decode,encode,length] [--peers python,fast]
                            [--no-install] [--no-cli-peers] [--wait-quiet S] [--retry-noisy N]
                            [--check-goals]
       python3 bench/run.py --readme-table

geo is run from a copy (bench/out/geo-under-test) taken at the start, so a rebuild during the
run cannot mix two builds. For every run the CPU time other processes took meanwhile is
measured and reported; --wait-quiet / --retry-noisy wait for, and redo runs spoiled by, them.

MB here is 2^20 bytes (ru_maxrss is in KiB). Everything is written under bench/out/.
"""
import argparse
import array
import datetime
import decimal
import filecmp
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
OUT = BENCH / "out"
MB = 1 << 20

RSS_GOAL_MB = 32.0       # geo peak RSS, any input size (issue 15)
LENGTH_TOL_M = 1e-6      # length job: |geo length_m - peer length_m| per feature


# ---------------------------------------------------------------- answer checks
# A checker gets the peer's output and geo's output (paths) and returns None when they agree,
# or (line number, peer line, geo line, reason) for the first disagreement plus a count. It may
# also put figures (max difference, sums) into the `stats` dict it is given.

def _lines(path):
    with open(path, "rb") as f:
        for line in f:
            yield line.rstrip(b"\n")


def _compare_lines(peer_out, geo_out, same):
    """Walk both files line by line; `same(a, b)` returns None or a reason string."""
    first, bad, n = None, 0, 0
    pi, gi = _lines(peer_out), _lines(geo_out)
    while True:
        a, b = next(pi, None), next(gi, None)
        if a is None and b is None:
            break
        n += 1
        if a is None or b is None:
            reason = "geo has extra lines" if a is None else "geo output ends early"
        else:
            reason = same(a, b)
        if reason is not None:
            bad += 1
            if first is None:
                first = (n, a, b, reason)
            if a is None or b is None:
                # count the rest of the longer file as mismatches and stop
                bad += sum(1 for _ in (gi if a is None else pi))
                break
    return None if first is None else {"first": first, "count": bad, "lines": n}


def _geometry(line):
    rec = json.loads(line)
    geom = rec.get("geometry") if isinstance(rec, dict) else None
    if not isinstance(geom, dict):
        return None, None
    return geom.get("type"), geom.get("coordinates")


def _num(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _coord_diff(a, b, where=""):
    """None when equal as exact floats (nested lists of numbers), else where they first differ."""
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b)):
            d = _coord_diff(x, y, f"{where}[{i}]")
            if d:
                return d
        if len(a) != len(b):
            return f"coordinates{where}: {len(a)} vs {len(b)} items"
        return None
    if _num(a) and _num(b):
        return None if float(a) == float(b) else f"coordinates{where}: {a!r} vs {b!r}"
    return None if a == b else f"coordinates{where}: {a!r} vs {b!r}"


def same_geojson_geometry(a, b):
    try:
        ta, ca = _geometry(a)
    except ValueError as e:
        return f"peer line is not JSON ({e})"
    try:
        tb, cb = _geometry(b)
    except ValueError as e:
        return f"geo line is not JSON ({e})"
    if ta != tb:
        return f"geometry type {ta!r} vs {tb!r}"
    return _coord_diff(ca, cb)


def same_bytes(a, b):
    if a == b:
        return None
    col = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return f"lines differ from byte {col} (lengths {len(a)} vs {len(b)})"


def check_decode(peer_out, geo_out, stats=None):
    return _compare_lines(peer_out, geo_out, same_geojson_geometry)


def check_encode(peer_out, geo_out, stats=None):
    return _compare_lines(peer_out, geo_out, same_bytes)


def check_length(peer_out, geo_out, stats=None):
    """properties.length_m within LENGTH_TOL_M; the rest of the Feature equal as parsed JSON.

    stats gets max_abs_diff_m (and the line it is on), and the fsum of length_m of each side."""
    st = stats if stats is not None else {}
    st.update(max_abs_diff_m=0.0, max_diff_line=0, peer_sum_m=0.0, geo_sum_m=0.0, features=0)
    peer_vals, geo_vals, n = [], [], [0]

    def length_of(rec):
        props = rec.get("properties") if isinstance(rec, dict) else None
        if not isinstance(props, dict) or "length_m" not in props:
            return None, "no properties.length_m"
        v = props.pop("length_m")
        return (v, None) if _num(v) else (None, f"length_m is {v!r}")

    def same(a, b):
        n[0] += 1
        try:
            ra = json.loads(a)
        except ValueError as e:
            return f"peer line is not JSON ({e})"
        try:
            rb = json.loads(b)
        except ValueError as e:
            return f"geo line is not JSON ({e})"
        va, why = length_of(ra)
        if why:
            return f"peer: {why}"
        vb, why = length_of(rb)
        if why:
            return f"geo: {why}"
        peer_vals.append(va)
        geo_vals.append(vb)
        d = abs(float(va) - float(vb))
        if not d <= st["max_abs_diff_m"]:           # also catches NaN
            st["max_abs_diff_m"], st["max_diff_line"] = d, n[0]
        if not d <= LENGTH_TOL_M:
            return f"length_m {va!r} vs {vb!r}: differ by {d:.3g} m > {LENGTH_TOL_M:g} m"
        if ra != rb:
            keys = sorted(set(ra) | set(rb)) if isinstance(ra, dict) and isinstance(rb, dict) else []
            diff = [k for k in keys if ra.get(k) != rb.get(k)]
            return ("the Feature differs apart from length_m"
                    + (f" (members: {', '.join(diff)})" if diff else ""))
        return None

    m = _compare_lines(peer_out, geo_out, same)
    st["features"] = len(geo_vals)
    st["peer_sum_m"], st["geo_sum_m"] = math.fsum(peer_vals), math.fsum(geo_vals)
    return m


# ---------------------------------------------------------------- peers and jobs
# A peer set is a script in ../shared/bench/ that takes `MODE CORPUS_DIR` and writes the job's
# output to stdout, the packages it imports (pip name: import name), and what it uses per job
# (for the report).

PEER_SETS = {
    "python": dict(script="peers.py", packages={"polyline": "polyline", "pyproj": "pyproj"},
                   label="pure Python", uses={"decode": "`polyline` + `json`",
                                              "encode": "`polyline` + `json`",
                                              "length": "pyproj `Geod.line_length` + `json`"}),
    "fast": dict(script="peers_fast.py",
                 packages={"pypolyline": "pypolyline", "orjson": "orjson", "pyproj": "pyproj"},
                 label="fastest", uses={"decode": "`pypolyline` (Rust) + `orjson`",
                                        "encode": "`pypolyline` (Rust) + `orjson`",
                                        "length": "pyproj `Geod.line_length` + `orjson`"}),
}

# To add a job (interpolate, ...): add an entry. `mode` is the peers' mode; `geo` builds geo's
# argv; `input` is the corpus file the job reads (also what is repeated for the big-input test);
# `check` compares outputs; `goals` the speed-up geo (all cores) must reach over each peer set
# (decode, encode, length ≥ 20x, 20x, 4x the pure-Python peers from the first issues; ≥ 8x, 8x,
# 3x the fastest ones from issue 15). `geo_big` builds the geo argv for the big input (None:
# no big-input test for this job).

JOBS = {
    "decode": dict(
        what="polylines → GeoJSON NDJSON",
        title="decode 20,000 polylines to GeoJSON",
        input="polylines.txt",
        mode="decode",
        geo=lambda ctx, path: [ctx.geo, "decode", str(path)],
        check=check_decode,
        goals={"python": 20.0, "fast": 8.0},
    ),
    "encode": dict(
        what="GeoJSON NDJSON → polylines",
        title="encode 20,000 GeoJSON paths to polylines",
        input="paths.ndjson",
        mode="encode",
        geo=lambda ctx, path: [ctx.geo, "encode", str(path)],
        check=check_encode,
        goals={"python": 20.0, "fast": 8.0},
    ),
    "length": dict(
        what="geodesic length of every path (WGS84) → GeoJSON NDJSON with properties.length_m",
        title="geodesic length of the same paths (2 M edges, WGS84)",
        input="paths.ndjson",
        mode="length-geodesic",
        geo=lambda ctx, path: [ctx.geo, "length", str(path)],
        check=check_length,
        goals={"python": 4.0, "fast": 3.0},
    ),
}
for _job in JOBS.values():
    _job.setdefault("geo_big", _job["geo"])


# ---------------------------------------------------------------- measuring

class Failed(Exception):
    pass


# Peak RSS. Linux charges a child's ru_maxrss with the memory of the process it was forked from
# (with vfork/posix_spawn, which subprocess uses, even with that process's high-water mark):
# measured straight from this script, /bin/true "uses" 10-100 MB. So the command is started by a
# small /bin/sh in the background, this script is made a child subreaper, and once sh has exited
# the command is re-parented to us and os.wait4 on its pid gives its own peak RSS (/bin/true:
# ~1 MB). Without prctl (not Linux) it falls back to a direct child, RSS then overstated.

_LAUNCH = 'out=$1 err=$2; shift 2; "$@" </dev/null >"$out" 2>"$err" & echo $!'


def _subreaper():
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(36, 1, 0, 0, 0) == 0          # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        return False


SUBREAPER = _subreaper()


# Other work on the machine. The load average also counts this benchmark's own processes (a run
# that keeps both cores busy leaves it above 1 for a minute), so each run also measures the CPU
# time that did *not* go to the command: busy time from /proc/stat (steal included) minus the
# command's own user+system time from wait4, over the wall time = cores' worth of other work.

OTHER_CPU = []                  # (what, wall s, other cores on average, kept), one entry a run
NOISE = {"retries": 0, "limit": 0.25, "wait": 0.0}   # set from --retry-noisy / --wait-quiet
TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _busy_s():
    try:
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    # user nice system idle iowait irq softirq steal (guest is already in user)
    return (sum(v[:8]) - v[3] - v[4]) / TICK


def wait_quiet(limit_s, what, threshold=0.15, quiet_s=3):
    """Wait (at most limit_s seconds) until other processes have used under `threshold` cores in
    each of `quiet_s` consecutive 1-second samples. Returns the seconds waited."""
    if limit_s <= 0 or _busy_s() is None:
        return 0.0
    t0 = time.perf_counter()
    told, calm = False, 0
    while True:
        b0 = _busy_s()
        time.sleep(1.0)
        used = _busy_s() - b0
        calm = calm + 1 if used < threshold else 0
        waited = time.perf_counter() - t0
        if calm >= quiet_s:
            return waited
        if waited >= limit_s:
            say(f"still {used:.2f} cores busy after {waited:.0f} s; going on with {what}")
            return waited
        if used >= threshold and not told:
            say(f"other processes use {used:.2f} cores; waiting before {what} "
                f"(up to {limit_s:.0f} s) ...")
            told = True


def run(argv, stdout_path, stderr_path):
    """Run argv with stdout and stderr to files; return (wall seconds, peak RSS in KiB).

    With --retry-noisy N, a run during which other processes took more than NOISE["limit"]
    cores is thrown away and made again (after waiting for quiet), at most N times."""
    for attempt in range(NOISE["retries"] + 1):
        before = len(OTHER_CPU)
        wall, kib = _run_once(argv, stdout_path, stderr_path)
        what, _, other = OTHER_CPU[-1][:3] if len(OTHER_CPU) > before else ("", 0, 0.0)
        if other <= NOISE["limit"] or attempt == NOISE["retries"]:
            return wall, kib
        OTHER_CPU[-1] = (*OTHER_CPU[-1][:3], False)
        say(f"  other processes took {other:.2f} cores during {what} ({wall:.2f} s); "
            f"measuring it again ({attempt + 1}/{NOISE['retries']})")
        wait_quiet(max(NOISE["wait"], 60), what)
    return wall, kib


def _run_once(argv, stdout_path, stderr_path):
    argv = [str(a) for a in argv]
    # Each run writes a new file. Truncating the last run's output instead made ext4 start
    # writing the file back when it was closed (its auto_da_alloc heuristic for files rewritten
    # in place), inside the timed run: 20-28 ms more for a 42 MB output, whoever wrote it.
    for path in (stdout_path, stderr_path):
        if str(path) != os.devnull and os.path.isfile(path):
            os.unlink(path)
    busy0 = _busy_s()
    t0 = time.perf_counter()
    if SUBREAPER:
        sh = subprocess.run(["/bin/sh", "-c", _LAUNCH, "sh", str(stdout_path), str(stderr_path), *argv],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)
        pid = int(sh.stdout)
    else:
        with open(stdout_path, "wb") as out, open(stderr_path, "wb") as err:
            p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        pid = p.pid
    _, status, ru = os.wait4(pid, 0)
    wall = time.perf_counter() - t0
    busy1 = _busy_s()
    if busy0 is not None and busy1 is not None and wall > 0:
        other = max(0.0, busy1 - busy0 - ru.ru_utime - ru.ru_stime)
        OTHER_CPU.append((Path(stdout_path).name if str(stdout_path) != os.devnull
                          else Path(argv[-1]).name, wall, other / wall, True))
    if not SUBREAPER:
        p.returncode = os.waitstatus_to_exitcode(status)   # we reaped it, tell Popen
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        tail = Path(stderr_path).read_bytes()[-2000:].decode("utf-8", "replace")
        raise Failed(f"{' '.join(argv)} exited {code}\n{tail}")
    return wall, ru.ru_maxrss


def say(*a):
    print(*a, file=sys.stderr, flush=True)


def machine():
    model = "unknown"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        ncpu = len(os.sched_getaffinity(0))
    except AttributeError:
        ncpu = os.cpu_count()
    mem = ""
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal:"):
                mem = f", {int(line.split()[1]) / MB:.0f} GB RAM"
    except OSError:
        pass
    return f"{ncpu} cores (nproc), {model}{mem}, {platform.system()} {platform.release()}"


def geo_version(geo):
    try:
        return subprocess.run([geo, "--version"], capture_output=True, text=True,
                              timeout=10).stdout.strip() or "?"
    except (OSError, subprocess.SubprocessError):
        return "?"


def binary_info(geo):
    """(mtime, size) of the binary, to notice a rebuild during the run."""
    st = os.stat(geo)
    return st.st_mtime_ns, st.st_size


def snapshot_binary(src):
    """Copy the geo binary to OUT/geo-under-test and return (copy, (mtime, size) of src, sha256
    prefix). Every run uses the copy, so a rebuild of src during the benchmark cannot mix two
    builds. Waits until src is at least 5 s old and unchanged across the copy (not mid-link)."""
    import hashlib
    dst = OUT / "geo-under-test"
    for _ in range(60):
        info = binary_info(src)
        if time.time() - info[0] / 1e9 < 5:
            time.sleep(2)
            continue
        shutil.copy2(src, dst)
        if binary_info(src) == info:
            break
    else:
        raise SystemExit(f"{src} keeps changing; not benchmarking a binary that is being rebuilt")
    digest = hashlib.sha256(dst.read_bytes()).hexdigest()[:12]
    return str(dst), info, digest


def peer_versions():
    from importlib import metadata
    out = []
    for pkg in sorted({p for ps in PEER_SETS.values() for p in ps["packages"]}):
        try:
            v = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            v = "not installed"
        if pkg == "pyproj" and v != "not installed":
            v += " (PROJ " + version_of([sys.executable, "-c", "import pyproj; print(pyproj.proj_version_str)"]) + " bundled)"
        out.append(f"{pkg} {v}")
    return ", ".join(out)


def git_head():
    try:
        return subprocess.run(["git", "-C", str(REPO), "describe", "--always", "--dirty"],
                              capture_output=True, text=True, timeout=10).stdout.strip() or "?"
    except (OSError, subprocess.SubprocessError):
        return "?"


def check_shared(shared, peer_sets):
    """Stops with a clear message when the shared folder (or a script in it) is missing."""
    need = ["make_corpus.py"] + [PEER_SETS[n]["script"] for n in peer_sets]
    missing = [n for n in need if not (shared / "bench" / n).is_file()]
    if not missing:
        return
    where = (f"{shared} does not exist" if not shared.is_dir()
             else f"{shared}/bench/ has no {', '.join(missing)}")
    raise SystemExit(
        f"run.py: the shared folder is missing: {where}.\n"
        f"It is the workspace folder beside the repository (bench/make_corpus.py makes the corpus; "
        f"bench/peers.py and bench/peers_fast.py are the peers); a clone of the repository does "
        f"not have it. Pass a copy with --shared DIR.")


def ensure_peer_packages(peer_sets, install):
    """Imports every peer set's packages in a child Python; installs the missing ones with pip
    (unless install is False). Returns {peer set: reason it cannot run} for the ones that still
    cannot."""
    def missing(pkgs):
        return [pip for pip, mod in pkgs.items()
                if subprocess.run([sys.executable, "-c", f"import {mod}"], capture_output=True).returncode]
    broken = {}
    for name in peer_sets:
        gone = missing(PEER_SETS[name]["packages"])
        if gone and install:
            say(f"peers '{name}' need {', '.join(gone)}: pip install {' '.join(gone)} ...")
            for extra in ([], ["--break-system-packages"]):   # the second for an externally managed Python
                if subprocess.run([sys.executable, "-m", "pip", "install", "-q", *extra, *gone]).returncode == 0:
                    break
            gone = missing(PEER_SETS[name]["packages"])
        if gone:
            broken[name] = (f"the {PEER_SETS[name]['label']} peers ({PEER_SETS[name]['script']}) need "
                            f"{', '.join(gone)}: run `{Path(sys.executable).name} -m pip install "
                            f"{' '.join(gone)}`" + ("" if install else " (or leave out --no-install)"))
    return broken


def ensure_corpus(ctx):
    need = {j["input"] for j in ctx.jobs.values()}
    if all((ctx.corpus / n).is_file() for n in need):
        return
    script = ctx.shared / "bench" / "make_corpus.py"
    say(f"generating the corpus into {ctx.corpus} with {script} ...")
    subprocess.run([sys.executable, str(script), str(ctx.corpus)], check=True)


def ensure_big(src, big_mb):
    """OUT/big-<name>: src repeated to about big_mb MB; reused when already the right size."""
    size = src.stat().st_size
    copies = max(1, round(big_mb * MB / size))
    dst = OUT / f"big-{src.name}"
    want = copies * size
    if dst.is_file() and dst.stat().st_size == want:
        return dst, copies
    say(f"building {dst.name}: {copies} copies of {src.name} ({want / MB:.0f} MB) ...")
    tmp = dst.with_suffix(dst.suffix + ".tmp")
    with open(tmp, "wb") as f:
        for _ in range(copies):
            with open(src, "rb") as g:
                shutil.copyfileobj(g, f, 1 << 20)
    os.replace(tmp, dst)
    return dst, copies


# ---------------------------------------------------------------- the length floor and CLI peers

def _deg_text(x):
    """A coordinate as text both geod and GeodSolve read back to the same double: the shortest
    repr, written out positionally (GeodSolve misreads exponents: "1e-05")."""
    r = repr(x)
    return r if "e" not in r and "E" not in r else format(decimal.Decimal(r), "f")


def ensure_edges(paths):
    """OUT/edges.bin (4 doubles a edge: lat1 lon1 lat2 lon2) and OUT/edges.txt (the same as text
    lines), every consecutive vertex pair of every LineString in paths (GeoJSON is lon, lat).
    Rebuilt when missing or older than paths. Returns (bin, txt, number of edges)."""
    bin_, txt = OUT / "edges.bin", OUT / "edges.txt"
    src_mtime = paths.stat().st_mtime_ns
    if all(p.is_file() and p.stat().st_mtime_ns >= src_mtime for p in (bin_, txt)):
        return bin_, txt, bin_.stat().st_size // 32
    say(f"writing the edge lists {bin_.name} and {txt.name} from {paths.name} ...")
    n = 0
    tmp_bin, tmp_txt = OUT / (bin_.name + ".tmp"), OUT / (txt.name + ".tmp")
    with open(paths, "rb") as f, open(tmp_bin, "wb") as fb, open(tmp_txt, "w") as ft:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            geom = json.loads(line).get("geometry") or {}
            if geom.get("type") != "LineString":
                raise Failed(f"{paths}:{lineno}: edge lists need LineStrings, got {geom.get('type')!r}")
            cs = geom["coordinates"]
            buf, out = array.array("d"), []
            for (lon1, lat1, *_), (lon2, lat2, *_) in zip(cs, cs[1:]):
                buf.extend((lat1, lon1, lat2, lon2))
                out.append(f"{_deg_text(float(lat1))} {_deg_text(float(lon1))} "
                           f"{_deg_text(float(lat2))} {_deg_text(float(lon2))}\n")
            buf.tofile(fb)
            ft.writelines(out)
            n += len(out)
    os.replace(tmp_bin, bin_)
    os.replace(tmp_txt, txt)
    return bin_, txt, n


def ensure_floor_binary():
    """bench/out/geod_floor, compiled from bench/geod_floor.c when missing or older."""
    src, exe = BENCH / "geod_floor.c", OUT / "geod_floor"
    if exe.is_file() and exe.stat().st_mtime_ns >= src.stat().st_mtime_ns:
        return exe
    argv = ["cc", "-O2", str(src), "-lproj", "-o", str(exe)]
    say("compiling: " + " ".join(argv))
    p = subprocess.run(argv, capture_output=True, text=True)
    if p.returncode != 0:
        raise Failed(f"{' '.join(argv)} exited {p.returncode}\n{p.stderr[-2000:]}")
    return exe


def measure_floor(edges_bin):
    """Run geod_floor (its own best-of-3 timing); returns its key/value output as a dict."""
    exe = ensure_floor_binary()
    out = OUT / "floor.out"
    wall, kib = run([exe, edges_bin, 3], out, OUT / "floor.err")
    r = {"process_s": wall, "kib": kib}
    for line in out.read_text().splitlines():
        k, _, v = line.partition(" ")
        r[k] = [float(x) for x in v.split(",")] if k == "passes" else float(v)
    return r


def version_of(argv, pick=lambda s: s):
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=20)
        return pick((p.stdout + p.stderr).strip()) or "?"
    except (OSError, subprocess.SubprocessError):
        return "?"


# name, argv on the text edge list, distance column (0-based), how to get the version
CLI_PEERS = [
    ("geod -I (PROJ CLI)", lambda txt: ["geod", "+ellps=WGS84", "-I", "-f", "%.10f", str(txt)], 2,
     lambda: "PROJ " + version_of(["proj"], lambda s: s.split(",")[0].replace("Rel. ", ""))),
    ("GeodSolve -i -p 9 (GeographicLib)", lambda txt: ["GeodSolve", "-i", "-p", "9", "--input-file", str(txt)], 2,
     lambda: version_of(["GeodSolve", "--version"], lambda s: s.split("version")[-1].strip())),
]


def measure_cli_peers(edges_txt, n_edges):
    """Time each CLI peer once on the text edge list; check its line count, sum its distances."""
    res = []
    for i, (name, argv, col, ver) in enumerate(CLI_PEERS):
        out = OUT / f"length.cli{i}.out"
        say(f"[length] {name} on {n_edges} edges ...")
        r = {"name": name, "argv": " ".join(argv("edges.txt")), "version": ver()}
        try:
            r["s"], r["kib"] = run(argv(edges_txt), out, OUT / f"length.cli{i}.err")
        except Failed as e:
            r["error"] = str(e)
            res.append(r)
            continue
        lines, vals, bad = 0, [], 0
        with open(out) as f:
            for line in f:
                lines += 1
                try:
                    vals.append(float(line.split()[col]))
                except (IndexError, ValueError):
                    bad += 1
        r.update(lines=lines, unparsed=bad, sum_m=math.fsum(vals), ns_per_edge=r["s"] * 1e9 / n_edges)
        say(f"[length] {name}: {r['s']:.2f} s, {lines} lines, {r['kib'] / 1024:.1f} MB")
        out.unlink()                      # ~100 MB of text, not needed once counted
        res.append(r)
    return res


def fmt_mismatch(job, who, peer, m):
    n, a, b, reason = m["first"]
    show = lambda x: "(none)" if x is None else x.decode("utf-8", "replace")
    return (f"FAIL {job}: {who} disagrees with {peer} on {m['count']} of {m['lines']} lines; "
            f"first at line {n} ({reason}):\n  peer: {show(a)}\n  geo:  {show(b)}")


def timed_interleaved(contenders, runs, wait_s, what):
    """Runs every contender (key, argv, out, label) once a round, `runs` rounds, stdout to its
    `out`; {key: {"s": median wall s, "runs": every wall s, "kib": highest peak RSS}}. Rounds
    interleave the contenders, as bench/render.py does: this VM drifts by 20-30 % over a minute,
    and runs made one contender after another compared the peer in one state with geo in
    another."""
    walls = {key: [] for key, *_ in contenders}
    rss = {key: [] for key, *_ in contenders}
    for i in range(runs):
        wait_quiet(wait_s, f"{what} round {i + 1}")
        for key, argv, out, label in contenders:
            w, k = run(argv, out, out.with_suffix(".err"))
            walls[key].append(w)
            rss[key].append(k)
            say(f"{label} run {i + 1}: {w:.3f} s, {k / 1024:.1f} MB")
    return {key: {"s": statistics.median(walls[key]), "runs": walls[key], "kib": max(rss[key])}
            for key in walls}


def spread(t, digits=3):
    """A timing as `median (min–max)`."""
    return f"{t['s']:.{digits}f} ({min(t['runs']):.{digits}f}–{max(t['runs']):.{digits}f})"


def readme_table(res):
    """The README's speed table (## Speed) from a run's results.json: one row per job and peer
    set, the CLI peers of the length job, geo's and the peer's peak RSS."""
    cores = res["cores"]
    lines = [f"Measured {res['date'][:10]} ({res['machine']}; geo {res['geo_sha256_prefix']}…, "
             f"repo at {res['repo']}), `python3 bench/run.py`: median (min–max) of {res['runs']} runs "
             f"each, every answer checked against every peer's:", "",
             f"| job | peer | peer time s | geo s, {cores} cores | geo s, 1 core | speed-up "
             f"({cores} cores / 1) | peak memory MB: peer / geo |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for name, r in res["jobs"].items():
        if "geo_all" not in r:
            continue
        geo_mb = max(r["geo_all"]["kib"], r["geo_j1"]["kib"]) / 1024
        for peer, p in r["peers"].items():
            lines.append(f"| {JOBS[name]['title']} | {PEER_SETS[peer]['uses'][name]} ({PEER_SETS[peer]['label']}) "
                         f"| {spread(p, 2)} "
                         f"| {spread(r['geo_all'])} | {spread(r['geo_j1'])} "
                         f"| {p['speedup_all']:.1f}× / {p['speedup_j1']:.1f}× | {p['kib'] / 1024:.0f} / {geo_mb:.0f} |")
        cli = [c for c in r.get("cli_peers") or [] if "s" in c]
        if cli:
            lines.append(f"| the same {r['edges']:,} geodesic inverses | "
                         + " / ".join(f"`{c['argv'].split()[0]}`" for c in cli) + " | "
                         + " / ".join(f"{c['s']:.2f}" for c in cli) + f" | {r['geo_all_s']:.3f} | | "
                         + " / ".join(f"{c['s'] / r['geo_all_s']:.1f}×" for c in cli) + " | "
                         + " / ".join(f"{c['kib'] / 1024:.0f}" for c in cli) + f" / {geo_mb:.0f} |")
    if res.get("failures"):
        lines += ["", "(this run had failures: " + "; ".join(f.splitlines()[0] for f in res["failures"]) + ")"]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, default=OUT / "corpus",
                    help="corpus folder (default bench/out/corpus, generated if missing)")
    ap.add_argument("--shared", type=Path, default=REPO.parent / "shared",
                    help="the shared folder with bench/make_corpus.py and bench/peers.py "
                         "(default <repo>/../shared)")
    ap.add_argument("--geo", default=str(REPO / ".build" / "release" / "geo"))
    ap.add_argument("--runs", type=int, default=5,
                    help="runs of geo per setting and of each peer; the median is reported, with "
                         "the spread (min-max)")
    ap.add_argument("--big-mb", type=int, default=1024,
                    help="size of the big input for the memory test (0 skips it)")
    ap.add_argument("--only", default=",".join(JOBS), help=f"jobs to run (of {','.join(JOBS)})")
    ap.add_argument("--peers", default=",".join(PEER_SETS),
                    help=f"peer sets to run (of {','.join(PEER_SETS)})")
    ap.add_argument("--no-install", action="store_true",
                    help="do not pip install missing peer packages: say which and leave that peer set out")
    ap.add_argument("--readme-table", action="store_true",
                    help="print the README's speed table from bench/out/results.json (the last run) "
                         "and exit")
    ap.add_argument("--wait-quiet", type=float, default=0, metavar="S",
                    help="before each measurement wait, up to S seconds, until other processes "
                         "have used under 0.15 cores for 3 s (default 0: don't wait)")
    ap.add_argument("--retry-noisy", type=int, default=0, metavar="N",
                    help="redo a run (at most N times) when other processes took over 0.25 cores "
                         "during it (default 0: keep every run)")
    ap.add_argument("--no-cli-peers", action="store_true",
                    help="length job: skip timing geod -I and GeodSolve -i (several seconds each)")
    ap.add_argument("--check-goals", action="store_true", help="exit 2 when a goal is missed")
    args = ap.parse_args()

    if args.readme_table:
        try:
            print(readme_table(json.loads((OUT / "results.json").read_text())))
        except (OSError, ValueError, KeyError) as e:
            raise SystemExit(f"run.py: no usable results in {OUT / 'results.json'} ({e}); "
                             f"run python3 bench/run.py first")
        return 0
    NOISE.update(retries=max(0, args.retry_noisy), wait=args.wait_quiet)
    names = [n.strip() for n in args.only.split(",") if n.strip()]
    unknown = [n for n in names if n not in JOBS]
    if unknown:
        ap.error(f"unknown job(s) {', '.join(unknown)}; known: {', '.join(JOBS)}")
    peer_sets = [n.strip() for n in args.peers.split(",") if n.strip()]
    unknown = [n for n in peer_sets if n not in PEER_SETS]
    if unknown or not peer_sets:
        ap.error(f"unknown peer set(s) {', '.join(unknown)}; known: {', '.join(PEER_SETS)}")
    if args.runs < 1:
        ap.error("--runs must be at least 1")
    if not os.access(args.geo, os.X_OK):
        ap.error(f"no geo binary at {args.geo} (swift build -c release)")

    class Ctx:
        pass
    ctx = Ctx()
    ctx.corpus, ctx.shared = args.corpus.resolve(), args.shared.resolve()
    ctx.jobs = {n: JOBS[n] for n in names}
    check_shared(ctx.shared, peer_sets)
    OUT.mkdir(parents=True, exist_ok=True)
    ensure_corpus(ctx)
    failures = []
    requested_peers = list(peer_sets)     # goals are reported for these, run or not
    for peer, why in ensure_peer_packages(peer_sets, install=not args.no_install).items():
        failures.append(f"FAIL peers '{peer}': {why}")
        say(failures[-1])
        peer_sets.remove(peer)
    geo_src = os.path.abspath(args.geo)
    ctx.geo, built, geo_sha = snapshot_binary(geo_src)
    head = git_head()
    loads = []                      # (when, 1-minute load average) before each step

    def note_load(when):
        if when != "the end":
            wait_quiet(args.wait_quiet, when)
        la = os.getloadavg()[0]
        loads.append((when, la))
        if la > 0.5:
            say(f"warning: load average {la:.2f} before {when}; timings may be noisy")
        return la

    rows, big_rows, results = [], [], {}
    floor, cli = None, []
    edges = None
    if "length" in ctx.jobs:        # prepared once, before anything is timed
        try:
            edges = ensure_edges(ctx.corpus / ctx.jobs["length"]["input"])
            ensure_floor_binary()
        except (Failed, OSError, ValueError) as e:
            failures.append(f"FAIL length floor setup: {e}")
            say(failures[-1])
    load = note_load("the start")
    for name, job in ctx.jobs.items():
        inp = ctx.corpus / job["input"]
        r = results[name] = {"input_mb": inp.stat().st_size / MB, "peers": {}}
        if name != next(iter(ctx.jobs)):
            r["load_before"] = note_load(name)
        try:
            contenders = [(peer, [sys.executable, ctx.shared / "bench" / PEER_SETS[peer]["script"], job["mode"], ctx.corpus],
                           OUT / f"{name}.{peer}.out", f"[{name}] {peer} peer") for peer in peer_sets]
            contenders += [(f"geo_{tag}", job["geo"](ctx, inp) + extra, OUT / f"{name}.geo-{tag}.out", f"[{name}] geo {tag}")
                           for tag, extra in (("all", []), ("j1", ["-j1"]))]
            say(f"[{name}] {', '.join(key for key, *_ in contenders)}, {args.runs} rounds ...")
            times = timed_interleaved(contenders, args.runs, args.wait_quiet, name)
            for peer in peer_sets:
                r["peers"][peer] = times[peer]
            for tag in ("all", "j1"):
                geo_out = OUT / f"{name}.geo-{tag}.out"
                r[f"geo_{tag}"] = times[f"geo_{tag}"]
                for peer in peer_sets:
                    stats = {}
                    m = job["check"](OUT / f"{name}.{peer}.out", geo_out, stats)
                    if stats:
                        r["peers"][peer][f"check_{tag}"] = stats
                    if m:
                        failures.append(fmt_mismatch(name, f"geo ({'all cores' if tag == 'all' else '-j1'})",
                                                     f"the {peer} peer", m))
                        say(failures[-1])
            if not filecmp.cmp(OUT / f"{name}.geo-all.out", OUT / f"{name}.geo-j1.out", shallow=False):
                failures.append(f"FAIL {name}: geo's output with all cores differs from -j1")
                say(failures[-1])
        except Failed as e:
            failures.append(f"FAIL {name}: {e}")
            say(failures[-1])
            continue
        r["geo_all_s"], r["geo_j1_s"] = r["geo_all"]["s"], r["geo_j1"]["s"]
        r["jobs_speedup"] = r["geo_j1_s"] / r["geo_all_s"]
        for peer, p in r["peers"].items():
            p["speedup_all"], p["speedup_j1"] = p["s"] / r["geo_all_s"], p["s"] / r["geo_j1_s"]
            rows.append(
                f"| {name} | {PEER_SETS[peer]['label']}: {PEER_SETS[peer]['uses'][name]} | {spread(p)} "
                f"| {spread(r['geo_all'])} | {spread(r['geo_j1'])} "
                f"| {p['speedup_all']:.1f}x / {p['speedup_j1']:.1f}x "
                f"| {p['kib'] / 1024:.1f} / {r['geo_all']['kib'] / 1024:.1f} / {r['geo_j1']['kib'] / 1024:.1f} |")

    if edges and not any(f.startswith("FAIL length floor") for f in failures):
        edges_bin, edges_txt, n_edges = edges
        try:
            note_load("the geod_inverse floor")
            say(f"[length] floor: geod_inverse over {n_edges} edges, best of 3 ...")
            floor = measure_floor(edges_bin)
            floor["edges_file"] = edges_bin.name
            say(f"[length] floor {floor['seconds']:.3f} s, {floor['ns_per_edge']:.0f} ns/edge")
            if int(floor["edges"]) != n_edges:
                failures.append(f"FAIL length floor: geod_floor read {int(floor['edges'])} edges, "
                                f"expected {n_edges}")
        except Failed as e:
            failures.append(f"FAIL length floor: {e}")
            say(failures[-1])
        if not args.no_cli_peers:
            note_load("the CLI peers")
            cli = measure_cli_peers(edges_txt, n_edges)
            for c in cli:
                if "error" in c:
                    failures.append(f"FAIL length CLI peer {c['name']}: {c['error']}")
                elif c["lines"] != n_edges or c["unparsed"]:
                    failures.append(f"FAIL length CLI peer {c['name']}: {c['lines']} output lines "
                                    f"({c['unparsed']} without a distance) for {n_edges} edges")
        results.setdefault("length", {})
        results["length"]["edges"] = n_edges
        results["length"]["floor"] = floor
        results["length"]["cli_peers"] = cli

    if args.big_mb > 0:
        for name, job in ctx.jobs.items():
            if not job.get("geo_big"):
                continue
            big, copies = ensure_big(ctx.corpus / job["input"], args.big_mb)
            size_mb = big.stat().st_size / MB
            note_load(f"{name} big input")
            say(f"[{name}] big input {size_mb:.0f} MB ...")
            try:
                w, k = run(job["geo_big"](ctx, big), os.devnull, OUT / f"{name}.big.err")
            except Failed as e:
                failures.append(f"FAIL {name} (big input): {e}")
                say(failures[-1])
                continue
            results[name]["big"] = {"file": big.name, "mb": size_mb, "copies": copies,
                                    "s": w, "kib": k, "mb_per_s": size_mb / w}
            say(f"[{name}] big: {w:.2f} s, {size_mb / w:.0f} MB/s, {k / 1024:.1f} MB")
            big_rows.append(f"| {name} | {big.name} ({size_mb:.0f} MB, {copies}× the corpus) "
                            f"| {w:.2f} | {size_mb / w:.0f} | {k / 1024:.1f} |")

    # ------------------------------------------------------------ report
    end_load = note_load("the end")
    worst_when, worst_load = max(loads, key=lambda x: x[1])
    load_note = (f"load average (1 min) at start {load:.2f}, at the end {end_load:.2f}, "
                 f"highest {worst_load:.2f} (before {worst_when}; it includes this benchmark's own "
                 f"runs)")
    kept = [x for x in OTHER_CPU if x[3]]
    if kept:
        what, _, top, _ = max(kept, key=lambda x: x[2])
        total = sum(w * c for _, w, c, _ in kept) / sum(w for _, w, _, _ in kept)
        redone = len(OTHER_CPU) - len(kept)
        load_note += (f"; CPU taken by other processes during the timed runs: {total:.2f} cores "
                      f"on average, at most {top:.2f} (during {what})"
                      + (f"; {redone} run(s) redone because other processes took over "
                         f"{NOISE['limit']:.2f} cores" if redone else ""))
        if top > 0.25:
            say(f"warning: other processes took up to {top:.2f} cores during {what}; "
                f"timings may be noisy — run again")
    lines = [
        f"## geo side-by-side benchmark, {datetime.date.today().isoformat()}",
        "",
        f"- machine: {machine()}",
        f"- geo: {geo_src} ({geo_version(ctx.geo)}, built "
        f"{datetime.datetime.fromtimestamp(built[0] / 1e9).isoformat(timespec='seconds')}, "
        f"sha256 {geo_sha}…, repo at {head} when the run started), run from a copy in "
        f"bench/out/{Path(ctx.geo).name}",
        f"- peers: Python {platform.python_version()}, {peer_versions()}",
        f"- {load_note}",
        f"- corpus: {ctx.corpus} (" + ", ".join(
            f"{p.name} {p.stat().st_size / MB:.1f} MB" for p in sorted(ctx.corpus.iterdir())
            if p.is_file()) + ")",
        f"- wall time: median (min–max) of {args.runs} runs of each peer and of geo; peak RSS "
        f"from wait4, the highest over the runs; MB = 2^20 bytes",
        "",
    ]
    if rows:
        lines += ["| job | peer | peer s | geo s (all cores) | geo s (1 core) | speed-up vs peer "
                  "(all cores / 1 core) | peak RSS MB: peer / geo all cores / geo 1 core |",
                  "|---|---|---:|---:|---:|---:|---:|", *rows, ""]
    if big_rows:
        lines += ["Big input, geo with all cores, output to /dev/null:", "",
                  "| job | input | geo s | MB/s | geo peak RSS MB |",
                  "|---|---|---:|---:|---:|", *big_rows, ""]
    lr = results.get("length", {})
    if "geo_j1_s" in lr:
        lines += [f"Length: geo -j1 vs all cores ({len(os.sched_getaffinity(0))}): "
                  f"{lr['geo_j1_s']:.3f} s → {lr['geo_all_s']:.3f} s, ×{lr['jobs_speedup']:.2f}."]
        ck = next((p["check_all"] for p in lr.get("peers", {}).values() if "check_all" in p), None)
        if ck:
            lines += [f"Length answers: max |geo − pyproj| length_m {ck['max_abs_diff_m']:.3g} m "
                      f"(line {ck['max_diff_line']}) over {ck['features']} features "
                      f"(tolerance {LENGTH_TOL_M:g} m); sum of length_m: geo {ck['geo_sum_m']:.6f} m, "
                      f"pyproj {ck['peer_sum_m']:.6f} m."]
        lines += [""]
    fl = lr.get("floor")
    if fl:
        lines += [f"Floor: PROJ geod_inverse alone (bench/geod_floor.c, one core, WGS84, "
                  f"{int(fl['edges'])} edges in memory, best of 3):", "",
                  "| geod_inverse s | ns/edge | passes s | geo -j1 s | geo -j1 / floor "
                  "| geo all cores / floor | sum s12 m | geo sum length_m − sum s12 |",
                  "|---:|---:|---|---:|---:|---:|---:|---:|"]
        ratio_j1 = lr["geo_j1_s"] / fl["seconds"] if "geo_j1_s" in lr else float("nan")
        ratio_all = lr["geo_all_s"] / fl["seconds"] if "geo_all_s" in lr else float("nan")
        ck = next((p["check_j1"] for p in lr.get("peers", {}).values() if "check_j1" in p), {})
        if ck:
            dsum = ck["geo_sum_m"] - fl["sum_s12_m"]
            fl["geo_minus_floor_sum_m"] = dsum
            fl["geo_minus_floor_sum_rel"] = dsum / fl["sum_s12_m"] if fl["sum_s12_m"] else float("nan")
            dtxt = f"{dsum:.3g} m ({fl['geo_minus_floor_sum_rel']:.2g} relative)"
        else:
            dtxt = "n/a"
        fl["geo_j1_over_floor"], fl["geo_all_over_floor"] = ratio_j1, ratio_all
        lines += [f"| {fl['seconds']:.3f} | {fl['ns_per_edge']:.0f} "
                  f"| {', '.join(f'{x:.3f}' for x in fl['passes'])} "
                  f"| {lr.get('geo_j1_s', float('nan')):.3f} | {ratio_j1:.2f}x | {ratio_all:.2f}x "
                  f"| {fl['sum_s12_m']:.6f} | {dtxt} |", ""]
    if lr.get("cli_peers"):
        n_e = lr.get("edges", 0)
        lines += [f"CLI peers on the same {n_e} edges as text lines (`lat1 lon1 lat2 lon2`), run once, "
                  f"output to a file:", "",
                  "| peer | command | s | ns/edge | peak RSS MB | output lines | sum of distances m |",
                  "|---|---|---:|---:|---:|---:|---:|"]
        for c in lr["cli_peers"]:
            if "error" in c:
                lines += [f"| {c['name']} ({c['version']}) | `{c['argv']}` | failed | | | | |"]
            else:
                lines += [f"| {c['name']} ({c['version']}) | `{c['argv']}` | {c['s']:.2f} "
                          f"| {c['ns_per_edge']:.0f} | {c['kib'] / 1024:.1f} | {c['lines']} "
                          f"| {c['sum_m']:.3f} |"]
        lines += [""]

    if binary_info(geo_src) != built:
        lines += [f"Note: {geo_src} was rebuilt during the run; these numbers are all for the copy "
                  f"taken at the start (sha256 {geo_sha}…).", ""]
        say(lines[-2])

    goals = []
    for name in ctx.jobs:
        for peer, goal in ctx.jobs[name]["goals"].items():
            if peer not in requested_peers:
                continue
            p = results.get(name, {}).get("peers", {}).get(peer, {})
            what = f"geo {name} ≥ {goal:g}x faster than the {PEER_SETS[peer]['label']} peer (all cores)"
            if "speedup_all" in p:
                goals.append((p["speedup_all"] >= goal, f"{what}: {p['speedup_all']:.1f}x "
                                                         f"(1 core: {p['speedup_j1']:.1f}x)"))
            else:
                goals.append((False, f"{what}: not measured"))
    peaks = []
    for name in ctx.jobs:
        r = results.get(name, {})
        for key, label in (("geo_all", "corpus, all cores"), ("geo_j1", "corpus, -j1")):
            if key in r:
                peaks.append((r[key]["kib"] / 1024, f"{name} {label}"))
        if "big" in r:
            peaks.append((r["big"]["kib"] / 1024, f"{name} {r['big']['mb']:.0f} MB input"))
    if peaks:
        top, where = max(peaks)
        missing = [n for n in ctx.jobs if "big" not in results.get(n, {})]
        note = (" — big-input test skipped (--big-mb 0)" if args.big_mb <= 0 else
                f" — no big-input result for {', '.join(missing)}" if missing else "")
        goals.append((top < RSS_GOAL_MB and not missing,
                      f"geo peak RSS < {RSS_GOAL_MB:.0f} MB whatever the input size: "
                      f"max {top:.1f} MB ({where}){note}"))
    lines += ["Goals:", ""] + [f"- [{'x' if ok else ' '}] {'MET' if ok else 'NOT MET'}: {text}"
                               for ok, text in goals]
    if failures:
        lines += ["", "Answers: FAIL", ""] + failures
    else:
        lines += ["", "Answers: geo agrees with every peer on every line "
                      "(decode: geometry type and coordinates as exact floats; encode: byte-identical "
                      f"lines; length: length_m within {LENGTH_TOL_M:g} m, the rest of each Feature "
                      "equal as parsed JSON; all cores and -j1 byte-identical)."]
    report = "\n".join(lines) + "\n"
    print(report)
    (OUT / "results.md").write_text(report)
    (OUT / "results.json").write_text(json.dumps(
        {"date": datetime.datetime.now().isoformat(timespec="seconds"), "machine": machine(),
         "geo": geo_src, "geo_sha256_prefix": geo_sha,
         "geo_built": datetime.datetime.fromtimestamp(built[0] / 1e9).isoformat(timespec="seconds"),
         "repo": head, "runs": args.runs, "cores": len(os.sched_getaffinity(0)), "loads": loads,
         "other_cpu": OTHER_CPU, "peer_sets": peer_sets, "jobs": results,
         "failures": failures}, indent=2) + "\n")
    say(f"README speed table: python3 bench/run.py --readme-table")

    if failures:
        return 1
    if args.check_goals and not all(ok for ok, _ in goals):
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
