#!/bin/sh
# alltoallw.sh - MPI_Alltoallw and MPI_Ialltoallw (a datatype per peer:
# int, double, a strided vector, a struct; byte displacements; zero
# counts; MPI_IN_PLACE; send types freed while the nonblocking one is
# pending) give every rank exactly native Open MPI's bytes:
# tests/programs/alltoallw_check at 1, 3 and 4 ranks under mpirun and
# encore-run.
set -eu
ENC_LIMIT=120
. "${top_srcdir:-.}/tests/integration/lib.sh"

prog="$ENC_PROGRAMS/alltoallw_check"
enc_require_program "$prog"
enc_require_launchers
enc_tmpdir

for n in 1 3 4; do
    enc_run_ok "native$n" enc_mpirun "$n" "$prog"
    enc_run_ok "encore$n" enc_second "$n" "$prog"
    enc_expect_grep "$ENC_TMP/native$n.out" "^rank 0 iw from 0: [0-9]" "-n $n: no output"
    enc_expect_same "$ENC_TMP/native$n.out" "$ENC_TMP/encore$n.out" "-n $n: encore differs from native"
    enc_log "ok -n $n ($(wc -l <"$ENC_TMP/native$n.out") lines identical)"
done
enc_finish
