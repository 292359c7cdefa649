#!/usr/bin/env bash
# Fuzz geo's harnesses with libFuzzer under AddressSanitizer.
#
#   fuzz/run.sh [SECONDS] [HARNESS...]     default: 600 s each, every harness
#
# FUZZ_JOBS harnesses run at a time (default: one a CPU), each in a process of its own on a core of
# its own: as many executions each as one after the other, in a fraction of the time.
# Harnesses (Sources/GeoFuzz/Harnesses.swift, listed by `geo-fuzz --list`): scanner (JSON
# scanner + GeoJSON reader), polyline (decoder, round trip), arguments (every command's parsing
# and validation), records (every command's record handler over a whole input), rasterizer (the
# canvas and its line rasterizer on extreme coordinates, one thread against several; the
# picture through the tile PNG writer, inflated again by zlib). Corpora grow in fuzz/corpus/HARNESS
# (not committed), seeded from fuzz/seeds/HARNESS. A crashing input is copied to
# Tests/Corpus/fuzz-regressions/HARNESS/, which the test suite replays (Tests/EndToEnd/test_hostile.py):
# fix the bug, keep the input. The last line per harness says how many executions ran.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
shift || true
harnesses=("$@")

# --disable-dead-strip: the linker would otherwise drop the coverage counters libFuzzer needs.
swift build -c release --sanitize fuzzer --sanitize address --disable-dead-strip -Xswiftc -DFUZZING \
    --product geo-fuzz --build-path .build/fuzz 2>&1 | grep -v "Cannot export local symbol" | tail -1
fuzzer=.build/fuzz/release/geo-fuzz
if [ ${#harnesses[@]} -eq 0 ]; then  # every harness, as the replayer (an ordinary build) lists them
    swift build -c release --product geo-fuzz 2>&1 | tail -1
    mapfile -t harnesses < <(.build/release/geo-fuzz --list)
fi
# The harnesses' temporary files (the records harness runs tiles' sample arguments, which write
# into a folder made under $TMPDIR) in a folder of this run's, removed at the end.
TMPDIR=$(mktemp -d -t geo-fuzz-run-XXXXXX)
export TMPDIR
trap 'rm -rf "$TMPDIR"' EXIT

# One harness; its lines printed together when it ends. Fails when it found a crash.
fuzz_one() {
    local harness=$1 corpus=fuzz/corpus/$1 crashes=fuzz/crashes/$1 log=fuzz/crashes/$1.log
    local report="== $harness: ${seconds}s" found=0
    mkdir -p "$corpus" "$crashes"
    if ! GEO_FUZZ_HARNESS=$harness LSAN_OPTIONS="suppressions=$PWD/fuzz/lsan.supp:print_suppressions=0" "$fuzzer" -max_total_time="$seconds" -max_len=65536 -timeout=20 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$crashes/" "$corpus" "fuzz/seeds/$harness" > "$log" 2>&1; then
        found=1
        report+=$'\n'"   FOUND A CRASH: see $log"
        mkdir -p "Tests/Corpus/fuzz-regressions/$harness"
        cp "$crashes"/crash-* "$crashes"/oom-* "$crashes"/timeout-* "Tests/Corpus/fuzz-regressions/$harness/" 2>/dev/null || true
    fi
    report+=$'\n'$(grep -E "^stat::number_of_executed_units|^Done [0-9]+ runs" "$log" | tail -2 | sed 's/^/   /' || true)
    printf '%s\n' "$report"
    return $found
}

jobs=${FUZZ_JOBS:-$(nproc)}
status=0
running=0
for harness in "${harnesses[@]}"; do
    if [ "$running" -ge "$jobs" ]; then
        wait -n || status=1
        running=$((running - 1))
    fi
    fuzz_one "$harness" &
    running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
    wait -n || status=1
    running=$((running - 1))
done
exit $status
