"""The Debian package (`make deb`, packaging/build-deb.sh): its fields and files, lintian, and
geo run from it where no Swift toolchain is in sight.

The package is built once per run from the release binary (`make deb DIST=<temporary folder>`),
or taken from $DEB, a package already built from this commit. Nothing is installed system-wide:
the package is unpacked with `dpkg -x` into a temporary root and run from there.

Binary reproducibility (two clean builds in different folders give the same package) takes two
full builds: packaging/check-reproducible-binary.sh checks it; here the packaging of one binary
is checked to be deterministic.
"""

import gzip
import io
import json
import os
import re
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

from conftest import GOOGLE_P5, GOOGLE_PATH, REPO, geo_bin

# Builds the package and runs lintian: `make quick` leaves these out, `make test` runs them.
pytestmark = pytest.mark.slow

# What `env -i` leaves a job on a host without Swift: the system's folders only.
BARE_ENV = {"PATH": "/usr/bin:/bin"}
# Libraries of the Swift runtime, which -static-stdlib links into geo.
SWIFT_RUNTIME = re.compile(r"libswift|libFoundation|libdispatch|libBlocksRuntime")


def make_deb(dist: Path) -> Path:
    """`make deb` into DIST; the path it prints last."""
    result = subprocess.run(["make", "--no-print-directory", "-s", "deb", f"DIST={dist}"], cwd=REPO,
                            capture_output=True, text=True, timeout=1800)
    assert result.returncode == 0, f"make deb failed:\n{result.stdout}\n{result.stderr}"
    path = Path(result.stdout.strip().splitlines()[-1])
    assert path.parent == dist and path.is_file(), f"make deb's last line is not the package: {result.stdout}"
    return path


def geo_version() -> str:
    """The version `geo --version` of the binary under test prints, without PROJ's."""
    line = subprocess.run([geo_bin(), "--version"], capture_output=True, text=True, check=True).stdout
    match = re.fullmatch(r"geo (\d+\.\d+\.\d+) \(PROJ [^)]+\)\n", line)
    assert match, f"unexpected geo --version: {line!r}"
    return match[1]


def package_time() -> int:
    """The time the package's files carry: $SOURCE_DATE_EPOCH, else the last commit's."""
    return int(os.environ.get("SOURCE_DATE_EPOCH") or subprocess.run(
        ["git", "-C", str(REPO), "log", "-1", "--format=%ct"], capture_output=True, text=True, check=True).stdout)


@pytest.fixture(scope="module")
def deb(tmp_path_factory) -> Path:
    given = os.environ.get("DEB")
    return Path(given).absolute() if given else make_deb(tmp_path_factory.mktemp("dist"))


@pytest.fixture(scope="module")
def fields(deb) -> dict:
    control = subprocess.run(["dpkg-deb", "-f", str(deb)], capture_output=True, text=True, check=True).stdout
    parsed, name = {}, None
    for line in control.splitlines():
        if line.startswith(" "):
            parsed[name] += "\n" + line
        else:
            name, _, value = line.partition(":")
            parsed[name] = value.strip()
    return parsed


@pytest.fixture(scope="module")
def root(deb, tmp_path_factory) -> Path:
    """The package unpacked as dpkg would install it, under a temporary folder."""
    folder = tmp_path_factory.mktemp("root")
    subprocess.run(["dpkg", "-x", str(deb), str(folder)], check=True)
    return folder


def data_members(deb: Path) -> list:
    tar = subprocess.run(["dpkg-deb", "--fsys-tarfile", str(deb)], capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(tar)) as archive:
        return archive.getmembers()


def run_bare(root: Path, *args, input=b""):
    """The unpacked geo, with an environment that has no Swift toolchain on it."""
    return subprocess.run([str(root / "usr/bin/geo"), *args], input=input, capture_output=True,
                          env=BARE_ENV, timeout=60)


def package_of(path: str) -> str:
    """The installed Debian package that holds PATH (a library ldd found)."""
    out = subprocess.run(["dpkg-query", "-S", os.path.realpath(path)], capture_output=True, text=True)
    if out.returncode != 0:  # /lib is a link to /usr/lib on Debian 12: dpkg knows one of them
        out = subprocess.run(["dpkg-query", "-S", path], capture_output=True, text=True, check=True)
    return out.stdout.split(":")[0]


def test_file_name_and_control_fields(deb, fields):
    version = geo_version()
    arch = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True, check=True).stdout.strip()
    assert deb.name == f"geo_{version}_{arch}.deb"
    assert fields["Package"] == "geo"
    assert fields["Version"] == version
    assert fields["Architecture"] == arch
    assert fields["Section"] in ("utils", "science")
    assert re.fullmatch(r".+ <[^@<>\s]+@[^@<>\s]+>", fields["Maintainer"]), fields["Maintainer"]
    summary, _, long = fields["Description"].partition("\n")
    assert summary and len(summary) < 80 and long.count("\n") >= 3, "a summary line and a readable long description"
    assert int(fields["Installed-Size"]) > 1000


def test_depends_names_linked_and_loaded_libraries(root, fields):
    depends = {d.split("(")[0].strip() for d in fields["Depends"].split(",")}
    # What the binary links: every library ldd resolves comes from a package it depends on.
    ldd = subprocess.run(["ldd", str(root / "usr/bin/geo")], capture_output=True, text=True, check=True).stdout
    linked = {package_of(m[1]) for m in re.finditer(r"=> (/\S+)", ldd)}
    assert linked and linked <= depends, f"linked libraries' packages {linked - depends} missing from {depends}"
    assert re.search(r"libc6 \(>= [\d.]+\)", fields["Depends"]), "libc6 with the version the binary needs"
    # What SystemLibraries loads with dlopen, which a scan of the binary cannot see.
    sources = (REPO / "Sources/SystemLibraries").glob("lazy_*.c")
    loaded = {m[1] for f in sources for m in re.finditer(r'"([\w.+-]+)", PTHREAD_MUTEX_INITIALIZER', f.read_text())}
    assert {"libproj25", "libcairo2", "libsqlite3-0", "zlib1g"} <= loaded, loaded
    assert loaded <= depends, f"{fields['Depends']} lacks a library geo loads"


def test_contents_paths_modes_owners_and_dates(deb):
    man = sorted(p.name for p in (REPO / "man/man1").glob("*.1"))
    assert "geo.1" in man and len(man) > 5
    expected_files = {"./usr/bin/geo", "./usr/share/doc/geo/copyright", "./usr/share/doc/geo/changelog.gz",
                      "./usr/share/bash-completion/completions/geo", "./usr/share/zsh/vendor-completions/_geo",
                      "./usr/share/fish/vendor_completions.d/geo.fish"}
    expected_files |= {f"./usr/share/man/man1/{page}.gz" for page in man}
    members = data_members(deb)
    assert {m.name for m in members if m.isfile()} == expected_files
    dated = package_time()
    for member in members:
        assert (member.uid, member.gid, member.uname, member.gname) == (0, 0, "root", "root"), member.name
        assert member.mtime == dated, f"{member.name} is not dated from the last commit"
        want = 0o755 if member.isdir() or member.name == "./usr/bin/geo" else 0o644
        assert member.mode == want, f"{member.name}: mode {oct(member.mode)}"


def test_files_are_the_repositorys(root):
    for page in (REPO / "man/man1").glob("*.1"):
        packed = (root / "usr/share/man/man1" / (page.name + ".gz")).read_bytes()
        assert packed[4:8] == b"\0\0\0\0" and not packed[3] & 0x08, f"{page.name}.gz: no time, no name (gzip -n)"
        assert gzip.decompress(packed) == page.read_bytes()
    assert (root / "usr/share/bash-completion/completions/geo").read_bytes() == (REPO / "completions/geo.bash").read_bytes()
    assert (root / "usr/share/zsh/vendor-completions/_geo").read_bytes() == (REPO / "completions/_geo").read_bytes()
    assert (root / "usr/share/fish/vendor_completions.d/geo.fish").read_bytes() == (REPO / "completions/geo.fish").read_bytes()


def test_copyright_is_dep5_mit(root):
    text = (root / "usr/share/doc/geo/copyright").read_text()
    assert text.startswith("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n")
    assert "\nFiles: *\nCopyright: 2026 the geo developers\nLicense: Expat\n" in text
    licence = (REPO / "LICENSE").read_text()
    assert licence.startswith("MIT License\n") and "Copyright (c) 2026 the geo developers" in licence
    permission = licence[licence.index("Permission is hereby granted"):].split()
    packed = [word for word in text[text.index(" Permission is hereby granted"):].split() if word != "."]
    assert packed == permission, "the licence text, as LICENSE has it"


def test_changelog_is_debian_format_from_changelog_md(root, tmp_path):
    plain = tmp_path / "changelog"
    plain.write_bytes(gzip.decompress((root / "usr/share/doc/geo/changelog.gz").read_bytes()))
    parsed = subprocess.run(["dpkg-parsechangelog", "-l", str(plain), "--all", "--format", "rfc822"],
                            capture_output=True, text=True)
    assert parsed.returncode == 0 and not parsed.stderr, parsed.stderr
    versions = re.findall(r"^Version: (\S+)$", parsed.stdout, re.M)
    in_markdown = re.findall(r"^## (?:Unreleased / )?(\d+\.\d+\.\d+)", (REPO / "CHANGELOG.md").read_text(), re.M)
    assert versions == in_markdown and versions[0] == geo_version()
    assert {"0.1.0", "0.2.0"} <= set(versions)
    items = [line for line in plain.read_text().splitlines() if line.startswith("  ")]
    assert len(items) > 20 and max(map(len, items)) <= 80, "entries wrapped as lintian wants"


def test_lintian_reports_no_errors_or_warnings(deb):
    result = subprocess.run(["lintian", "--no-tag-display-limit", str(deb)], capture_output=True, text=True,
                            timeout=600)
    tags = [line for line in result.stdout.splitlines() if re.match(r"[EW]: ", line)]
    assert not tags, "lintian:\n" + "\n".join(tags)
    assert result.returncode == 0, result.stdout + result.stderr


def test_runs_without_the_swift_toolchain(root):
    assert shutil.which("swift", path=BARE_ENV["PATH"]) is None, "the bare environment must not see swift"
    version = run_bare(root, "--version")
    assert version.returncode == 0, version.stderr
    assert version.stdout.decode() == f"geo {geo_version()} " + version.stdout.decode().split(" ", 2)[2]

    decoded = run_bare(root, "decode", input=(GOOGLE_P5 + "\n").encode())
    assert decoded.returncode == 0, decoded.stderr
    assert json.loads(decoded.stdout)["geometry"]["coordinates"] == GOOGLE_PATH

    # One degree of longitude along the equator on WGS84: a·π/180.
    line = b'{"type":"LineString","coordinates":[[0,0],[1,0]]}\n'
    length = run_bare(root, "length", input=line)
    assert length.returncode == 0, length.stderr
    assert b'"length_m":111319.49079327357' in length.stdout
    # The same answer as the binary it was packaged from, byte for byte (PROJ loaded by both).
    assert length.stdout == subprocess.run([geo_bin(), "length"], input=line, capture_output=True).stdout


def test_needs_no_swift_runtime_or_build_folder(root):
    binary = root / "usr/bin/geo"
    ldd = subprocess.run(["ldd", str(binary)], capture_output=True, text=True, env=BARE_ENV)
    assert ldd.returncode == 0, ldd.stderr
    assert not SWIFT_RUNTIME.search(ldd.stdout), ldd.stdout
    assert "not found" not in ldd.stdout
    toolchain = str(Path(os.path.realpath(shutil.which("swift") or "/opt/swift/usr/bin/swift")).parents[1])
    for library in re.findall(r"=> (/\S+)", ldd.stdout):
        assert not library.startswith((toolchain, str(REPO))) and "/.build/" not in library, library
    # Stripped: no symbol table, and no build folder named anywhere in the bytes.
    data = binary.read_bytes()
    assert str(REPO).encode() not in data and b"/.build/" not in data
    sections = subprocess.run(["readelf", "-SW", str(binary)], capture_output=True, text=True, check=True).stdout
    assert " .symtab " not in sections and " .debug_info " not in sections


def test_man_page_renders(root):
    for page in ("geo.1.gz", "geo-length.1.gz"):
        shown = subprocess.run(["man", "-l", "-P", "cat", str(root / "usr/share/man/man1" / page)],
                               capture_output=True, text=True, env={**BARE_ENV, "MANWIDTH": "80", "LC_ALL": "C.UTF-8"})
        assert shown.returncode == 0 and not shown.stderr, shown.stderr
        name = page.removesuffix(".1.gz")
        assert re.search(rf"^NAME\n\s+{name} ", shown.stdout, re.M), shown.stdout[:400]
        assert f"geo {geo_version()}" in shown.stdout


def test_two_builds_give_the_same_bytes(deb, tmp_path):
    """Packaging is deterministic: a second `make deb` of the same binary and commit."""
    if os.environ.get("DEB"):
        deb = make_deb(tmp_path / "first")
    again = make_deb(tmp_path / "second")
    assert again.name == deb.name
    assert again.read_bytes() == deb.read_bytes(), "two builds of one commit differ"
