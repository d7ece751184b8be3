#!/bin/sh
# fortran_collectives: Fortran programs in the three binding styles
# (include 'mpif.h', use mpi, use mpi_f08; tests/programs/fortran_coll.F90)
# print, under encore-run on 1, 3 and 4 ranks, exactly what they print under
# native mpirun: through LD_PRELOAD and relinked against libencore.  Also
# checks libencore.so exports every Fortran mangling.  Skips (77) only when
# configure left Fortran out.
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=120
. "$(dirname "$0")/lib.sh"

enc_fortran_begin
enc_expect_exports "$ENC_LIBENCORE" MPI_ALLREDUCE mpi_allreduce mpi_allreduce_ \
    mpi_allreduce__ pmpi_allreduce_ PMPI_ALLREDUCE mpi_allreduce_f08_ pmpi_allreduce_f08_ \
    mpi_init_f08_ mpi_op_create_ mpi_op_create_f08_ mpi_allgatherv__ MPI_FINALIZED
enc_log "ok: Fortran exports"

for style in mpifh usempi f08; do
    # shellcheck disable=SC2046 # the flags are words
    enc_fortran_build "$ENC_TMP/$style" "$ENC_SRCDIR/tests/programs/fortran_coll.F90" \
        $(enc_fortran_flags $style)
    for n in 1 3 4; do
        base="$ENC_TMP/$style.n$n"
        enc_run_ok "$style.n$n.native" enc_mpirun $n "$ENC_TMP/$style"
        [ -s "$base.native.out" ] || enc_fail "native $style on $n rank(s) printed nothing"
        enc_run_ok "$style.n$n.preload" enc_encore $n "$ENC_TMP/$style"
        enc_run_ok "$style.n$n.relinked" enc_encore $n "$ENC_TMP/$style.enc"
        enc_expect_same "$base.native.out" "$base.preload.out" "$style.n$n.preload"
        enc_expect_same "$base.native.out" "$base.relinked.out" "$style.n$n.relinked"
        enc_log "ok: $style on $n rank(s): preload and relinked identical to native"
    done
done
cat "$ENC_TMP/f08.n4.native.out"
enc_pass
