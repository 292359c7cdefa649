#!/bin/sh
# Builds the Debian package of geo from a release binary: dist/geo_<version>_<arch>.deb, whose
# path is the last line printed. `make deb` runs it on .build/release/geo.
#
#   packaging/build-deb.sh [BINARY]      (default .build/release/geo)
#
# Environment: DIST (output folder, default dist), DEB_MAINTAINER (the Maintainer field),
# SOURCE_DATE_EPOCH (default: the time of the last commit).
#
# The package needs no Swift toolchain: Package.swift links the Swift runtime into geo
# statically (-static-stdlib), and this script refuses a binary that needs libswift*,
# libFoundation* or libdispatch*, or looks for libraries in a build folder or a toolchain.
#
# Reproducible: two runs on the same binary and commit give the same bytes. Files are staged
# with fixed modes, their mtimes set to SOURCE_DATE_EPOCH (dpkg-deb only clamps newer ones to
# it, and dates the ar members with it), owned by root (--root-owner-group), listed in sorted
# order by dpkg-deb; man pages and the changelog are compressed with gzip -9n (no name, no
# time). The binary: a release build's bytes depend on the folder it was built in (its debug
# information names it, and so do the IR hashes in .swift_modhash and the linker's build ID,
# which hash it); stripped as below, two clean builds of one commit, even in different folders,
# give the same bytes. packaging/check-reproducible-binary.sh builds twice and compares.
#
# lintian 2.116 (Tests/EndToEnd/test_package.py runs it and fails on any E: or W: line)
# reports no errors and no warnings. Its informational notes (lintian -I), kept:
#   - hardening-no-bindnow: SwiftPM links without -z now. Adding it means other link flags than
#     the release build's, so a second full build of geo for the package; RELRO stays.
#   - hardening-no-fortify-functions: SwiftPM builds the few C files (SystemLibraries,
#     RasterKernels) without _FORTIFY_SOURCE.
#   - spelling-error-in-binary (THROUG, ADDRES, matchign, ...): pieces of the Swift runtime's
#     Unicode name tables and machine code, and a typo in its regex library's text; nothing
#     that geo prints.
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd)
binary=${1:-$repo/.build/release/geo}
dist=${DIST:-$repo/dist}
maintainer=${DEB_MAINTAINER:-the geo developers <maintainers@users.noreply.a-seed-d359e7b8.example>}
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$repo" log -1 --format=%ct)}
export SOURCE_DATE_EPOCH

die() { echo "build-deb.sh: $*" >&2; exit 1; }

[ -x "$binary" ] || die "$binary: no such executable (build it with 'swift build -c release')"
# "geo 0.3.0 (PROJ 9.1.1)": the package's version is geo's, not PROJ's.
version=$("$binary" --version | sed -n 's/^geo \([0-9][0-9.]*\) .*/\1/p')
[ -n "$version" ] || die "$binary --version: no version in '$("$binary" --version)'"
arch=$(dpkg --print-architecture)

# What the Swift runtime would pull in, and paths only the build machine has.
if ldd "$binary" | grep -E 'libswift|libFoundation|libdispatch|libBlocksRuntime|\.build/|/swift'; then
    die "$binary needs the Swift runtime or a build folder (lines above): build it with -static-stdlib"
fi

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root=$stage/root
umask 022
mkdir -p "$root/DEBIAN" "$root/usr/bin" "$root/usr/share/man/man1" "$root/usr/share/doc/geo" \
    "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" \
    "$root/usr/share/fish/vendor_completions.d"

# As dh_strip does for an executable: symbols, debug information (and with it the build
# paths), the compiler's .comment; the dynamic symbols geo exports to PROJ stay. Then
# normalize-elf.py clears what was computed from the build paths and survives stripping.
strip --remove-section=.comment --remove-section=.note -o "$root/usr/bin/geo" "$binary"
python3 "$repo/packaging/normalize-elf.py" "$root/usr/bin/geo"
chmod 755 "$root/usr/bin/geo"

for page in "$repo"/man/man1/*.1; do
    gzip -9n < "$page" > "$root/usr/share/man/man1/$(basename "$page").gz"
done
cp "$repo/completions/geo.bash" "$root/usr/share/bash-completion/completions/geo"
cp "$repo/completions/_geo" "$root/usr/share/zsh/vendor-completions/_geo"
cp "$repo/completions/geo.fish" "$root/usr/share/fish/vendor_completions.d/geo.fish"

# copyright: DEP-5, the licence text from LICENSE (blank lines as " .").
{
    cat "$repo/packaging/copyright"
    sed -n '/^Permission is hereby granted/,$p' "$repo/LICENSE" | sed 's/^$/./; s/^/ /'
} > "$root/usr/share/doc/geo/copyright"
# A native package's changelog is changelog.gz, derived from CHANGELOG.md.
python3 "$repo/packaging/changelog.py" "$repo/CHANGELOG.md" "$maintainer" "$SOURCE_DATE_EPOCH" > "$stage/changelog"
changelog_version=$(sed -n '1s/^geo (\([^)]*\)).*/\1/p' "$stage/changelog")
[ "$changelog_version" = "$version" ] \
    || die "CHANGELOG.md's newest version is $changelog_version, geo --version says $version"
gzip -9n < "$stage/changelog" > "$root/usr/share/doc/geo/changelog.gz"

# Depends: what the binary links (dpkg-shlibdeps reads the shlibs/symbols files of the
# libraries ldd finds), and the libraries geo loads with dlopen, which no scan of the binary
# sees: SystemLibraries names each one's Debian package beside its sonames (lazy_*.c).
mkdir -p "$stage/shlibs/debian"
printf 'Source: geo\n\nPackage: geo\nArchitecture: any\n' > "$stage/shlibs/debian/control"
linked=$(cd "$stage/shlibs" && dpkg-shlibdeps -O -e"$root/usr/bin/geo" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[ -n "$linked" ] || die "dpkg-shlibdeps found no dependencies of $binary"
loaded=$(sed -n '/static struct lazy_library/{n;s/.*}, "[^"]*", "\([^"]*\)".*/\1/p;}' "$repo"/Sources/SystemLibraries/lazy_*.c)
[ -n "$loaded" ] || die "no 'static struct lazy_library' with a package name in Sources/SystemLibraries"
depends=$(printf '%s\n' "$linked" | tr ',' '\n' | sed 's/^ *//'; printf '%s\n' $loaded)
depends=$(printf '%s\n' "$depends" | sort -u | paste -sd, | sed 's/,/, /g')

# Installed-Size as dpkg-gencontrol counts it (KiB per file, rounded up, and one per folder),
# but from apparent sizes so that the file system the package is built on does not change it.
installed_size=$(cd "$root" && find usr \( -type f -printf '%s\n' \) -o \( -type d -printf '1024\n' \) \
    | awk '{ kib += int(($1 + 1023) / 1024) } END { print kib }')
(cd "$root" && find usr -type f -print0 | sort -z | xargs -0 md5sum) > "$root/DEBIAN/md5sums"
sed -e "s|@VERSION@|$version|" -e "s|@ARCH@|$arch|" -e "s|@MAINTAINER@|$maintainer|" \
    -e "s|@DEPENDS@|$depends|" -e "s|@INSTALLED_SIZE@|$installed_size|" \
    "$repo/packaging/control" > "$root/DEBIAN/control"
# Fixed modes and every staged file dated from the commit.
chmod -R u=rwX,go=rX "$root"
chmod 755 "$root/usr/bin/geo"
find "$root" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +

mkdir -p "$dist"
deb=$dist/geo_${version}_${arch}.deb
# xz, as dpkg-deb does by default (its output is the same for 1, 2 or 8 threads).
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"
