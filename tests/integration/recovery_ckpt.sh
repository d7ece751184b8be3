#!/bin/sh
# recovery_ckpt.sh - recovery with the checkpoint API and the bootstrap
# cache, on tests/programs/recov_ckpt (4 ranks, 40 iterations, a checkpoint
# every 5; the first is collective 9, the second collective 15):
#   mid       rank 2 killed at collective 20: it loads checkpoint 2 (taken
#             at collective 15) from the survivors, its local state from a ring
#             neighbour, and replays only its 3 bootstrap collectives (made
#             in another order, rank 0 drawing another seed) and the 4 after
#             the checkpoint
#   inckpt    rank 1 killed entering the first checkpoint (collective 9), and
#             rank 3 entering the second (collective 15)
#   twonb     ring neighbours 1 and 2 killed at the same collective (32):
#             each one's local state survives on its other neighbour
#   again     rank 2 killed at 20 and again at 6 in its replay
#   chain     ranks 1, 3 and then 2 killed at collectives 11, 12 and 13, all
#             before checkpoint 2: rank 2's local state of checkpoint 1 is
#             held only by its neighbours 1 and 3, which were restarted in
#             between; each restored its replicas when it loaded checkpoint 1
# Every run must print exactly the fault-free result (native mpirun, where
# the API is a local no-op, and encore-run without faults).
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=60
. "$(dirname "$0")/lib.sh"

prog="$ENC_PROGRAMS/recov_ckpt"
rec_begin "$prog"

rec_ref ck4 4 "$prog" 40

rec_run mid 4 --inject kill:rank=2:op=20 "$prog" 40
rec_ok mid ck4
rec_restarts mid "0 0 1 0"
rec_grep mid 'rank 2\] ckpt: loaded checkpoint 2 from the survivors; resuming at seq 15' \
    "rank 2 did not load checkpoint 2"
rec_expect mid 2 replayed 7
enc_log "ok mid ($REC_MS ms)"

rec_run inckpt 4 --inject kill:rank=1:op=9 --inject kill:rank=3:op=15 "$prog" 40
rec_ok inckpt ck4
rec_restarts inckpt "0 1 0 1"
enc_log "ok inckpt ($REC_MS ms)"

rec_run twonb 4 --inject kill:rank=1:op=32 --inject kill:rank=2:op=32 "$prog" 40
rec_ok twonb ck4
rec_restarts twonb "0 1 1 0"
rec_grep twonb 'rank 1\] ckpt: loaded checkpoint' "rank 1 did not load its checkpoint"
rec_grep twonb 'rank 2\] ckpt: loaded checkpoint' "rank 2 did not load its checkpoint"
enc_log "ok twonb ($REC_MS ms)"

rec_run again 4 --inject kill:rank=2:op=20 --inject kill:rank=2:op=6:incarnation=1 "$prog" 40
rec_ok again ck4
rec_restarts again "0 0 2 0"
enc_log "ok again ($REC_MS ms)"

rec_run chain 4 --inject kill:rank=1:op=11 --inject kill:rank=3:op=12 \
    --inject kill:rank=2:op=13 "$prog" 40
rec_ok chain ck4
rec_restarts chain "0 1 1 1"
rec_grep chain 'rank 2\] ckpt: loaded checkpoint 1 from the survivors' \
    "rank 2 did not load checkpoint 1"
enc_log "ok chain ($REC_MS ms)"
enc_finish
