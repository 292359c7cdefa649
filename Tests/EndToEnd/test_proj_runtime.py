"""How geo runs PROJ (Sources/ProjRuntime): libproj is loaded on the first geodesic, never by
commands that do not need it, and PROJ's geodesics call geo's own hypot. The dynamic loader's
own log (LD_DEBUG) says what was loaded and bound: the answers are right either way, so only
this can tell that the speed-ups are in place."""

import os
import subprocess

import pytest

from conftest import geo_bin

LINE = b'{"type":"LineString","coordinates":[[0,0],[1,1]]}\n'
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
    assert "libproj" not in loader_log(args, stdin, "files")


@pytest.mark.parametrize("args", [["length"], ["area"], ["--version"]])
def test_commands_with_geodesy_load_proj(args):
    assert "libproj" in loader_log(args, LINE, "files")


def test_proj_calls_geos_own_hypot():
    """If the export of hypot were lost from the link, lengths would still be right but a fifth
    slower."""
    log = loader_log(["length"], LINE, "bindings")
    bindings = [line for line in log.splitlines() if "`hypot'" in line and "libproj" in line]
    assert bindings, "libproj never bound hypot"
    assert all(os.path.basename(geo_bin()) + " [0]" in line for line in bindings), bindings


def test_without_proj_geodesy_fails_clearly_and_decode_still_runs(tmp_path):
    """libproj hidden (a private mount puts /dev/null over it): a geodesic command says so and
    exits 69 (EX_UNAVAILABLE); decode, which never needs it, works."""
    import shutil
    real = os.path.realpath("/usr/lib/x86_64-linux-gnu/libproj.so.25")
    if not shutil.which("unshare") or os.geteuid() != 0 or not os.path.exists(real):
        pytest.skip("needs root, unshare and Debian's libproj.so.25")
    line = tmp_path / "line.json"
    line.write_bytes(LINE)
    script = (f'mount --bind /dev/null {real} || exit 99; '
              f'"$GEO" length {line}; echo "length=$?"; '
              f'printf "_p~iF~ps|U\\n" | "$GEO" decode; echo "decode=$?"')
    out = subprocess.run(["unshare", "-m", "bash", "-c", script], env=dict(os.environ, GEO=geo_bin()),
                         capture_output=True, text=True, timeout=60)
    if "length=" not in out.stdout:
        pytest.skip(f"cannot make a private mount here: {out.stderr.strip()}")
    assert "length=69" in out.stdout
    assert "geo: cannot load PROJ:" in out.stderr and "libproj25" in out.stderr
    assert '"coordinates":[-120.2,38.5]' in out.stdout and "decode=0" in out.stdout
