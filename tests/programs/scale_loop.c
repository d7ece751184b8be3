/*
 * scale_loop.c - many ranks, small collectives: ITERS rounds of an
 * allreduce (sum of rank + i), a bcast from a rotating root and a barrier.
 * Every rank checks each result against the value computed in closed form;
 * rank 0 prints one line with the totals.  Exit 1 on any mismatch.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, iters = argc > 1 ? atoi(argv[1]) : 5, bad = 0;
    long long total = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < iters; i++) {
        long long mine = rank + i, sum = 0, want = (long long)size * (size - 1) / 2 +
                                                   (long long)size * i;
        int root = i % size, token = rank == root ? 1000 + i : -1;

        MPI_Allreduce(&mine, &sum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        MPI_Bcast(&token, 1, MPI_INT, root, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        if (sum != want || token != 1000 + i) {
            fprintf(stderr, "rank %d round %d: sum %lld (want %lld), token %d (want %d)\n",
                    rank, i, sum, want, token, 1000 + i);
            bad = 1;
        }
        total += sum;
    }
    if (rank == 0 && !bad)
        printf("scale_loop: %d ranks, %d rounds, total %lld\n", size, iters, total);
    MPI_Finalize();
    return bad;
}
