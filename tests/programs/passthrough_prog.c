/*
 * passthrough_prog - collectives on MPI_COMM_WORLD and MPI_COMM_SELF whose
 * printed results must be identical with and without libencore preloaded
 * (tests/integration/passthrough.sh).  Rank 0 prints everything, so the
 * output does not depend on how mpirun interleaves ranks.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include <mpi.h>

#define LINE 256

static void add_i(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] = ((int *)inout)[i] * 10 + ((int *)in)[i];
}

static void out(int rank, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#include <stdarg.h>
static void out(int rank, const char *fmt, ...)
{
    va_list ap;
    if (rank != 0)
        return;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
}

static void world_reductions(int rank, int size)
{
    double d[3] = { rank + 0.5, -rank, 2.0 * rank }, dsum[3];
    struct { double v; int i; } loc = { (rank * 7) % 5, rank }, mloc;
    long lsum = rank, lroot = -1;
    int ord = rank + 1;
    MPI_Op op;

    MPI_Allreduce(d, dsum, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    out(rank, "allreduce sum double: %g %g %g\n", dsum[0], dsum[1], dsum[2]);
    MPI_Allreduce(MPI_IN_PLACE, d, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    out(rank, "allreduce max in place: %g %g %g\n", d[0], d[1], d[2]);
    MPI_Allreduce(&loc, &mloc, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
    out(rank, "allreduce maxloc: %g at %d\n", mloc.v, mloc.i);
    MPI_Reduce(&lsum, &lroot, 1, MPI_LONG, MPI_SUM, size - 1, MPI_COMM_WORLD);
    /* only world collectives encore serves, so this also runs under encore-run */
    MPI_Bcast(&lroot, 1, MPI_LONG, size - 1, MPI_COMM_WORLD);
    out(rank, "reduce sum long at root %d: %ld\n", size - 1, lroot);
    MPI_Op_create(add_i, 0, &op);
    MPI_Allreduce(MPI_IN_PLACE, &ord, 1, MPI_INT, op, MPI_COMM_WORLD);
    MPI_Op_free(&op);
    out(rank, "allreduce non-commutative user op: %d\n", ord);
}

static void world_moves(int rank, int size)
{
    int v[4] = { 0 }, all[64], counts[16], displs[16], mine[16];
    int strided[6] = { 0 };
    MPI_Datatype vec;

    if (rank == 1 % size)
        for (int i = 0; i < 4; i++)
            v[i] = 100 + i;
    MPI_Bcast(v, 4, MPI_INT, 1 % size, MPI_COMM_WORLD);
    out(rank, "bcast from %d: %d %d %d %d\n", 1 % size, v[0], v[1], v[2], v[3]);
    MPI_Type_vector(3, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    if (rank == 0)
        for (int i = 0; i < 6; i++)
            strided[i] = i % 2 ? -1 : 7 * (i + 1);
    MPI_Bcast(strided, 1, vec, 0, MPI_COMM_WORLD);
    out(rank, "bcast vector type: %d %d %d %d %d %d\n", strided[0], strided[1], strided[2],
        strided[3], strided[4], strided[5]);
    MPI_Type_free(&vec);
    MPI_Allgather(&rank, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
    out(rank, "allgather:");
    for (int i = 0; i < size; i++)
        out(rank, " %d", all[i]);
    out(rank, "\n");
    for (int i = 0, off = 0; i < size; off += i + 1, i++) {
        counts[i] = i + 1;
        displs[i] = off;
    }
    for (int i = 0; i <= rank; i++)
        mine[i] = rank * 10 + i;
    MPI_Allgatherv(mine, rank + 1, MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD);
    out(rank, "allgatherv:");
    for (int i = 0; i < displs[size - 1] + counts[size - 1]; i++)
        out(rank, " %d", all[i]);
    out(rank, "\n");
    MPI_Barrier(MPI_COMM_WORLD);
    out(rank, "barrier done\n");
}

static void self_collectives(int rank)
{
    int x = rank + 3, y = 0, srank = -1, ssize = -1;
    MPI_Comm dup;

    MPI_Comm_rank(MPI_COMM_SELF, &srank);
    MPI_Comm_size(MPI_COMM_SELF, &ssize);
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF);
    MPI_Comm_dup(MPI_COMM_SELF, &dup);
    MPI_Bcast(&y, 1, MPI_INT, 0, dup);
    MPI_Barrier(dup);
    MPI_Comm_free(&dup);
    /* every rank checks its own SELF results; rank 0 reports the sum */
    x = (srank == 0 && ssize == 1 && y == rank + 3);
    MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    out(rank, "self collectives ok on every rank: %d\n", x);
}

int main(int argc, char **argv)
{
    int provided = -1, rank, size, flag = 0;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Initialized(&flag);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0)
        fprintf(stderr, "passthrough_prog: libencore %s\n",
                dlsym(RTLD_DEFAULT, "encore_active") ? "loaded" : "not loaded");
    out(rank, "size %d initialized %d provided %d\n", size, flag, provided);
    world_reductions(rank, size);
    world_moves(rank, size);
    self_collectives(rank);
    MPI_Finalize();
    MPI_Finalized(&flag);
    out(rank, "finalized %d\n", flag);
    return 0;
}
