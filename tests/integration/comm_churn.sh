#!/bin/sh
# comm_churn.sh - derived communicators on shared memory (engine/group_chan.c,
# shm/channels.c), tests/programs/comm_churn on 4 ranks of one host: per
# iteration a dup (allreduce, every tenth one in place over two chunks) and
# a split (bcast), both freed.
#   churn     300 iterations: output equals native mpirun's; every
#             communicator got a channel, and the freed ones came back (no
#             channel index above 3: each host's leader claims the first
#             free one); descriptors flat (the program checks)
#   full      ENCORE_SHM_CHANNELS=1 with a dup held for the whole run: the
#             held one takes the only channel, the others run over TCP, one
#             warning per leader, output exact
#   kill      rank 2 SIGKILLed at its 200th collective (a restarted rank
#             replays each communicator's setup and attaches the channels
#             its host's survivors hold), and rank 1 at its 44th (entering a
#             two-chunk in-place allreduce on a dup, which the others re-run
#             from their intact input): exact output
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=120
. "$(dirname "$0")/lib.sh"

prog="$ENC_PROGRAMS/comm_churn"
rec_begin "$prog"

rec_ref churn 4 "$prog" 300
n=$(rec_count churn.free 'shm: communicator [0-9a-f]+: channel -?[0-9]+ on this host')
[ "$n" -eq 2400 ] || { rec_show churn.free; enc_fail "churn: $n channel lines, want 2400 (600 communicators x 4 ranks)"; }
bad=$(rec_count churn.free 'shm: communicator [0-9a-f]+: channel (-1|[4-9]|[1-9][0-9]+) on this host')
[ "$bad" -eq 0 ] || { rec_show churn.free; enc_fail "churn: $bad communicators got no channel or one above 3"; }
enc_log "ok churn ($REC_MS ms)"

rec_ref hold 4 "$prog" 60 hold
REC_ENV=ENCORE_SHM_CHANNELS=1 rec_run full 4 "$prog" 60 hold
rec_ok full hold
n=$(rec_count full 'warning: all 1 shared-memory channels of this host are taken')
[ "$n" -eq 2 ] || { rec_show full; enc_fail "full: $n 'channels taken' warnings, want 2 (once per process, on the leaders of the dups and splits that found none: ranks 0 and 1)"; }
enc_log "ok full"

rec_run kill 4 --inject kill:rank=2:op=200 --inject kill:rank=1:op=44 "$prog" 300
rec_ok kill churn
rec_restarts kill "0 1 1 0"
enc_log "ok kill ($REC_MS ms)"
enc_pass
