#!/bin/sh
# Checks that geo's package is reproducible down to the binary: builds the last commit twice
# from scratch, in two different folders, packages each binary with build-deb.sh, and compares
# the packages byte for byte. Slow (two clean release builds, 2-5 minutes each), so not part of
# `make test`; test_package.py checks the packaging itself on one binary.
#
#   packaging/check-reproducible-binary.sh      exit 0: identical; 1: they differ (diffoscope
#                                               or `cmp -l` on the two usr/bin/geo says where)
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
SOURCE_DATE_EPOCH=$(git -C "$repo" log -1 --format=%ct)
export SOURCE_DATE_EPOCH

for copy in first second-copy-in-a-longer-folder; do
    mkdir -p "$work/$copy"
    git -C "$repo" archive HEAD | tar -x -C "$work/$copy"
    (cd "$work/$copy" && swift build -c release --product geo >/dev/null)
    DIST=$work/$copy-dist "$repo/packaging/build-deb.sh" "$work/$copy/.build/release/geo" >/dev/null
done

first=$(ls "$work"/first-dist/*.deb)
second=$(ls "$work"/second-copy-in-a-longer-folder-dist/*.deb)
sha256sum "$first" "$second"
if cmp -s "$first" "$second"; then
    echo "reproducible: two clean builds in different folders give the same package"
else
    echo "NOT reproducible: the packages differ" >&2
    exit 1
fi
