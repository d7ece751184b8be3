#!/bin/sh
# p2p_recovery.sh - programs that send messages survive a lost rank
# (4 ranks, one host, real processes and signals):
#   stencil   tests/programs/p2p_stencil (halo exchange with Isend/Irecv/
#             Waitall and Sendrecv, an Allreduce per iteration): rank 1
#             SIGKILLed at its 40th collective, rank 0 at its 77th, rank 2
#             SIGKILLed by the test at a random moment (pending requests),
#             rank 1 SIGSTOPped past the heartbeat bound, ranks 1 and 2
#             (neighbours) killed together at their 40th: every run's
#             distinct lines equal the fault-free run's, whose checksums
#             equal native Open MPI's
#   master    tests/programs/p2p_master (MPI_ANY_SOURCE): the master and a
#             worker SIGKILLed in the middle: every task has exactly one
#             worker (the restarted master replays its recorded matches)
#             and the sum equals native's
set -eu
ENC_LIMIT=120
. "${top_srcdir:-.}/tests/integration/lib.sh"

stencil="$ENC_PROGRAMS/p2p_stencil"
master="$ENC_PROGRAMS/p2p_master"
enc_require_program "$stencil"
enc_require_program "$master"
enc_require_launchers
enc_tmpdir

# kill_at NAME RANK SIGNAL LINES prog args...: runs prog on 4 ranks, sends
# SIGNAL to RANK once stdout has LINES lines, waits for the end.
kill_at() {
    _k_name=$1 _k_rank=$2 _k_sig=$3 _k_lines=$4
    shift 4
    enc_signal_at "$_k_name" 4 "$_k_rank" "$_k_sig" . "$_k_lines" "$@"
    sort -u "$ENC_TMP/$_k_name.raw" >"$ENC_TMP/$_k_name.uniq"
}

# -- stencil -------------------------------------------------------------------
iters=3000
enc_run_ok st.native enc_mpirun 4 "$stencil" "$iters" 2000
enc_run_ok st.free enc_encore 4 "$stencil" "$iters" 2000
grep checksum "$ENC_TMP/st.native.out" >"$ENC_TMP/st.native.sums"
grep checksum "$ENC_TMP/st.free.out" >"$ENC_TMP/st.free.sums"
enc_expect_same "$ENC_TMP/st.native.sums" "$ENC_TMP/st.free.sums" "stencil checksums"
sort -u "$ENC_TMP/st.free.out" >"$ENC_TMP/st.free.uniq"
for k in 1:40 0:77; do
    r=${k%%:*} op=${k#*:}
    enc_run_ok "st.kill$r" enc_encore 4 --inject "kill:rank=$r:op=$op" "$stencil" "$iters" 2000
    enc_expect_grep "$ENC_TMP/st.kill$r.err" "rank $r .*restarting it" "rank $r was not restarted"
    sort -u "$ENC_TMP/st.kill$r.out" >"$ENC_TMP/st.kill$r.uniq"
    enc_expect_same "$ENC_TMP/st.free.uniq" "$ENC_TMP/st.kill$r.uniq" "stencil, rank $r killed"
    enc_log "ok: stencil, rank $r killed at collective $op (${ENC_MS} ms)"
done
enc_run_ok st.two enc_encore 4 --inject kill:rank=1:op=40 --inject kill:rank=2:op=40 \
    "$stencil" "$iters" 2000
sort -u "$ENC_TMP/st.two.out" >"$ENC_TMP/st.two.uniq"
enc_expect_same "$ENC_TMP/st.free.uniq" "$ENC_TMP/st.two.uniq" "stencil, ranks 1 and 2 killed"
enc_log "ok: stencil, neighbours 1 and 2 killed together (${ENC_MS} ms)"
long=20000
enc_run_ok st.long enc_encore 4 "$stencil" "$long" 2000
sort -u "$ENC_TMP/st.long.out" >"$ENC_TMP/st.long.uniq"
kill_at st.sigkill 2 KILL 3 "$stencil" "$long" 2000
enc_expect_same "$ENC_TMP/st.long.uniq" "$ENC_TMP/st.sigkill.uniq" "stencil, rank 2 SIGKILLed"
enc_log "ok: stencil, rank 2 SIGKILLed at a random moment"
ENCORE_HEARTBEAT_TIMEOUT_MS=1500 kill_at st.sigstop 1 STOP 3 "$stencil" "$long" 2000
enc_expect_grep "$ENC_TMP/st.sigstop.err" "rank 1 .*restarting it" "SIGSTOP: rank 1 was not restarted"
enc_expect_same "$ENC_TMP/st.long.uniq" "$ENC_TMP/st.sigstop.uniq" "stencil, rank 1 SIGSTOPped"
enc_log "ok: stencil, rank 1 SIGSTOPped past the heartbeat bound"

# -- master/worker ---------------------------------------------------------------
tasks=300
enc_run_ok mw.native enc_mpirun 4 "$master" "$tasks"
want=$(grep '^sum ' "$ENC_TMP/mw.native.out")
for k in 0 2; do
    kill_at "mw.kill$k" "$k" KILL 60 "$master" "$tasks"
    enc_expect_grep "$ENC_TMP/mw.kill$k.uniq" "^$want\$" "master/worker, rank $k killed: wrong sum"
    [ "$(grep -c '^task ' "$ENC_TMP/mw.kill$k.uniq")" -eq "$tasks" ] || {
        grep '^task ' "$ENC_TMP/mw.kill$k.uniq" | awk '{print $2}' | uniq -d | head >&2
        enc_fail "master/worker, rank $k killed: a task was given to two workers"
    }
    enc_log "ok: master/worker, rank $k SIGKILLed mid-run"
done
enc_finish
