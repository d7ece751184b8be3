#!/bin/sh
# p2p_ckpt.sh - the checkpoint API in a message-passing program
# (tests/programs/p2p_ckpt, 4 ranks, 40 iterations of a ring Sendrecv, a
# master/worker round with MPI_ANY_SOURCE receives on rank 0 and one
# allreduce; a checkpoint every 10 iterations: collectives 11, 22, 33 and
# 44, counting from 1 as --inject's op does).
# Snapshots are off, so a killed rank restarts from the program's start,
# loads the newest checkpoint and goes on at its message positions.
#   after     rank 2 killed at op 36: loads checkpoint 3, resumes its
#             channels there; its peers re-send what it had received after
#   master    rank 0 (the ANY_SOURCE receiver) killed at op 25: loads
#             checkpoint 2, its wildcard receives after it replay the
#             determinants its dead incarnation recorded
#   two       ranks 1 and 3 killed at ops 14 and 38
#   inflight  rank 0 sends rank 1 a message before each checkpoint that
#             rank 1 receives after it: every rank's encore_checkpoint
#             returns ENCORE_ERR_STATE (-12) with one line, then the
#             checkpoint taken after the receive succeeds
#   early     a message before encore_load_checkpoint, rank 2 killed at op
#             36: its restart asks for messages the checkpoints released:
#             one clear line naming them and exit status 1, no hang
# Every recovered run prints exactly the fault-free result (native mpirun,
# where the API is a local no-op, and encore-run without faults).
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=60
. "$(dirname "$0")/lib.sh"

prog="$ENC_PROGRAMS/p2p_ckpt"
rec_begin "$prog"

rec_ref pc 4 "$prog" 40 10
[ "$(rec_count pc.free 'p2p: checkpoint: released [0-9]+ bytes of payload log')" -ge 4 ] ||
    { rec_show pc.free; enc_fail "free: the checkpoints released no payload log"; }
enc_log "ok free"

rec_run after 4 --inject kill:rank=2:op=36 "$prog" 40 10
rec_ok after pc
rec_restarts after "0 0 1 0"
rec_grep after 'rank 2\] ckpt: loaded checkpoint 3 from the survivors' "rank 2 did not load checkpoint 3"
rec_grep after "rank 2\\] p2p: resuming at the checkpoint's positions of [1-9][0-9]* channels" \
    "rank 2 did not resume its channels at checkpoint 3"
enc_log "ok after ($REC_MS ms)"

rec_run master 4 --inject kill:rank=0:op=25 "$prog" 40 10
rec_ok master pc
rec_restarts master "1 0 0 0"
rec_grep master "rank 0\\] p2p: resuming at the checkpoint's positions of [1-9][0-9]* channels, determinant clock [1-9]" \
    "rank 0 did not resume at checkpoint 2's determinant clock"
enc_log "ok master ($REC_MS ms)"

rec_run two 4 --inject kill:rank=1:op=14 --inject kill:rank=3:op=38 "$prog" 40 10
rec_ok two pc
rec_restarts two "0 1 0 1"
enc_log "ok two ($REC_MS ms)"

rec_run inflight 4 "$prog" 40 10 inflight
enc_expect_status inflight 0 "$REC_RC"
grep -v 'in flight' "$ENC_TMP/inflight.out" >"$ENC_TMP/inflight.rest" || true
enc_expect_same "$ENC_TMP/pc.ref" "$ENC_TMP/inflight.rest" "inflight: results differ from the fault-free run"
for r in 0 1 2 3; do
    for it in 9 19 29 39; do
        grep -qx "rank $r iteration $it in flight: -12" "$ENC_TMP/inflight.out" ||
            { enc_show "$ENC_TMP/inflight.out"; enc_fail "inflight: rank $r did not refuse checkpoint at iteration $it"; }
    done
done
[ "$(rec_count inflight 'encore_checkpoint: refused: across the job, 1 point-to-point message sent before it not received yet and 0 receives or synchronous sends pending')" -eq 16 ] ||
    { rec_show inflight; enc_fail "inflight: not one refusal line per rank and checkpoint"; }
enc_log "ok inflight"

rec_run early 4 --inject kill:rank=2:op=36 "$prog" 40 10 early
rec_fails early
rec_grep early 'rank [0-9] sent message [0-9]+ on communicator 0 where this rank needs message 0: the messages between are lost \(released by a checkpoint' \
    "early: no line naming the lost messages"
enc_log "ok early ($REC_MS ms)"

enc_pass
