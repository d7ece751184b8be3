#!/bin/sh
# recovery.sh - what retry-one recovery costs, measured in one run.
#
#   1. recovery time: from a rank's death to the survivors resuming in the
#      new epoch (tracker: death notice -> RESUME; excludes the restarted
#      rank's own re-computation), k-means on 4 ranks, median of 3 kills
#   2. replay throughput: a rank killed after 39 allreduces of 16 MiB is
#      answered from the survivors' log; bytes replayed / time spent fetching
#   3. fault-free overhead of the result log: see compare.sh (encore/norec)
#   4. k-means job time with 3 failures: retry-one vs fail-all vs none
# Run from the build directory (make bench-recovery does), or set top_builddir.
set -eu
b=$(cd "${top_builddir:-.}" && pwd)
run="$b/encore-run"
km="$b/bench/kmeans"
rb="$b/bench/replay_bench"
out=${BENCH_OUT:-$b/bench/results}
iters=${KMEANS_ITERS:-500}
points=${KMEANS_POINTS:-100000}
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

now() { date +%s.%N; }

echo "== 1. recovery time (k-means, 4 ranks, $iters iterations, rank 2 killed)"
for op in 100 300 500; do
    timeout 300 "$run" -n 4 --inject "kill:rank=2:op=$op" "$km" "$iters" 42 "$points" \
        >/dev/null 2>"$tmp/rec.err"
    sed -n 's/.*resumed after \([0-9.]*\) s.*/\1/p' "$tmp/rec.err"
done | sort -n | tee "$tmp/rec.txt" | awk '{ a[NR] = $1 } END {
    printf "recovery time (death -> survivors resume): median %.3f s (min %.3f, max %.3f)\n",
           a[int((NR + 1) / 2)], a[1], a[NR] }'

echo "== 2. replay throughput (4 ranks, 40 allreduces of 16 MiB, rank 1 killed at the 40th)"
ENCORE_LOG=info timeout 300 "$run" -n 4 --inject kill:rank=1:op=40 "$rb" 40 16777216 \
    >"$tmp/rb.out" 2>"$tmp/rb.err"
sed -n 's/.*caught up.*: \([0-9]*\) collectives, \([0-9]*\) bytes replayed in \([0-9.]*\) s/\1 \2 \3/p' \
    "$tmp/rb.err" | awk '{ printf "replayed %d collectives, %.1f MiB in %.3f s: %.2f GB/s\n",
                           $1, $2 / 1048576, $3, $2 / $3 / 1e9 }'

echo "== 4. k-means job time, 4 ranks, 3 failures"
walltime() { # label, encore-run arguments...
    label=$1
    shift
    t0=$(now)
    timeout 600 "$run" -n 4 "$@" "$km" "$iters" 42 "$points" >"$tmp/$label.out" 2>"$tmp/$label.err"
    t1=$(now)
    echo "$label $(echo "$t1 - $t0" | bc)"
}
{
    walltime none
    walltime retry-one --inject kill:rank=1:op=150 --inject kill:rank=2:op=450 \
        --inject kill:rank=3:op=750
    # under fail-all every rank restarts from scratch with incarnation + 1, so
    # the same three failure points are expressed per incarnation
    walltime fail-all --policy fail-all --inject kill:rank=1:op=150:incarnation=0 \
        --inject kill:rank=2:op=450:incarnation=1 --inject kill:rank=3:op=750:incarnation=2
} | tee "$tmp/km.txt" | awk '{ t[$1] = $2; printf "%-10s %8.2f s\n", $1, $2 }
    END { printf "retry-one / none = %.2f, fail-all / none = %.2f\n",
                 t["retry-one"] / t["none"], t["fail-all"] / t["none"] }'
for l in retry-one fail-all; do
    cmp -s "$tmp/none.out" "$tmp/$l.out" || { echo "recovery.sh: $l result differs" >&2; exit 1; }
done
echo "all k-means results identical to the fault-free run"
