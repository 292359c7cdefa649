#!/usr/bin/env python3
"""geo_spark.py: run a `geo` command over files too big for one machine, with Apache Spark.

    spark-submit distributed/geo_spark.py --input DIR_OR_GLOB --output DIR \\
        [--geo PATH] [--rejects-dir DIR] [options] -- CMD [ARGS...]

Every partition of the input is piped through one `geo CMD ARGS` process (stdin in, stdout
out) and the output records are written with saveAsTextFile: DIR/part-00000, part-00001, ...
Concatenated in name order they are exactly what `geo CMD ARGS FILES...` would write for the
input files in sorted order: records are never cut, and no shuffle ever reorders them.

Input
  --input takes a file, a directory (read recursively; names starting with "_" or "." are
  skipped, as Hadoop does) or a glob, on any filesystem Spark reads (file:, hdfs:, s3a:, ...);
  repeat it for more. Files are processed in sorted path order. Each file is split into
  partitions of about --split-size bytes at line boundaries (gzip files are read whole: they
  cannot be split). One record per line: NDJSON, or one encoded polyline per line.

  --whole-files hands geo each file byte for byte, one process per file (the file must fit in
  an executor's memory; .gz is decompressed). Use it when the lines mode's text reader is not
  exact enough: it decodes UTF-8 (an invalid byte reaches geo as U+FFFD, so a record geo alone
  would reject is accepted), and it also breaks lines at a lone CR; RFC 8142 records that span
  lines need it too.

Exit status and bad records
  geo's exit status is captured per partition, never aborting the job. After the output is
  written, partitions whose geo exited non-zero are listed on stderr, with the first bad
  records as `geo CMD: FILE:LINE: message`, and the job exits with the worst status: 65 when
  records were bad (the others are all in the output). With --rejects-dir DIR, each partition
  that had bad records leaves DIR/rejects-<partition>.ndjson (geo's --rejects format:
  {"source","line","error","input"}, with source the input file and line its line in that
  file). DIR must be a path every executor can write (local mode: any directory; a cluster: a
  shared mount); partitions without bad records leave no file.
  Other statuses: 64 usage (checked before Spark starts: this script's options, and geo's by a
  dry run of `geo CMD ARGS` on empty input); 66 no input file; 69 geo cannot run (missing
  binary, missing shared libraries); 70 the Spark job failed; 73 --output already exists or
  --rejects-dir holds an earlier run's rejects.

Which geo
  --geo PATH (a path valid on the executors), else the file shipped as `geo` with
  `spark-submit --files /path/to/geo` (or this script's --ship PATH, the same thing), else
  `geo` on the executors' PATH. Each partition runs `geo CMD --quiet -j1 --rejects TMP ARGS`:
  one thread per task because Spark already runs one task per core (pass -j N in ARGS to
  change it). ARGS must not name input files, -o/--output, --collection or --rejects.

Running it
  Local, for tests or one machine (pip install pyspark; Java 17):
      python3 distributed/geo_spark.py --master 'local[2]' --input corpus/polylines.txt \\
          --output out/decoded -- decode
  A cluster (YARN, Kubernetes, standalone): ship the binary with the job,
      swift build -c release --static-swift-stdlib
      spark-submit --master yarn --deploy-mode client --files .build/release/geo \\
          distributed/geo_spark.py --input 'hdfs:///routes/2026-*/*.txt' \\
          --output hdfs:///routes-geojson/2026 --rejects-dir /mnt/shared/rejects -- decode -p6
  The executors need geo's shared libraries:
    - PROJ: Debian 12's libproj25 (the runtime package of libproj-dev, which geo is built
      against); `apt-get install -y libproj25` in the executor image or bootstrap script.
      Other distributions need the same PROJ major version (libproj.so.25).
    - Swift's runtime: `--static-swift-stdlib` links it into geo, so the executors need no
      Swift install (PROJ still links dynamically; `ldd geo` lists what remains).
  On Kubernetes the simplest is an executor image FROM debian:12 with libproj25 and geo in
  /usr/local/bin (then no --files, no --geo). An executor that cannot run geo fails its task
  with the loader's message, and the job exits 69.

Other options: --split-size BYTES (default: the input size / (2 x default parallelism),
between 1 MiB and 128 MiB), --master URL, --conf KEY=VALUE (repeatable), --ship PATH,
--max-errors N (bad records listed per partition, default 10), --no-preflight.
"""

import argparse
import gzip
import json
import math
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from collections import deque

EX_OK = 0
EX_USAGE = 64
EX_DATAERR = 65
EX_NOINPUT = 66
EX_UNAVAILABLE = 69
EX_SOFTWARE = 70
EX_CANTCREAT = 73

PROG = "geo-spark"
# Marks the exception a task raises when geo cannot run there, so the driver can tell it
# apart from other job failures and exit 69 with the executor's message.
CANNOT_RUN = "GEO_CANNOT_RUN"
# The start of every line geo writes to --rejects when it reads stdin.
STDIN_REJECT = re.compile(rb'^\{"source":"<stdin>","line":(\d+),')
ANY_REJECT = re.compile(rb'^\{"source":("(?:[^"\\]|\\.)*"),"line":(\d+),')
# geo's per-record message on stderr; these are reported from the rejects instead.
RECORD_ERROR = re.compile(rb"^geo [A-Za-z0-9-]+: <stdin>:\d+: ")


class UsageError(Exception):
    pass


class Exit(Exception):
    def __init__(self, status, message=None):
        super().__init__(message)
        self.status = status
        self.message = message


def plural(n, noun):
    return f"{n} {noun}" + ("" if n == 1 else "s")


def warn(msg):
    print(f"{PROG}: {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# Options


def parse_size(text):
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kKmMgG]?)(?:i?[bB])?\s*", text)
    if not m:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (try 4M, 512k, 1G)")
    scale = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}[m.group(2).lower()]
    value = int(float(m.group(1)) * scale)
    if value < 1:
        raise argparse.ArgumentTypeError(f"size must be at least 1 byte: {text!r}")
    return value


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(message)


def build_parser():
    p = _Parser(
        prog="geo_spark.py",
        usage="%(prog)s --input PATH --output DIR [options] -- CMD [ARGS...]",
        description="Pipe every partition of text input through `geo CMD ARGS` on Spark.",
        epilog="Exit status: geo's worst per partition (65: some records bad), 64 usage, "
               "66 no input, 69 geo cannot run, 70 Spark failed, 73 output exists. Running on "
               "a cluster, shipping geo and its libproj dependency: see the top of this file "
               "and distributed/README.md.",
        allow_abbrev=False,
    )
    p.add_argument("--input", action="append", required=True, metavar="PATH",
                   help="file, directory or glob (any Hadoop filesystem); repeatable")
    p.add_argument("--output", required=True, metavar="DIR",
                   help="output directory for saveAsTextFile (must not exist)")
    p.add_argument("--geo", metavar="PATH", help="geo binary, as a path on the executors")
    p.add_argument("--ship", metavar="PATH",
                   help="ship this local geo binary to the executors (like spark-submit --files)")
    p.add_argument("--rejects-dir", metavar="DIR",
                   help="write each partition's bad records to DIR/rejects-<partition>.ndjson")
    p.add_argument("--whole-files", action="store_true",
                   help="one geo per file, fed the file's exact bytes")
    p.add_argument("--split-size", type=parse_size, metavar="BYTES",
                   help="target partition size of splittable files (e.g. 64M)")
    p.add_argument("--master", metavar="URL", help="Spark master (default: spark-submit's)")
    p.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE",
                   help="extra Spark configuration; repeatable")
    p.add_argument("--max-errors", type=int, default=10, metavar="N",
                   help="bad records listed on stderr per partition (default 10)")
    p.add_argument("--no-preflight", action="store_true",
                   help="skip the dry run of geo on the driver")
    return p


def parse_args(argv):
    argv = list(argv)
    if "--" not in argv:
        if any(a in ("-h", "--help") for a in argv):
            build_parser().print_help()
            raise Exit(EX_OK)
        raise UsageError("missing `-- CMD [ARGS...]`: the geo command to run")
    cut = argv.index("--")
    ours, geo_cmd = argv[:cut], argv[cut + 1:]
    opts = build_parser().parse_args(ours)
    if not geo_cmd:
        raise UsageError("no geo command after `--`")
    cmd, args = geo_cmd[0], geo_cmd[1:]
    if cmd.startswith("-"):
        raise UsageError(f"expected a geo command after `--`, not {cmd!r}")
    for a in args:
        if a in ("-o", "--collection") or a.startswith("--output") or a.startswith("--rejects"):
            raise UsageError(
                f"geo option {a} cannot be used here: output goes to --output, "
                "rejects to --rejects-dir, and each partition writes records, not one document")
    if opts.max_errors < 0:
        raise UsageError("--max-errors must be >= 0")
    for kv in opts.conf:
        if "=" not in kv:
            raise UsageError(f"--conf wants KEY=VALUE, not {kv!r}")
    if opts.rejects_dir and re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://", opts.rejects_dir):
        raise UsageError("--rejects-dir must be a local or shared-mount path, not a URI")
    if opts.rejects_dir and opts.rejects_dir.startswith("file:"):
        opts.rejects_dir = opts.rejects_dir[len("file:"):]
    if opts.ship and not os.path.isfile(opts.ship):
        raise UsageError(f"--ship {opts.ship}: no such file")
    opts.cmd, opts.args = cmd, args
    return opts


def geo_argv(geo, cmd, args, rejects):
    """The command line of one partition's geo."""
    jobs = [] if any(a in ("-j", "--jobs") or a.startswith("--jobs=") or
                     (a.startswith("-j") and a[2:].isdigit()) for a in args) else ["-j1"]
    extra = ["--rejects", rejects] if rejects else []
    return [geo, cmd, "--quiet"] + jobs + extra + list(args)


def exit_status(returncode):
    return returncode if returncode >= 0 else 128 - returncode


# ---------------------------------------------------------------------------------------------
# The task: one geo process per partition (or per file with --whole-files)


def resolve_geo(geo, ship_name):
    """The geo binary on this host: --geo, else a shipped file, else PATH."""
    if geo:
        return geo
    try:
        from pyspark import SparkFiles  # noqa: PLC0415

        for name in ([ship_name] if ship_name else []) + ["geo"]:
            path = SparkFiles.get(name)
            if os.path.isfile(path):
                if not os.access(path, os.X_OK):
                    os.chmod(path, os.stat(path).st_mode | 0o111)
                return path
    except Exception:  # noqa: BLE001 - no SparkContext/SparkFiles: fall through to PATH
        pass
    found = shutil.which("geo")
    if found:
        return found
    raise RuntimeError(
        f"{CANNOT_RUN}: no geo binary on host {socket.gethostname()}: not given with --geo, "
        "not shipped with --files/--ship, and not on PATH")


class PartitionRun:
    """Runs geo on one stream of input chunks; yields output records, collects the outcome."""

    def __init__(self, cfg, index, source):
        self.cfg = cfg
        self.index = index
        self.source = source  # the input file, as shown in messages and rejects
        self.lines_in = 0
        self.lines_out = 0

    def records(self, chunks):
        cfg = self.cfg
        geo = resolve_geo(cfg["geo"], cfg["ship_name"])
        tmpdir = tempfile.mkdtemp(prefix=f"geo-spark-{self.index:05d}-")
        rejects_tmp = os.path.join(tmpdir, "rejects.ndjson")
        argv = geo_argv(geo, cfg["cmd"], cfg["args"], rejects_tmp)
        try:
            proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE)
        except OSError as e:
            shutil.rmtree(tmpdir, ignore_errors=True)
            raise RuntimeError(
                f"{CANNOT_RUN}: cannot run {geo} on host {socket.gethostname()}: {e}") from None

        failure = []
        stderr_tail = deque(maxlen=20)
        record_errors = [0]

        def feed():
            writing = True
            try:
                for chunk in chunks:
                    if writing:
                        try:
                            proc.stdin.write(chunk)
                        except (BrokenPipeError, ValueError):
                            writing = False  # geo stopped reading (--strict): keep counting
            except BaseException as e:  # noqa: BLE001 - reading the input failed
                failure.append(e)
                proc.kill()
            finally:
                try:
                    proc.stdin.close()
                except (BrokenPipeError, OSError, ValueError):
                    pass

        def drain_stderr():
            for line in proc.stderr:
                if RECORD_ERROR.match(line):
                    record_errors[0] += 1
                else:
                    text = line.decode("utf-8", "replace").rstrip("\n")
                    stderr_tail.append(text)
                    print(f"{PROG}[partition {self.index}]: {text}", file=sys.stderr, flush=True)

        writer = threading.Thread(target=feed, daemon=True)
        reader = threading.Thread(target=drain_stderr, daemon=True)
        writer.start()
        reader.start()
        finished = False
        try:
            for line in proc.stdout:
                self.lines_out += 1
                yield line[:-1] if line.endswith(b"\n") else line
            proc.wait()
            writer.join()
            reader.join()
            finished = True
        finally:
            if not finished:  # the consumer stopped early, or an error: leave nothing behind
                proc.kill()
                proc.wait()
                shutil.rmtree(tmpdir, ignore_errors=True)
        if failure:
            shutil.rmtree(tmpdir, ignore_errors=True)
            raise failure[0]
        status = exit_status(proc.returncode)
        if status in (126, 127) or (status and "error while loading shared libraries"
                                    in "\n".join(stderr_tail)):
            shutil.rmtree(tmpdir, ignore_errors=True)
            raise RuntimeError(
                f"{CANNOT_RUN}: {geo} on host {socket.gethostname()} exited {status}: "
                + " | ".join(stderr_tail))
        try:
            rejected, errors = self._collect_rejects(rejects_tmp)
        finally:
            shutil.rmtree(tmpdir, ignore_errors=True)
        return {
            "status": status,
            "source": self.source,
            "lines_in": self.lines_in,
            "lines_out": self.lines_out,
            "rejected": rejected,
            "record_errors": record_errors[0],
            "errors": errors,
            "stderr": list(stderr_tail),
            "host": socket.gethostname(),
        }

    def _collect_rejects(self, path):
        """Count the rejects, keep the first few for the driver, move them to --rejects-dir."""
        cfg = self.cfg
        rejected, errors = 0, []
        if not os.path.exists(path) or os.path.getsize(path) == 0:
            return 0, []
        source_json = json.dumps(self.source, ensure_ascii=False).encode("utf-8")
        out = None
        final = tmp = None
        if cfg["rejects_dir"]:
            os.makedirs(cfg["rejects_dir"], exist_ok=True)
            final = os.path.join(cfg["rejects_dir"], f"rejects-{self.index:05d}.ndjson")
            tmp = os.path.join(cfg["rejects_dir"],
                               f".rejects-{self.index:05d}.{os.getpid()}.{threading.get_ident()}")
            out = open(tmp, "wb")
        try:
            with open(path, "rb") as f:
                for line in f:
                    rejected += 1
                    m = STDIN_REJECT.match(line)
                    if m:
                        line = b'{"source":' + source_json + b',"line":' + m.group(1) + b"," + \
                            line[m.end():]
                    if len(errors) < cfg["max_errors"]:
                        try:
                            rec = json.loads(line)
                            errors.append((int(rec.get("line", 0)), str(rec.get("error", ""))))
                        except ValueError:
                            errors.append((0, line.decode("utf-8", "replace")[:200]))
                    if out:
                        out.write(line)
        finally:
            if out:
                out.close()
        if out:
            os.replace(tmp, final)  # whole, even if a retried attempt wrote it before
        return rejected, errors


def make_lines_task(cfg, sources, acc):
    """mapPartitionsWithIndex function for the lines mode. `sources` is a broadcast list of
    each partition's input file (a broadcast, so that every task does not carry all names)."""

    def task(index, iterator):
        run = PartitionRun(cfg, index, sources.value[index])

        def chunks():
            batch, size = [], 0
            for line in iterator:
                run.lines_in += 1
                batch.append(line)
                size += len(line) + 1
                if size >= 1 << 16:
                    batch.append(b"")
                    yield b"\n".join(batch)
                    batch, size = [], 0
            if batch:
                batch.append(b"")
                yield b"\n".join(batch)

        info = yield from run.records(chunks())
        acc.add({index: info})

    return task


def make_whole_files_task(cfg, acc):
    """mapPartitionsWithIndex function for --whole-files: (path, bytes) pairs, one per file."""

    def task(index, iterator):
        for path, content in iterator:
            run = PartitionRun(cfg, index, display_path(path))
            if path.endswith(".gz"):
                content = gzip.decompress(content)
            run.lines_in = content.count(b"\n") + (1 if content[-1:] not in (b"", b"\n") else 0)
            info = yield from run.records(iter([content]))
            acc.add({index: info})

    return task


# ---------------------------------------------------------------------------------------------
# The driver


def display_path(uri):
    """file:/a/b -> /a/b; other URIs unchanged."""
    if uri.startswith("file:"):
        rest = uri[len("file:"):]
        if rest.startswith("///"):
            rest = rest[2:]
        return rest
    return uri


def glob_escape(path):
    """A literal path for textFile/binaryFiles, which read glob patterns and comma lists
    (Hadoop splits the list at commas outside braces, so a comma is written {\\,})."""
    return re.sub(r"([\\*?\[\]{}])", r"\\\1", path).replace(",", "{\\,}")


def list_inputs(sc, patterns):
    """(uri, size) of every input file, sorted by path, through Hadoop's filesystems."""
    jvm = sc._jvm
    conf = sc._jsc.hadoopConfiguration()
    Path = jvm.org.apache.hadoop.fs.Path
    found = {}

    def walk(fs, status):
        name = status.getPath().getName()
        if name.startswith("_") or name.startswith("."):
            return
        if status.isDirectory():
            for child in fs.listStatus(status.getPath()):
                walk(fs, child)
        else:
            found[status.getPath().toString()] = status.getLen()

    for pattern in patterns:
        path = Path(pattern)
        fs = path.getFileSystem(conf)
        statuses = fs.globStatus(path)
        if not statuses:
            raise Exit(EX_NOINPUT, f"--input {pattern}: no such file or directory")
        before = len(found)
        for st in statuses:
            if st.isDirectory():
                for child in fs.listStatus(st.getPath()):
                    walk(fs, child)
            else:  # a file named explicitly is read even if it starts with _ or .
                found[st.getPath().toString()] = st.getLen()
        if len(found) == before:
            raise Exit(EX_NOINPUT, f"--input {pattern}: no input files")
    return sorted(found.items())


def preflight(geo, opts):
    """A dry run of `geo CMD ARGS` on empty input: usage errors and a geo that cannot start
    are found before Spark runs anything."""
    argv = geo_argv(geo, opts.cmd, opts.args, None)
    try:
        proc = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, timeout=120)
    except OSError as e:
        raise Exit(EX_UNAVAILABLE, f"cannot run geo ({geo}): {e}") from None
    err = proc.stderr.decode("utf-8", "replace").strip()
    status = exit_status(proc.returncode)
    if status in (126, 127) or "error while loading shared libraries" in err:
        raise Exit(EX_UNAVAILABLE, f"cannot run geo ({geo}), exit {status}: {err}")
    if status:
        raise Exit(status, f"`{' '.join(argv[1:])}` on empty input exited {status}: {err}")


def driver_geo(opts, sc=None):
    """The binary the driver can dry-run, or None (then only the executors know)."""
    if opts.geo:
        return opts.geo if os.path.isfile(opts.geo) else None
    if opts.ship:
        return opts.ship
    if sc is not None:
        for f in (sc.getConf().get("spark.files") or "").split(","):
            if f and os.path.basename(f) == "geo":
                local = display_path(f)
                if os.path.isfile(local):
                    return local
    return shutil.which("geo")


class _DictParam:
    """Accumulator of {partition: outcome}; a retried task replaces its earlier attempt."""

    def zero(self, value):
        return {}

    def addInPlace(self, a, b):
        a.update(b)
        return a


def make_context(opts):
    from pyspark import SparkConf, SparkContext  # noqa: PLC0415

    conf = SparkConf().setAppName(f"geo {opts.cmd}")
    if opts.master:
        conf.setMaster(opts.master)
    for kv in opts.conf:
        k, v = kv.split("=", 1)
        conf.set(k, v)
    # Like geo: a progress bar only on a terminal.
    conf.setIfMissing("spark.ui.showConsoleProgress", "true" if sys.stderr.isatty() else "false")
    conf.setIfMissing("spark.log.level", "WARN")  # Spark's INFO chatter drowns geo's messages
    return SparkContext.getOrCreate(conf)


def fix_reject_lines(rejects_dir, offsets):
    """Partition-relative line numbers -> line numbers in the input file."""
    for index, offset in offsets.items():
        if not offset:
            continue
        path = os.path.join(rejects_dir, f"rejects-{index:05d}.ndjson")
        if not os.path.exists(path):
            continue
        tmp = path + ".tmp"
        with open(path, "rb") as src, open(tmp, "wb") as dst:
            for line in src:
                m = ANY_REJECT.match(line)
                if m:
                    line = (b'{"source":' + m.group(1) + b',"line":' +
                            str(int(m.group(2)) + offset).encode() + b"," + line[m.end():])
                dst.write(line)
        os.replace(tmp, path)


def run(opts, sc):
    from pyspark import AccumulatorParam  # noqa: PLC0415

    class DictParam(_DictParam, AccumulatorParam):
        pass

    jvm = sc._jvm
    hconf = sc._jsc.hadoopConfiguration()
    out_path = jvm.org.apache.hadoop.fs.Path(opts.output)
    if out_path.getFileSystem(hconf).exists(out_path):
        raise Exit(EX_CANTCREAT, f"--output {opts.output} already exists")
    if opts.rejects_dir:
        os.makedirs(opts.rejects_dir, exist_ok=True)
        stale = [n for n in os.listdir(opts.rejects_dir) if re.fullmatch(r"rejects-\d+\.ndjson", n)]
        if stale:
            raise Exit(EX_CANTCREAT,
                       f"--rejects-dir {opts.rejects_dir} holds rejects of an earlier run "
                       f"({stale[0]}, ...): remove them or choose another directory")

    if opts.ship:
        sc.addFile(os.path.abspath(opts.ship))
    if not opts.no_preflight:
        geo = driver_geo(opts, sc)
        if geo:
            preflight(geo, opts)
        elif sc.master.startswith("local"):
            raise Exit(EX_UNAVAILABLE, f"geo not found: {opts.geo or 'not on PATH'} "
                       "(give --geo PATH, --ship PATH or spark-submit --files PATH)")
        else:
            warn("geo is not on the driver: it is checked on the executors only")

    files = list_inputs(sc, opts.input)
    cfg = {
        "geo": opts.geo,
        "ship_name": os.path.basename(opts.ship) if opts.ship else None,
        "cmd": opts.cmd,
        "args": opts.args,
        "rejects_dir": os.path.abspath(opts.rejects_dir) if opts.rejects_dir else None,
        "max_errors": opts.max_errors,
    }
    acc = sc.accumulator({}, DictParam())

    # One RDD per file, in path order, then union: partition order is file order, then
    # offset order within each file, and each partition knows its file.
    sources, first_of_file = [], {}
    if opts.whole_files:
        rdds = [sc.binaryFiles(glob_escape(uri), minPartitions=1) for uri, _ in files]
        for uri, _ in files:
            first_of_file[len(sources)] = True
            sources.append(display_path(uri))
        rdd = sc.union(rdds) if len(rdds) > 1 else rdds[0]
        out = rdd.mapPartitionsWithIndex(make_whole_files_task(cfg, acc))
    else:
        total = sum(size for _, size in files)
        split = opts.split_size or min(128 << 20, max(1 << 20, math.ceil(
            total / (2 * max(1, sc.defaultParallelism)))))
        rdds = []
        for uri, size in files:
            r = sc.textFile(glob_escape(uri), minPartitions=max(1, math.ceil(size / split)),
                            use_unicode=False)
            first_of_file[len(sources)] = True
            sources.extend([display_path(uri)] * r.getNumPartitions())
            rdds.append(r)
        rdd = sc.union(rdds) if len(rdds) > 1 else rdds[0]
        out = rdd.mapPartitionsWithIndex(make_lines_task(cfg, sc.broadcast(sources), acc))

    try:
        out.saveAsTextFile(opts.output)
    except Exception as e:  # noqa: BLE001 - py4j wraps the executors' exceptions
        text = str(e)
        m = re.search(CANNOT_RUN + r": ([^\n]*)", text)
        if m:
            raise Exit(EX_UNAVAILABLE, f"geo could not run on the executors: {m.group(1)}") \
                from None
        first = next((ln for ln in text.splitlines() if ln.strip()), "unknown error")
        raise Exit(EX_SOFTWARE, f"the Spark job failed: {first[:2000]}") from None

    infos = acc.value
    # Line numbers in the input files: each partition starts after the lines of the earlier
    # partitions of its file.
    offsets, running = {}, 0
    for index in range(len(sources)):
        if first_of_file.get(index):
            running = 0
        offsets[index] = running
        info = infos.get(index)
        running += info["lines_in"] if info else 0
    if cfg["rejects_dir"] and not opts.whole_files:
        fix_reject_lines(cfg["rejects_dir"], offsets)

    failed = {i: info for i, info in sorted(infos.items()) if info["status"]}
    missing = [i for i in range(len(sources)) if i not in infos]
    for index, info in failed.items():
        offset = offsets.get(index, 0)
        for line, error in info["errors"]:
            print(f"geo {opts.cmd}: {info['source']}:{line + offset}: {error}", file=sys.stderr)
        more = info["rejected"] - len(info["errors"])
        if more > 0:
            where = (f" (all in {os.path.join(opts.rejects_dir, f'rejects-{index:05d}.ndjson')})"
                     if opts.rejects_dir else "")
            print(f"geo {opts.cmd}: {info['source']}: ... and {more} more bad records{where}",
                  file=sys.stderr)
    if failed or missing:
        total_rejected = sum(i["rejected"] for i in infos.values())
        warn(f"geo exited non-zero in {len(failed)} of {len(sources)} partitions "
             f"({plural(total_rejected, 'bad record')}; the output holds all the other records):")
        for index, info in failed.items():
            first = offsets.get(index, 0) + 1
            last = offsets.get(index, 0) + info["lines_in"]
            tail = f"; {info['stderr'][-1]}" if info["stderr"] else ""
            warn(f"  partition {index} ({info['source']}, lines {first}-{last}, "
                 f"host {info['host']}): exit {info['status']}, "
                 f"{plural(info['rejected'], 'bad record')}{tail}")
        for index in missing:
            warn(f"  partition {index} ({sources[index]}): no report from its task")
    worst = max([info["status"] for info in failed.values()] + [0])
    if missing and not worst:
        worst = EX_SOFTWARE
    return worst


def main(argv=None, sc=None):
    """Run the job; returns the exit status. With `sc`, that SparkContext is used (and left
    running), so tests can share one."""
    argv = sys.argv[1:] if argv is None else argv
    try:
        opts = parse_args(argv)
        if sc is None and not opts.no_preflight and (opts.geo or opts.ship):
            geo = driver_geo(opts)  # before paying for Spark's start-up
            if geo:
                preflight(geo, opts)
                opts.no_preflight = True
        own = sc is None
        if own:
            sc = make_context(opts)
        try:
            return run(opts, sc)
        finally:
            if own:
                sc.stop()
    except UsageError as e:
        warn(f"{e}\nusage: geo_spark.py --input PATH --output DIR [options] -- CMD [ARGS...]"
             " (--help for more)")
        return EX_USAGE
    except Exit as e:
        if e.message:
            warn(e.message)
        return e.status


if __name__ == "__main__":
    sys.exit(main())
