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
#   5. snapshots: cost of one kill at 10/50/90 % of a 10 s and a 60 s job
#      (BENCH_SNAP_LENGTHS), snapshots off vs auto, as job time lost and
#      as time from the SIGKILL to the killed rank caught up; fault-free
#      overhead; peak memory of ranks plus snapshot images; peak log.  Also
#      for programs with a thread pool, 10 s jobs (BENCH_POOL_LENGTHS): an
#      mpi4py + NumPy program (OpenBLAS's pool) and an OpenMP loop (GCC's
#      libgomp), each with a 4 MiB allreduce per iteration; and the
#      two-host job (snap_iter with one rank on each of two network
#      namespace hosts, --rsh "ip netns exec"; needs root, else skipped):
#      the killed rank's images park with its host's agent
# BENCH_SECTIONS picks sections (default "1 2 4 5"; e.g. BENCH_SECTIONS=5).
# Section 5: BENCH_SNAP_PROGRAMS (default "snap_iter numpy omp hosts"),
# BENCH_SNAP_LENGTHS (default "10 60" s, snap_iter), BENCH_POOL_LENGTHS
# (default "10" s, numpy and omp), BENCH_SNAP_REPS (3); MPI4PY_PYTHON
# (default /usr/bin/python3) runs the NumPy program.
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
# section N: true when section N was asked for
section() { case " ${BENCH_SECTIONS:-1 2 4 5} " in *" $1 "*) return 0 ;; esac; return 1; }

if section 1; then
echo "== 1. recovery time (k-means, 4 ranks, $iters iterations, rank 2 killed)"
for op in 100 300 500; do
    timeout 300 "$run" -n 4 --inject "kill:rank=2:op=$op" "$km" "$iters" 42 "$points" \
        >/dev/null 2>"$tmp/rec.err"
    sed -n 's/.*resumed after \([0-9.]*\) s.*/\1/p' "$tmp/rec.err"
done | sort -n | tee "$tmp/rec.txt" | awk '{ a[NR] = $1 } END {
    printf "recovery time (death -> survivors resume): median %.3f s (min %.3f, max %.3f)\n",
           a[int((NR + 1) / 2)], a[1], a[NR] }'

fi
if section 2; then
echo "== 2. replay throughput (4 ranks, 40 allreduces of 16 MiB, rank 1 killed at the 40th)"
ENCORE_LOG=info timeout 300 "$run" -n 4 --inject kill:rank=1:op=40 "$rb" 40 16777216 \
    >"$tmp/rb.out" 2>"$tmp/rb.err"
sed -n 's/.*caught up.*: \([0-9]*\) collectives, \([0-9]*\) bytes replayed in \([0-9.]*\) s/\1 \2 \3/p' \
    "$tmp/rb.err" | awk '{ printf "replayed %d collectives, %.1f MiB in %.3f s: %.2f GB/s\n",
                           $1, $2 / 1048576, $3, $2 / $3 / 1e9 }'

fi
if section 4; then
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

fi
if section 5; then
echo "== 5. snapshots: one kill at 10/50/90 % of a job (2 ranks, one 4 MiB in-place"
echo "      allreduce per iteration), snapshots off vs on (auto)"
py=${MPI4PY_PYTHON:-/usr/bin/python3}
src=$(cd "$(dirname "$0")/.." && pwd)
# two namespace hosts for the two-host job, made once (netns_lib.sh, whose
# EXIT trap removes them, and then $tmp)
hosts_made=""
two_hosts() {
    [ -z "$hosts_made" ] || return 0
    [ "$(id -u)" = 0 ] && command -v ip >/dev/null 2>&1 || return 1
    # shellcheck disable=SC1091 # the test's library, from the source tree
    . "$src/tests/integration/netns_lib.sh"
    netns_create 2 >/dev/null 2>&1 || return 1
    netns_at_exit "rm -rf '$tmp'"
    hosts_made="$(netns_name 1):1,$(netns_name 2):1"
}
# program NAME: sets cmd (the program and its fixed arguments), hosts
# (encore-run's -H list, reached with --rsh "ip netns exec"; "" for one
# host), match (a string in the command line of its processes, ranks and
# images) and label; false when it cannot run here
program() {
    hosts=""
    case $1 in
    hosts) # snap_iter on two hosts: rank 0 on the first, rank 1 on the second
        two_hosts || return 1
        hosts=$hosts_made
        match="$b/tests/programs/snap_iter" label="two hosts, "
        cmd="$match --count 524288 --work-us 20000" ;;
    snap_iter) # 20 ms of sleep as local work
        match="$b/tests/programs/snap_iter" label=""
        cmd="$match --count 524288 --work-us 20000" ;;
    numpy) # NumPy work: matrix products on OpenBLAS's pool, 4 MiB vectors
        match="$src/tests/programs/numpy_iter.py" label="NumPy "
        cmd="$py $match --count 524288 --work-n 160 --work-reps 4"
        "$py" -c 'import mpi4py.MPI, numpy' 2>/dev/null ;;
    omp) # an OpenMP loop over the 4 MiB vector (GCC's libgomp)
        match="$b/tests/programs/omp_iter" label="OpenMP "
        cmd="$match --count 524288 --work 16"
        [ -x "$match" ] ;;
    *) return 1 ;;
    esac
}
# peak: the largest sum of RSS (MiB) of the program's processes (ranks and
# snapshot images), sampled every 0.2 s while pid $1 runs
peak() {
    _pk=0
    while kill -0 "$1" 2>/dev/null; do
        _s=$(ps -eo rss=,args= | awk -v p="$match" 'index($0, p) { s += $1 } END { print int(s / 1024) }')
        [ "$_s" -le "$_pk" ] || _pk=$_s
        sleep 0.2
    done
    echo "$_pk"
}
# caught KILL_TIME LINES PID: seconds from the kill to rank 1's first sign of
# being back where it was (its "replay: caught up" line, or its first live
# collective when there was nothing to replay), polled every 50 ms in the
# lines after the first LINES of the job's log while PID runs; "-" if none
caught() {
    while kill -0 "$3" 2>/dev/null; do
        # only after the new incarnation appears: lines of the killed one may
        # still be on their way through encore-run's output forwarding
        if tail -n "+$(($2 + 1))" "$tmp/sj.err" | awk '/rank 1 incarnation [1-9]/ { n = 1 }
            n && /rank 1\] (replay: caught up|coll: .* finished version)/ { f = 1; exit }
            END { exit !f }'; then
            echo "$(now) - $1" | bc
            return
        fi
        sleep 0.05
    done
    echo -
}
# job MODE ITERS KILL_AT_S: wall seconds, peak MiB, snapshots used, exit
# status, peak log MiB per rank, seconds from the kill to rank 1 caught up
job() {
    t0=$(now)
    # shellcheck disable=SC2086 # cmd is the program and its arguments
    ENCORE_LOG=info ENCORE_SNAPSHOT_S=$1 timeout 900 "$run" -n 2 ${hosts:+--rsh} \
        ${hosts:+"ip netns exec"} ${hosts:+-H} ${hosts:+"$hosts"} $cmd --iters "$2" \
        >"$tmp/sj.out" 2>"$tmp/sj.err" &
    jp=$!
    peak "$jp" >"$tmp/peak" &
    if [ "$3" != 0 ]; then
        sleep "$3"
        for _i in $(seq 100); do # rank 1's pid, once it registered (10 s bound)
            kp=$(sed -n 's/.*rank 1 incarnation 0 (pid \([0-9]*\)) registered.*/\1/p' "$tmp/sj.err")
            [ -z "$kp" ] || break
            sleep 0.1
        done
        nl=$(wc -l <"$tmp/sj.err")
        if [ -n "$kp" ] && kill -KILL "$kp" 2>/dev/null; then # may have ended
            caught "$(now)" "$nl" "$jp" >"$tmp/caught" &
        fi
    fi
    rc=0
    wait "$jp" || rc=$?
    wait
    sort -o "$tmp/sj.out" "$tmp/sj.out" # ranks' lines in any order
    used=$(sed -n 's/^encore: snapshots: [0-9]* taken, \([0-9]*\) used$/\1/p' "$tmp/sj.err")
    # the largest per-rank peak of the result log, from the job summary
    plog=$(sed -n 's/.* peak log \([0-9.]*\) MiB.*/\1/p' "$tmp/sj.err" | sort -n | tail -1)
    echo "$(echo "$(now) - $t0" | bc) $(cat "$tmp/peak") ${used:-0} $rc ${plog:-0}" \
        "$(cat "$tmp/caught" 2>/dev/null || echo -)"
    rm -f "$tmp/caught"
}
# calibrate NAME: seconds per iteration (per) and fixed cost (fixed:
# start-up, MPI_Finalize) of the program, from two lengths (one short run
# alone overstated the iteration time by its start-up); the figures are
# printed after the table
calibrate() {
    t20=$(job 0 20 0 | awk '{ print $1 }')
    t120=$(job 0 120 0 | awk '{ print $1 }')
    per=$(echo "($t120 - $t20) / 100" | bc -l)
    fixed=$(echo "$t20 - 20 * $per" | bc -l)
    echo "calibration, $1: $(printf '%.1f' "$(echo "$per * 1000" | bc -l)") ms per iteration, $(printf '%.2f' "$fixed") s fixed" >>"$tmp/calib"
}
# rows LEN: the table's rows (snapshots off, then auto) of a LEN s job
rows() {
    _len=$1
    it=$(echo "($_len - $fixed) / $per" | bc)
    base=""
    for mode in 0 auto; do
        # the fault-free run: median of BENCH_SNAP_REPS (default 3) runs
        rm -f "$tmp/free"
        for _r in $(seq "${BENCH_SNAP_REPS:-3}"); do
            job "$mode" "$it" 0 >>"$tmp/free"
            [ "$_r" != 1 ] || [ "$mode" != 0 ] || cp "$tmp/sj.out" "$tmp/ref.out"
            cmp -s "$tmp/ref.out" "$tmp/sj.out" || { echo "recovery.sh: fault-free runs differ" >&2; exit 1; }
        done
        set -- $(sort -n "$tmp/free" | awk '{ l[NR] = $0 } END { print l[int((NR + 1) / 2)] }')
        free=$1 pk=$2 plog=$5
        [ -n "$base" ] || base=$free
        costs="" usedall=""
        for f in 0.1 0.5 0.9; do
            set -- $(job "$mode" "$it" "$(echo "$fixed / 2 + ($free - $fixed) * $f" | bc -l)")
            if [ "$4" != 0 ]; then
                costs="$costs failed (exit $4) |"
            elif ! cmp -s "$tmp/ref.out" "$tmp/sj.out"; then
                costs="$costs WRONG result |"
            else
                costs="$costs $(printf "%.2f" "$(echo "$1 - $free" | bc)") s ($([ "$6" = - ] && echo - || printf "%.2f" "$6") s) |"
            fi
            [ "$5" = 0 ] || plog=$(printf '%s\n%s\n' "$plog" "$5" | sort -n | tail -1)
            usedall="$usedall$3 "
        done
        printf "| %s%s s (%d it.) | %s | %.2f | %+.1f %% | %d | %s |%s %s|\n" "$label" "$_len" "$it" \
            "$([ "$mode" = 0 ] && echo off || echo auto)" "$free" \
            "$(echo "($free - $base) * 100 / $base" | bc -l)" "$pk" "$plog" "$costs" "$usedall"
    done
}
echo "(a kill at F % lands at fixed / 2 + F % of the iterations' time; its cost is the"
echo " job's time minus the fault-free median, and in brackets the time from the"
echo " SIGKILL to the killed rank caught up with the survivors, which fault-free"
echo " run-to-run spread does not blur)"
printf "| job | snapshots | fault-free s | overhead | peak MiB | peak log MiB/rank | kill at 10 %% | 50 %% | 90 %% | snapshots used |\n"
printf "|---|---|---|---|---|---|---|---|---|---|\n"
for name in ${BENCH_SNAP_PROGRAMS:-snap_iter numpy omp hosts}; do
    if ! program "$name"; then
        echo "recovery.sh: $name skipped: it cannot run here (python3-numpy, libopenblas0-pthread, an OpenMP compiler; root and ip netns for hosts)" >&2
        continue
    fi
    calibrate "$name"
    lengths=${BENCH_POOL_LENGTHS:-10}
    [ "$name" != snap_iter ] || lengths=${BENCH_SNAP_LENGTHS:-10 60}
    for len in $lengths; do
        rows "$len"
    done
done
cat "$tmp/calib" 2>/dev/null || true
fi
