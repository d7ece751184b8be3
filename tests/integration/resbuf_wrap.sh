#!/bin/sh
# resbuf_wrap.sh - the host's shared-memory result buffer gone round many
# times, with recovery: 2 ranks of tests/programs/recov_iter, 240
# iterations, every second allreduce 2 MiB (--big 262144 --big-every 2):
# 240 MiB of results through a buffer of 16 MiB (ENCORE_SHM_LOG_BYTES=16M,
# 15 times round).  A job that runs long enough goes round its buffer;
# entries there are written and read through the segment's file
# (shim/shm/resbuf.c), and an entry still kept when the buffer comes round
# to it is first copied out of the way (engine/coll_shm.c).
#   evict  snapshots off: nothing is ever released, so every entry is
#          copied out of the buffer before it is overwritten; rank 1
#          SIGKILLed late (collective 400) re-executes from the start and
#          is answered from those copies: the output is the fault-free
#          run's, nothing was dropped
#   snap   snapshots every 0.3 s (entries released as images cover them):
#          rank 0 SIGKILLed at collective 420 is restored and replays; the
#          output is the fault-free run's
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=120
. "$(dirname "$0")/lib.sh"

ARGS="--iters 240 --big 262144 --big-every 2"
rec_begin "$REC_ITER"
# shellcheck disable=SC2086 # ARGS is a list of words
rec_ref wrap 2 "$REC_ITER" $ARGS

REC_ENV="ENCORE_SHM_LOG_BYTES=16M"
# shellcheck disable=SC2086
rec_run evict 2 --inject kill:rank=1:op=400 "$REC_ITER" $ARGS
rec_ok evict wrap
rec_restarts evict "0 1"
rec_expect evict 1 replayed 399
[ "$(rec_count evict 'dropping results')" -eq 0 ] || enc_fail "evict: results were dropped"
enc_log "ok evict ($REC_MS ms)"

REC_ENV="ENCORE_SHM_LOG_BYTES=16M ENCORE_SNAPSHOT_S=0.3"
# shellcheck disable=SC2086
rec_run snap 2 --inject kill:rank=0:op=420 "$REC_ITER" $ARGS
rec_ok snap wrap
rec_restarts snap "1 0"
[ "$(rec_count snap 'dropping results')" -eq 0 ] || enc_fail "snap: results were dropped"
enc_log "ok snap ($REC_MS ms)"
enc_finish
