#!/bin/sh
# recovery_fail.sh - unrecoverable cases end cleanly: exit status 1 within
# a bounded time, one clear message, never wrong data.
#   divcount  the restarted rank passes count+1 at iteration 5's allreduce
#             (collective 12) during replay: "replay divergence" with both
#             signatures
#   divop     the same with MPI_MAX instead of MPI_SUM
#   lost1     ENCORE_REPLICAS=1 on 4 ranks, rank 1 killed: the results only
#             it held are lost; the first it needs is seq 4, the broadcast
#             it was root of (a broadcast is held from its root on)
#   lost2     ENCORE_REPLICAS=2, ranks 1 and 2 killed at the same collective:
#             seq 4 (held by ranks 1 and 2) is lost
#   finrep    rank 1 killed inside MPI_Finalize (injection point 203: after
#             the barrier, before the tracker hears of it); its restarted
#             incarnation stops itself while it replays (collective 100), and
#             then rank 3, which passed MPI_Finalize and serves its log, gets
#             a real SIGKILL: the job ends at once with one line, instead of
#             the replaying rank waiting for rank 3's results forever
#   finlost   rank 1 stops itself inside MPI_Finalize (before the tracker
#             hears of it), rank 3 passes MPI_Finalize and is SIGKILLed;
#             when heartbeats find rank 1 it is not restarted (its replay
#             could need what rank 3 kept): one line
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=60
. "$(dirname "$0")/lib.sh"

rec_begin "$REC_ITER"

# -- replay divergence ---------------------------------------------------------
sig='allreduce count=%s dtype=double op=%s root=-1 at [^;]+' # site: module+offset or file:line
rec_run divcount 4 --inject kill:rank=2:op=50 "$REC_ITER" --iters 100 --diverge 5
rec_fails divcount
# shellcheck disable=SC2059 # sig is the format
rec_grep divcount "^encore-run: .*replay divergence at seq 11 on rank 2: this call is $(printf "$sig" 65 sum); the log has $(printf "$sig" 64 sum)\$" \
    "no divergence report with both signatures"
rec_restarts divcount "0 0 1 0"
enc_log "ok divcount (exit $REC_RC, $REC_MS ms)"

rec_run divop 4 --inject kill:rank=2:op=50 "$REC_ITER" --iters 100 --diverge-op 5
rec_fails divop
# shellcheck disable=SC2059 # sig is the format
rec_grep divop "^encore-run: .*replay divergence at seq 11 on rank 2: this call is $(printf "$sig" 64 max); the log has $(printf "$sig" 64 sum)\$" \
    "no divergence report with both signatures"
enc_log "ok divop (exit $REC_RC, $REC_MS ms)"

# -- more failures than replicas -------------------------------------------------
REC_ENV="ENCORE_REPLICAS=1"
rec_run lost1 4 --inject kill:rank=1:op=50 "$REC_ITER" --iters 100
REC_ENV=
rec_fails lost1
rec_grep lost1 '^encore-run: .*seq 4 .*lost' "the final message does not name lost seq 4"
rec_grep lost1 'result of collective seq 4 is lost' "no lost-result report"
enc_log "ok lost1 (exit $REC_RC, $REC_MS ms)"

REC_ENV="ENCORE_REPLICAS=2"
rec_run lost2 4 --inject kill:rank=1:op=50 --inject kill:rank=2:op=50 "$REC_ITER" --iters 100
REC_ENV=
rec_fails lost2
rec_grep lost2 '^encore-run: .*seq 4 .*lost' "the final message does not name lost seq 4"
enc_log "ok lost2 (exit $REC_RC, $REC_MS ms)"

# -- a rank lost after MPI_Finalize while another replays or must restart -------
# kill_final NAME: once rank 1 stopped itself (--inject stop) in run NAME and
# rank 3 passed MPI_Finalize, SIGKILLs rank 3 (its pid from its registration).
kill_final() {
    enc_wait_lines "$ENC_TMP/$1.err" 'rank 3 passed MPI_Finalize' 1 40 "$1"
    enc_wait_lines "$ENC_TMP/$1.err" '^encore\[rank 1\] inject: injecting SIGSTOP' 1 40 "$1"
    _k_pid=$(sed -n 's/.*rank 3 incarnation 0 (pid \([0-9]*\)) registered.*/\1/p' "$ENC_TMP/$1.err")
    kill -KILL "$_k_pid"
}

# rec_final NAME LINE: run NAME failed with exactly one line from encore-run, LINE.
rec_final() {
    enc_expect_status "$1" 1 "$REC_RC"
    [ "$(rec_count "$1" '^encore-run: ')" -eq 1 ] || { rec_show "$1"; enc_fail "$1: want one line"; }
    rec_grep "$1" "^encore-run: $2\$" "no line saying why"
}

lost3="rank 3 killed by signal 9 \(Killed\) after MPI_Finalize"
kill_final finrep &
rec_run finrep 4 --inject kill:rank=1:op=203 --inject stop:rank=1:op=100:incarnation=1 \
    "$REC_ITER" --iters 100
wait
rec_final finrep "$lost3 while rank 1 was replaying; the results it kept are lost"
enc_log "ok finrep (exit $REC_RC, $REC_MS ms)"

kill_final finlost &
rec_run finlost 4 --inject stop:rank=1:op=203 "$REC_ITER" --iters 100
wait
rec_final finlost "rank 1 \(pid [0-9]+\) silent for more than 5000 ms; killed; not restarted: $lost3, the results it kept are lost"
enc_log "ok finlost (exit $REC_RC, $REC_MS ms)"
enc_finish
