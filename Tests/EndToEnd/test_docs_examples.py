"""Docs that run as written (issue 39): every command line of the README's "Using it" block and of
every man page's EXAMPLES section, and `make demo`, run from a copy of the repository's examples/
with the geo under test first on PATH, and must exit 0. They name only files that ship in
examples/ and write into a temporary folder, as a user's clone would.

An example that needs the network says so in the comment above it ("needs the network"); exactly
those are left out, and the test says which. Examples must also teach the words geo lists:
`--to json` runs (an old word, kept unlisted so that no script breaks) but `geo encode --help`
lists `geojson`.
"""
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import GEO_BIN, REPO, builtins

BUILTINS = builtins()
NETWORK = "needs the network"
PAGES = sorted(p.name for p in (REPO / "man/man1").glob("*.1"))


def readme_examples():
    """The "Using it" block's commands in order, as (command, reason to skip or None): a
    backslash-continued line is one command (run as written), a trailing # comment is the shell's to drop, and a
    comment saying NETWORK applies to the commands up to the next comment or blank line."""
    text = (REPO / "README.md").read_text()
    block = text.split("\n## Using it\n", 1)[1].split("```sh\n", 1)[1].split("\n```", 1)[0]
    commands, skip, pending = [], None, ""
    for line in block.splitlines():
        if not pending and (not line.strip() or line.startswith("#")):
            if not line.strip():
                skip = None
            elif NETWORK in line:
                skip = f"the README marks it: {line.lstrip('# ')}"
            continue
        pending += line
        if pending.endswith("\\"):  # continued: bash reads the backslash-newline as a space
            pending += "\n"
            continue
        commands.append((pending, skip))
        pending = ""
    return commands


def unescape_roff(line):
    """A line of a generated page's literal block back to what it shows (ManPage.escape)."""
    return line.removeprefix("\\&").replace("\\e", "\\")


def page_examples(page):
    """The commands of a man page's EXAMPLES section, without their `$ ` prompt."""
    text = (REPO / "man/man1" / page).read_text()
    if "\n.Sh EXAMPLES\n" not in text:
        return []
    section = text.split("\n.Sh EXAMPLES\n", 1)[1].split("\n.Sh ", 1)[0]
    blocks = re.findall(r"^\.Bd -literal[^\n]*\n(.*?)\n\.Ed$", section, re.M | re.S)
    return [unescape_roff(line).removeprefix("$ ") for block in blocks for line in block.splitlines()]


def demo_commands():
    """What `make demo` runs, as make prints it (its recipe lines, continuations joined)."""
    printed = subprocess.run(["make", "-s", "-n", "demo", "BINDIR=/bin"], cwd=REPO, capture_output=True,
                             text=True, check=True).stdout
    return [line for line in printed.replace("\\\n", " ").splitlines() if line.strip()]


def run_in_order(commands, tmp_path):
    """Runs each command in bash (pipefail: a failing geo inside a pipe counts) in a folder that
    holds a copy of examples/; the failures, each with its status and standard error."""
    work = tmp_path / "clone"
    work.mkdir()
    shutil.copytree(REPO / "examples", work / "examples")
    env = {**os.environ, "PATH": f"{GEO_BIN.parent}:{os.environ['PATH']}"}
    env.pop("GEO_EXEC_PATH", None)
    failures = []
    for command in commands:
        result = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=work, env=env,
                                capture_output=True, text=True, timeout=300)
        if result.returncode != 0:
            failures.append(f"$ {command}\n  exit {result.returncode}: {result.stderr.strip()[-600:]}")
    return failures


def test_readme_examples_run_from_a_clone(tmp_path):
    examples = readme_examples()
    skipped = [command for command, reason in examples if reason]
    # The README's one exception, by design: OSRM's API. Any other would have to be argued for.
    assert len(skipped) == 1 and skipped[0].startswith("curl ") and "$OSRM" in skipped[0], skipped
    runnable = [command for command, reason in examples if not reason]
    assert len(runnable) >= 25, "the Using it block was not found, or lost its examples"
    failures = run_in_order(runnable, tmp_path)
    assert failures == [], "README examples that fail:\n" + "\n".join(failures)


@pytest.mark.parametrize("page", PAGES)
def test_man_page_examples_run_from_a_clone(page, tmp_path):
    examples = page_examples(page)
    assert examples, f"{page} has no examples"
    failures = run_in_order(examples, tmp_path)
    assert failures == [], f"{page}'s examples that fail:\n" + "\n".join(failures)


def test_make_demo_runs():
    result = subprocess.run(["make", "-s", "demo", f"BINDIR={GEO_BIN.parent}"], cwd=REPO,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "maps\t_p~iF~ps|U_ulLnnqC_mqNvxq`@" in result.stdout


def listed_values(command, cache={}):
    """Each option of `geo COMMAND --help` shown with its values (`--to polyline|geojson`): the
    option's name and the words help lists."""
    if command not in cache:
        help_text = subprocess.run([str(GEO_BIN), command, "--help"], capture_output=True, text=True).stdout
        cache[command] = {m[1]: m[2].split("|") for m in re.finditer(r"--([\w-]+)[ =]([a-z][\w-]*(?:\|[a-z][\w-]*)+)\b", help_text)}
    return cache[command]


def unlisted_words(command_line):
    """`geo CMD ... --OPTION WORD` where help lists other words for --OPTION, in COMMAND_LINE."""
    words = shlex.split(command_line.replace("|", " | "))
    found, command = [], None
    for index, word in enumerate(words):
        if word == "|":
            command = None
        elif index > 0 and Path(words[index - 1]).name == "geo" and word in BUILTINS:
            command = word
        elif command and word.startswith("--") and index + 1 < len(words):
            option, _, inline = word[2:].partition("=")
            value = inline or words[index + 1]
            listed = listed_values(command).get(option)
            if listed and value not in listed:
                found.append(f"geo {command} --{option} {value} (help lists {'|'.join(listed)})")
    return found


DOCUMENTS = {"README": lambda: [c for c, _ in readme_examples()], "make demo": demo_commands,
             **{page: (lambda page=page: page_examples(page)) for page in PAGES}}


@pytest.mark.parametrize("document", DOCUMENTS)
def test_examples_teach_the_words_help_lists(document):
    commands = DOCUMENTS[document]()
    assert commands
    unlisted = [word for command in commands for word in unlisted_words(command)]
    assert unlisted == [], f"{document} teaches words geo does not list: {unlisted}"
