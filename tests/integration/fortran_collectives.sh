#!/bin/sh
# fortran_collectives: Fortran programs in the three binding styles
# (include 'mpif.h', use mpi, use mpi_f08; tests/programs/fortran_coll.F90)
# print, under encore-run on 1, 3 and 4 ranks, exactly what they print under
# native mpirun: through LD_PRELOAD and relinked against libencore.  Also
# checks libencore.so exports every Fortran mangling.
. "$(dirname "$0")/fortran_lib.sh"
dir=$b/tests/integration/fortran_collectives.dir
rm -rf "$dir" && mkdir -p "$dir"

# -- exported Fortran entry points --------------------------------------------
for s in MPI_ALLREDUCE mpi_allreduce mpi_allreduce_ mpi_allreduce__ pmpi_allreduce_ \
         PMPI_ALLREDUCE mpi_allreduce_f08_ pmpi_allreduce_f08_ mpi_init_f08_ \
         mpi_op_create_ mpi_op_create_f08_ mpi_allgatherv__ MPI_FINALIZED; do
    nm -D --defined-only "$lib" | awk '{ print $3 }' | grep -qx "$s" || fail "$s is not exported"
done
echo "ok: Fortran exports"

for style in mpifh usempi f08; do
    fbuild "$dir/$style" "$src/tests/programs/fortran_coll.F90" $(style_flags $style)
    for n in 1 3 4; do
        native "$style.n$n.native" $n "$dir/$style"
        encore "$style.n$n.preload" $n "$dir/$style"
        encore "$style.n$n.relinked" $n "$dir/$style.enc"
        same "$style.n$n.native" "$style.n$n.preload"
        same "$style.n$n.native" "$style.n$n.relinked"
        echo "ok: $style on $n rank(s): preload and relinked identical to native"
    done
done
cat "$dir/f08.n4.native.out"
rm -rf "$dir"
