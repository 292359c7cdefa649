#!/usr/bin/env python3
"""Side-by-side benchmark: geo against the Python peers of ../shared/bench/peers.py.

For every job in JOBS it runs the peer once and geo (all cores, then -j1) --runs times,
timing each process (wall clock) and reading its peak RSS from os.wait4, checks that geo's
answers agree with the peer's, then streams a big input (~--big-mb MB made by repeating the
corpus) through geo to check that memory stays flat. Prints a markdown table and whether the
goals are met:

  * geo decode and geo encode each at least 20x faster than the Python peer (all cores);
  * geo's peak RSS under 64 MB whatever the input size.

Exit status: 0 when all answers agree (1 on any mismatch or failed command; with
--check-goals, 2 when they agree but a goal is missed).

usage: python3 bench/run.py [--corpus DIR] [--shared DIR] [--geo PATH] [--runs N]
                            [--big-mb N] [--only decode,encode] [--check-goals]

MB here is 2^20 bytes (ru_maxrss is in KiB). Everything is written under bench/out/.
"""
import argparse
import datetime
import filecmp
import json
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

SPEEDUP_GOAL = 20.0      # geo (all cores) vs the peer, per job
RSS_GOAL_MB = 64.0       # geo peak RSS, any input size


# ---------------------------------------------------------------- answer checks
# A checker gets the peer's output and geo's output (paths) and returns None when they agree,
# or (line number, peer line, geo line, reason) for the first disagreement plus a count.

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


def check_decode(peer_out, geo_out):
    return _compare_lines(peer_out, geo_out, same_geojson_geometry)


def check_encode(peer_out, geo_out):
    return _compare_lines(peer_out, geo_out, same_bytes)


# ---------------------------------------------------------------- the job table
# To add a job (length, interpolate, ...): add an entry. `peer` and `geo` build argv lists;
# `input` is the corpus file the job reads (also what is repeated for the big-input test);
# `check` compares outputs. `geo_big` builds the geo argv for the big input (None: no
# big-input test for this job).

def _peer(mode):
    return lambda ctx: [sys.executable, str(ctx.shared / "bench" / "peers.py"), mode, str(ctx.corpus)]


JOBS = {
    "decode": dict(
        what="polylines → GeoJSON NDJSON",
        input="polylines.txt",
        peer=_peer("decode"),
        geo=lambda ctx, path: [ctx.geo, "decode", str(path)],
        check=check_decode,
    ),
    "encode": dict(
        what="GeoJSON NDJSON → polylines",
        input="paths.ndjson",
        peer=_peer("encode"),
        geo=lambda ctx, path: [ctx.geo, "encode", str(path)],
        check=check_encode,
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


def run(argv, stdout_path, stderr_path):
    """Run argv with stdout and stderr to files; return (wall seconds, peak RSS in KiB)."""
    argv = [str(a) for a in argv]
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


def git_head():
    try:
        return subprocess.run(["git", "-C", str(REPO), "describe", "--always", "--dirty"],
                              capture_output=True, text=True, timeout=10).stdout.strip() or "?"
    except (OSError, subprocess.SubprocessError):
        return "?"


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


def fmt_mismatch(job, who, m):
    n, a, b, reason = m["first"]
    show = lambda x: "(none)" if x is None else x.decode("utf-8", "replace")
    return (f"FAIL {job}: {who} disagrees with the peer on {m['count']} of {m['lines']} lines; "
            f"first at line {n} ({reason}):\n  peer: {show(a)}\n  geo:  {show(b)}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, default=OUT / "corpus",
                    help="corpus folder (default bench/out/corpus, generated if missing)")
    ap.add_argument("--shared", type=Path, default=REPO.parent / "shared",
                    help="the shared folder with bench/make_corpus.py and bench/peers.py "
                         "(default <repo>/../shared)")
    ap.add_argument("--geo", default=str(REPO / ".build" / "release" / "geo"))
    ap.add_argument("--runs", type=int, default=3, help="geo runs per setting; the median is reported")
    ap.add_argument("--big-mb", type=int, default=1024,
                    help="size of the big input for the memory test (0 skips it)")
    ap.add_argument("--only", default=",".join(JOBS), help=f"jobs to run (of {','.join(JOBS)})")
    ap.add_argument("--check-goals", action="store_true", help="exit 2 when a goal is missed")
    args = ap.parse_args()

    names = [n.strip() for n in args.only.split(",") if n.strip()]
    unknown = [n for n in names if n not in JOBS]
    if unknown:
        ap.error(f"unknown job(s) {', '.join(unknown)}; known: {', '.join(JOBS)}")
    if args.runs < 1:
        ap.error("--runs must be at least 1")
    if not os.access(args.geo, os.X_OK):
        ap.error(f"no geo binary at {args.geo} (swift build -c release)")

    class Ctx:
        pass
    ctx = Ctx()
    ctx.corpus, ctx.shared = args.corpus.resolve(), args.shared.resolve()
    ctx.geo = os.path.abspath(args.geo)
    ctx.jobs = {n: JOBS[n] for n in names}
    OUT.mkdir(parents=True, exist_ok=True)
    ensure_corpus(ctx)
    built = binary_info(ctx.geo)
    load = os.getloadavg()[0]
    if load > 0.5:
        say(f"warning: load average {load:.2f} before starting; timings may be noisy")

    failures, rows, big_rows, results = [], [], [], {}
    for name, job in ctx.jobs.items():
        inp = ctx.corpus / job["input"]
        r = results[name] = {"input_mb": inp.stat().st_size / MB}
        try:
            say(f"[{name}] peer ...")
            peer_out = OUT / f"{name}.peer.out"
            r["peer_s"], r["peer_kib"] = run(job["peer"](ctx), peer_out, OUT / f"{name}.peer.err")
            say(f"[{name}] peer {r['peer_s']:.2f} s, {r['peer_kib'] / 1024:.1f} MB")
            for tag, extra in (("all", []), ("j1", ["-j1"])):
                walls, rss = [], []
                geo_out = OUT / f"{name}.geo-{tag}.out"
                for i in range(args.runs):
                    w, k = run(job["geo"](ctx, inp) + extra, geo_out, OUT / f"{name}.geo-{tag}.err")
                    walls.append(w)
                    rss.append(k)
                    say(f"[{name}] geo {tag} run {i + 1}: {w:.3f} s, {k / 1024:.1f} MB")
                r[f"geo_{tag}_s"] = statistics.median(walls)
                r[f"geo_{tag}_runs"] = walls
                r[f"geo_{tag}_kib"] = max(rss)
                m = job["check"](peer_out, geo_out)
                if m:
                    failures.append(fmt_mismatch(name, f"geo ({'all cores' if tag == 'all' else '-j1'})", m))
                    say(failures[-1])
            if not filecmp.cmp(OUT / f"{name}.geo-all.out", OUT / f"{name}.geo-j1.out", shallow=False):
                failures.append(f"FAIL {name}: geo's output with all cores differs from -j1")
                say(failures[-1])
        except Failed as e:
            failures.append(f"FAIL {name}: {e}")
            say(failures[-1])
            continue
        r["speedup_all"] = r["peer_s"] / r["geo_all_s"]
        r["speedup_j1"] = r["peer_s"] / r["geo_j1_s"]
        rows.append(
            f"| {name} | {r['peer_s']:.2f} | {r['geo_all_s']:.3f} | {r['geo_j1_s']:.3f} "
            f"| {r['speedup_all']:.1f}x / {r['speedup_j1']:.1f}x "
            f"| {r['geo_all_kib'] / 1024:.1f} / {r['geo_j1_kib'] / 1024:.1f} "
            f"| {r['peer_kib'] / 1024:.1f} |")

    if args.big_mb > 0:
        for name, job in ctx.jobs.items():
            if not job.get("geo_big"):
                continue
            big, copies = ensure_big(ctx.corpus / job["input"], args.big_mb)
            size_mb = big.stat().st_size / MB
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
    lines = [
        f"## geo side-by-side benchmark, {datetime.date.today().isoformat()}",
        "",
        f"- machine: {machine()}",
        f"- geo: {ctx.geo} ({geo_version(ctx.geo)}, built "
        f"{datetime.datetime.fromtimestamp(built[0] / 1e9).isoformat(timespec='seconds')}, "
        f"repo at {git_head()}); load average at start {load:.2f}",
        f"- corpus: {ctx.corpus} (" + ", ".join(
            f"{p.name} {p.stat().st_size / MB:.1f} MB" for p in sorted(ctx.corpus.iterdir())
            if p.is_file()) + ")",
        f"- wall time: peer once, geo median of {args.runs} runs; peak RSS from wait4 "
        f"(geo: max over runs); MB = 2^20 bytes",
        "",
    ]
    if rows:
        lines += ["| job | peer s | geo s (all cores) | geo s (1 core) | speed-up vs peer "
                  "(all cores / 1 core) | geo peak RSS MB (all / 1 core) | peer peak RSS MB |",
                  "|---|---:|---:|---:|---:|---:|---:|", *rows, ""]
    if big_rows:
        lines += ["Big input, geo with all cores, output to /dev/null:", "",
                  "| job | input | geo s | MB/s | geo peak RSS MB |",
                  "|---|---|---:|---:|---:|", *big_rows, ""]

    if binary_info(ctx.geo) != built:
        lines += ["**WARNING: the geo binary changed during the run (rebuilt?); "
                  "the numbers mix two builds — run again.**", ""]
        say(lines[-2])

    goals = []
    for name in ctx.jobs:
        r = results.get(name, {})
        if "speedup_all" in r:
            ok = r["speedup_all"] >= SPEEDUP_GOAL
            goals.append((ok, f"geo {name} ≥ {SPEEDUP_GOAL:.0f}x faster than the peer (all cores): "
                              f"{r['speedup_all']:.1f}x (1 core: {r['speedup_j1']:.1f}x)"))
        else:
            goals.append((False, f"geo {name} ≥ {SPEEDUP_GOAL:.0f}x faster than the peer: not measured"))
    peaks = []
    for name in ctx.jobs:
        r = results.get(name, {})
        for key, label in (("geo_all_kib", "corpus, all cores"), ("geo_j1_kib", "corpus, -j1")):
            if key in r:
                peaks.append((r[key] / 1024, f"{name} {label}"))
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
        lines += ["", "Answers: geo agrees with the peer on every line "
                      "(decode: geometry type and coordinates as exact floats; encode: byte-identical "
                      "lines; all cores and -j1 byte-identical)."]
    report = "\n".join(lines) + "\n"
    print(report)
    (OUT / "results.md").write_text(report)
    (OUT / "results.json").write_text(json.dumps(
        {"date": datetime.datetime.now().isoformat(timespec="seconds"), "machine": machine(),
         "geo": ctx.geo, "runs": args.runs, "jobs": results, "failures": failures}, indent=2) + "\n")

    if failures:
        return 1
    if args.check_goals and not all(ok for ok, _ in goals):
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
