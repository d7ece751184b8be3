#!/bin/sh
# recovery_overlap.sh - a second failure while the first restarted rank
# replays: any two simultaneous failures are survivable on 4 or more ranks
# with the default ENCORE_REPLICAS=3.  Rank 1 is killed at its
# 1500th collective and replays ~1500 collectives (the program sleeps 1 ms
# per iteration, so the replay lasts about a second); 200 collectives into
# that replay this script SIGKILLs rank 2, which holds (with ranks 1 and 3) every
# seq = 1 mod 4.  Both must restart and the job end bit-identical to the
# fault-free run.
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=60
. "$(dirname "$0")/lib.sh"

rec_begin "$REC_ITER"

args="--iters 1000 --usleep 1000"
# shellcheck disable=SC2086 # args is a list
rec_ref slow4 4 "$REC_ITER" $args
# shellcheck disable=SC2086 # args is a list
(
    rec_run overlap 4 --inject kill:rank=1:op=1500 "$REC_ITER" $args
    echo "$REC_RC $REC_MS" >"$ENC_TMP/overlap.rc"
) &
job=$!
# wait (bounded) until rank 1's new incarnation is some 200 collectives
# into its replay of about 1500
enc_wait_lines "$ENC_TMP/overlap.err" 'rank 1\] recover: epoch 1: ranks completed' 1 30 \
    "rank 1 never started replaying"
enc_wait_lines "$ENC_TMP/overlap.err" 'rank 1\] coll: .* replayed version' 200 30 \
    "rank 1 replayed fewer than 200 collectives"
pid=$(sed -n 's/.*tracker: rank 2 incarnation 0 (pid \([0-9][0-9]*\)) registered.*/\1/p' "$ENC_TMP/overlap.err")
[ -n "$pid" ] || enc_fail "no pid of rank 2 in the log"
kill -KILL "$pid" || enc_fail "rank 2 (pid $pid) was already gone"
wait "$job" || enc_fail "the job's runner failed (status $?)"
read -r REC_RC REC_MS <"$ENC_TMP/overlap.rc"
rec_ok overlap slow4
rec_restarts overlap "0 1 1 0"
enc_log "ok overlap ($REC_MS ms)"
enc_finish
