/*
 * p2p_quiet - eager messages to a rank that computes (tests/integration/
 * p2p_shm.sh): 2 ranks.  After a warm-up exchange and a barrier, rank 1
 * computes for COMPUTE_MS without an MPI call while rank 0, 50 ms into
 * it, starts sends to rank 1 of SMALL messages of one int and LARGE of
 * 16 KiB (MPI_Isend, all of them within one ring); then both enter a
 * barrier, rank 1 receives and checks every message in order and rank 0
 * completes its sends.  Prints
 * "rank R: quiet ok SUM" per rank, the same natively.  Nothing waits for
 * rank 1 to read those messages before its next call, so under encore-run
 * rank 0 must ring no bell for them (its finalize's debug line): a bell
 * per message once woke rank 1's progress thread, preempting its
 * computation to copy what its receives would read anyway.
 *   p2p_quiet
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <mpi.h>

#define SMALL 1000
#define LARGE 16
#define LARGE_INTS 4096
#define COMPUTE_MS 300

static double now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Computes for ms milliseconds; the result keeps the loop. */
static uint64_t compute(double ms)
{
    double end = now_ms() + ms;
    uint64_t x = 88172645463325252ull;

    while (now_ms() < end)
        for (int i = 0; i < 1000; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
        }
    return x;
}

int main(int argc, char **argv)
{
    static int small[SMALL], large[LARGE][LARGE_INTS];
    int rank, size, token = 0, bad = 0;
    unsigned long sum = 0;

    setvbuf(stdout, NULL, _IOLBF, 0);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "p2p_quiet: run with 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* warm-up: the connection both ways made, the rings reset */
    MPI_Sendrecv_replace(&token, 1, MPI_INT, 1 - rank, 0, 1 - rank, 0, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Request q[SMALL + LARGE];

        (void)compute(50);
        for (int i = 0; i < SMALL; i++) {
            small[i] = i;
            MPI_Isend(&small[i], 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &q[i]);
        }
        for (int m = 0; m < LARGE; m++) {
            for (int j = 0; j < LARGE_INTS; j++)
                large[m][j] = m * LARGE_INTS + j;
            MPI_Isend(large[m], LARGE_INTS, MPI_INT, 1, 2, MPI_COMM_WORLD, &q[SMALL + m]);
        }
        /* after the barrier: a message above native's eager limit waits
         * for its receive */
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Waitall(SMALL + LARGE, q, MPI_STATUSES_IGNORE);
    } else {
        if (compute(COMPUTE_MS) == 0)
            printf("rank 1: the generator reached 0\n");
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < SMALL; i++) {
            int v;

            MPI_Recv(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            bad += v != i;
            sum += (unsigned long)v;
        }
        for (int m = 0; m < LARGE; m++) {
            MPI_Recv(large[0], LARGE_INTS, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int j = 0; j < LARGE_INTS; j++) {
                bad += large[0][j] != m * LARGE_INTS + j;
                sum += (unsigned long)large[0][j];
            }
        }
    }
    if (bad != 0)
        printf("rank %d: quiet FAILED: %d values wrong\n", rank, bad);
    else
        printf("rank %d: quiet ok %lu\n", rank, sum);
    MPI_Finalize();
    return bad != 0;
}
