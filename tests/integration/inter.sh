#!/bin/sh
# inter.sh - intercommunicators give every rank exactly native Open MPI's
# answers, at 2, 3 and 4 ranks under mpirun and encore-run:
# tests/programs/inter_check (Intercomm_create over the world for two
# splits and over MPI_COMM_SELF, the queries, every intercommunicator
# collective with MPI_ROOT / MPI_PROC_NULL, nonblocking ones, a dup,
# Intercomm_merge both ways) and tests/programs/inter_p2p (point-to-point
# on them: named and MPI_ANY_SOURCE receives with their statuses,
# Sendrecv(_replace), nonblocking and synchronous sends, probes,
# persistent requests, MPI_PROC_NULL, an invalid remote rank, one tag on
# the intercommunicator, its dup and its merge kept apart).
# Recovery: inter_p2p's loop (messages to every remote rank received by
# MPI_ANY_SOURCE, an intercommunicator Allreduce) on 4 ranks with a rank
# SIGKILLed (encore-run --inject; collectives 1-4 of a non-leader, 1-7 of
# a leader, world ranks 0 and 1, make the intercommunicator, then 2 per
# iteration) prints exactly what the fault-free native run prints; so
# does a longer run with rank 2 SIGKILLed by the test at a random moment
# (once rank 0 printed its first progress line).
set -eu
ENC_LIMIT=120
. "${top_srcdir:-.}/tests/integration/lib.sh"

enc_require_launchers
enc_tmpdir

prog="$ENC_PROGRAMS/inter_check"
p2p="$ENC_PROGRAMS/inter_p2p"
enc_require_program "$prog"
enc_require_program "$p2p"
enc_same_as_native "$prog" "rank 0 parity allreduce " 2 3 4
enc_same_as_native "$p2p" "rank 0 recv-named status " 2 3 4

iters=300
enc_run_ok loop.native enc_mpirun 4 "$p2p" loop "$iters"
[ "$(grep -c ' state ' "$ENC_TMP/loop.native.out")" -eq 4 ] || enc_fail "loop: native printed no result"
enc_run_ok loop.free enc_encore 4 "$p2p" loop "$iters"
enc_expect_same "$ENC_TMP/loop.native.out" "$ENC_TMP/loop.free.out" "loop, fault-free"
# kill_case NAME inject...: encore-run with the injections equals native.
kill_case() {
    _name=$1
    shift
    enc_run_ok "$_name" enc_encore 4 "$@" "$p2p" loop "$iters"
    enc_expect_same "$ENC_TMP/loop.native.out" "$ENC_TMP/$_name.out" "loop, $_name"
    enc_expect_grep "$ENC_TMP/$_name.err" "restarting it" "$_name: no rank was restarted"
    enc_log "ok loop, $_name (${ENC_MS} ms)"
}
kill_case creation --inject kill:rank=3:op=3
kill_case leader-exchange --inject kill:rank=0:op=5
kill_case odd-leader --inject kill:rank=1:op=100
kill_case even-leader --inject kill:rank=0:op=300
kill_case allreduce-second-half --inject kill:rank=2:op=451
kill_case two-sides --inject kill:rank=1:op=200 --inject kill:rank=2:op=200

long=6000
enc_run_ok long.native enc_mpirun 4 "$p2p" loop "$long"
enc_encore 4 "$p2p" loop "$long" >"$ENC_TMP/long.kill.raw" 2>"$ENC_TMP/long.kill.err" &
bg=$!
enc_wait_lines "$ENC_TMP/long.kill.raw" '^iteration ' 1 60 "long loop"
pid=$(enc_rank_pid "$(enc_bounded_pid "$bg")" 2)
[ -n "$pid" ] || enc_fail "long loop: rank 2 not found"
kill -KILL "$pid"
ENC_RC=0
wait "$bg" || ENC_RC=$?
enc_expect_status long.kill 0
sort "$ENC_TMP/long.kill.raw" >"$ENC_TMP/long.kill.out"
enc_expect_same "$ENC_TMP/long.native.out" "$ENC_TMP/long.kill.out" "long loop, rank 2 SIGKILLed"
enc_expect_grep "$ENC_TMP/long.kill.err" "rank 2 .*restarting it" "long loop: rank 2 was not restarted"
enc_log "ok loop, rank 2 SIGKILLed at a random moment"
enc_finish
