#!/usr/bin/env bash
# parallel.sh: geo over many cores or many hosts with GNU parallel, records whole and in order.
#
#   distributed/parallel.sh [options] -- CMD [ARGS...]  < input > output
#   distributed/parallel.sh [options] -a FILE -- CMD [ARGS...]  > output
#
# The recipes it runs (use them by hand just as well):
#
#   One big machine: split stdin into ~8 MB blocks at newlines, one `geo -j1` per core, output
#   in input order:
#       parallel --pipe --keep-order --block 8M geo decode -j1 < huge.txt > huge.geojsonl
#   A file on disk: --pipepart lets each job read its own block (no copy through parallel):
#       parallel --pipepart -a huge.txt --keep-order --block 8M geo decode -j1 > huge.geojsonl
#   Several hosts over ssh (geo and libproj25 installed on each; ':' is this machine). Each
#   job keeps its own rejects on the host that ran it: geo expands %h (host) and %p (pid),
#   parallel expands {#} (the job number, which is the block number):
#       parallel --pipe --keep-order --block 8M -S 8/alice@big1,8/alice@big2,: \
#           --joblog jobs.tsv geo length -j1 --rejects '/tmp/rejects-{#}-%h-%p.ndjson' \
#           < routes.geojsonl > routes-length.geojsonl
#
# Exit statuses. parallel's own exit status is the NUMBER of failed jobs (101 for more than
# 100), not geo's status: one block with a bad record makes it 1, not 65. With --halt never
# (the default) every block still runs and all good records are output; this script then reads
# the job log and exits with the worst geo status, as geo alone would: 0 all good, 65 some
# records bad (each on stderr as `geo CMD: <stdin>:LINE: msg`, LINE counted within its job's
# block; the rejects files name the job), 64 usage (a dry run of `geo CMD ARGS` on empty input
# checks it before any block is sent), 69 geo cannot run on a host (exit 126/127 there: not
# installed, or libproj25 missing) or a host cannot run jobs at all (both found by one probe
# per host before any block is sent), other statuses as geo or ssh returned them.
#
# Options:
#   -j, --jobs N         jobs per host (default: one per core; each geo runs with -j1)
#   --block SIZE         block size, e.g. 8M (default), 512k; records are never cut
#   -a, --input FILE     read FILE with --pipepart instead of stdin with --pipe (faster)
#   -S, --sshlogin LIST  hosts, in parallel's syntax: [N/][user@]host,...; ':' is this machine
#   --sshloginfile FILE  hosts from a file (parallel's --slf)
#   --ssh CMD            the ssh command (parallel's --ssh)
#   --geo PATH           the geo binary (default: geo on PATH, on each host)
#   --ship               copy --geo PATH to every host first, to the same absolute path
#                        (parallel's --basefile; needs rsync here and there); the hosts still
#                        need libproj25
#   --rejects-dir DIR    each job writes its bad records to DIR/rejects-JOB-HOST-PID.ndjson on
#                        the host that ran it (empty files are removed here when DIR is local)
#   --joblog FILE        keep parallel's job log (default: a temporary file)
#
# geo must not be given input files, -o/--output, --collection or --rejects in ARGS: blocks
# come on stdin, output goes to stdout, rejects to --rejects-dir.
#
# Limits of splitting at newlines: RFC 8142 records that span lines (geo reads them alone) are
# cut; use --recstart $'\x1e' by hand for those. --collection would give one document per block.

set -uo pipefail

PROG=parallel.sh
die() { local status=$1; shift; printf '%s: %s\n' "$PROG" "$*" >&2; exit "$status"; }
usage() {
  sed -n '2,/^set -uo/{/^set -uo/d;s/^# \{0,1\}//;p}' "$0"
}

GEO=geo
BLOCK=8M
JOBS=
INPUT=
SHIP=0
REJECTS_DIR=
JOBLOG=
PAR_OPTS=()

while [ $# -gt 0 ]; do
  case $1 in
    -j|--jobs) [ $# -ge 2 ] || die 64 "$1 needs a value"; JOBS=$2; shift 2 ;;
    -j[0-9]*) JOBS=${1#-j}; shift ;;
    --block) [ $# -ge 2 ] || die 64 "$1 needs a value"; BLOCK=$2; shift 2 ;;
    -a|--input) [ $# -ge 2 ] || die 64 "$1 needs a value"; INPUT=$2; shift 2 ;;
    -S|--sshlogin) [ $# -ge 2 ] || die 64 "$1 needs a value"; PAR_OPTS+=(--sshlogin "$2"); shift 2 ;;
    --sshloginfile|--slf) [ $# -ge 2 ] || die 64 "$1 needs a value"; PAR_OPTS+=(--sshloginfile "$2"); shift 2 ;;
    --ssh) [ $# -ge 2 ] || die 64 "$1 needs a value"; PAR_OPTS+=(--ssh "$2"); shift 2 ;;
    --geo) [ $# -ge 2 ] || die 64 "$1 needs a value"; GEO=$2; shift 2 ;;
    --ship) SHIP=1; shift ;;
    --rejects-dir) [ $# -ge 2 ] || die 64 "$1 needs a value"; REJECTS_DIR=$2; shift 2 ;;
    --joblog) [ $# -ge 2 ] || die 64 "$1 needs a value"; JOBLOG=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    --) shift; break ;;
    *) die 64 "unknown option '$1' (the geo command goes after --; --help for usage)" ;;
  esac
done
[ $# -ge 1 ] || die 64 "missing '-- CMD [ARGS...]': the geo command to run"
case $1 in -*) die 64 "expected a geo command after --, not '$1'" ;; esac
for a in "${@:2}"; do
  case $a in
    -o|--output*|--collection|--rejects*)
      die 64 "geo option $a cannot be used here: output goes to stdout, rejects to --rejects-dir" ;;
  esac
done
command -v parallel >/dev/null || die 69 "GNU parallel is not installed (apt-get install parallel)"
if [ -n "$INPUT" ] && [ ! -r "$INPUT" ]; then die 66 "cannot read $INPUT"; fi

# One thread per geo: parallel already runs one geo per core.
GEO_ARGS=("$@")
has_jobs=0
for a in "${@:2}"; do case $a in -j|-j[0-9]*|--jobs|--jobs=*) has_jobs=1 ;; esac; done
[ $has_jobs = 1 ] || GEO_ARGS=("$1" -j1 "${@:2}")
GEO_ARGS=("${GEO_ARGS[0]}" --quiet "${GEO_ARGS[@]:1}")

if [ $SHIP = 1 ]; then
  [ -f "$GEO" ] || die 64 "--ship needs --geo PATH to a file"
  GEO=$(cd "$(dirname "$GEO")" && pwd)/$(basename "$GEO")
  PAR_OPTS+=(--basefile "$GEO")
fi

# Dry run on empty input: usage errors (64) and a geo that cannot start fail here, fast.
if command -v "$GEO" >/dev/null 2>&1; then
  err=$("$GEO" "${GEO_ARGS[@]}" </dev/null 2>&1 >/dev/null); st=$?
  case $st in
    0) ;;
    126|127) die 69 "cannot run geo ($GEO): $err" ;;
    *) die "$st" "\`geo ${GEO_ARGS[*]}\` on empty input exited $st: $err" ;;
  esac
elif [ ${#PAR_OPTS[@]} -eq 0 ]; then
  die 69 "geo not found ($GEO): give --geo PATH or put geo on PATH"
fi

# A job log's rows as SEQ, HOST, BYTES RECEIVED and STATUS (tab-separated), a job killed by
# signal N counting as 128+N, as the shell counts it.
job_statuses() {
  local seq host recv exitval signal
  while IFS=$'\t' read -r seq host _ _ _ recv exitval signal _; do
    [ "$seq" = Seq ] && continue
    [ "${signal:-0}" = 0 ] || exitval=$((128 + signal))
    printf '%s\t%s\t%s\t%s\n' "$seq" "$host" "$recv" "$exitval"
  done < "$1"
}

# The job's command line, quoted for the shell that runs it (here or on the remote host).
cmd=$(printf '%q' "$GEO")
for a in "${GEO_ARGS[@]}"; do cmd+=" $(printf '%q' "$a")"; done

# Hosts: the same dry run on each (--nonall), before any block is sent. Besides a host without
# geo or libproj25, it finds a host that cannot run jobs at all: GNU parallel's remote wrapper
# starts each job with the host's $SHELL, and where that is unset (ssh logins set it; other
# --ssh commands such as `docker exec` may not) every job "succeeds" with no output, so its
# blocks would be lost without a word. The probe must print a word to pass.
if [ ${#PAR_OPTS[@]} -gt 0 ]; then
  probe_log=$(mktemp "${TMPDIR:-/tmp}/geo-parallel-probe.XXXXXX") || die 73 "cannot create a job log"
  probe_err=$(parallel --will-cite --nonall "${PAR_OPTS[@]}" --joblog "$probe_log" \
    "$cmd </dev/null && echo geo-ready" 2>&1 >/dev/null)
  probe_rows=$(job_statuses "$probe_log"); rm -f "$probe_log"
  [ -n "$probe_rows" ] || die 69 "the probe of the hosts ran no job${probe_err:+: $probe_err}"
  while IFS=$'\t' read -r _ host recv exitval; do
    case $exitval in
      0) [ "$recv" -gt 0 ] || die 69 "host $host ran a job but it printed nothing: is SHELL set" \
           "in the host's environment? (GNU parallel runs remote jobs with \$SHELL)${probe_err:+ $probe_err}" ;;
      126|127) die 69 "cannot run geo ($GEO) on host $host: $probe_err" ;;
      *) die "$exitval" "\`geo ${GEO_ARGS[*]}\` on empty input exited $exitval on host $host: $probe_err" ;;
    esac
  done <<< "$probe_rows"
fi
if [ -n "$REJECTS_DIR" ]; then
  mkdir -p "$REJECTS_DIR" 2>/dev/null || true
  case $REJECTS_DIR in /*) ;; *) [ ${#PAR_OPTS[@]} -eq 0 ] || REJECTS_DIR=$(cd "$REJECTS_DIR" && pwd) ;; esac
  dir_q=$(printf '%q' "$REJECTS_DIR")
  cmd="mkdir -p $dir_q && $cmd --rejects $dir_q/rejects-{#}-%h-%p.ndjson"
fi

own_joblog=0
if [ -z "$JOBLOG" ]; then
  JOBLOG=$(mktemp "${TMPDIR:-/tmp}/geo-parallel-joblog.XXXXXX") || die 73 "cannot create a job log"
  own_joblog=1
else
  : > "$JOBLOG" || die 73 "cannot write $JOBLOG"
fi
cleanup() { [ $own_joblog = 0 ] || rm -f "$JOBLOG"; }
trap cleanup EXIT

jobs_opt=()
[ -z "$JOBS" ] || jobs_opt=(-j "$JOBS")
if [ -n "$INPUT" ]; then
  parallel --will-cite --halt never --keep-order --pipepart -a "$INPUT" --block "$BLOCK" \
    "${jobs_opt[@]}" "${PAR_OPTS[@]}" --joblog "$JOBLOG" "$cmd"
else
  parallel --will-cite --halt never --keep-order --pipe --block "$BLOCK" \
    "${jobs_opt[@]}" "${PAR_OPTS[@]}" --joblog "$JOBLOG" "$cmd"
fi
prc=$?

if [ -n "$REJECTS_DIR" ] && [ -d "$REJECTS_DIR" ]; then
  find "$REJECTS_DIR" -maxdepth 1 -name 'rejects-*.ndjson' -empty -delete 2>/dev/null
fi

# Combine: the worst status of any job, as geo alone would exit.
worst=0 failed=0 total=0 cannot_run=0 report=
while IFS=$'\t' read -r seq host _ st; do
  total=$((total + 1))
  [ "$st" = 0 ] && continue
  failed=$((failed + 1))
  case $st in 126|127) cannot_run=1 ;; esac
  [ "$st" -gt "$worst" ] && worst=$st
  report+="$PROG:   job $seq (block $seq, host $host): exit $st"$'\n'
done < <(job_statuses "$JOBLOG")

if [ $failed -gt 0 ]; then
  printf '%s: geo exited non-zero in %d of %d jobs (the output holds all the other records):\n%s' \
    "$PROG" "$failed" "$total" "$report" >&2
  [ -z "$REJECTS_DIR" ] || printf '%s: bad records are in %s/rejects-JOB-HOST-PID.ndjson\n' \
    "$PROG" "$REJECTS_DIR" >&2
  if [ $cannot_run = 1 ]; then
    printf '%s: geo could not run on some host (126/127: not found, or libproj25 missing)\n' "$PROG" >&2
    exit 69
  fi
  exit "$worst"
fi
if [ $prc -ne 0 ]; then
  die 70 "GNU parallel failed (status $prc)"
fi
exit 0
