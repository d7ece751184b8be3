/*
 * replay_bench.c - many large allreduces, for measuring replay throughput.
 *
 * Usage: replay_bench iterations bytes
 * Each iteration allreduces (in place, MPI_SUM) a vector of bytes/8 doubles
 * holding small integers, so every result is exact; rank 0 prints a
 * checksum that must not change whether or not a rank was killed.
 * bench/recovery.sh kills a rank near the end and reads how fast the
 * restarted rank was answered from the log.
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, iters = argc > 1 ? atoi(argv[1]) : 40;
    size_t count = (argc > 2 ? strtoull(argv[2], NULL, 0) : 16u << 20) / sizeof(double);
    double *v, sum = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if ((v = malloc(count * sizeof(double))) == NULL)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (int it = 0; it < iters; it++) {
        for (size_t i = 0; i < count; i++)
            v[i] = (double)((i + (size_t)it + (size_t)rank) % 7);
        MPI_Allreduce(MPI_IN_PLACE, v, (int)count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        sum += v[(size_t)it % count];
    }
    if (rank == 0)
        printf("replay_bench iterations %d bytes %zu checksum %.1f\n", iters,
               count * sizeof(double), sum);
    free(v);
    MPI_Finalize();
    return 0;
}
