/*
 * recov_topo.c - an unmodified MPI program on a cartesian communicator,
 * for tests/integration/recovery_topo.sh.
 *
 * It makes a periodic 2-D grid of the world (MPI_Dims_create,
 * Cart_create), its rows (Cart_sub) and a distributed graph (each rank ->
 * rank + 1, rank + 3), then per iteration i: an MPI_Neighbor_alltoall on
 * the grid, a Neighbor_allgather on the row, an Ineighbor_alltoallv on the
 * graph pending while the rank computes, and a Cart_shift-directed
 * allreduce check.  With a second argument "inter" it also makes an
 * intercommunicator between the even and the odd ranks (MPI_Intercomm_create
 * over their split) and adds per iteration an MPI_Allreduce and an
 * MPI_Alltoall on it.  Values are small integers, so results are exact.
 * Each rank prints
 *     rank R iters N state <hex64>
 */
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdull;
    return h ^ (h >> 33);
}

static uint64_t compute(uint64_t h)
{
    for (int k = 0; k < 50000; k++)
        h = mix(h, (uint64_t)k);
    return h;
}

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 20, rank, size, dims[2] = {0, 0}, periods[2] = {1, 1};
    int keep[2] = {0, 1}, sb[8], rb[8], src[2], dst[2], cnt[2] = {1, 1}, dsp[2] = {0, 1};
    uint64_t state = 0;
    MPI_Comm grid, row, graph, half = MPI_COMM_NULL, inter = MPI_COMM_NULL;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Dims_create(size, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
    MPI_Cart_sub(grid, keep, &row);
    dst[0] = (rank + 1) % size;
    dst[1] = (rank + 3) % size;
    src[0] = (rank + size - 1) % size;
    src[1] = (rank + 3 * size - 3) % size;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, cnt, 2, dst, cnt, MPI_INFO_NULL, 0,
                                   &graph);
    if (argc > 2 && strcmp(argv[2], "inter") == 0 && size > 1) {
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - rank % 2, 5, &inter);
    }
    for (int i = 0; i < iters; i++) {
        int up, down, sum = 0, mine;

        for (int k = 0; k < 8; k++)
            sb[k] = rank * 100 + i * 10 + k;
        MPI_Neighbor_alltoall(sb, 2, MPI_INT, rb, 2, MPI_INT, grid);
        for (int k = 0; k < 8; k++)
            state = mix(state, (uint64_t)(unsigned)rb[k]);
        MPI_Neighbor_allgather(&sb[i % 8], 1, MPI_INT, rb, 1, MPI_INT, row);
        state = mix(state, (uint64_t)(unsigned)rb[0] << 32 | (unsigned)rb[1]);
        MPI_Ineighbor_alltoallv(sb, cnt, dsp, MPI_INT, rb, cnt, dsp, MPI_INT, graph, &req);
        state = compute(state);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        state = mix(state, (uint64_t)(unsigned)rb[0] << 32 | (unsigned)rb[1]);
        MPI_Cart_shift(grid, i % 2, 1, &up, &down);
        mine = up * 1000 + down;
        MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, grid);
        state = mix(state, (uint64_t)sum);
        if (inter != MPI_COMM_NULL) {
            int rn;

            MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, inter);
            state = mix(state, (uint64_t)sum);
            MPI_Comm_remote_size(inter, &rn);
            MPI_Alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, inter);
            for (int k = 0; k < rn && k < 8; k++)
                state = mix(state, (uint64_t)(unsigned)rb[k]);
        }
    }
    printf("rank %d iters %d state %016llx\n", rank, iters, (unsigned long long)state);
    if (inter != MPI_COMM_NULL) {
        MPI_Comm_free(&inter);
        MPI_Comm_free(&half);
    }
    MPI_Comm_free(&graph);
    MPI_Comm_free(&row);
    MPI_Comm_free(&grid);
    MPI_Finalize();
    return 0;
}
