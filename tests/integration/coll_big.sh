#!/bin/sh
# coll_big.sh - large MPI_Reduce_scatter_block and MPI_Alltoall (blocks of
# 4 B to 1.1 MiB, out of place and in place, on the world and a dup):
# encore keeps their results in the host's result buffer, each rank
# copying out only its part, and logs them whole.  tests/programs/coll_big
# must print exactly what native mpirun prints, fault-free at 2 and 4
# ranks, and with a rank SIGKILLed in a large reduce_scatter, in a large
# alltoall and in a large in-place alltoall (replayed from the survivors'
# logs).  Collective numbers: 1 the dup, then iteration i's block size s
# starts at op 2 + 15 i + 3 s (reduce_scatter, alltoall, alltoall in
# place).
set -eu
ENC_LIMIT=120
. "$(dirname "$0")/lib.sh"

prog="$ENC_PROGRAMS/coll_big"
enc_require_program "$prog"
enc_require_launchers
enc_tmpdir

# case N NAME inject...: encore-run vs native
case_run() {
    _n=$1 _name=$2
    shift 2
    enc_run_ok "$_name" enc_encore "$_n" "$@" "$prog" 3
    sort "$ENC_TMP/$_name.out" >"$ENC_TMP/$_name.sorted"
    if ! diff "$ENC_TMP/native.$_n" "$ENC_TMP/$_name.sorted" >&2; then
        enc_fail "$_name: output differs from the native run"
    fi
    if [ $# -gt 0 ] && ! grep -q 'restarting it' "$ENC_TMP/$_name.err"; then
        enc_fail "$_name: no rank was restarted"
    fi
    enc_log "ok $_name"
}

for n in 2 4; do
    enc_mpirun "$n" "$prog" 3 >"$ENC_TMP/native.raw.$n" || enc_fail "native -n $n failed"
    sort "$ENC_TMP/native.raw.$n" >"$ENC_TMP/native.$n"
done
case_run 2 fault-free-2
case_run 4 fault-free-4
case_run 4 kill-reduce-scatter --inject kill:rank=1:op=29
case_run 4 kill-alltoall --inject kill:rank=2:op=30
case_run 2 kill-alltoall-in-place --inject kill:rank=0:op=43
enc_finish
