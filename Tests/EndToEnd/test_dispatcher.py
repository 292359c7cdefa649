"""The dispatcher's own syntax and its messages (SPEC §1, §6): `geo --help COMMAND`, `--` before
the command, "did you mean" naming every close command (plugins too), plugins that exist but
cannot run (126/127, as shells exit), and `geo --version` naming the PROJ that geo runs on."""
import re
import shutil
import subprocess

import pytest

from conftest import REPO, run

LINE = b'{"type":"LineString","coordinates":[[0,0],[1,0]]}\n'


def plugins(tmp_path, **scripts):
    """geo-NAME files in a folder of their own: NAME=(text, executable)."""
    folder = tmp_path / "plugins"
    folder.mkdir(exist_ok=True)
    for name, (text, executable) in scripts.items():
        path = folder / f"geo-{name}"
        path.write_bytes(text.encode() if isinstance(text, str) else text)
        path.chmod(0o755 if executable else 0o644)
    return {"GEO_EXEC_PATH": str(folder)}


# --- --help COMMAND and -- ----------------------------------------------------------------------

@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_flag_before_a_command_shows_its_help(flag):
    expected = run(["help", "length"])
    assert expected[0] == 0 and expected[1].startswith(b"geo length - ")
    assert run([flag, "length"]) == expected


def test_help_flag_before_an_unknown_command_is_a_usage_error():
    rc, out, err = run(["--help", "lenght"])
    assert (rc, out) == (64, b"") and "did you mean 'length'?" in err


def test_double_dash_before_the_command():
    assert run(["--", "length"], LINE) == run(["length"], LINE)
    assert run(["--", "length"], LINE)[0] == 0
    rc, out, err = run(["--", "--help"])
    assert (rc, out) == (64, b"") and "'--help' is not a geo command" in err
    rc, out, err = run(["--"])
    assert (rc, out) == (64, b"") and "geo [--version] [--help] <command>" in err


# --- did you mean -------------------------------------------------------------------------------

def test_did_you_mean_a_single_close_command():
    rc, out, err = run(["lenght"])
    assert rc == 64 and "'lenght' is not a geo command; did you mean 'length'?" in err


def test_did_you_mean_lists_every_equally_close_command_plugins_included(tmp_path):
    env = plugins(tmp_path, lengths=("#!/bin/sh\n", True), spanz=("#!/bin/sh\n", True))
    rc, out, err = run(["lengt"], env=env)
    assert rc == 64 and "did you mean 'length' or 'lengths'?" in err, err
    rc, out, err = run(["spanx"], env=env)
    assert rc == 64 and "did you mean 'spans' or 'spanz'?" in err, err


def test_did_you_mean_a_plugin_alone(tmp_path):
    env = plugins(tmp_path, bbox=("#!/bin/sh\n", True))
    rc, out, err = run(["bbx"], env=env)
    assert rc == 64 and "did you mean 'bbox'?" in err and " or " not in err.splitlines()[0], err


# --- plugins that cannot run --------------------------------------------------------------------

def test_plugin_that_is_not_executable(tmp_path):
    env = plugins(tmp_path, noexec=("#!/bin/sh\necho ran\n", False))
    path = tmp_path / "plugins" / "geo-noexec"
    rc, out, err = run(["noexec", "x"], env=env)
    assert (rc, out) == (126, b""), err
    assert f"geo: cannot run plugin '{path}': it is not executable" in err


def test_a_later_executable_plugin_still_runs(tmp_path):
    env = plugins(tmp_path, twice=("#!/bin/sh\necho first\n", False))
    later = tmp_path / "later"
    later.mkdir()
    (later / "geo-twice").write_text("#!/bin/sh\necho second\n")
    (later / "geo-twice").chmod(0o755)
    env["GEO_EXEC_PATH"] += f":{later}"
    assert run(["twice"], env=env) == (0, b"second\n", "")


def test_plugin_whose_interpreter_is_missing(tmp_path):
    env = plugins(tmp_path, py=("#!/nonexistent/python\nprint('ran')\n", True))
    path = tmp_path / "plugins" / "geo-py"
    rc, out, err = run(["py"], env=env)
    assert (rc, out) == (127, b""), err
    assert f"geo: cannot run plugin '{path}': its interpreter /nonexistent/python" in err and "does not exist" in err


def test_plugin_with_dos_line_ends(tmp_path):
    env = plugins(tmp_path, dos=(b"#!/bin/sh\r\necho ran\r\n", True))
    rc, out, err = run(["dos"], env=env)
    assert (rc, out) == (127, b""), err
    assert "geo-dos': its #! line ends with a carriage return" in err


def test_plugin_whose_interpreter_is_not_executable(tmp_path):
    interpreter = tmp_path / "interpreter"
    interpreter.write_text("not a program\n")
    env = plugins(tmp_path, odd=(f"#!{interpreter}\n", True))
    rc, out, err = run(["odd"], env=env)
    assert (rc, out) == (126, b""), err
    assert f"its interpreter {interpreter} (from its #! line) cannot be executed" in err


def test_failed_plugins_are_documented():
    page = subprocess.run(["man", "-l", str(REPO / "man/man1/geo.1")], capture_output=True,
                          text=True, env={"MANPAGER": "cat", "MANWIDTH": "200", "PATH": "/usr/bin:/bin"}).stdout
    page = re.sub(".\b", "", page)
    assert "126 when geo-NAME is not executable" in page and "127 when that interpreter does not exist" in page


# --- --version ----------------------------------------------------------------------------------

def installed_proj_version():
    if not shutil.which("proj"):
        pytest.skip("proj (proj-bin) is not installed: it tells which PROJ the system has")
    banner = subprocess.run(["proj"], capture_output=True, text=True)
    found = re.search(r"Rel\. (\d+\.\d+\.\d+)", banner.stdout + banner.stderr)
    assert found, banner
    return found.group(1)


@pytest.mark.parametrize("args", [["--version"], ["length", "--version"]])
def test_version_names_geo_and_proj(args):
    assert run(args) == (0, f"geo 0.3.0 (PROJ {installed_proj_version()})\n".encode(), "")
