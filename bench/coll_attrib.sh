#!/bin/sh
# coll_attrib.sh - where encore's time goes in IMB's collectives at large
# sizes, 2 ranks on one host: bench/coll_bench.c (bcast, allgather,
# alltoall, reduce on a dup of the world, result checked) under native
# Open MPI and under encore-run three ways, in one run:
#   encore    the defaults (result log, snapshots)
#   nosnap    ENCORE_SNAPSHOT_S=0: the log without snapshots, so what the
#             snapshots' copy-on-write faults cost shows as encore - nosnap
#             (nothing is released either: a job that puts more than the
#             host's result buffer through it copies entries out of the way)
#   norec     ENCORE_RECOVERY=0: the same engine without a log
# COLL_SIZES (default "1048576 16777216" bytes), COLL_REPS (default 3; the
# fastest of each kept), COLL_ITERS (default 200 below 4 MiB, 30 from it).
# Every run is bounded by 120 s.  Prints a markdown table of mean us per
# call and encore/native.
#   bench/coll_attrib.sh [build dir]      (default _build)
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-$ROOT/_build}
SIZES=${COLL_SIZES:-1048576 16777216}
REPS=${COLL_REPS:-3}
T=$(mktemp -d "${TMPDIR:-/tmp}/encore-coll.XXXXXX")
trap 'rm -rf "$T"' EXIT
mpicc -O2 -o "$T/coll_bench" "$ROOT/bench/coll_bench.c"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# one MODE COLL BYTES ITERS: the mean us of one run ("fail" when it failed)
one() {
    case $1 in
    native) set -- "$2" "$3" "$4" timeout 120 mpirun -n 2 ;;
    encore) set -- "$2" "$3" "$4" timeout 120 "$B/encore-run" --bind-to core -n 2 ;;
    nosnap) set -- "$2" "$3" "$4" timeout 120 env ENCORE_SNAPSHOT_S=0 "$B/encore-run" --bind-to core -n 2 ;;
    norec) set -- "$2" "$3" "$4" timeout 120 env ENCORE_RECOVERY=0 "$B/encore-run" --bind-to core -n 2 ;;
    esac
    _c=$1 _b=$2 _i=$3
    shift 3
    "$@" "$T/coll_bench" "$_c" "$_b" "$_i" 2>"$T/err" | awk -v c="$_c" '$1 == c { print $3; f = 1 } END { if (!f) print "fail" }'
}

# best: the lowest of the numbers on stdin ("fail" when none)
best() { awk '$1 != "fail" && (m == "" || $1 < m) { m = $1 } END { print (m == "" ? "fail" : m) }'; }
ratio() { echo "$1 $2" | awk '{ printf ($1 == "fail" || $2 == "fail" || $2 == 0) ? "-" : "%.2f", $1 / $2 }'; }

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| collective | bytes | native (us) | encore (us) | nosnap (us) | norec (us) | encore/native | nosnap/native | norec/native |"
echo "|---|---|---|---|---|---|---|---|---|"
for c in bcast allgather alltoall reduce; do
    for s in $SIZES; do
        it=${COLL_ITERS:-}
        [ -n "$it" ] || { [ "$s" -lt 4194304 ] && it=200 || it=30; }
        for m in native encore nosnap norec; do
            for _ in $(seq "$REPS"); do one "$m" "$c" "$s" "$it"; done | best >"$T/$m"
        done
        n=$(cat "$T/native") e=$(cat "$T/encore") x=$(cat "$T/nosnap") r=$(cat "$T/norec")
        echo "| $c | $s | $n | $e | $x | $r | $(ratio "$e" "$n") | $(ratio "$x" "$n") | $(ratio "$r" "$n") |"
    done
done
echo
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
