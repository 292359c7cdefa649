"""Completion in real interactive shells: zsh, bash (with bash-completion) and fish, each driven
in tmux with a clean start-up file that loads the generated script from completions/, TAB pressed,
and the screen read back.

Syntax checks and calling the completion function by hand missed every bug these catch: zsh
running `segments]` as a command for `geo spans --span`, bash splitting file names at spaces,
fish offering nothing after `geo help`. Each shell is skipped, with the reason, when it (or tmux)
is not installed; every wait is bounded, so a shell that misbehaves fails a test, never hangs it.
"""
import atexit
import os
import re
import shutil
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

import pytest

from conftest import GEO_BIN, REPO, builtins

GEO = str(GEO_BIN)
BUILTINS = builtins()
TIMEOUT = 10        # seconds for any one thing to appear on the screen
SETTLE = 0.3        # seconds the screen must stay the same before a TAB counts as done


def need(*programs):
    for program in programs:
        if not shutil.which(program):
            pytest.skip(f"{program} is not installed (apt-get install {program})")


class Terminal:
    """One interactive shell in a detached tmux session on its own server (-L), 160x50."""

    def __init__(self, argv, env, cwd, prompt):
        self.socket = f"geo-completion-{uuid.uuid4().hex[:12]}"
        self.env = env
        self.prompt = prompt
        self.tmux("new-session", "-d", "-x", "160", "-y", "50", "-c", str(cwd), "--", *argv)
        self.tmux("set-option", "-g", "status", "off")
        self.wait_for(lambda screen: screen.rstrip().endswith(prompt.rstrip()), "the first prompt")

    def tmux(self, *args):
        return subprocess.run(["tmux", "-L", self.socket, "-f", "/dev/null", *args], env=self.env,
                              capture_output=True, text=True, timeout=TIMEOUT, check=True).stdout

    def screen(self):
        return self.tmux("capture-pane", "-p", "-J")

    def wait_for(self, predicate, what):
        deadline = time.monotonic() + TIMEOUT
        while True:
            screen = self.screen()
            if predicate(screen):
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}; the screen:\n{screen}")
            time.sleep(0.05)

    def settled(self, before):
        """The screen once it has changed from `before` (or not) and then stayed the same."""
        deadline = time.monotonic() + TIMEOUT
        last, since = self.screen(), time.monotonic()
        while time.monotonic() < deadline:
            time.sleep(0.05)
            screen = self.screen()
            if screen != last:
                last, since = screen, time.monotonic()
            elif time.monotonic() - since >= (SETTLE if screen != before else 3 * SETTLE):
                return screen
        raise AssertionError(f"the screen never settled:\n{last}")

    def complete(self, line):
        """Types `line` on a fresh command line, presses TAB; returns the screen after it."""
        self.tmux("send-keys", "C-u")
        self.tmux("send-keys", "-l", line)
        typed = self.wait_for(lambda screen: self.current_line(screen).endswith(line.rstrip()), f"'{line}' typed")
        self.tmux("send-keys", "Tab")
        return self.settled(typed)

    def run_with(self, prefix):
        """Puts PREFIX before the command line and runs it; the screen once it settles."""
        before = self.screen()
        self.tmux("send-keys", "C-a")
        self.tmux("send-keys", "-l", prefix)
        self.tmux("send-keys", "Enter")
        return self.settled(before)

    def current_line(self, screen):
        """The text after the last prompt on the screen."""
        lines = [l for l in screen.splitlines() if l.startswith(self.prompt)]
        return lines[-1][len(self.prompt):].rstrip() if lines else ""

    def close(self):
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], env=self.env, capture_output=True, timeout=TIMEOUT)


@pytest.fixture
def workspace(tmp_path):
    """A folder to complete in: files with spaces, a directory, a plugin; and a clean HOME."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "my routes.ndjson").write_text("")
    (work / "data dir").mkdir()
    (work / "data dir" / "inner.ndjson").write_text("")
    (work / "tracks").mkdir()
    for name in ("picture.png", "picture.txt", "world.mbtiles", "world.png"):  # for -o's formats
        (work / name).write_text("")
    home = tmp_path / "home"
    home.mkdir()
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    plugin = plugins / "geo-count"
    plugin.write_text("#!/bin/sh\necho count\n")
    plugin.chmod(0o755)
    env = {
        "PATH": f"{Path(GEO).parent}:/usr/bin:/bin",
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local/share"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "GEO_EXEC_PATH": str(plugins),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        # tmux's socket is TMUX_TMPDIR/tmux-UID/NAME, and a socket's path holds at most 107
        # bytes: pytest's tmp_path (…/pytest-138/popen-gw1/test_tab_in_a_real_shell_fish_16/)
        # grows past that on a machine that has run the suite a hundred times.
        "TMUX_TMPDIR": short_folder(tmp_path),
    }
    return work, home, env


def short_folder(tmp_path):
    """A folder under /tmp with a short name, removed with tmp_path's test: a link from tmp_path
    keeps it findable."""
    folder = tempfile.mkdtemp(prefix="tmux-", dir="/tmp")
    (tmp_path / "tmux").symlink_to(folder)
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def open_terminal(request, argv, env, cwd, prompt):
    terminal = Terminal(argv, env, cwd, prompt)
    request.addfinalizer(terminal.close)
    return terminal


def start_zsh(request, workspace, rc):
    need("tmux", "zsh")
    work, home, env = workspace
    (home / ".zshrc").write_text("PS1='zsh> '\nunsetopt listambiguous\nzstyle ':completion:*' format '-- %d --'\n" + rc)
    return open_terminal(request, ["zsh", "--no-globalrcs", "-i"], {**env, "ZDOTDIR": str(home)}, work, "zsh> ")


BASH_COMPLETION = Path("/usr/share/bash-completion/bash_completion")


def start_bash(request, workspace, with_bash_completion=True):
    need("tmux", "bash")
    if with_bash_completion and not BASH_COMPLETION.exists():
        pytest.skip("bash-completion is not installed (apt-get install bash-completion)")
    work, home, env = workspace
    (home / ".inputrc").write_text("set show-all-if-ambiguous on\nset bell-style none\n"
                                   "set completion-query-items 1000\nset page-completions off\n")
    (home / ".bashrc").write_text((f"source {BASH_COMPLETION}\n" if with_bash_completion else "")
                                  + f"source {REPO}/completions/geo.bash\nPS1='bash> '\n")
    return open_terminal(request, ["bash", "--noprofile", "--rcfile", str(home / ".bashrc"), "-i"],
                         {**env, "INPUTRC": str(home / ".inputrc")}, work, "bash> ")


def start_fish(request, workspace):
    need("tmux", "fish")
    work, home, env = workspace
    init = (f"set -g fish_complete_path {REPO}/completions $fish_complete_path; set -g fish_greeting; "
            "set -g fish_autosuggestion_enabled 0; function fish_prompt; printf 'fish> '; end; "
            "function fish_right_prompt; end; function fish_title; end")
    return open_terminal(request, ["fish", "--no-config", "-i", "-C", init], env, work, "fish> ")


SHELLS = {
    # zsh finds _geo on $fpath, as an installed geo's is found.
    "zsh": lambda request, workspace: start_zsh(request, workspace, f"fpath=({REPO}/completions $fpath)\n"
                                                "autoload -Uz compinit && compinit -u -D\n"),
    "bash": start_bash,
    # Without bash-completion, the script falls back on compgen -f with -o filenames.
    "bash-plain": lambda request, workspace: start_bash(request, workspace, with_bash_completion=False),
    "fish": start_fish,
}

# (shell, what is typed before TAB, the command line after TAB or None, text the screen shows,
#  text it must not show). The workspace holds 'my routes.ndjson', 'data dir/' and 'tracks/';
#  geo-count is a plugin.
FILES = ["my routes", "data dir", "tracks"]
CASES = {
    "zsh-commands-and-plugins": ("zsh", "geo ", None, BUILTINS + ["count", "help", "commands", "completion"], FILES),
    "zsh-dash-offers-help-and-version": ("zsh", "geo -", None, ["--help", "--version"], FILES),
    "zsh-help-offers-commands": ("zsh", "geo help ", None, ["length", "circle-to-polygon", "count"], FILES),
    "zsh-help-completes-a-command": ("zsh", "geo help len", "geo help length", [], []),
    "zsh-commands-offers-nothing": ("zsh", "geo commands ", "geo commands", [], FILES),
    "zsh-completion-offers-shells": ("zsh", "geo completion ", None, ["bash", "zsh", "fish"], FILES),
    # The valueName STYLE[:SEGMENTS] once ended the spec at its colon: zsh ran `segments]`.
    "zsh-span-value-runs-no-command": ("zsh", "geo spans --span ", "geo spans --span", ["style[:segments]"],
                                       ["command not found"]),
    "zsh-style-suggests-colours": ("zsh", "geo spans --style dark", None, ["darkblue", "darkorange"], FILES),
    "zsh-style-completes-a-colour": ("zsh", "geo spans --style toma", "geo spans --style tomato", [], []),
    "zsh-kind-values": ("zsh", "geo length --kind rh", "geo length --kind rhumb", [], []),
    "zsh-whole-sentence-descriptions": ("zsh", "geo length --", None,
                                        ["Also add properties.cumulative_m, the distance from the start at each vertex"], []),
    "zsh-file-with-space": ("zsh", "geo decode my", r"geo decode my\ routes.ndjson", [], []),
    "zsh-plugin-files": ("zsh", "geo count da", r"geo count data\ dir/", [], []),

    "bash-commands-and-plugins": ("bash", "geo ", None, BUILTINS + ["count", "help", "commands", "completion"], FILES),
    "bash-file-with-space": ("bash", "geo decode my", r"geo decode my\ routes.ndjson", [], []),
    "bash-file-after-escaped-space": ("bash", "geo decode data\\ ", r"geo decode data\ dir/", [], []),
    "bash-directory-takes-no-space": ("bash", "geo decode tr", "geo decode tracks/", [], []),
    "bash-file-option-with-space": ("bash", "geo decode --rejects my", r"geo decode --rejects my\ routes.ndjson", [], []),
    "bash-file-option-directory": ("bash", "geo length -o tr", "geo length -o tracks/", [], []),
    "bash-plugin-files": ("bash", "geo count da", r"geo count data\ dir/", [], []),
    "bash-help-completes-a-command": ("bash", "geo help circ", "geo help circle-to-polygon", [], []),
    "bash-commands-offers-nothing": ("bash", "geo commands ", "geo commands", [], FILES),
    "bash-completion-offers-shells": ("bash", "geo completion z", "geo completion zsh", [], []),
    "bash-style-completes-a-colour": ("bash", "geo spans --style toma", "geo spans --style tomato", [], []),
    "bash-plain-file-with-space": ("bash-plain", "geo decode my", r"geo decode my\ routes.ndjson", [], []),
    "bash-plain-file-after-escaped-space": ("bash-plain", "geo decode data\\ ", r"geo decode data\ dir/", [], []),
    "bash-plain-directory-takes-no-space": ("bash-plain", "geo length -o tr", "geo length -o tracks/", [], []),

    "fish-help-completes-a-command": ("fish", "geo help circ", "geo help circle-to-polygon", [], []),
    "fish-help-offers-commands": ("fish", "geo help ", None, ["length", "count"], FILES),
    "fish-plugin-file-with-space": ("fish", "geo count my", r"geo count my\ routes.ndjson", [], []),
    "fish-plugin-directory": ("fish", "geo count da", r"geo count data\ dir/", [], []),
    "fish-whole-sentence-descriptions": ("fish", "geo length --", None,
                                         ["Also add properties.cumulative_m, the distance from the start at each vertex"], []),
    "fish-style-completes-a-colour": ("fish", "geo spans --style toma", "geo spans --style tomato", [], []),
    "fish-completion-offers-shells": ("fish", "geo completion ", None, ["bash", "zsh", "fish"], FILES),
    "fish-commands-offers-nothing": ("fish", "geo commands ", "geo commands", [], FILES),

    # Values with colons and spaces (--projection's EPSG:3857 and a PROJ string): zsh once
    # printed parse errors (the colons ended the action), every shell offered the PROJ string as
    # three words, bash could not complete after a colon, fish showed the option's description
    # after every value.
    "zsh-projection-values-parse": ("zsh", "geo render --projection ", "geo render --projection",
                                    ["EPSG:3857", "EPSG:4326", "+proj=ortho\\ +lat_0=0\\ +lon_0=0"],
                                    ["parse error", "command not found", "+lat_0=0 "]),
    "zsh-projection-after-colon": ("zsh", "geo render --projection EPSG:38", "geo render --projection EPSG:3857", [], []),
    "zsh-projection-proj-string-is-one-word": ("zsh", "geo render --projection +pr",
                                               r"geo render --projection +proj=ortho\ +lat_0=0\ +lon_0=0", [], []),
    "bash-projection-after-colon": ("bash", "geo render --projection EPSG:38", "geo render --projection EPSG:3857", [], []),
    "bash-projection-after-equals-and-colon": ("bash", "geo render --projection=EPSG:43", "geo render --projection=EPSG:4326", [], []),
    "bash-projection-proj-string-is-one-word": ("bash", "geo render --projection +pr",
                                                r"geo render --projection +proj=ortho\ +lat_0=0\ +lon_0=0", [], []),
    "bash-plain-projection-after-colon": ("bash-plain", "geo render --projection EPSG:38", "geo render --projection EPSG:3857", [], []),
    "fish-projection-values-without-description": ("fish", "geo render --projection ", "geo render --projection",
                                                   ["EPSG:3857", "+proj=ortho +lat_0=0 +lon_0=0"], ["Any CRS", "+lat_0=0  "]),
    "fish-projection-after-colon": ("fish", "geo render --projection EPSG:38", "geo render --projection EPSG:3857", [], []),
    "fish-projection-proj-string-is-one-word": ("fish", "geo render --projection +pr",
                                                r"geo render --projection +proj=ortho\ +lat_0=0\ +lon_0=0", [], []),
    "fish-kind-values-without-description": ("fish", "geo length --kind ", "geo length --kind",
                                             ["geodesic", "rhumb", "projected"], ["How edges run"]),

    # -o offers directories and the formats the command writes: render's pictures, tiles'
    # MBTiles (a directory is its other output); any file for the streaming commands.
    "zsh-render-output-pictures": ("zsh", "geo render -o pic", "geo render -o picture.png", [], ["picture.txt"]),
    "zsh-render-output-directory": ("zsh", "geo render -o tr", "geo render -o tracks/", [], []),
    "zsh-tiles-output-mbtiles": ("zsh", "geo tiles -o wor", "geo tiles -o world.mbtiles", [], ["world.png"]),
    "zsh-length-output-any-file": ("zsh", "geo length -o picture.t", "geo length -o picture.txt", [], []),
    "fish-render-output-pictures": ("fish", "geo render -o pic", "geo render -o picture.png", [], ["picture.txt"]),
    "fish-render-output-directory": ("fish", "geo render -o tr", "geo render -o tracks/", [], []),
    "fish-tiles-output-mbtiles": ("fish", "geo tiles -o wor", "geo tiles -o world.mbtiles", [], ["world.png"]),
    "fish-length-output-any-file": ("fish", "geo length -o picture.t", "geo length -o picture.txt", [], []),

    # --style offers the style functions; zsh and bash add no space after the parenthesis
    # (fish always adds one).
    "zsh-style-offers-functions": ("zsh", "geo spans --style gradi", r"geo spans --style gradient\(", [], []),
    "bash-style-offers-functions": ("bash", "geo spans --style spr", r"geo spans --style sprite\(", [], []),
    "fish-style-offers-functions": ("fish", "geo spans --style tex", r"geo spans --style texture\(", [], []),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES)
def test_tab_in_a_real_shell(request, workspace, case):
    shell, typed, line, shows, hides = CASES[case]
    terminal = SHELLS[shell](request, workspace)
    screen = terminal.complete(typed)
    if line is not None:
        assert terminal.current_line(screen) == line, screen
    for text in shows:
        assert text in screen, f"{text!r} is not on the screen:\n{screen}"
    for text in hides:
        assert text not in screen, f"{text!r} is on the screen:\n{screen}"


# --- geo completion SHELL -------------------------------------------------------------------------

@pytest.mark.parametrize("shell,name", [("bash", "geo.bash"), ("zsh", "_geo"), ("fish", "geo.fish")])
def test_geo_completion_prints_the_checked_in_script(shell, name):
    result = subprocess.run([GEO, "completion", shell], capture_output=True)
    assert (result.returncode, result.stderr) == (0, b"")
    assert result.stdout == (REPO / "completions" / name).read_bytes()


@pytest.mark.parametrize("args", [[], ["tcsh"], ["bash", "zsh"]])
def test_geo_completion_needs_one_known_shell(args):
    result = subprocess.run([GEO, "completion", *args], capture_output=True, text=True)
    assert (result.returncode, result.stdout) == (64, "")
    assert "Usage: geo completion bash|zsh|fish" in result.stderr


def test_geo_completion_is_documented():
    help_text = subprocess.run([GEO, "help", "completion"], capture_output=True, text=True)
    assert help_text.returncode == 0 and "source <(geo completion bash)" in help_text.stdout
    page = subprocess.run(["mandoc", "-T", "ascii", "-O", "width=200", str(REPO / "man/man1/geo.1")],
                          capture_output=True, text=True).stdout
    assert "completion shell" in re.sub(".\b", "", page)


@pytest.mark.slow
def test_zsh_loads_the_printed_script_with_source(request, workspace):
    """source <(geo completion zsh), after compinit, instead of a file on $fpath."""
    terminal = start_zsh(request, workspace, "autoload -Uz compinit && compinit -u -D\nsource <(geo completion zsh)\n")
    screen = terminal.complete("geo length --kind geo")
    assert terminal.current_line(screen) == "geo length --kind geodesic", screen


@pytest.mark.slow
@pytest.mark.parametrize("shell", ["zsh", "bash", "bash-plain", "fish"])
def test_completed_values_reach_geo_as_typed(request, workspace, shell):
    """The words completion inserts are the words geo gets: the PROJ string one argument, with
    its spaces; gradient( an opening parenthesis, not a backslash."""
    terminal = SHELLS[shell](request, workspace)
    terminal.complete("geo render --projection +pr")
    screen = terminal.run_with("printf '<%s>\\n' ")
    assert "<+proj=ortho +lat_0=0 +lon_0=0>" in screen, screen
    terminal.complete("geo spans --style gradi")
    screen = terminal.run_with("printf '<%s>\\n' ")
    assert "<gradient(>" in screen, screen


# --- make install: where each shell finds the scripts by itself -------------------------------------

@pytest.mark.parametrize("prefix", ["/usr/local", "HOME/.local"])
def test_fish_loads_the_installed_script_with_xdg_data_dirs_unset(tmp_path, prefix):
    """A plain fish (over ssh, in tmux: XDG_DATA_DIRS unset) reads vendor completions only from
    its own folder and the user's, never from /usr/local/share. `make install` must put geo.fish
    in one of those, and a real fish must complete from it. PREFIX=$HOME/.local installs into a
    temporary HOME; /usr/local under a DESTDIR, which fish is shown at the real path through a
    private bind mount (root only)."""
    need("fish", "make")
    home = tmp_path / "home"
    home.mkdir()
    dest = tmp_path / "dest" if prefix == "/usr/local" else Path("/")
    prefix = prefix.replace("HOME", str(home))
    install = subprocess.run(["make", "-s", "install", f"DESTDIR={'' if dest == Path('/') else dest}",
                              f"PREFIX={prefix}", f"HOME={home}", f"RELEASE_BIN={GEO}", "-o", GEO],
                             cwd=REPO, capture_output=True, text=True, timeout=120)
    assert install.returncode == 0, install.stderr
    [script] = (dest if dest != Path("/") else home).rglob("geo.fish")
    folder = "/" + str(script.parent.relative_to(dest))
    env = {"PATH": f"{Path(GEO).parent}:/usr/bin:/bin", "HOME": str(home), "TERM": "dumb"}  # no XDG_*
    looks = subprocess.run(["fish", "-c", "string join \\n -- $fish_complete_path"], env=env,
                           capture_output=True, text=True, timeout=TIMEOUT).stdout.split()
    assert folder in looks, f"make install put geo.fish in {folder}; fish with XDG_DATA_DIRS unset reads {looks}"
    fish = "fish -c \"complete -C 'geo len'\""
    if dest != Path("/"):
        if shutil.which("unshare") is None or os.geteuid() != 0:
            pytest.skip("needs root and unshare to show fish the installed folder at its real path")
        fish = f"mount --bind {script.parent} {folder} || exit 99; exec {fish}"
    completed = subprocess.run(["unshare", "-m", "bash", "-c", fish] if dest != Path("/") else ["bash", "-c", fish],
                               env=env, capture_output=True, text=True, timeout=TIMEOUT)
    assert completed.stdout.split("\t")[0].strip() == "length", (completed.stdout, completed.stderr)


# --- what the menus show ------------------------------------------------------------------------

def option_descriptions(shell):
    """The description beside each option in the generated script: fish's -d of an option, the
    [...] of each zsh _arguments spec."""
    if shell == "fish":
        text = (REPO / "completions/geo.fish").read_text()
        found = re.findall(r"^complete .* -l \S+.* -d '((?:[^'\\]|\\.)*)'$", text, re.M)
    else:
        text = (REPO / "completions/_geo").read_text()
        found = re.findall(r"^ {16}'[^\[]*?(?<!\\)\[((?:[^\]\\]|\\.)*)\]", text, re.M)
    return [re.sub(r"\\(.)", r"\1", d.replace("'\\''", "'")) for d in found]


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_option_descriptions_fit_a_terminal(shell):
    """The first sentence of a help text ran to 175 columns beside the option; cut, it fits."""
    descriptions = option_descriptions(shell)
    assert len(descriptions) > 100
    assert [d for d in descriptions if len(d) > 80] == []
    assert "How edges run and are measured" in descriptions  # cut where its first clause ends


def test_command_descriptions_are_written_alike():
    """Beside each command in the menus: the built-ins' summaries and the dispatcher's own words
    (help, commands, completion) alike, lower case and without a full stop."""
    listed = subprocess.run([GEO, "commands"], capture_output=True, text=True, check=True).stdout
    summaries = dict(line.split("\t", 1) for line in listed.splitlines())
    fish = (REPO / "completions/geo.fish").read_text()
    summaries.update(re.findall(r"-n __fish_use_subcommand -a ([\w-]+) -d '([^']*)'", fish))
    assert {"help", "commands", "completion"} <= set(summaries)
    wrong = {word: text for word, text in summaries.items()
             if text.endswith(".") or (text[0].isupper() and not text.startswith("GMS"))}
    assert wrong == {}
