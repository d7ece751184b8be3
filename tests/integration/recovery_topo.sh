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
# alltoallv 2, allreduce 1).
set -eu
ENC_LIMIT=120
. "${top_srcdir:-.}/tests/integration/lib.sh"

prog="$ENC_PROGRAMS/recov_topo"
enc_require_program "$prog"
enc_require_launchers
enc_tmpdir

enc_mpirun 4 "$prog" 30 >"$ENC_TMP/native.raw" || enc_fail "native -n 4 failed"
sort "$ENC_TMP/native.raw" >"$ENC_TMP/native"
[ "$(wc -l <"$ENC_TMP/native")" -eq 4 ] || enc_fail "native run printed no result"

case_run() {
    _name=$1
    shift
    enc_run_ok "$_name" enc_encore 4 "$@" "$prog" 30
    if ! diff "$ENC_TMP/native" "$ENC_TMP/$_name.out" >&2; then
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
enc_finish
