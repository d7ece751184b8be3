/*
 * comm_churn.c - communicators made and freed in a loop, with collectives
 * on each: the shared-memory channels and descriptors they take must come
 * back (engine/group_chan.c).
 *
 * usage: comm_churn ITERS [HOLD]
 * Per iteration: MPI_Comm_dup of the world and an allreduce on it (every
 * tenth one in place over 300000 doubles, two shared-memory chunks), an
 * MPI_Comm_split by rank parity and a broadcast on it, then both freed
 * (with HOLD, a dup made first stays alive for the whole run and gets an
 * allreduce every iteration).  Prints every rank's checksum on rank 0;
 * each rank checks that it holds as many descriptors after the loop as
 * halfway through it (after any early recovery reconnected its links) and
 * exits 1 if not.
 */
#include <dirent.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define BIG 300000

static int open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;

    if (d == NULL)
        return -1;
    while (readdir(d) != NULL)
        n++;
    closedir(d);
    return n;
}

static void check(int rc, const char *what)
{
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "comm_churn: %s failed (%d)\n", what, rc);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

int main(int argc, char **argv)
{
    int rank, size, iters = argc > 1 ? atoi(argv[1]) : 100, hold = argc > 2;
    int fds_half = -1, bad = 0;
    double *big;
    uint64_t sum = 0;
    MPI_Comm kept = MPI_COMM_NULL;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if ((big = malloc(sizeof(double) * BIG)) == NULL)
        MPI_Abort(MPI_COMM_WORLD, 2);
    if (hold)
        check(MPI_Comm_dup(MPI_COMM_WORLD, &kept), "MPI_Comm_dup (held)");
    for (int i = 0; i < iters; i++) {
        MPI_Comm d, s;
        int64_t v = rank + i, r = 0, b;
        int srank, ssize;

        check(MPI_Comm_dup(MPI_COMM_WORLD, &d), "MPI_Comm_dup");
        check(MPI_Allreduce(&v, &r, 1, MPI_INT64_T, MPI_SUM, d), "MPI_Allreduce");
        sum = sum * 31 + (uint64_t)r;
        if (i % 10 == 0) {
            for (int k = 0; k < BIG; k++)
                big[k] = rank + k % 7 + i;
            check(MPI_Allreduce(MPI_IN_PLACE, big, BIG, MPI_DOUBLE, MPI_SUM, d),
                  "MPI_Allreduce (in place)");
            for (int k = 0; k < BIG; k += 997)
                sum = sum * 31 + (uint64_t)big[k];
        }
        check(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &s), "MPI_Comm_split");
        MPI_Comm_rank(s, &srank);
        MPI_Comm_size(s, &ssize);
        b = srank == i % ssize ? 1000 * i + rank : -1;
        check(MPI_Bcast(&b, 1, MPI_INT64_T, i % ssize, s), "MPI_Bcast");
        sum = sum * 31 + (uint64_t)b;
        if (kept != MPI_COMM_NULL) {
            check(MPI_Allreduce(&v, &r, 1, MPI_INT64_T, MPI_MAX, kept), "MPI_Allreduce (held)");
            sum = sum * 31 + (uint64_t)r;
        }
        check(MPI_Comm_free(&s), "MPI_Comm_free");
        check(MPI_Comm_free(&d), "MPI_Comm_free");
        if (i == iters / 2 - 1)
            fds_half = open_fds();
    }
    if (iters >= 20 && open_fds() != fds_half) {
        fprintf(stderr, "comm_churn: rank %d holds %d descriptors after %d iterations, %d after %d\n",
                rank, open_fds(), iters, fds_half, iters / 2);
        bad = 1;
    }
    /* every rank's checksum, so a wrong result anywhere shows */
    uint64_t *all = malloc(sizeof(uint64_t) * (size_t)size);
    check(MPI_Gather(&sum, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD), "MPI_Gather");
    if (rank == 0)
        for (int q = 0; q < size; q++)
            printf("comm_churn: rank %d checksum %016llx\n", q, (unsigned long long)all[q]);
    if (kept != MPI_COMM_NULL)
        MPI_Comm_free(&kept);
    free(all);
    free(big);
    MPI_Finalize();
    return bad;
}
