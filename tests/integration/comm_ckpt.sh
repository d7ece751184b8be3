#!/bin/sh
# comm_ckpt.sh - the checkpoint API with collectives on derived
# communicators (tests/programs/comm_ckpt, 4 ranks: a dup and a split, one
# bootstrap allreduce on the dup, then per iteration an allreduce on the
# dup and an allgather on the split, a checkpoint every 10 iterations).
#   trim      every checkpoint drops the communicators' results but the
#             bootstrap ones, so the log stays bounded: the bootstrap
#             allreduce, kept by its holders (ranks 0-2 with ENCORE_REPLICAS
#             3; rank 3 dropped it once all had it), and each
#             communicator's setup (its channels, engine/group_chan.c),
#             which a rank restarted from a checkpoint replays when it makes
#             the communicator again: the dup's held by ranks 0-2, each
#             split's by both its members (ranks 0-2 keep 3, rank 3 one)
#   after     rank 2 killed at op 50 (iteration 22's allreduce on the dup,
#             after checkpoint 2): it loads checkpoint 2 and both its
#             communicators resume at their position there (collective 21
#             or 22: each one's setup is its collective 0); the others
#             dropped everything before it
#   inside    rank 1 killed at op 67 (the first collective after checkpoint
#             3, on the dup) and rank 3 at op 47 (the allgather on the split
#             right after checkpoint 2)
#   boot      rank 0 killed at op 3 (the bootstrap allreduce on the dup)
#   lost      ENCORE_REPLICAS=1, no checkpoints: the even half's results are
#             held by its member 0 (world rank 2) alone and rank 0 drops
#             them; rank 2 killed late cannot replay them: one clear
#             "is lost" line and exit status 1, no hang
#   pending   encore_checkpoint with an Iallreduce pending is refused with
#             ENCORE_ERR_STATE (-12) and one line on every rank; after
#             MPI_Wait it succeeds
# Every recovered run must print exactly the fault-free result (native
# mpirun, where the API is a local no-op, and encore-run without faults).
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=60
. "$(dirname "$0")/lib.sh"

prog="$ENC_PROGRAMS/comm_ckpt"
rec_begin "$prog"

rec_ref cc 4 "$prog" 40 10
for r in 0 1 2 3; do
    want=$([ "$r" -eq 3 ] && echo 1 || echo 3)
    n=$(rec_count cc.free "rank $r\] commlog: checkpoint [1-4]: dropped [0-9]+ communicator results, kept $want \([0-9]+ bytes\) on 2 communicators")
    [ "$n" -eq 4 ] || { rec_show cc.free; enc_fail "trim: rank $r kept other than $want result(s) after some of its 4 checkpoints"; }
done
enc_log "ok trim"

rec_run after 4 --inject kill:rank=2:op=50 "$prog" 40 10
rec_ok after cc
rec_restarts after "0 0 1 0"
rec_grep after 'rank 2\] ckpt: loaded checkpoint 2 from the survivors' "rank 2 did not load checkpoint 2"
[ "$(rec_count after 'rank 2\] commlog: communicator [0-9a-f]+ resumes at its collective (21|22) \(checkpoint 2\)')" -eq 2 ] ||
    { rec_show after; enc_fail "after: rank 2's communicators did not resume at checkpoint 2"; }
enc_log "ok after ($REC_MS ms)"

rec_run inside 4 --inject kill:rank=1:op=67 --inject kill:rank=3:op=47 "$prog" 40 10
rec_ok inside cc
rec_restarts inside "0 1 0 1"
enc_log "ok inside ($REC_MS ms)"

rec_run boot 4 --inject kill:rank=0:op=3 "$prog" 40 10
rec_ok boot cc
rec_restarts boot "1 0 0 0"
enc_log "ok boot ($REC_MS ms)"

REC_ENV=ENCORE_REPLICAS=1 rec_run lost 4 --inject kill:rank=2:op=60 "$prog" 40 0
rec_fails lost
rec_grep lost 'rank 2\] replay: error: the result of collective #0 on communicator [0-9a-f]+ \(rank 0 of 2\) is lost' \
    "rank 2 did not report the lost result"
enc_log "ok lost ($REC_MS ms)"

rec_run pending 4 "$prog" 0 0 pending
enc_expect_status pending 0 "$REC_RC"
for r in 0 1 2 3; do
    grep -qx "rank $r pending -12 waited 0 sum 10" "$ENC_TMP/pending.out" ||
        { enc_show "$ENC_TMP/pending.out"; enc_fail "pending: rank $r did not refuse then accept the checkpoint"; }
done
[ "$(rec_count pending 'encore_checkpoint: refused: 1 nonblocking collective started and not completed')" -eq 4 ] ||
    { rec_show pending; enc_fail "pending: not one refusal line per rank"; }
enc_log "ok pending"
enc_finish
