#!/bin/sh
# det_cost.sh - the cost of determinants in a polling loop (2 ranks, one
# host): bench/det_poll.c under native Open MPI and under encore-run, back
# to back in one run, with the load average, and the ratios.  Under encore
# every Iprobe and Test is a determinant (a NONE run in the mapped file:
# one store per call; a MATCH record per message found).
#   bench/det_cost.sh [build dir] [calls] [messages]   (default _build 1000000 20000)
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-$ROOT/_build}
N=${2:-1000000} M=${3:-20000}
T=$(mktemp -d "${TMPDIR:-/tmp}/encore-det.XXXXXX")
trap 'rm -rf "$T"' EXIT
mpicc -O2 -o "$T/det_poll" "$ROOT/bench/det_poll.c"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
timeout 300 mpirun --oversubscribe -n 2 "$T/det_poll" "$N" "$M" >"$T/native"
timeout 300 "$B/encore-run" -n 2 --timeout 290 "$T/det_poll" "$N" "$M" >"$T/encore" 2>"$T/encore.err"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| loop | native (ns) | encore (ns) | encore / native |"
echo "|---|---|---|---|"
join "$T/native" "$T/encore" | while read -r k n e; do
    echo "| $k | $n | $e | $(awk "BEGIN{printf \"%.2f\", $e / $n}") |"
done
