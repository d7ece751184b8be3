/*
 * p2p_flood.c - messages that outrun their receiver (tests/integration/
 * p2p_shm.sh): each rank sends its ring neighbour `count` small messages
 * (default 10000) and then 6 messages of 3 MiB, all before receiving any
 * of its own (more than a shared-memory ring holds: the rest waits in the
 * sender until the receiver drains), then receives and checks every one
 * in order; then a synchronous send matched by a receive posted before a
 * barrier, whose receiver sits in that barrier while the send waits.  One
 * line per rank with a checksum; the same with native Open MPI.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BIG (3u << 20)
#define NBIG 6

int main(int argc, char **argv)
{
    int count = argc > 1 ? atoi(argv[1]) : 10000;
    int rank, size, next, prev, *small, *got;
    unsigned char *big, *in;
    MPI_Request *q;
    unsigned long sum = 0;

    setvbuf(stdout, NULL, _IOLBF, 0);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;
    small = malloc((size_t)count * sizeof(int));
    got = malloc((size_t)count * sizeof(int));
    big = malloc((size_t)NBIG * BIG);
    in = malloc(BIG);
    q = malloc((size_t)(count + NBIG) * sizeof(*q));
    if (!small || !got || !big || !in || !q) {
        printf("rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int i = 0; i < count; i++) {
        small[i] = rank * 1000003 + i;
        MPI_Isend(&small[i], 1, MPI_INT, next, i % 7, MPI_COMM_WORLD, &q[i]);
    }
    for (int k = 0; k < NBIG; k++) {
        memset(big + (size_t)k * BIG, (rank * 16 + k) & 0xff, BIG);
        MPI_Isend(big + (size_t)k * BIG, BIG, MPI_BYTE, next, 100 + k, MPI_COMM_WORLD,
                  &q[count + k]);
    }
    for (int i = 0; i < count; i++) {
        MPI_Recv(&got[i], 1, MPI_INT, prev, i % 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (got[i] != prev * 1000003 + i) {
            printf("rank %d: message %d is %d, want %d\n", rank, i, got[i], prev * 1000003 + i);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        sum += (unsigned long)got[i];
    }
    for (int k = 0; k < NBIG; k++) {
        MPI_Recv(in, BIG, MPI_BYTE, prev, 100 + k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (size_t j = 0; j < BIG; j += 4093)
            if (in[j] != ((prev * 16 + k) & 0xff)) {
                printf("rank %d: large message %d byte %zu is %d\n", rank, k, j, in[j]);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        sum += in[BIG - 1];
    }
    MPI_Waitall(count + NBIG, q, MPI_STATUSES_IGNORE);
    /* the even ranks receive, posted before the barrier; the odd ones send
     * synchronously, completed while the receiver sits in the barrier */
    if (rank % 2 == 0 && rank + 1 < size) {
        int v = -1;

        MPI_Irecv(&v, 1, MPI_INT, rank + 1, 9, MPI_COMM_WORLD, &q[0]);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Wait(&q[0], MPI_STATUS_IGNORE);
        sum += (unsigned long)v;
    } else if (rank % 2 == 1) {
        int v = rank * 10;

        MPI_Ssend(&v, 1, MPI_INT, rank - 1, 9, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
    }
    printf("rank %d: flood of %d ok, checksum %lu\n", rank, count, sum);
    free(small);
    free(got);
    free(big);
    free(in);
    free(q);
    MPI_Finalize();
    return 0;
}
