#!/bin/sh
# recovery_stop.sh - a hung rank (SIGSTOP at its 40th collective): with ENCORE_HEARTBEAT_TIMEOUT_MS=1500 the tracker declares it dead
# after 1.5 s of silence, encore-run kills and restarts it, it replays, and
# the job ends bit-identical to the fault-free run within a bounded time.
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=60
. "$(dirname "$0")/lib.sh"

rec_begin "$REC_ITER"

rec_ref it4 4 "$REC_ITER" --iters 100
REC_ENV="ENCORE_HEARTBEAT_TIMEOUT_MS=1500"
rec_run stop 4 --inject stop:rank=1:op=40 "$REC_ITER" --iters 100
REC_ENV=
rec_ok stop it4
rec_restarts stop "0 1 0 0"
rec_expect stop 1 replayed 39
rec_grep stop 'rank 1 \(pid [0-9]+\) silent for more than 1500 ms; killed; restarting it \(1 of 3\)' \
    "the stopped rank was not detected by heartbeat"
# 1.5 s detection + restart + replay; generous for a loaded 2-core machine
rec_within stop 20000
enc_log "ok stop ($REC_MS ms)"
enc_finish
