#!/bin/sh
# p2p_snapshot.sh - a message-passing program with and without snapshots:
# tests/programs/p2p_ring (4 ranks, no collective at all: send right,
# receive left, 5 ms of work, 64 KiB messages), default settings but
# ENCORE_SNAPSHOT_S (auto, then 0 = off), fault-free and with rank 2
# SIGKILLed from outside at BENCH_KILL_AT s.  Prints for each mode the
# fault-free and the killed run's wall time, the kill's cost (their
# difference), whether both outputs equal native mpirun's, and each rank's
# peak log (encore-run's summary: with snapshots, the payload log trimmed
# by the receivers' images; off, every byte sent).  ENCORE_LOG=info only to
# read rank 2's pid from the tracker's registration line.
#
#   top_builddir=_build sh bench/p2p_snapshot.sh
#   BENCH_KILL_AT=8 BENCH_ITERS=2000 ...   (the defaults)
set -eu

b=$(cd "${top_builddir:-.}" && pwd)
run="$b/encore-run"
prog="$b/tests/programs/p2p_ring"
iters=${BENCH_ITERS:-2000}
kill_at=${BENCH_KILL_AT:-8}
args="$iters 5000 65536"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
now() { date +%s.%N; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_backing_directory="$tmp"

t0=$(now)
# shellcheck disable=SC2086 # args is a list
timeout 300 mpirun --oversubscribe -n 4 "$prog" $args 2>/dev/null | sort >"$tmp/native.out"
echo "native: $(echo "$(now) - $t0" | bc) s"

# job NAME SNAP KILL_AT_S: runs encore-run (bounded), prints its wall seconds
job() {
    t0=$(now)
    # shellcheck disable=SC2086 # args is a list
    ENCORE_SNAPSHOT_S=$2 ENCORE_LOG=info timeout 600 "$run" -n 4 "$prog" $args \
        >"$tmp/$1.raw" 2>"$tmp/$1.err" &
    jp=$!
    if [ "$3" != 0 ]; then
        sleep "$3"
        kp=$(sed -n 's/.*rank 2 incarnation 0 (pid \([0-9]*\)) registered.*/\1/p' "$tmp/$1.err")
        [ -n "$kp" ] && kill -KILL "$kp"
    fi
    wait "$jp" || echo "$1: exit $?" >&2
    echo "$(now) - $t0" | bc
}

for snap in auto 0; do
    free=$(job "free$snap" "$snap" 0)
    killed=$(job "kill$snap" "$snap" "$kill_at")
    for r in "free$snap" "kill$snap"; do
        sort -u "$tmp/$r.raw" | grep -v '^progress' >"$tmp/$r.out"
        grep -v '^progress' "$tmp/native.out" >"$tmp/native.sums"
        cmp -s "$tmp/native.sums" "$tmp/$r.out" && eq=exact || eq=DIFFERS
        echo "$r: output $eq"
    done
    peaks=$(awk '$1 == "rank" && $3 == "restarts" { for (i = 3; i < NF; i++) if ($i == "log") printf "%s ", $(i + 1) }' \
        "$tmp/free$snap.err")
    used=$(grep -c "rank 2 incarnation 1 restored from its snapshot" "$tmp/kill$snap.err" || true)
    echo "snapshots $snap: fault-free $free s, killed at $kill_at s: $killed s, kill cost" \
        "$(echo "$killed - $free" | bc) s (restored from a snapshot: $used), peak log MiB per rank: $peaks"
done
