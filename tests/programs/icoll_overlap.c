/*
 * icoll_overlap.c - a nonblocking collective progresses while the rank
 * that started it computes without calling MPI, for
 * tests/integration/icoll_overlap.sh.
 *
 * Every rank starts an Iallreduce (sum of rank + 1) on MPI_COMM_WORLD.
 * Ranks other than 0 wait for it and then create DIR/done.R.  Rank 0 only
 * computes until every other rank's file exists (bounded: 60 s), then
 * waits: the others can only finish if rank 0's part ran meanwhile.
 * Prints "rank R sum S overlapped" (rank 0: "overlapped" only when every
 * file appeared before its own MPI_Wait), exit 1 on the bound.
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int all_done(const char *dir, int size)
{
    char path[4096];

    for (int r = 1; r < size; r++) {
        snprintf(path, sizeof(path), "%s/done.%d", dir, r);
        if (access(path, F_OK) != 0)
            return 0;
    }
    return 1;
}

/* Spins on arithmetic between file checks, no MPI call. */
static int compute_until(const char *dir, int size)
{
    time_t end = time(NULL) + 60;
    volatile double x = 1.0;

    while (!all_done(dir, size)) {
        if (time(NULL) > end)
            return 0;
        for (int i = 0; i < 100000; i++)
            x = x * 1.0000001 + 1e-9;
    }
    return 1;
}

int main(int argc, char **argv)
{
    int rank, size, mine, sum = -1, ok = 1;
    MPI_Request r;

    MPI_Init(&argc, &argv);
    if (argc < 2) {
        fprintf(stderr, "usage: icoll_overlap DIR\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    mine = rank + 1;
    MPI_Iallreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
    if (rank == 0) {
        ok = compute_until(argv[1], size);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    } else {
        char path[4096];
        FILE *f;

        MPI_Wait(&r, MPI_STATUS_IGNORE);
        snprintf(path, sizeof(path), "%s/done.%d", argv[1], rank);
        if ((f = fopen(path, "w")) == NULL) {
            perror(path);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        fclose(f);
    }
    printf("rank %d sum %d %s\n", rank, sum, ok ? "overlapped" : "NOT overlapped");
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return ok ? 0 : 1;
}
