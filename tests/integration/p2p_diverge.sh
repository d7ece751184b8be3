#!/bin/sh
# p2p_diverge.sh - a re-executed sender whose suppressed re-sends differ
# from its first sends stops the job (tests/programs/p2p_diverge, 2 ranks):
# rank 0 killed at its second barrier (op 2: rank 1 received its five
# messages before the first) re-sends them with
# the third one's tag (tag) or length (length) changed.  Every re-send is
# dropped by channel number, so without the channel chain (docs/p2p.md,
# 12.8) the change would pass unseen; the job must end with exit status 1
# and one line naming the divergence, and print no result.  The fault-free
# run equals native mpirun's.
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=60
. "$(dirname "$0")/lib.sh"

prog="$ENC_PROGRAMS/p2p_diverge"
rec_begin "$prog"

rec_ref dv 2 "$prog"
enc_log "ok free"

for how in tag length; do
    rec_run "$how" 2 --inject kill:rank=0:op=2 "$prog" "$how"
    rec_fails "$how"
    rec_grep "$how" 'rank 0 re-executed its sends on communicator 0 differently: replay divergence at its message (4 \(a re-send|5 \(a new one), tag 7, 4 bytes\)' \
        "$how: no line naming the divergence"
    enc_log "ok $how ($REC_MS ms)"
done

enc_pass
