#!/bin/sh
# p2p_apps.sh - two realistic message-passing programs under encore-run give
# native Open MPI's output, fault-free and with a rank SIGKILLed mid-run
# (4 ranks, one host, real processes and signals):
#   halo2d  tests/programs/p2p_halo2d (2-D Jacobi on a periodic Cartesian
#           grid, four halos a step by Isend/Irecv/Waitall and Sendrecv, a
#           column as a vector datatype, an Allreduce every 400 steps):
#           fault-free the same lines as native; rank 2 (four neighbours)
#           SIGKILLed after its 5th of 40 checksum lines: the same distinct
#           lines (a restarted rank prints its lines again)
#   farm    tests/programs/p2p_farm (master/worker, MPI_ANY_SOURCE and
#           MPI_ANY_TAG, results printed in task order): fault-free exactly
#           native's output; the master SIGKILLed after 5 of 30 progress
#           lines and a worker after 15: the same distinct lines, and the
#           results and sum (the last lines) exactly native's, in order
# The random kills: tests/integration/soak_p2p_short.sh.
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=120
. "${top_srcdir:-.}/tests/integration/lib.sh"

halo="$ENC_PROGRAMS/p2p_halo2d"
farm="$ENC_PROGRAMS/p2p_farm"
enc_require_program "$halo"
enc_require_program "$farm"
enc_require_launchers
enc_tmpdir
halo_args="16000 64 400 400"
farm_tasks=3000
farm_args="$farm_tasks 40000 100"

# kill_after NAME RANK PATTERN COUNT prog args...: encore-run -n 4 in the
# background; once its stdout has COUNT lines matching PATTERN, SIGKILLs
# RANK's process and waits for the job, which must exit 0 having restarted
# RANK.  Leaves NAME.raw, NAME.err and NAME.uniq (sorted distinct lines).
kill_after() {
    _a_name=$1 _a_rank=$2 _a_re=$3 _a_count=$4
    shift 4
    enc_encore 4 "$@" >"$ENC_TMP/$_a_name.raw" 2>"$ENC_TMP/$_a_name.err" &
    _a_job=$!
    enc_wait_lines "$ENC_TMP/$_a_name.raw" "$_a_re" "$_a_count" 60 "$_a_name"
    _a_pid=$(enc_rank_pid "$(enc_bounded_pid "$_a_job")" "$_a_rank")
    [ -n "$_a_pid" ] || enc_fail "$_a_name: no process of rank $_a_rank to kill"
    kill -KILL "$_a_pid"
    ENC_RC=0
    # shellcheck disable=SC2034 # read by enc_expect_status
    wait "$_a_job" || ENC_RC=$?
    enc_expect_status "$_a_name" 0
    enc_expect_grep "$ENC_TMP/$_a_name.err" "rank $_a_rank .*restarting it" \
        "$_a_name: rank $_a_rank was not restarted"
    sort -u "$ENC_TMP/$_a_name.raw" >"$ENC_TMP/$_a_name.uniq" || enc_fail "sort failed"
}

# -- halo2d ------------------------------------------------------------------------
# shellcheck disable=SC2086 # the arguments are lists
{
    enc_run_ok halo.native enc_mpirun 4 "$halo" $halo_args
    enc_expect_grep "$ENC_TMP/halo.native.out" '^end rank 3 checksum ' "halo2d: native printed no result"
    enc_run_ok halo.free enc_encore 4 "$halo" $halo_args
    enc_expect_same "$ENC_TMP/halo.native.out" "$ENC_TMP/halo.free.out" "halo2d fault-free"
    enc_log "ok: halo2d fault-free, $(wc -l <"$ENC_TMP/halo.free.out") lines as native's"
    sort -u "$ENC_TMP/halo.native.raw" >"$ENC_TMP/halo.native.uniq" || enc_fail "sort failed"
    kill_after halo.kill2 2 '^step [0-9]+ rank 2 checksum' 5 "$halo" $halo_args
    enc_expect_same "$ENC_TMP/halo.native.uniq" "$ENC_TMP/halo.kill2.uniq" "halo2d, rank 2 killed"
    enc_log "ok: halo2d, rank 2 SIGKILLed after its 5th checksum"
}

# -- farm ----------------------------------------------------------------------------
# shellcheck disable=SC2086
{
    enc_run_ok farm.native enc_mpirun 4 "$farm" $farm_args
    enc_expect_grep "$ENC_TMP/farm.native.raw" '^sum ' "farm: native printed no sum"
    enc_run_ok farm.free enc_encore 4 "$farm" $farm_args
    enc_expect_same "$ENC_TMP/farm.native.raw" "$ENC_TMP/farm.free.raw" "farm fault-free"
    enc_log "ok: farm fault-free, output identical to native's"
    sort -u "$ENC_TMP/farm.native.raw" >"$ENC_TMP/farm.native.uniq" || enc_fail "sort failed"
    tail -n $((farm_tasks + 1)) "$ENC_TMP/farm.native.raw" >"$ENC_TMP/farm.native.results"
    for k in 0:5 2:15; do
        r=${k%%:*} n=${k#*:}
        kill_after "farm.kill$r" "$r" '^progress ' "$n" "$farm" $farm_args
        enc_expect_same "$ENC_TMP/farm.native.uniq" "$ENC_TMP/farm.kill$r.uniq" "farm, rank $r killed"
        tail -n $((farm_tasks + 1)) "$ENC_TMP/farm.kill$r.raw" >"$ENC_TMP/farm.kill$r.results"
        enc_expect_same "$ENC_TMP/farm.native.results" "$ENC_TMP/farm.kill$r.results" \
            "farm, rank $r killed: results in task order"
        enc_log "ok: farm, rank $r SIGKILLed after $n progress lines"
    done
}

enc_finish
