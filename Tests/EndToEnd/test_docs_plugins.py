"""Man pages, shell completions and plugin dispatch (issue: plugins, man pages and completions).

The checked-in man/ and completions/ must be what the generators produce now; the pages must be
lint-clean; the completion scripts must offer the right words in real bash and fish (zsh is
checked for syntax; driving its completion system needs a pseudo-terminal); and external
plugins must dispatch like git's.
"""
import os
import re
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

from conftest import GEO_BIN, REPO, builtins

GEO = str(GEO_BIN)

BUILTINS = builtins()


def generated(flag, tmp_path):
    out = tmp_path / flag.strip("-")
    out.mkdir()
    rc = subprocess.run([GEO, flag, str(out)], capture_output=True)
    assert rc.returncode == 0, rc.stderr
    return {p.name: p.read_bytes() for p in out.iterdir()}


@pytest.mark.parametrize("flag,folder", [("--generate-manual", "man/man1"), ("--generate-completions", "completions")])
def test_checked_in_files_are_what_the_generators_produce(flag, folder, tmp_path):
    fresh = generated(flag, tmp_path)
    checked_in = {p.name: p.read_bytes() for p in (REPO / folder).iterdir()}
    assert sorted(fresh) == sorted(checked_in), "a page or script is missing or extra: run 'make docs'"
    for name in fresh:
        assert fresh[name] == checked_in[name], f"{folder}/{name} is stale: run 'make docs'"


def test_every_builtin_has_a_page():
    names = sorted(p.name for p in (REPO / "man/man1").iterdir())
    assert names == sorted(["geo.1"] + [f"geo-{c}.1" for c in BUILTINS])


@pytest.mark.parametrize("page", ["geo.1"] + [f"geo-{c}.1" for c in BUILTINS])
def test_pages_are_lint_clean_and_render_without_warnings(page):
    path = REPO / "man/man1" / page
    lint = subprocess.run(["mandoc", "-T", "lint", "-W", "warning", str(path)], capture_output=True, text=True)
    assert (lint.returncode, lint.stdout, lint.stderr) == (0, "", "")
    rendered = subprocess.run(["man", "-l", str(path)], capture_output=True, text=True,
                              env={**os.environ, "MANPAGER": "cat", "MANWIDTH": "80"})
    assert rendered.returncode == 0 and rendered.stderr == ""
    assert "NAME" in rendered.stdout and "EXIT STATUS" in rendered.stdout


def page_text(page):
    """A page as mandoc renders it (not man: groff would hyphenate words across lines), on long
    lines, without the overstrikes of bold and underline."""
    text = subprocess.run(["mandoc", "-T", "ascii", "-O", "width=400", str(REPO / "man/man1" / page)],
                          capture_output=True, text=True).stdout
    return re.sub(".\b", "", text)


def test_pages_document_every_option_with_its_values_and_default():
    text = page_text("geo-length.1")
    for flag in ["--field", "--cumulative", "--kind", "--ellps", "--sphere", "--from", "--precision", "--rejects", "--jobs"]:
        assert flag in text
    assert "geodesic|rhumb|projected" in text and "(default: geodesic)" in text and "GRS80" in text


@pytest.mark.parametrize("page", ["geo.1", "geo-length.1", "geo-render.1", "geo-tiles.1"])
def test_exit_status_69_names_every_library_and_who_needs_it(page):
    """render and tiles write their own EXIT STATUS; 69 is theirs too, and cairo is tiles' as well."""
    status = " ".join(page_text(page).split("\nEXIT STATUS\n", 1)[1].split())  # lines joined
    assert "69: a library geo loads when it first needs it is missing" in status
    assert "cairo (libcairo2) for render and tiles" in status and "SQLite (libsqlite3-0)" in status


def command_listings():
    """Where prose lists geo's commands: man geo's DESCRIPTION, docs/records.md's opening
    paragraph, the Debian package's Description."""
    control = (REPO / "packaging/control").read_text()
    return {
        "man geo's DESCRIPTION": page_text("geo.1").split("DESCRIPTION", 1)[1].split("COMMANDS", 1)[0],
        "docs/records.md's opening": (REPO / "docs/records.md").read_text().split("\n\n")[1],
        "the Debian Description": control.split("\nDescription:", 1)[1],
    }


@pytest.mark.parametrize("where", command_listings())
def test_every_listing_of_the_commands_names_all_of_them(where):
    text = command_listings()[where]
    missing = [c for c in BUILTINS if not re.search(rf"(?<![\w-]){re.escape(c)}(?![\w-])", text)]
    assert missing == [], f"{where} does not name {missing}"


def test_the_readme_has_a_row_for_every_command_and_no_other():
    """The README's table of commands against the binary's list: a new command needs its row."""
    rows = re.findall(r"^\| `geo ([a-z-]+)", (REPO / "README.md").read_text(), re.M)
    assert sorted(set(rows) - {"completion"}) == sorted(BUILTINS)


# Paragraphs of docs/records.md that name, in their first parenthesis, the commands taking an
# option, and how `geo COMMAND --help` declares that option: the two must name the same commands.
OPTION_LISTINGS = {"**`--digits N`**": r"^\s+--digits N\b", "**`--to polyline`**": r"^\s+--to geojson\|polyline\b"}


@pytest.mark.parametrize("paragraph", OPTION_LISTINGS)
def test_records_md_names_every_command_that_takes_an_option(paragraph):
    text = (REPO / "docs/records.md").read_text().split(paragraph, 1)[1]
    named = set(re.findall(r"`([a-z-]+)`", text.split(")", 1)[0]))
    declaring = {command for command in BUILTINS if re.search(OPTION_LISTINGS[paragraph], subprocess.run(
        [GEO, command, "--help"], capture_output=True, text=True, check=True).stdout, re.M)}
    assert named == declaring


# --- bash ---------------------------------------------------------------------------------------

def bash_complete(words, tmp_path, env_extra=None):
    """Completes the last of `words` (the line typed so far, split as bash would)."""
    script = f"""
source {REPO}/completions/geo.bash
COMP_WORDS=({' '.join(repr(w) for w in words)})
COMP_CWORD={len(words) - 1}
_geo
printf '%s\\n' "${{COMPREPLY[@]}}"
"""
    env = {**os.environ, "PATH": f"{Path(GEO).parent}:{os.environ['PATH']}", **(env_extra or {})}
    result = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    return [line for line in result.stdout.splitlines() if line]


def plugin_dir(tmp_path, name="count", body='echo "plugin $@"'):
    folder = tmp_path / "plugins"
    folder.mkdir(exist_ok=True)
    plugin = folder / f"geo-{name}"
    plugin.write_text(f"#!/bin/sh\n{body}\n")
    plugin.chmod(0o755)
    return folder


def test_bash_completes_commands_flags_values_and_plugins(tmp_path):
    assert set(BUILTINS) <= set(bash_complete(["geo", ""], tmp_path))
    assert bash_complete(["geo", "len"], tmp_path) == ["length"]
    flags = bash_complete(["geo", "length", "--"], tmp_path)
    assert {"--kind", "--ellps", "--sphere", "--cumulative", "--field", "--help"} <= set(flags)
    assert all(f.startswith("--") for f in flags)
    assert bash_complete(["geo", "length", "--kind", ""], tmp_path) == ["geodesic", "rhumb", "projected"]
    assert bash_complete(["geo", "length", "--kind", "=", "rh"], tmp_path) == ["rhumb"]
    assert "WGS84" in bash_complete(["geo", "length", "--ellps", "WG"], tmp_path)
    assert bash_complete(["geo", "encode", "--to", ""], tmp_path) == ["polyline", "geojson"]
    (tmp_path / "routes.ndjson").write_text("")
    assert bash_complete(["geo", "decode", "rou"], tmp_path) == ["routes.ndjson"]
    assert bash_complete(["geo", "decode", "--rejects", "rou"], tmp_path) == ["routes.ndjson"]
    env = {"GEO_EXEC_PATH": str(plugin_dir(tmp_path))}
    assert bash_complete(["geo", "cou"], tmp_path, env) == ["count"]


# --- zsh and fish -------------------------------------------------------------------------------

def test_zsh_and_fish_accept_the_scripts():
    assert subprocess.run(["zsh", "-n", str(REPO / "completions/_geo")], capture_output=True).returncode == 0
    assert subprocess.run(["fish", "-n", str(REPO / "completions/geo.fish")], capture_output=True).returncode == 0
    assert subprocess.run(["bash", "-n", str(REPO / "completions/geo.bash")], capture_output=True).returncode == 0


def fish_complete(line, tmp_path, env_extra=None):
    env = {**os.environ, "PATH": f"{Path(GEO).parent}:{os.environ['PATH']}", **(env_extra or {})}
    result = subprocess.run(["fish", "--no-config", "-c", f"source {REPO}/completions/geo.fish; complete -C {line!r}"],
                            capture_output=True, text=True, env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    return [l.split("\t")[0] for l in result.stdout.splitlines()]


def test_fish_completes_the_same_cases(tmp_path):
    assert fish_complete("geo len", tmp_path) == ["length"]
    assert set(BUILTINS) <= set(fish_complete("geo ", tmp_path))
    assert {"--kind", "--ellps", "--cumulative"} <= set(fish_complete("geo length --", tmp_path))
    assert fish_complete("geo length --kind ", tmp_path) == ["geodesic", "projected", "rhumb"] or \
        sorted(fish_complete("geo length --kind ", tmp_path)) == ["geodesic", "projected", "rhumb"]
    assert fish_complete("geo cou", tmp_path, {"GEO_EXEC_PATH": str(plugin_dir(tmp_path))}) == ["count"]


# --- plugins ------------------------------------------------------------------------------------

def geo_with(tmp_path, args, input=None, env_extra=None, **kw):
    env = {**os.environ, "GEO_EXEC_PATH": str(tmp_path / "plugins"), **(env_extra or {})}
    return subprocess.run([GEO] + args, input=input, capture_output=True, env=env, **kw)


def test_plugin_gets_arguments_streams_exit_status_and_geo(tmp_path):
    plugin_dir(tmp_path, "echo", 'printf "%s|" "$@"; echo; echo "GEO=$GEO"; cat; echo oops >&2; exit 3')
    result = geo_with(tmp_path, ["echo", "a b", "", "--x=1", "-"], input=b"from stdin\n")
    assert result.returncode == 3
    assert result.stdout.decode().splitlines() == ["a b||--x=1|-|", f"GEO={os.path.realpath(GEO)}", "from stdin"]
    assert result.stderr == b"oops\n"


def test_plugin_killed_by_a_signal_is_reported_as_such(tmp_path):
    plugin_dir(tmp_path, "die", "kill -TERM $$")
    assert geo_with(tmp_path, ["die"]).returncode == -signal.SIGTERM


def test_plugin_keeps_default_sigpipe(tmp_path):
    plugin_dir(tmp_path, "yes", "exec yes")
    env = {**os.environ, "GEO_EXEC_PATH": str(tmp_path / "plugins")}
    result = subprocess.run(["bash", "-c", f"'{GEO}' yes | head -1; echo ${{PIPESTATUS[0]}}"],
                            capture_output=True, text=True, env=env, timeout=10)
    assert result.stdout.splitlines() == ["y", "141"]


def test_builtin_wins_and_commands_warns(tmp_path):
    plugin_dir(tmp_path, "encode", "echo hijacked")
    plugin_dir(tmp_path, "zzz", "echo first")
    later = tmp_path / "later"
    later.mkdir()
    (later / "geo-zzz").write_text("#!/bin/sh\necho second\n")
    (later / "geo-zzz").chmod(0o755)
    (later / "geo-noexec").write_text("#!/bin/sh\n")
    env = {"GEO_EXEC_PATH": f"{tmp_path / 'plugins'}:{later}"}
    result = geo_with(tmp_path, ["encode"], input=b'{"type":"Point","coordinates":[1,2]}\n', env_extra=env)
    assert result.stdout == b"_seK_ibE\n"
    assert geo_with(tmp_path, ["zzz"], env_extra=env).stdout == b"first\n"
    listing = geo_with(tmp_path, ["commands"], env_extra=env)
    lines = listing.stdout.decode().splitlines()
    assert [l.split("\t")[0] for l in lines] == BUILTINS + ["zzz"]
    assert lines[-1] == f"zzz\tplugin: {tmp_path / 'plugins' / 'geo-zzz'}"
    warnings = listing.stderr.decode()
    assert f"{tmp_path / 'plugins' / 'geo-encode'} is shadowed by the built-in command 'encode'" in warnings
    assert f"{later / 'geo-zzz'} is shadowed by {tmp_path / 'plugins' / 'geo-zzz'}" in warnings
    assert f"{later / 'geo-noexec'} is not executable" in warnings


def test_plugin_found_in_libexec_beside_the_binary_and_on_path(tmp_path):
    prefix = tmp_path / "prefix"
    (prefix / "bin").mkdir(parents=True)
    (prefix / "libexec/geo").mkdir(parents=True)
    shutil.copy(GEO, prefix / "bin/geo")
    (prefix / "libexec/geo/geo-here").write_text("#!/bin/sh\necho libexec\n")
    (prefix / "libexec/geo/geo-here").chmod(0o755)
    result = subprocess.run([str(prefix / "bin/geo"), "here"], capture_output=True, env={"PATH": "/usr/bin:/bin"})
    assert result.stdout == b"libexec\n"
    folder = plugin_dir(tmp_path, "onpath", "echo path")
    result = subprocess.run([GEO, "onpath"], capture_output=True, env={"PATH": f"{folder}:/usr/bin:/bin"})
    assert result.stdout == b"path\n"


def test_unknown_command_is_a_usage_error(tmp_path):
    plugin_dir(tmp_path, "count")
    result = geo_with(tmp_path, ["cont"])
    assert result.returncode == 64
    assert b"'cont' is not a geo command; did you mean 'count'?" in result.stderr


def test_plugin_help_passes_through_or_opens_its_man_page(tmp_path):
    plugin_dir(tmp_path, "hlp", 'echo "own help: $@"')
    manpath = tmp_path / "man"
    assert geo_with(tmp_path, ["hlp", "--help"], env_extra={"MANPATH": str(manpath)}).stdout == b"own help: --help\n"
    (manpath / "man1").mkdir(parents=True)
    (manpath / "man1/geo-hlp.1").write_text(".Dd November 29, 2026\n.Dt GEO-HLP 1\n.Os\n.Sh NAME\n.Nm geo-hlp\n.Nd the hlp plugin's page\n")
    result = geo_with(tmp_path, ["hlp", "--help"], env_extra={"MANPATH": str(manpath), "MANPAGER": "cat"})
    assert result.returncode == 0 and b"the hlp plugin's page" in result.stdout


def test_example_count_plugin(tmp_path):
    """examples/geo-count, the example plugin: run as `geo count` from GEO_EXEC_PATH, with its
    arguments, its output and its own --help passed through."""
    import json
    env = {**os.environ, "GEO_EXEC_PATH": str(REPO / "examples")}
    files = [REPO / "examples/routes.ndjson", REPO / "examples/stations.ndjson"]
    result = subprocess.run([GEO, "count", *map(str, files)], capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr
    expected = {}
    for path in files:
        for record in map(json.loads, path.read_text().splitlines()):
            kind = (record["geometry"] or {"type": "null"})["type"] if record["type"] == "Feature" else record["type"]
            expected[kind] = expected.get(kind, 0) + 1
    assert json.loads(result.stdout) == expected and len(expected) >= 2
    assert subprocess.run([GEO, "count", "--help"], capture_output=True, env=env).stdout.startswith(b"usage: geo count")


@pytest.mark.parametrize("collection", [False, True], ids=["ndjson", "collection"])
def test_example_simplestyle_viewer_embeds_every_feature(tmp_path, collection):
    """examples/view-simplestyle.sh (without a PNG, so no browser): the page it writes holds
    geo's features unchanged, even a property that would close the <script> element."""
    import json
    routes = tmp_path / "routes.ndjson"
    routes.write_text((REPO / "examples/routes.ndjson").read_text().replace(
        '"name":"Maps SDK documentation path"', '"name":"</script><b>x"'))
    spans = subprocess.run([GEO, "spans", "--split", "--style", "red", "--style", "gradient(yellow,blue)",
                            "--length", "200000", "--width", "3", *(["--collection"] if collection else []),
                            str(routes)], capture_output=True, check=True).stdout
    src, html = tmp_path / "spans.json", tmp_path / "spans.html"
    src.write_bytes(spans)
    result = subprocess.run(["bash", str(REPO / "examples/view-simplestyle.sh"), str(src), str(html)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    page = html.read_text()
    assert "file:///usr/share/javascript/leaflet/leaflet.js" in page
    embedded = page.split("const data =\n", 1)[1].split("\n;\n", 1)[0]
    assert "</script>" not in embedded
    expected = (json.loads(spans)["features"] if collection
                else [json.loads(line) for line in spans.splitlines()])
    assert len(expected) > 5 and json.loads(embedded)["features"] == expected
    assert any(f["properties"]["name"] == "</script><b>x" for f in expected)
