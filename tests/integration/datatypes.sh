#!/bin/sh
# datatypes.sh - collectives whose blocks have datatypes of their own give
# every rank exactly native Open MPI's bytes, at 1, 3 and 4 ranks under
# mpirun and encore-run:
#   alltoallw_check    MPI_Alltoallw and MPI_Ialltoallw (a datatype per peer:
#                      int, double, a strided vector, a struct; byte
#                      displacements; zero counts; MPI_IN_PLACE; send types
#                      freed while the nonblocking one is pending)
#   noncontig_reduce   user-op MPI_Allreduce, MPI_Reduce and MPI_Ireduce on
#                      non-contiguous datatypes (holes keep their bytes), on
#                      the world and a dup, in place too, the op freed while
#                      the nonblocking one is pending
set -eu
ENC_LIMIT=120
. "${top_srcdir:-.}/tests/integration/lib.sh"

enc_require_launchers
enc_tmpdir

for name in alltoallw_check noncontig_reduce; do
    prog="$ENC_PROGRAMS/$name"
    enc_require_program "$prog"
    for n in 1 3 4; do
        enc_run_ok "$name.native$n" enc_mpirun "$n" "$prog"
        enc_run_ok "$name.encore$n" enc_second "$n" "$prog"
        enc_expect_grep "$ENC_TMP/$name.native$n.out" "^rank 0 [a-z]" "$name -n $n: no output"
        enc_expect_same "$ENC_TMP/$name.native$n.out" "$ENC_TMP/$name.encore$n.out" \
            "$name -n $n: encore differs from native"
        enc_log "ok $name -n $n ($(wc -l <"$ENC_TMP/$name.native$n.out") lines identical)"
    done
done
enc_finish
