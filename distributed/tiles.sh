#!/usr/bin/env bash
# tiles.sh: one tile pyramid made by independent runs of `geo tiles`, one per subtree, with GNU
# parallel; the merged directory is the one a single run makes, tile for tile.
#
#   distributed/tiles.sh --zoom Z0-Z1 --split Z -o OUT [--jobs N] [-S HOSTS] FILE [-- TILES-OPTIONS...]
#
# The recipe (run it by hand just as well):
#   1. the zooms above the split, Z0 to Z-1, in one run: few tiles
#          geo tiles --zoom Z0-(Z-1) -o OUT FILE
#   2. the tiles of zoom Z with ink, which are the subtrees that hold anything: one run at zoom
#      Z into a scratch folder lists them (one zoom: cheap)
#   3. one job per subtree, each into a folder of its own (no two jobs write one file):
#          parallel geo tiles -j1 --zoom Z-Z1 --tile Z/{} -o OUT.parts/{#} FILE ::: X/Y ...
#   4. merge by copying: every tile belongs to one subtree, so nothing is overwritten
#          cp -r OUT.parts/*/. OUT/
# Across hosts (-S, parallel's syntax), FILE must be at the same path on each host, and each
# part is fetched back with parallel's --return.
#
# Exit status: 0 when every run succeeded, else the worst geo status of any run (65 when some
# records were bad: each run reports them, so a bad record is reported once per run).
set -euo pipefail

zoom="" split="" out="" jobs="" hosts="" file=""
extra=()
while [ $# -gt 0 ]; do
    case "$1" in
        --zoom) zoom=$2; shift 2 ;;
        --split) split=$2; shift 2 ;;
        -o|--output) out=$2; shift 2 ;;
        -j|--jobs) jobs=$2; shift 2 ;;
        -S|--sshlogin) hosts=$2; shift 2 ;;
        --) shift; extra=("$@"); break ;;
        -*) echo "tiles.sh: unknown option $1" >&2; exit 64 ;;
        *) file=$1; shift ;;
    esac
done
if [ -z "$zoom" ] || [ -z "$split" ] || [ -z "$out" ] || [ -z "$file" ]; then
    echo "usage: distributed/tiles.sh --zoom Z0-Z1 --split Z -o OUT [--jobs N] [-S HOSTS] FILE [-- TILES-OPTIONS...]" >&2
    exit 64
fi
low=${zoom%-*} high=${zoom#*-}
if [ "$split" -lt "$low" ] || [ "$split" -gt "$high" ]; then
    echo "tiles.sh: --split $split is outside --zoom $zoom" >&2
    exit 64
fi
geo=${GEO:-geo}
worst=0
note() { local status=$1; [ "$status" -gt "$worst" ] && worst=$status; return 0; }

# 1. Above the split.
mkdir -p "$out"
if [ "$split" -gt "$low" ]; then
    "$geo" tiles --force --zoom "$low-$((split - 1))" -o "$out" "${extra[@]}" "$file" || note $?
fi

# 2. The subtrees that hold anything.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
"$geo" tiles -q --zoom "$split" -o "$scratch/probe" "${extra[@]}" "$file" 2>/dev/null || true
subtrees=$(cd "$scratch/probe/$split" 2>/dev/null && find . -name '*.png' | sed 's|^\./||; s|\.png$||' | sort) || true
[ -n "$subtrees" ] || exit "$worst"

# 3. One job per subtree, each into its own folder; 4. merged by copying.
parts="$out.parts"
rm -rf "$parts"
mkdir -p "$parts"
options=(--joblog "$scratch/jobs.tsv")
[ -n "$jobs" ] && options+=(-j "$jobs")
if [ -n "$hosts" ]; then
    options+=(-S "$hosts" --return "$parts/{#}" --cleanup)
fi
printf '%s\n' $subtrees | parallel "${options[@]}" \
    "$geo" tiles -j1 -q --zoom "$split-$high" --tile "$split/{}" -o "$parts/{#}" "${extra[@]}" "$file" || true
while IFS=$'\t' read -r _ _ _ _ _ _ status _; do
    [[ "$status" =~ ^[0-9]+$ ]] && note "$status"
done < <(tail -n +2 "$scratch/jobs.tsv")
for part in "$parts"/*/; do cp -r "$part". "$out/"; done
rm -rf "$parts"
exit "$worst"
