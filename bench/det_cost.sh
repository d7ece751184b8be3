#!/bin/sh
# det_cost.sh - the cost of determinants in a polling loop and in replies
# to wildcard receives (2 ranks): bench/det_poll.c under native Open MPI
# and under encore-run, back to back in one run, with the load average,
# and the ratios.  Under encore every Iprobe and Test is a determinant (a
# NONE run in the mapped file: one store per call; a MATCH record per
# message found).  A rank off encore-run's host also copies its records to
# encore-run before its next send (docs/p2p.md 5.3, S2): the "no copy"
# column is the same run with ENCORE_P2P_DET_REPLICA=0.
#   bench/det_cost.sh [build dir] [calls] [messages]   (default _build 1000000 20000)
# DET_PLACES (default "host netns"): host = both ranks on this host (that of
# encore-run: nothing is copied); netns = one rank on each of two network-
# namespace hosts, encore-run outside both (as bench/p2p.sh).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-$ROOT/_build}
N=${2:-1000000} M=${3:-20000}
PLACES=${DET_PLACES:-host netns}
T=$(mktemp -d "${TMPDIR:-/tmp}/encore-det.XXXXXX")
cleanup() { rm -rf "$T"; }
trap cleanup EXIT
mpicc -O2 -o "$T/det_poll" "$ROOT/bench/det_poll.c"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# shellcheck source=bench/netns_pair.sh
. "$ROOT/bench/netns_pair.sh"

table() {
    echo
    echo "$1"
    echo
    echo "| loop | native (ns) | encore (ns) | no copy (ns) | encore / native | no copy / native |"
    echo "|---|---|---|---|---|---|"
    join "$T/native" "$T/encore" | join - "$T/nocopy" | while read -r k n e o; do
        echo "| $k | $n | $e | $o | $(awk "BEGIN{printf \"%.2f\", $e / $n}") | $(awk "BEGIN{printf \"%.2f\", $o / $n}") |"
    done
}

host_runs() {
    timeout 300 mpirun --oversubscribe -n 2 "$T/det_poll" "$N" "$M" >"$T/native"
    timeout 300 "$B/encore-run" -n 2 --timeout 290 "$T/det_poll" "$N" "$M" >"$T/encore" 2>"$T/encore.err"
    ENCORE_P2P_DET_REPLICA=0 timeout 300 "$B/encore-run" -n 2 --timeout 290 "$T/det_poll" "$N" "$M" \
        >"$T/nocopy" 2>"$T/nocopy.err"
    table "One host (encore-run's), 2 ranks:"
}

netns_runs() {
    netns_pair_up det_cost.sh cleanup || return 0
    netns_pair_native "$T/det_poll" "$N" "$M" >"$T/native" 2>"$T/native.err"
    netns_pair_encore "$T/det_poll" "$N" "$M" >"$T/encore" 2>"$T/encore.err"
    (export ENCORE_P2P_DET_REPLICA=0 && netns_pair_encore "$T/det_poll" "$N" "$M") \
        >"$T/nocopy" 2>"$T/nocopy.err"
    table "Two network-namespace hosts, one rank on each (encore-run on neither: every record copied):"
}

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for place in $PLACES; do
    case $place in
    host) host_runs ;;
    netns) netns_runs ;;
    *) echo "det_cost.sh: unknown placement $place (DET_PLACES: host netns)" >&2; exit 2 ;;
    esac
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
