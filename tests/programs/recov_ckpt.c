/*
 * recov_ckpt.c - an MPI program that uses encore's checkpoint API, for the
 * checkpoint and bootstrap-cache recovery tests (tests/integration/
 * recovery_ckpt.sh).
 *
 * Bootstrap phase (before encore_load_checkpoint), as in the seed design's
 * XGBoost example: a column-count allreduce, a column-sampler seed
 * broadcast from rank 0, a histogram-init allreduce.  A restarted process
 * (ENCORE_INCARNATION > 0) makes the first two in the opposite order, and
 * its rank 0 draws a different seed: the bootstrap cache must answer both
 * by call site and occurrence, and the logged broadcast must win.
 * Then iterations of one allreduce each, with a checkpoint (global model +
 * a per-rank local accumulator) every 5 iterations.  Every rank prints the
 * final model, the sum of the local states and the checkpoint version.
 *
 * Usage: recov_ckpt [iterations]   (default 40)
 */
#include <mpi.h>

#include <encore.h>
#include <stdio.h>
#include <stdlib.h>

struct model {
    long w[4];
    int next_it;
};

/* A call site is a code address and the two orders below must reach the
 * same ones: no inlining, and no tail calls (checking the result). */
__attribute__((noinline)) static void col_count(int *ncol)
{
    if (MPI_Allreduce(MPI_IN_PLACE, ncol, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS)
        abort();
}

__attribute__((noinline)) static void sampler_seed(long *seed)
{
    if (MPI_Bcast(seed, 1, MPI_LONG, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
        abort();
}

static int restarted(void)
{
    const char *inc = getenv("ENCORE_INCARNATION");

    return inc != NULL && atoi(inc) > 0;
}

int main(int argc, char **argv)
{
    int rank, iters = argc > 1 ? atoi(argv[1]) : 40;
    struct model m = {{0}, 0};
    double hist[4];
    long local, seed, total;
    size_t glen = sizeof(m), llen = sizeof(local);
    int ncol, version;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    ncol = 10 + rank;
    seed = rank == 0 ? (restarted() ? 999 : 12345) : 0;
    if (!restarted()) {
        col_count(&ncol);
        sampler_seed(&seed);
    } else {
        sampler_seed(&seed);
        col_count(&ncol);
    }
    for (int i = 0; i < 4; i++)
        hist[i] = rank * 4 + i;
    MPI_Allreduce(MPI_IN_PLACE, hist, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);

    local = rank * 1000;
    version = encore_load_checkpoint(&m, &glen, &local, &llen);
    for (int it = version > 0 ? m.next_it : 0; it < iters; it++) {
        long contrib[4];

        for (int k = 0; k < 4; k++)
            contrib[k] = (m.w[k] * 7 + seed + ncol + (long)hist[k] + rank + it + local) % 100003;
        MPI_Allreduce(contrib, m.w, 4, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        local += m.w[0] % 7;
        if (it % 5 == 4) {
            m.next_it = it + 1;
            if (encore_checkpoint(&m, sizeof(m), &local, sizeof(local)) != 0)
                MPI_Abort(MPI_COMM_WORLD, 3);
        }
    }
    total = local;
    MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    printf("rank %d: model %ld %ld %ld %ld local-sum %ld version %d\n", rank, m.w[0], m.w[1],
           m.w[2], m.w[3], total, encore_version());
    MPI_Finalize();
    return 0;
}
