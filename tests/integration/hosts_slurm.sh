#!/bin/sh
# hosts_slurm.sh - encore-run inside a real Slurm allocation (slurm_lib.sh:
# slurmctld here, one slurmd per namespace host).  `salloc -N3 -n6 --no-kill`
# gives 2 slots on each of 3 nodes; encore-run without --host places 4 ranks
# on the first two nodes, starting one agent per node as an srun step.  The
# second node's slurmd and every process on it are SIGKILLed mid-run: its
# ranks move to the third node and the job ends bit-identical to native
# mpirun.
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=180
. "$(dirname "$0")/lib.sh"
# shellcheck source=/dev/null
. "$ENC_SRCDIR/tests/integration/slurm_lib.sh"

REC_ITER="$ENC_PROGRAMS/recov_iter"
slurm_require
rec_begin "$REC_ITER"
slurm_start 3 2
ITERS="--iters 80 --usleep 50000"

rec_ref it4 4 "$REC_ITER" $ITERS

# the job, in the background: salloc runs encore-run in the allocation
(
    enc_run alloc enc_bounded 150 env ENCORE_LOG=info ENCORE_HEARTBEAT_TIMEOUT_MS=2000 \
        salloc -N3 -n6 --no-kill "$ENC_ENCORE_RUN" -n 4 --timeout 140 "$REC_ITER" $ITERS
    echo "$ENC_RC" >"$ENC_TMP/alloc.rc"
) &
JOB=$!
_i=0
until grep -q "finished version 0, seq 30," "$ENC_TMP/alloc.err" 2>/dev/null; do
    _i=$((_i + 1))
    [ "$_i" -le 600 ] || { enc_show "$ENC_TMP/alloc.err"; enc_fail "alloc: no progress within 60 s"; }
    sleep 0.1
done
slurm_kill_node 2
wait "$JOB" || enc_fail "alloc: the background job failed"
REC_RC=$(cat "$ENC_TMP/alloc.rc")
rec_ok alloc it4
rec_restarts alloc "0 0 1 1"
rec_grep alloc "host $(netns_name 2) lost" "node loss not reported"
rec_grep alloc "rank 2 incarnation 1 \(pid [0-9]+\) registered from $(netns_addr 3):" \
    "rank 2 did not move to the third node"
enc_pass
