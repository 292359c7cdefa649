#!/usr/bin/env python3
"""CHANGELOG.md as a Debian changelog (deb-changelog(5)), on stdout.

Usage: changelog.py CHANGELOG.md MAINTAINER SOURCE_DATE_EPOCH

Each `## VERSION — YYYY-MM-DD` section becomes one entry dated that day (noon UTC); the
`## Unreleased / VERSION` section becomes the first entry, dated SOURCE_DATE_EPOCH, so that
two builds of one commit write the same bytes. Every `- ` bullet under `### Added`, `### Changed`
or `### Fixed` becomes a `* Added: ...` item, wrapped to 78 columns as lintian wants.
"""

import re
import sys
import textwrap
from datetime import datetime, timezone

RELEASED = re.compile(r"^## (\d+\.\d+\.\d+) — (\d{4}-\d{2}-\d{2})$")
UNRELEASED = re.compile(r"^## Unreleased / (\d+\.\d+\.\d+)$")
KIND = re.compile(r"^### (Added|Changed|Fixed)$")
LINK = re.compile(r"\[([^\]]+)\]\([^)]+\)")
COMMENT = re.compile(r"<!--.*?-->", re.S)


def sections(markdown: str):
    """(version, datetime or None, [(kind, text)]) for each version, newest first."""
    markdown = COMMENT.sub("", markdown)  # notes to the editors are not changes
    current, kind = None, None
    for line in markdown.splitlines():
        released, unreleased = RELEASED.match(line), UNRELEASED.match(line)
        if line.startswith("## "):
            if current:
                yield current
            current, kind = None, None
            if released:
                date = datetime.strptime(released[2], "%Y-%m-%d").replace(hour=12, tzinfo=timezone.utc)
                current = (released[1], date, [])
            elif unreleased:
                current = (unreleased[1], None, [])
        elif line.startswith("#"):
            kind = KIND.match(line)[1] if current and KIND.match(line) else None
        elif current and kind and line.startswith("- "):
            current[2].append((kind, line[2:].strip()))
        elif current and kind and line.startswith("  ") and current[2]:
            last_kind, text = current[2][-1]  # a bullet's continuation line
            current[2][-1] = (last_kind, text + " " + line.strip())
    if current:
        yield current


def main() -> int:
    path, maintainer, epoch = sys.argv[1], sys.argv[2], int(sys.argv[3])
    entries = list(sections(open(path, encoding="utf-8").read()))
    if not entries:
        print(f"changelog.py: {path}: no '## VERSION — DATE' sections", file=sys.stderr)
        return 1
    out = []
    for version, date, items in entries:
        if not items:
            print(f"changelog.py: {path}: version {version} lists no changes", file=sys.stderr)
            return 1
        date = date or datetime.fromtimestamp(epoch, timezone.utc)
        out.append(f"geo ({version}) unstable; urgency=medium\n\n")
        for kind, text in items:
            text = LINK.sub(r"\1", text)
            out.append(textwrap.fill(f"{kind}: {text}", width=78, initial_indent="  * ",
                                     subsequent_indent="    ", break_on_hyphens=False) + "\n")
        out.append(f"\n -- {maintainer}  {date.strftime('%a, %d %b %Y %H:%M:%S +0000')}\n\n")
    sys.stdout.write("".join(out).rstrip("\n") + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
