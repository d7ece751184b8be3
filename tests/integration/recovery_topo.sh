#!/bin/sh
# recovery_topo.sh - SIGKILL during the creation of topology communicators
# and during neighbour collectives: tests/programs/recov_topo (a periodic
# grid of the world, its rows, a distributed graph; per iteration a
# Neighbor_alltoall on the grid, a Neighbor_allgather on the row, an
# Ineighbor_alltoallv on the graph pending while the rank computes, an
# allreduce on the grid) must print exactly what the fault-free native run
# prints.  Collective numbers (encore-run --inject ...:op=K count every
# communicator's): 1-2 the grid's creation and setup, 3-4 the row's, 5-6
# the graph's; then each iteration makes 7 (alltoall 2, allgather 2,
# alltoallv 2, allreduce 1).  With "inter" (recov_topo 30 inter) ops 7-14
# make the split and the intercommunicator between even and odd ranks
# (on rank 0, its leader: the leaders' exchange 9-11), and iteration i is
# ops 15 + 11 i .. 25 + 11 i, whose 8th and 9th are the intercommunicator
# MPI_Allreduce, 10th and 11th its MPI_Alltoall.
set -eu
ENC_LIMIT=120
. "${top_srcdir:-.}/tests/integration/lib.sh"

prog="$ENC_PROGRAMS/recov_topo"
enc_require_program "$prog"
enc_require_launchers
enc_tmpdir

for mode in plain inter; do
    enc_mpirun 4 "$prog" 30 $mode >"$ENC_TMP/native.raw" || enc_fail "native -n 4 $mode failed"
    sort "$ENC_TMP/native.raw" >"$ENC_TMP/native.$mode"
    [ "$(wc -l <"$ENC_TMP/native.$mode")" -eq 4 ] || enc_fail "native $mode printed no result"
done

# case_run NAME inject...: encore-run with the injections vs native (MODE:
# plain or inter, set before the call)
MODE=plain
case_run() {
    _name=$1
    shift
    enc_run_ok "$_name" enc_encore 4 "$@" "$prog" 30 $MODE
    if ! diff "$ENC_TMP/native.$MODE" "$ENC_TMP/$_name.out" >&2; then
        enc_fail "$_name: output differs from the fault-free native run"
    fi
    grep -q 'restarting it' "$ENC_TMP/$_name.err" || enc_fail "$_name: no rank was restarted"
    enc_log "ok $_name"
}

case_run grid-creation --inject kill:rank=1:op=1
case_run sub-creation --inject kill:rank=2:op=3
case_run graph-creation --inject kill:rank=3:op=5
case_run grid-alltoall --inject kill:rank=0:op=22
case_run row-allgather --inject kill:rank=3:op=31
case_run graph-ialltoallv --inject kill:rank=1:op=40
case_run late --inject kill:rank=2:op=150
MODE=inter
case_run intercomm-leaders --inject kill:rank=0:op=10
case_run intercomm-union --inject kill:rank=1:op=13
case_run intercomm-allreduce --inject kill:rank=1:op=78
case_run intercomm-alltoall --inject kill:rank=2:op=80
case_run intercomm-rerun -x ENCORE_SNAPSHOT_S=0 --inject kill:rank=3:op=77
enc_finish
