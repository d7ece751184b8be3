#!/bin/sh
# snapshot_headline.sh - issue 8's headline case, measured in one run:
# 2 ranks, 20 ms of local work and one 4 MiB in-place MPI_Allreduce per
# iteration, 400 iterations, default settings (snapshots auto, 1 GiB log
# cap, default spill under TMPDIR), rank 1 SIGKILLed from outside at 8 s.  Prints
# the fault-free and the killed run's wall time, the kill's cost, whether
# both results equal native mpirun's bit for bit, and each rank's peak
# result-log bytes from encore-run's summary.  ENCORE_LOG=info only to
# read rank 1's pid from the tracker's registration line.
#
#   top_builddir=_build sh bench/snapshot_headline.sh
#   BENCH_KILL_AT=8 BENCH_ITERS=400 ...   (the defaults)
set -eu

b=$(cd "${top_builddir:-.}" && pwd)
run="$b/encore-run"
prog="$b/tests/programs/snap_iter"
iters=${BENCH_ITERS:-400}
kill_at=${BENCH_KILL_AT:-8}
args="--iters $iters --count 524288 --work-us 20000"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
now() { date +%s.%N; }
# native ranks killed by the timeout would leave their segments in /dev/shm
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_backing_directory="$tmp"

# shellcheck disable=SC2086 # args is a list
timeout 300 mpirun -n 2 "$prog" $args 2>/dev/null | sort >"$tmp/native.out"

# job NAME KILL_AT_S: runs encore-run (bounded), prints its wall seconds
job() {
    t0=$(now)
    # shellcheck disable=SC2086 # args is a list
    ENCORE_LOG=info timeout 600 "$run" -n 2 --summary "$prog" $args \
        >"$tmp/$1.raw" 2>"$tmp/$1.err" &
    jp=$!
    if [ "$2" != 0 ]; then
        sleep "$2"
        kp=$(sed -n 's/.*rank 1 incarnation 0 (pid \([0-9]*\)) registered.*/\1/p' "$tmp/$1.err")
        [ -n "$kp" ] && kill -KILL "$kp"
    fi
    rc=0
    wait "$jp" || rc=$?
    sort "$tmp/$1.raw" >"$tmp/$1.out"
    echo "$rc $(echo "$(now) - $t0" | bc)"
}

# shellcheck disable=SC2046 # two words
set -- $(job free 0)
free_rc=$1 free_s=$2
# shellcheck disable=SC2046
set -- $(job kill "$kill_at")
kill_rc=$1 kill_s=$2
same() { cmp -s "$tmp/native.out" "$tmp/$1.out" && echo "exact" || echo "DIFFERS"; }
peaks() { sed -n 's/^  rank \([0-9]*\) .* peak log \([0-9.]*\) MiB.*/rank \1 \2 MiB/p' "$tmp/$1.err" | tr '\n' ' '; }
restored=$(sed -n 's/.*rank 1 incarnation 1 restored from its snapshot at seq \([0-9]*\).*/\1/p' "$tmp/kill.err")
snaps=$(sed -n 's/^encore: snapshots: \(.*\)$/\1/p' "$tmp/kill.err")

echo "snapshot headline: 2 ranks, $iters x (20 ms work + 4 MiB in-place allreduce), default settings"
printf "fault-free: exit %s, %.2f s, result %s, peak log %s\n" "$free_rc" "$free_s" "$(same free)" "$(peaks free)"
printf "kill at %s s: exit %s, %.2f s, result %s, peak log %s\n" "$kill_at" "$kill_rc" "$kill_s" \
    "$(same kill)" "$(peaks kill)"
printf "  rank 1 restored from its snapshot at seq %s; snapshots %s\n" "${restored:-none}" "${snaps:-none}"
printf "kill cost: %.2f s\n" "$(echo "$kill_s - $free_s" | bc)"
