"""How geo runs its C libraries (Sources/SystemLibraries): libproj is loaded on the first
geodesic or projection other than Web Mercator and libcairo on the first drawing, never by commands that do not need them, and PROJ's
geodesics call geo's own hypot, remainder and remquo. The dynamic loader's
own log (LD_DEBUG) says what was loaded and bound: the answers are right either way, so only
this can tell that the speed-ups are in place."""

import os
import subprocess

import pytest

from conftest import geo_bin, not_under_asan

LINE = b'{"type":"LineString","coordinates":[[0,0],[1,1]]}\n'
POLYGON = b'{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}\n'
POLYLINE = b"_p~iF~ps|U_ulLnnqC_mqNvxq`@\n"


def loader_log(args, stdin, what):
    out = subprocess.run([geo_bin(), *args], input=stdin, env=dict(os.environ, LD_DEBUG=what),
                         capture_output=True, timeout=60)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stderr.decode(errors="replace")


@pytest.mark.parametrize("args,stdin", [
    (["decode"], POLYLINE),
    (["encode"], LINE),
    (["encode", "--to", "json"], LINE),
    (["decode", "--help"], b""),
])
def test_commands_without_geodesy_never_load_proj(args, stdin):
    log = loader_log(args, stdin, "files")
    assert "libproj" not in log and "libcairo" not in log and "libz.so" not in log and "libsqlite3" not in log


@pytest.mark.parametrize("args,stdin", [(["length"], LINE), (["area"], POLYGON), (["--version"], b"")])
def test_commands_with_geodesy_load_proj_but_not_cairo(args, stdin):
    log = loader_log(args, stdin, "files")
    assert "libproj" in log and "libcairo" not in log


def test_render_loads_cairo_and_proj_only_for_what_needs_it(tmp_path):
    """Web Mercator (EPSG:3857, the default) is worked out in geo and a geodesic's parameters
    only when one is measured: straight lines in it load no PROJ; a globe does."""
    log = loader_log(["render", "-o", str(tmp_path / "line.png")], LINE, "files")
    assert "libcairo" in log and "libz.so" in log and "libproj" not in log
    log = loader_log(["render", "--projection", "+proj=ortho +lat_0=30", "-o", str(tmp_path / "globe.png")], LINE, "files")
    assert "libcairo" in log and "libproj" in log


@not_under_asan
@pytest.mark.parametrize("function", ["hypot", "remainder", "remquo"])
def test_proj_calls_geos_own_libm_functions(function):
    """If the export of one were lost from the link, lengths would still be right but slower
    (hypot by a fifth, remainder and remquo by about 5 %)."""
    log = loader_log(["length"], LINE, "bindings")
    bindings = [line for line in log.splitlines() if f"`{function}'" in line and "libproj" in line]
    assert bindings, f"libproj never bound {function}"
    assert all(os.path.basename(geo_bin()) + " [0]" in line for line in bindings), bindings


@pytest.mark.parametrize("library,command,what,package", [
    ("libproj.so.25", "length {line}", "PROJ", "libproj25"),
    ("libcairo.so.2", "render -o {tmp}/out.png {line}", "cairo", "libcairo2"),
    ("libcairo.so.2", "tiles --zoom 0-1 -o {tmp}/tiles {line}", "cairo", "libcairo2"),
])
def test_a_missing_library_fails_its_command_clearly_and_decode_still_runs(tmp_path, library, command, what, package):
    """The library hidden (a private mount puts /dev/null over it): the command that needs it
    says so and exits 69 (EX_UNAVAILABLE), leaving no file; decode, which needs neither, works.
    tiles draws with cairo as render does."""
    import shutil
    real = os.path.realpath(f"/usr/lib/x86_64-linux-gnu/{library}")
    if not shutil.which("unshare") or os.geteuid() != 0 or not os.path.exists(real):
        pytest.skip(f"needs root, unshare and Debian's {library}")
    line = tmp_path / "line.json"
    line.write_bytes(LINE)
    script = (f'mount --bind /dev/null {real} || exit 99; '
              f'"$GEO" {command.format(line=line, tmp=tmp_path)}; echo "status=$?"; '
              f'printf "_p~iF~ps|U\\n" | "$GEO" decode; echo "decode=$?"')
    out = subprocess.run(["unshare", "-m", "bash", "-c", script], env=dict(os.environ, GEO=geo_bin()),
                         capture_output=True, text=True, timeout=60)
    if "status=" not in out.stdout:
        pytest.skip(f"cannot make a private mount here: {out.stderr.strip()}")
    assert "status=69" in out.stdout
    assert f"geo: cannot load {what}:" in out.stderr and package in out.stderr
    # tiles has made OUT, the directory, by then; no file is left in it.
    assert sorted(p.name for p in tmp_path.rglob("*") if not p.is_dir()) == ["line.json"], "a file was left behind"
    assert '"coordinates":[-120.2,38.5]' in out.stdout and "decode=0" in out.stdout


# --- what the binary exports ------------------------------------------------------------------

LIBM_FUNCTIONS = ["hypot", "remainder", "remquo"]


@not_under_asan
def test_the_binary_exports_only_geos_libm_functions():
    """Exactly hypot, remainder and remquo: not the lazy PROJ and cairo wrappers (libproj's own
    calls would bind to them), not geo's Swift symbols. The Swift runtime needs none exported: it
    finds metadata and conformances through the sections it registers at start, and a crash's
    backtrace (swift-backtrace) reads the file's own symbol table."""
    out = subprocess.run(["nm", "-D", "--defined-only", geo_bin()], capture_output=True, text=True, check=True)
    names = sorted(line.split()[-1].split("@")[0] for line in out.stdout.splitlines())
    assert [n for n in names if n.startswith(("proj_", "geod_", "cairo_"))] == []
    assert names == LIBM_FUNCTIONS


@pytest.mark.parametrize("args,stdin", [(["length"], LINE), (["area"], POLYGON),
                                        (["render", "--projection", "+proj=ortho +lat_0=30", "-o", "{tmp}/line.png"], LINE)])
def test_only_the_libm_functions_bind_into_geo(args, stdin, tmp_path):
    """libproj's and libcairo's calls bind to geo only for hypot, remainder and remquo: the whole
    process uses geo's (PROJ's projections and cairo too); nothing else of theirs comes back."""
    args = [a.format(tmp=tmp_path) for a in args]
    log = loader_log(args, stdin, "bindings")
    into_geo = {line.split("`")[1].split("'")[0] for line in log.splitlines()
                if f"to {geo_bin()} [0]" in line and f"binding file {geo_bin()} " not in line}
    assert into_geo and into_geo <= set(LIBM_FUNCTIONS), into_geo
