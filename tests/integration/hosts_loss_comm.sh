#!/bin/sh
# hosts_loss_comm.sh - a communicator's results survive the loss of a host:
# its entries are placed on members of distinct hosts first, as the world's
# are (shim/recovery/log/holders.c).  tests/programs/recov_iter --comm rev
# runs every collective after MPI_Init on a split of the world in reversed
# rank order, so its members 0 and 1 are world ranks 3 and 2, both on h2.
#   revloss   4 ranks on h1:2,h2:2 (h3 has 2 free slots), ENCORE_REPLICAS=2:
#             h2 lost mid-run (every process SIGKILLed, its link pulled);
#             ranks 2 and 3 move to h3, re-execute, and take the split's
#             results from the holders on h1 (consecutive members as holders
#             would have put both copies of the first results on h2: "lost");
#             the job ends bit-identical to native mpirun
#   duploss   the same on a dup of the world, with ENCORE_REPLICAS=3 and h2
#             lost later
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=150
. "$(dirname "$0")/lib.sh"
. "$ENC_SRCDIR/tests/integration/netns_lib.sh"

netns_require
rec_begin "$REC_ITER"
netns_create 3
h1=$(netns_name 1) h2=$(netns_name 2) h3=$(netns_name 3)
RSH="ip netns exec"
JOBS="$ENC_TMP/jobs"
mkdir "$JOBS" || enc_fail "mkdir failed"
ITERS="--iters 60 --usleep 50000"

# case NAME KIND REPLICAS AFTER: the job on --comm KIND, h2 lost once rank 0
# finished AFTER collectives on the communicator.
case_run() {
    REC_ENV="ENCORE_HEARTBEAT_TIMEOUT_MS=2000 ENCORE_REPLICAS=$3 TMPDIR=$JOBS"
    # shellcheck disable=SC2086 # ITERS is a list of words
    (rec_run "$1" 4 --rsh "$RSH" -H "$h1:2,$h2:2,$h3:2" "$REC_ITER" --comm "$2" $ITERS
        echo "$REC_RC $REC_MS" >"$ENC_TMP/$1.rc") &
    _job=$!
    enc_wait_lines "$ENC_TMP/$1.err" 'rank 0\] coll: (allreduce|bcast) \(recov_iter.* finished' \
        "$4" 40 "$1"
    netns_lose 2
    wait "$_job" || enc_fail "$1: the background job failed"
    read -r REC_RC REC_MS <"$ENC_TMP/$1.rc" || enc_fail "$1: no exit status"
    rec_ok "$1" "$2"
    rec_restarts "$1" "0 0 1 1"
    rec_grep "$1" "rank 2 incarnation 1 \(pid [0-9]+\) registered from $(netns_addr 3):" \
        "rank 2 did not move to $h3"
    [ "$(rec_count "$1" 'is lost')" -eq 0 ] || enc_fail "$1: a result was lost"
    netns_restore 2
    enc_log "ok $1 ($REC_MS ms)"
}

# shellcheck disable=SC2086 # ITERS is a list of words
rec_ref rev 4 "$REC_ITER" --comm rev $ITERS
# shellcheck disable=SC2086
rec_ref dup 4 "$REC_ITER" --comm dup $ITERS
case_run revloss rev 2 40
case_run duploss dup 3 80
enc_finish
