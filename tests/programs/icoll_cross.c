/*
 * icoll_cross.c - collectives that ranks start on different communicators
 * in different orders, for tests/integration/icoll_cross.sh.  Each case is
 * valid MPI (the standard orders collectives per communicator only) and
 * deadlocks if a rank runs its collectives one at a time in start order.
 *
 *   ring     every rank r shares a two-rank communicator with r+1 and one
 *            with r-1, and MPI_Comm_idups the first, then the second (a
 *            cycle of waits if each rank dups one at a time), then
 *            Iallreduces on both dups the same way
 *   world    rank 0 starts an Iallreduce on the world before an Idup of a
 *            dup of it, the others in the other order
 *   group    even ranks call MPI_Comm_create_group on the world's group
 *            before an Idup of the world, odd ranks after it
 *   block    a blocking Allreduce on one communicator while a pending
 *            Iallreduce on another is what the peers complete first; and
 *            a user op freed while an Iallreduce that uses it is pending
 *            (MPI lets the program free it: the collective completes)
 *
 * Usage: icoll_cross ITERS.  Each iteration runs every case and prints one
 * line per case with exact sums; at the end "rank R done".  The same
 * output natively and under encore-run, killed ranks included.
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>

static int rank, size;

static void check(int got, int want, const char *what, int it)
{
    if (got != want) {
        fprintf(stderr, "rank %d iteration %d %s: got %d, want %d\n", rank, it, what, got,
                want);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

static int sum_on(MPI_Comm c, int v)
{
    int out = -1;

    MPI_Allreduce(&v, &out, 1, MPI_INT, MPI_SUM, c);
    return out;
}

/* Two-rank communicators {r, r+1} (primary) and {r-1, r} (secondary). */
static void ring_case(int it)
{
    MPI_Comm primary = MPI_COMM_NULL, secondary = MPI_COMM_NULL, dups[2], tmp;
    MPI_Request req[2];

    for (int i = 0; i < size; i++) {
        if (rank == i)
            MPI_Comm_split(MPI_COMM_WORLD, 0, 0, &primary);
        else if (rank == (i + 1) % size)
            MPI_Comm_split(MPI_COMM_WORLD, 0, 1, &secondary);
        else {
            MPI_Comm_split(MPI_COMM_WORLD, MPI_UNDEFINED, 0, &tmp);
            if (tmp != MPI_COMM_NULL)
                MPI_Abort(MPI_COMM_WORLD, 4);
        }
    }
    MPI_Comm_idup(primary, &dups[0], &req[0]);
    MPI_Comm_idup(secondary, &dups[1], &req[1]);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    /* blocking ones would wait in a cycle too (not valid MPI) */
    int v = rank + it, a = -1, b = -1;

    MPI_Iallreduce(&v, &a, 1, MPI_INT, MPI_SUM, dups[0], &req[0]);
    MPI_Iallreduce(&v, &b, 1, MPI_INT, MPI_SUM, dups[1], &req[1]);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);

    check(a, 2 * (rank + it) + (size == 1 ? 0 : (rank + 1) % size - rank), "ring primary", it);
    check(b, 2 * (rank + it) + (size == 1 ? 0 : (rank + size - 1) % size - rank),
          "ring secondary", it);
    printf("rank %d it %d ring %d %d\n", rank, it, a, b);
    for (int i = 0; i < 2; i++)
        MPI_Comm_free(&dups[i]);
    MPI_Comm_free(&primary);
    MPI_Comm_free(&secondary);
}

static void world_case(int it)
{
    MPI_Comm dup, dup2;
    MPI_Request req[2];
    int in = rank + it, out = -1;

    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    if (rank == 0) {
        MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[0]);
        MPI_Comm_idup(dup, &dup2, &req[1]);
    } else {
        MPI_Comm_idup(dup, &dup2, &req[1]);
        MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[0]);
    }
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    check(out, size * (size - 1) / 2 + size * it, "world iallreduce", it);
    int s = sum_on(dup2, 1);

    check(s, size, "world dup", it);
    printf("rank %d it %d world %d %d\n", rank, it, out, s);
    MPI_Comm_free(&dup2);
    MPI_Comm_free(&dup);
}

static void group_case(int it)
{
    MPI_Group wg;
    MPI_Comm gc, dc;
    MPI_Request req;

    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    if (rank % 2 == 0) {
        MPI_Comm_create_group(MPI_COMM_WORLD, wg, it, &gc);
        MPI_Comm_idup(MPI_COMM_WORLD, &dc, &req);
    } else {
        MPI_Comm_idup(MPI_COMM_WORLD, &dc, &req);
        MPI_Comm_create_group(MPI_COMM_WORLD, wg, it, &gc);
    }
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    int a = sum_on(gc, rank), b = sum_on(dc, it);

    check(a, size * (size - 1) / 2, "group create_group", it);
    check(b, size * it, "group idup", it);
    printf("rank %d it %d group %d %d\n", rank, it, a, b);
    MPI_Group_free(&wg);
    MPI_Comm_free(&gc);
    MPI_Comm_free(&dc);
}

static void max_fn(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    for (int i = 0; i < *len; i++)
        if (((int *)in)[i] > ((int *)inout)[i])
            ((int *)inout)[i] = ((int *)in)[i];
}

static int freed_op_max(int v)
{
    MPI_Op op;
    MPI_Request req;
    int out = -1;

    MPI_Op_create(max_fn, 1, &op);
    MPI_Iallreduce(&v, &out, 1, MPI_INT, op, MPI_COMM_WORLD, &req);
    MPI_Op_free(&op);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    return out;
}

static void block_case(int it)
{
    MPI_Comm a, b;
    MPI_Request req;
    int in = rank * it, out = -1, blk;

    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    MPI_Comm_dup(MPI_COMM_WORLD, &b);
    if (rank == 0) {
        MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, b, &req);
        blk = sum_on(a, 2);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, b);
        blk = sum_on(a, 2);
    }
    check(out, it * size * (size - 1) / 2, "block iallreduce", it);
    check(blk, 2 * size, "block allreduce", it);
    int mx = freed_op_max(rank + it);

    check(mx, size - 1 + it, "block freed op", it);
    printf("rank %d it %d block %d %d %d\n", rank, it, out, blk, mx);
    MPI_Comm_free(&a);
    MPI_Comm_free(&b);
}

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 1;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (int it = 0; it < iters; it++) {
        if (size > 1)
            ring_case(it);
        world_case(it);
        group_case(it);
        block_case(it);
    }
    printf("rank %d done\n", rank);
    MPI_Finalize();
    return 0;
}
