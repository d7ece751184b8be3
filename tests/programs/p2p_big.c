/*
 * p2p_big - large messages around a ring: every iteration each rank sends
 * a buffer of several MiB to its right neighbour (MPI_Isend) and receives
 * its left neighbour's (MPI_Irecv, MPI_Waitall), checks and folds it into
 * a checksum, and the ranks agree on the sum with MPI_Allreduce.  Rank 0
 * prints "iter I sum S" every iteration and every rank "rank R checksum C"
 * at the end, so a run whose receiver is killed inside a transfer must
 * print the same distinct lines as a fault-free one
 * (tests/integration/p2p_hard.sh).  With "sendrecv" the exchange is one
 * MPI_Sendrecv instead: a blocking send, whose buffer encore lends to a
 * receiver of the same host while it logs the payload (shim/p2p/lend.h);
 * the output is the same.
 *   p2p_big [iterations] [MiB per message] [isend|sendrecv]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "xorshift_fill.h"


int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 10, mib = argc > 2 ? atoi(argv[2]) : 4;
    int blocking = argc > 3 && strcmp(argv[3], "sendrecv") == 0;
    int rank, size, left, right;
    size_t n;
    uint64_t *out, *in, check = 0;
    MPI_Request q[2];

    setvbuf(stdout, NULL, _IOLBF, 0);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    left = (rank + size - 1) % size;
    right = (rank + 1) % size;
    n = (size_t)mib * 131072u; /* 8-byte words per message */
    out = malloc(n * sizeof(*out));
    in = malloc(n * sizeof(*in));
    if (out == NULL || in == NULL) {
        fprintf(stderr, "p2p_big: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int it = 0; it < iters; it++) {
        uint64_t last, sum = 0, total = 0, expect[1];

        xorshift_fill(out, n, rank, it);
        if (blocking) {
            MPI_Sendrecv(out, (int)n, MPI_UINT64_T, right, it, in, (int)n, MPI_UINT64_T, left, it,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Irecv(in, (int)n, MPI_UINT64_T, left, it, MPI_COMM_WORLD, &q[0]);
            MPI_Isend(out, (int)n, MPI_UINT64_T, right, it, MPI_COMM_WORLD, &q[1]);
            MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
        }
        last = xorshift_fill(out, n, left, it); /* what the left neighbour sent */
        expect[0] = last;
        if (in[n - 1] != expect[0]) {
            fprintf(stderr, "p2p_big: rank %d iteration %d: wrong data\n", rank, it);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        for (size_t i = 0; i < n; i += 4099)
            sum += in[i] % 1000003u;
        check = check * 31 + sum;
        MPI_Allreduce(&sum, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
        if (rank == 0)
            printf("iter %d sum %llu\n", it, (unsigned long long)total);
    }
    printf("rank %d checksum %llu\n", rank, (unsigned long long)check);
    free(out);
    free(in);
    MPI_Finalize();
    return 0;
}
