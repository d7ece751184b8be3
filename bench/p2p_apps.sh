#!/bin/sh
# p2p_apps.sh - what encore costs two message-passing programs on one host:
# tests/programs/p2p_halo2d (2-D halo exchange, a rare Allreduce) and
# tests/programs/p2p_farm (master/worker with MPI_ANY_SOURCE), at 2 and 4
# ranks (BENCH_RANKS), each BENCH_REPS times (default 3, the median kept):
#   native    mpirun
#   encore    encore-run, recovery on (its defaults: the sender's payload
#             log, determinants, snapshots as configured)
#   kill      encore-run with one rank SIGKILLed a quarter into the run
#             (after the first quarter of its progress lines): halo2d's
#             last rank, farm's master (rank 0) and its last worker
#   empty     each launcher running p2p_halo2d for one step of an 8 x 8
#             block: the start-up and shut-down of a job
# Prints a markdown table: the medians in seconds (whole jobs), encore/native
# for whole jobs and with each launcher's empty job subtracted (the time
# the program's own work and messages take), and the cost of one kill
# (kill run minus fault-free encore run).  Every run's output is
# checked against native's (sorted distinct lines) before it counts.
#   top_builddir=_build sh bench/p2p_apps.sh
# BENCH_HALO_ARGS (default "2000 512 100 400": steps, block edge, checksum
# and Allreduce periods) and BENCH_FARM_ARGS (default "4000 40000 200":
# tasks, work per task, progress period) size the programs; each run is
# bounded by BENCH_TIMEOUT s (default 300).
set -eu
: "${top_builddir:=.}"
: "${top_srcdir:=$(dirname "$0")/..}"
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=${BENCH_TIMEOUT:-300}
. "$top_srcdir/tests/integration/lib.sh"

ranks=${BENCH_RANKS:-2 4}
reps=${BENCH_REPS:-3}
halo_args=${BENCH_HALO_ARGS:-2000 512 100 400}
farm_args=${BENCH_FARM_ARGS:-4000 40000 200}
enc_require_program "$ENC_PROGRAMS/p2p_halo2d"
enc_require_program "$ENC_PROGRAMS/p2p_farm"
enc_require_launchers
enc_tmpdir

# median: the median of the numbers on stdin, one a line.
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# secs MS: milliseconds as seconds with two decimals.
secs() { awk -v m="$1" 'BEGIN { printf "%.2f", m / 1000 }'; }

# checked NAME REF: NAME's distinct output lines equal REF's, or the bench stops.
checked() {
    sort -u "$ENC_TMP/$1.raw" >"$ENC_TMP/$1.uniq" || enc_fail "sort failed"
    enc_expect_same "$ENC_TMP/$2" "$ENC_TMP/$1.uniq" "$1: output differs from native's"
}

# killed_run NAME N RANK PATTERN COUNT prog args...: encore-run -n N, RANK
# SIGKILLed once stdout has COUNT lines matching PATTERN; sets ENC_MS.
killed_run() {
    _k_name=$1 _k_n=$2 _k_rank=$3 _k_re=$4 _k_count=$5
    shift 5
    _k_t0=$(enc_now_ms)
    enc_encore "$_k_n" "$@" >"$ENC_TMP/$_k_name.raw" 2>"$ENC_TMP/$_k_name.err" &
    _k_job=$!
    enc_wait_lines "$ENC_TMP/$_k_name.raw" "$_k_re" "$_k_count" "$ENC_LIMIT" "$_k_name"
    _k_pid=$(enc_rank_pid "$(enc_bounded_pid "$_k_job")" "$_k_rank")
    [ -n "$_k_pid" ] || enc_fail "$_k_name: no process of rank $_k_rank to kill"
    kill -KILL "$_k_pid"
    ENC_RC=0
    # shellcheck disable=SC2034 # read by enc_expect_status
    wait "$_k_job" || ENC_RC=$?
    ENC_MS=$(($(enc_now_ms) - _k_t0))
    enc_expect_status "$_k_name" 0
    enc_expect_grep "$ENC_TMP/$_k_name.err" "rank $_k_rank .*restarting it" "$_k_name: no restart"
}

# measure PROG N ARGS: sets NAT and ENC, the median milliseconds of native
# and fault-free encore runs of PROG at N ranks; leaves PROG.N.ref.
measure() {
    : >"$ENC_TMP/nat.ms"
    : >"$ENC_TMP/enc.ms"
    for _ in $(seq 1 "$reps"); do
        # shellcheck disable=SC2086 # ARGS is a list
        enc_run_ok "$1.$2.native" enc_mpirun "$2" "$ENC_PROGRAMS/p2p_$1" $3
        echo "$ENC_MS" >>"$ENC_TMP/nat.ms"
        sort -u "$ENC_TMP/$1.$2.native.raw" >"$ENC_TMP/$1.$2.ref" || enc_fail "sort failed"
        # shellcheck disable=SC2086
        enc_run_ok "$1.$2.encore" enc_encore "$2" "$ENC_PROGRAMS/p2p_$1" $3
        echo "$ENC_MS" >>"$ENC_TMP/enc.ms"
        checked "$1.$2.encore" "$1.$2.ref"
    done
    NAT=$(median <"$ENC_TMP/nat.ms") ENC=$(median <"$ENC_TMP/enc.ms")
}

# empty N: sets NAT0 and ENC0, the median milliseconds of an empty job
# (p2p_halo2d, one step of an 8 x 8 block) at N ranks under each launcher.
empty() {
    _e_keep_nat=$NAT _e_keep_enc=$ENC
    measure halo2d "$1" "1 8 1 1"
    NAT0=$NAT ENC0=$ENC NAT=$_e_keep_nat ENC=$_e_keep_enc
}

# kill_cost PROG N RANK PATTERN COUNT ARGS: the median milliseconds of runs
# with RANK killed, minus ENC; printed as a table row with NAT and ENC.
kill_cost() {
    : >"$ENC_TMP/kill.ms"
    for _ in $(seq 1 "$reps"); do
        # shellcheck disable=SC2086 # ARGS is a list
        killed_run "$1.$2.kill" "$2" "$3" "$4" "$5" "$ENC_PROGRAMS/p2p_$1" $6
        echo "$ENC_MS" >>"$ENC_TMP/kill.ms"
        checked "$1.$2.kill" "$1.$2.ref"
    done
    _kc=$(median <"$ENC_TMP/kill.ms")
    echo "| $1 | $2 | $(secs "$NAT") | $(secs "$ENC") |" \
        "$(awk -v e="$ENC" -v n="$NAT" 'BEGIN { printf "%.2f", e / n }') |" \
        "$(awk -v e=$((ENC - ENC0)) -v n=$((NAT - NAT0)) 'BEGIN { if (n > 0) printf "%.2f", e / n; else printf "-" }') |" \
        "$3 | $(secs "$_kc") | $(secs $((_kc - ENC))) |"
}

halo_lines=$(($(echo "$halo_args" | awk '{ print int($1 / $3) }') / 4))
farm_lines=$(($(echo "$farm_args" | awk '{ print int($1 / $3) }') / 4))
if [ "$halo_lines" -lt 1 ] || [ "$farm_lines" -lt 1 ]; then
    enc_fail "BENCH_HALO_ARGS/BENCH_FARM_ARGS print fewer than 4 progress lines"
fi
echo "p2p_apps: halo2d $halo_args, farm $farm_args, median of $reps;" \
    "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| program | ranks | native (s) | encore (s) | encore/native | the same without start-up | rank killed | with a kill (s) | one kill costs (s) |"
echo "|---|---|---|---|---|---|---|---|---|"
NAT=0 ENC=0
for n in $ranks; do
    empty "$n"
    last=$((n - 1))
    measure halo2d "$n" "$halo_args"
    kill_cost halo2d "$n" "$last" "^step [0-9]+ rank $last checksum" "$halo_lines" "$halo_args"
    measure farm "$n" "$farm_args"
    kill_cost farm "$n" 0 '^progress ' "$farm_lines" "$farm_args"
    [ "$last" -eq 0 ] || kill_cost farm "$n" "$last" '^progress ' "$farm_lines" "$farm_args"
done
echo
echo "p2p_apps: load after: $(cut -d' ' -f1-3 /proc/loadavg)"
