"""Files as users' systems have them (SPEC section 3): device nodes, FIFOs, links, modes,
`>>`, process substitution and /dev/stdin, all made in a temporary folder (the system's /dev is
never touched). geo writes through whatever a user names, never replaces or removes it, reads
an input that is not a regular file once, and refuses to read its own output.
"""

import json
import os
import stat
import subprocess
import threading

import pytest

from conftest import builtins, geo_bin, listed

LINES = (
    b'{"type":"Feature","properties":{"stroke":"#dd0000","stroke-width":4},'
    b'"geometry":{"type":"LineString","coordinates":[[0,0],[10,5]]}}\n'
    b'{"type":"LineString","coordinates":[[2,3],[8,1]]}\n'
)
BAD = b'{"type":"LineString","coordinates":[[0,0],[1,200]]}\n'


def sh(script, cwd, timeout=60):
    """Runs a bash script with $G set to geo, as a user types it; returns the finished process."""
    return subprocess.run(["bash", "-c", script], cwd=cwd, env=dict(os.environ, G=geo_bin()),
                          capture_output=True, timeout=timeout)


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "in.ndjson").write_bytes(LINES)
    os.mknod(tmp_path / "null", 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # a /dev/null of our own
    return tmp_path


# --- -o FILE writes through what FILE is ---

def test_render_to_a_device_writes_it_and_leaves_it_a_device(folder):
    for args in (["-o", "null"], ["-o", "null", "--format", "png"]):
        p = sh(f'$G render {" ".join(args)} in.ndjson', folder)
        assert p.returncode == 0, p.stderr
        assert stat.S_ISCHR(os.lstat(folder / "null").st_mode), "the device node was replaced"


def test_render_through_a_link_writes_its_target(folder):
    (folder / "target.png").write_bytes(b"old")
    os.symlink("target.png", folder / "link.png")
    p = sh("$G render -o link.png in.ndjson", folder)
    assert p.returncode == 0, p.stderr
    assert os.path.islink(folder / "link.png"), "the link was replaced by a file"
    assert (folder / "target.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_render_through_a_dangling_link_creates_its_target(folder):
    os.symlink("made.svg", folder / "link.svg")
    p = sh("$G render -o link.svg in.ndjson", folder)
    assert p.returncode == 0, p.stderr
    assert os.path.islink(folder / "link.svg")
    assert b"<svg" in (folder / "made.svg").read_bytes()


def test_render_keeps_the_mode_of_the_file_it_replaces(folder):
    picture = folder / "private.png"
    picture.write_bytes(b"old")
    picture.chmod(0o600)
    p = sh("$G render -o private.png in.ndjson", folder)
    assert p.returncode == 0, p.stderr
    assert stat.S_IMODE(picture.stat().st_mode) == 0o600
    assert picture.read_bytes()[:4] == b"\x89PNG"


def test_render_into_a_fifo_feeds_its_reader(folder):
    os.mkfifo(folder / "pipe")
    got = {}
    reader = threading.Thread(target=lambda: got.update(data=(folder / "pipe").read_bytes()))
    reader.start()
    p = sh("$G render --format png -o pipe in.ndjson", folder)
    reader.join(30)
    assert p.returncode == 0, p.stderr
    assert stat.S_ISFIFO(os.lstat(folder / "pipe").st_mode)
    assert got["data"][:4] == b"\x89PNG"


def test_render_to_dev_stdout_and_process_substitution(folder):
    # /dev/stdout as the system has it (a link to /proc/self/fd/1), made here: a test run with
    # a broken geo must not be able to replace the system's own.
    os.symlink("/proc/self/fd/1", folder / "stdout")
    p = sh("$G render --format png -o stdout in.ndjson | od -An -c | head -1", folder)
    assert p.returncode == 0, p.stderr
    assert b"P   N   G" in p.stdout
    assert os.path.islink(folder / "stdout")
    p = sh("$G render --format png -o stdout in.ndjson > out.png", folder)
    assert p.returncode == 0, p.stderr
    assert (folder / "out.png").read_bytes()[:4] == b"\x89PNG"
    p = sh("$G render --format png -o >(wc -c > size) in.ndjson; wait; sleep 0.5; cat size", folder)
    assert p.returncode == 0, p.stderr
    assert int(p.stdout) > 1000


@pytest.mark.parametrize("command", ["length", "render -o out.svg"])
def test_rejects_never_removes_what_the_user_named(folder, command):
    (folder / "target").write_bytes(b"keep me\n")
    os.symlink("target", folder / "link")
    for rejects in ("null", "link", "target"):
        p = sh(f"$G {command} --rejects {rejects} in.ndjson > /dev/null", folder)
        assert p.returncode == 0, p.stderr
    assert stat.S_ISCHR(os.lstat(folder / "null").st_mode), "--rejects removed a device node"
    assert os.path.islink(folder / "link"), "--rejects removed a link"
    assert (folder / "target").exists(), "--rejects removed a file the user had"


def test_rejects_made_by_geo_is_removed_when_nothing_is_bad(folder):
    p = sh("$G length --rejects new.ndjson in.ndjson > /dev/null", folder)
    assert p.returncode == 0, p.stderr
    assert not (folder / "new.ndjson").exists()
    (folder / "bad.ndjson").write_bytes(LINES + BAD)
    p = sh("$G length --rejects kept.ndjson bad.ndjson > /dev/null", folder)
    assert p.returncode == 65
    assert json.loads((folder / "kept.ndjson").read_text())["line"] == 3


def test_render_expands_rejects_templates(folder):
    (folder / "bad.ndjson").write_bytes(LINES + BAD)
    p = sh("$G render -o out.svg --rejects 'bad-%p.ndjson' bad.ndjson", folder)
    assert p.returncode == 65
    names = [n.name for n in folder.iterdir() if n.name.startswith("bad-")]
    assert len(names) == 1 and names[0] != "bad-%p.ndjson" and names[0][4:-7].isdigit(), names


# --- inputs that can be read once ---

@pytest.mark.parametrize("how", [
    "$G render -o x.png <(cat in.ndjson)",
    "cat in.ndjson | $G render -o x.png /dev/stdin",
    "cat in.ndjson | $G render -o x.png",
    "(cat in.ndjson > fifo &); $G render -o x.png fifo",
])
def test_render_draws_an_input_it_can_read_only_once(folder, how):
    os.mkfifo(folder / "fifo")
    p = sh(how, folder, timeout=30)
    assert p.returncode == 0, p.stderr
    from PIL import Image
    pixels = Image.open(folder / "x.png").convert("RGB")
    reds = sum(1 for r, g, b in pixels.tobytes() and zip(*[iter(pixels.tobytes())] * 3) if r > 150 and g < 80 and b < 80)
    assert reds > 100, f"the picture is blank ({reds} red pixels)"


@pytest.mark.parametrize("command", ["length", "area", "encode"])
def test_streaming_commands_read_a_fifo(folder, command):
    os.mkfifo(folder / "fifo")
    p = sh(f"(cat in.ndjson > fifo &); $G {command} fifo", folder, timeout=30)
    assert p.returncode == 0, p.stderr
    assert len(p.stdout.splitlines()) == 2


# --- geo never reads its own output ---

@pytest.mark.parametrize("script", [
    "$G length in.ndjson >> in.ndjson",
    "$G length < in.ndjson >> in.ndjson",
    "$G render in.ndjson >> in.ndjson",
    "$G render -o in.ndjson --format svg in.ndjson",
])
def test_output_that_is_an_input_is_refused_before_reading(folder, script):
    p = sh(script, folder, timeout=20)
    assert p.returncode == 64, (p.returncode, p.stderr)
    assert (folder / "in.ndjson").read_bytes() == LINES
    assert b"input" in p.stderr


def read_until_closed(fd):
    try:
        while os.read(fd, 65536):
            pass
    except OSError:          # EIO once the follower side is closed
        pass


def test_render_refuses_to_write_png_to_a_terminal(folder):
    """PNG and PDF garble a terminal: 64 unless `-o -` asks (a pty stands in for the terminal)."""
    import pty
    for args, expected in ((["--format", "png"], 64), (["--format", "pdf"], 64), ([], 0), (["--format", "png", "-o", "-"], 0)):
        leader, follower = pty.openpty()
        drain = threading.Thread(target=read_until_closed, args=(leader,))   # a terminal shows what it is sent
        drain.start()
        with open(folder / "in.ndjson", "rb") as source:
            proc = subprocess.run([geo_bin(), "render", *args], stdin=source, stdout=follower, stderr=subprocess.PIPE, timeout=30)
        os.close(follower)
        drain.join()
        os.close(leader)
        assert proc.returncode == expected, (args, proc.stderr)


# --- a latitude out of range is told as such, in every geometry and command ---

GEOMETRIES = {
    "LineString": '{"type":"LineString","coordinates":[[0,0],[1,200]]}',
    "MultiPoint": '{"type":"MultiPoint","coordinates":[[0,0],[1,-91]]}',
    "Polygon": '{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,95],[0,0]]]}',
    "MultiLineString": '{"type":"MultiLineString","coordinates":[[[0,0],[1,1]],[[0,0],[1,100]]]}',
    "MultiPolygon": '{"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[1,95],[0,0]]]]}',
    "Point": '{"type":"Point","coordinates":[1,-91]}',
}


def geometry_samples():
    """Each built-in with its first sample arguments that read GeoJSON (`geo --list-cmds`)."""
    chosen = {}
    for words in listed("samples"):
        command, arguments = words[0], [w for w in words[1:] if w]
        if command not in chosen and not {"--from", "--center"} & set(arguments):
            chosen[command] = arguments
    return chosen


SAMPLES = geometry_samples()


def test_every_command_has_a_sample_that_reads_geometries():
    assert set(SAMPLES) == set(builtins())


@pytest.mark.parametrize("command", sorted(SAMPLES))
@pytest.mark.parametrize("kind", sorted(GEOMETRIES))
def test_latitude_out_of_range_is_named_in_every_geometry(command, kind):
    arguments = SAMPLES[command]
    fine = GEOMETRIES[kind].replace("200", "20").replace("-91", "-9").replace("95", "9").replace("100", "10")
    readable = subprocess.run([geo_bin(), command, *arguments], input=fine.encode() + b"\n", capture_output=True, timeout=60)
    if readable.returncode != 0:
        pytest.skip(f"geo {command} does not take a {kind} (or any GeoJSON) with {arguments}")
    good = '{"type":"LineString","coordinates":[[0,0],[1,1]]}'
    proc = subprocess.run([geo_bin(), command, *arguments], input=(GEOMETRIES[kind] + "\n" + good + "\n").encode(),
                          capture_output=True, timeout=60)
    err = proc.stderr.decode()
    assert proc.returncode == 65, err
    first = err.splitlines()[0]
    assert "<stdin>:1: latitude [" in first and "is outside [-90, 90] (positions are [longitude, latitude])" in first, first
    assert "JSON" not in first


def _line(lon, z=0):
    return json.dumps({"type": "Feature", "properties": {"z-index": z},
                       "geometry": {"type": "LineString", "coordinates": [[lon / 100, 0], [lon / 100 + 1, 1]] * 40}})


@pytest.mark.parametrize("case", ["tiles' spool", "render's copy of standard input", "render's z-index layers"])
def test_a_temporary_file_that_cannot_grow_names_its_folder(tmp_path, case):
    """A temporary file in $TMPDIR hits a limit (here the file size limit, as a full /tmp
    would): one line that says which folder and that TMPDIR moves it; exit 74; nothing left
    there and no output made. Each of the three temporary files geo keeps."""
    import resource
    import signal
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    records = "".join(_line(lon, z=1 if case == "render's z-index layers" else 0) + "\n" for lon in range(4000))
    source = tmp_path / "in.ndjson"
    source.write_text(records)
    args = {"tiles' spool": ["tiles", "--zoom", "0-2", "-o", tmp_path / "out", source],
            "render's copy of standard input": ["render", "-o", tmp_path / "out.png"],
            "render's z-index layers": ["render", "--bbox", "0,0,42,2", "-o", tmp_path / "out.png", source]}[case]
    def small_files():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # write then fails with EFBIG instead
        resource.setrlimit(resource.RLIMIT_FSIZE, (256 * 1024, 256 * 1024))
    proc = subprocess.run([geo_bin(), *map(str, args)], input=records.encode() if "standard input" in case else b"",
                          preexec_fn=small_files, capture_output=True, env={**os.environ, "TMPDIR": str(scratch)})
    assert proc.returncode == 74, proc.stderr
    message = proc.stderr.decode().strip().splitlines()
    assert len(message) == 1 and f"temporary file in {scratch}" in message[0] and "TMPDIR" in message[0], message
    assert list(scratch.iterdir()) == []
    assert not (tmp_path / "out").exists() and not (tmp_path / "out.png").exists()
