/*
 * neighbor_bench.c - time of MPI_Neighbor_alltoall on a periodic 2-D grid
 * of the world (MPI_Dims_create), native or under encore-run.
 *
 *     neighbor_bench [iters [bytes per block]]
 *
 * Rank 0 prints "neighbor_alltoall ranks N block B: T us per call" (the
 * slowest rank's mean over iters calls, after 10 untimed ones).
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 1000, bytes = argc > 2 ? atoi(argv[2]) : 1024;
    int size, rank, dims[2] = {0, 0}, periods[2] = {1, 1};
    double t, worst;
    MPI_Comm grid;
    char *sb, *rb;

    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Dims_create(size, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
    sb = malloc(4 * (size_t)bytes + 1);
    rb = malloc(4 * (size_t)bytes + 1);
    memset(sb, rank, 4 * (size_t)bytes);
    for (int i = 0; i < 10; i++)
        MPI_Neighbor_alltoall(sb, bytes, MPI_BYTE, rb, bytes, MPI_BYTE, grid);
    t = MPI_Wtime();
    for (int i = 0; i < iters; i++)
        MPI_Neighbor_alltoall(sb, bytes, MPI_BYTE, rb, bytes, MPI_BYTE, grid);
    t = (MPI_Wtime() - t) / iters;
    MPI_Reduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("neighbor_alltoall ranks %d block %d: %.1f us per call\n", size, bytes,
               worst * 1e6);
    free(sb);
    free(rb);
    MPI_Comm_free(&grid);
    MPI_Finalize();
    return 0;
}
