#!/usr/bin/env bash
# tiles.sh: one tile pyramid made by independent runs of `geo tiles`, one per subtree, with GNU
# parallel, each run reading only its subtree's records; the result is what a single run makes,
# tile for tile.
#
#   distributed/tiles.sh --zoom Z0-Z1 --split Z -o OUT [--jobs N] [-S HOSTS] [--scratch DIR] [--force]
#                        FILE [-- TILES-OPTIONS...]
#
# The recipe (run it by hand just as well; `geo tiles --help`, "Beyond one machine"):
#   1. every record keyed by the subtrees of zoom Z it draws into, sorted by key (sort -s keeps
#      input order within a key), and cut into one file per key:
#          geo tiles --partition Z --zoom Z-Z1 FILE | sort -s -t TAB -k1,1 | awk ... keys/Z-X-Y
#   2. one job per key, drawing its subtree from its own records into a part:
#          parallel 'geo tiles -j1 --tile {=s:-:/:g=} --zoom Z-Z1 -o parts/{}.EXT < keys/{}' ::: ...
#   3. the zooms above the split, Z0 to Z-1, in one run (few tiles):
#          geo tiles --zoom Z0-(Z-1) -o parts/upper.EXT FILE
#   4. the parts joined:  geo tiles --merge -o OUT parts/*
# OUT is a directory, an .mbtiles or a .pmtiles file; the parts are of its kind. With hosts (-S,
# parallel's syntax), each job's key file goes to its host and its part comes back
# (--transferfile, --return); geo must be on every host. Scratch space (--scratch, default a
# folder in $TMPDIR) holds the keyed records (about the input's size) and the parts.
#
# Exit status: 0 when every run succeeded, else the worst geo status of any run (65 when some
# records were bad: the partitioning run reports each once); 64 wrong options; 73 OUT exists
# (give --force to replace a pyramid geo wrote).
# A summary line on standard error counts the records read and the lines the subtree jobs read.
set -euo pipefail

zoom="" split="" out="" jobs="" hosts="" file="" scratch_base="" force=()
extra=()
while [ $# -gt 0 ]; do
    case "$1" in
        --zoom) zoom=$2; shift 2 ;;
        --split) split=$2; shift 2 ;;
        -o|--output) out=$2; shift 2 ;;
        -j|--jobs) jobs=$2; shift 2 ;;
        -S|--sshlogin) hosts=$2; shift 2 ;;
        --scratch) scratch_base=$2; shift 2 ;;
        --force) force=(--force); shift ;;
        --) shift; extra=("$@"); break ;;
        -*) echo "tiles.sh: unknown option $1" >&2; exit 64 ;;
        *) file=$1; shift ;;
    esac
done
if [ -z "$zoom" ] || [ -z "$split" ] || [ -z "$out" ] || [ -z "$file" ]; then
    echo "usage: distributed/tiles.sh --zoom Z0-Z1 --split Z -o OUT [--jobs N] [-S HOSTS] [--scratch DIR] [--force] FILE [-- TILES-OPTIONS...]" >&2
    exit 64
fi
low=${zoom%-*} high=${zoom#*-}
if [ "$split" -lt "$low" ] || [ "$split" -gt "$high" ]; then
    echo "tiles.sh: --split $split is outside --zoom $zoom" >&2
    exit 64
fi
if [ -e "$out" ] && [ ${#force[@]} -eq 0 ]; then
    echo "tiles.sh: '$out' exists: give --force to replace a pyramid geo wrote" >&2
    exit 73
fi
case "$out" in
    *.mbtiles|*.MBTILES) ext=.mbtiles ;;
    *.pmtiles|*.PMTILES) ext=.pmtiles ;;
    *) ext="" ;;
esac
geo=${GEO:-geo}
worst=0
note() { local status=$1; [ "$status" -gt "$worst" ] && worst=$status; return 0; }
jobs_option=()
[ -n "$jobs" ] && jobs_option=(--jobs "$jobs")

scratch=$(mktemp -d "${scratch_base:-${TMPDIR:-/tmp}}/geo-tiles-XXXXXX")
trap 'rm -rf "$scratch"' EXIT
mkdir "$scratch/keys" "$scratch/parts"

# 1. Keyed, sorted by key (stable: input order within a key), one file per key.
set +e
"$geo" tiles -q "${jobs_option[@]}" --partition "$split" --zoom "$split-$high" "${extra[@]}" "$file" \
    | LC_ALL=C sort -s -t "$(printf '\t')" -k1,1 -T "$scratch" \
    | awk -F '\t' -v dir="$scratch/keys" '
        $1 != key { if (key != "") close(name); key = $1; name = key; gsub("/", "-", name); name = dir "/" name }
        { print substr($0, length($1) + 2) > name }'
statuses=("${PIPESTATUS[@]}")
set -e
note "${statuses[0]}"
[ "$worst" -le 65 ] && [ "${statuses[1]}" -eq 0 ] && [ "${statuses[2]}" -eq 0 ] || exit $((worst > 65 ? worst : 74))

# 2. One job per key, each reading its own records only.
options=(--joblog "$scratch/jobs.tsv")
[ -n "$jobs" ] && options+=(-j "$jobs")
if [ -n "$hosts" ]; then
    options+=(-S "$hosts" --transferfile "keys/{}" --return "parts/{}$ext" --cleanup)
fi
if [ -n "$(ls "$scratch/keys")" ]; then
    (cd "$scratch" && ls keys | parallel "${options[@]}" \
        "${geo@Q}" tiles -j1 -q --tile '{=s:-:/:g=}' --zoom "$split-$high" -o "parts/{}$ext" "${extra[@]@Q}" '<' "keys/{}") || true
    while IFS=$'\t' read -r _ _ _ _ _ _ status _; do
        [[ "$status" =~ ^[0-9]+$ ]] && note "$status"
    done < <(tail -n +2 "$scratch/jobs.tsv")
fi

# 3. The zooms above the split, in one run (its bad records were reported in step 1).
if [ "$split" -gt "$low" ]; then
    status=0
    "$geo" tiles -q "${jobs_option[@]}" --zoom "$low-$((split - 1))" -o "$scratch/parts/upper$ext" "${extra[@]}" "$file" \
        2> "$scratch/upper.err" || status=$?
    [ "$status" -eq 0 ] || [ "$status" -eq 65 ] || cat "$scratch/upper.err" >&2
    note "$status"
fi

# 4. The parts joined into OUT, put in place whole.
records=$(grep -c '' "$file" || true)
lines=$(cat "$scratch"/keys/* 2>/dev/null | wc -l)
echo "tiles.sh: $records records; $(ls "$scratch/keys" | wc -l) subtree jobs read $lines lines" >&2
if [ -n "$(ls "$scratch/parts")" ]; then
    "$geo" tiles --merge -q "${force[@]}" -o "$out" "$scratch"/parts/* || note $?
fi
exit "$worst"
