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
enc_finish
