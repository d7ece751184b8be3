/*
 * coll_big.c - large reduce_scatter and alltoall blocks (up to 1.1 MiB per
 * block), out of place and in place, alternating between the world and a
 * dup of it, for tests/integration/coll_big.sh: large enough that encore
 * keeps their results in the host's shared-memory result buffer and each
 * rank copies out only its own part.
 *
 * Collectives (as counted by encore-run --inject ...:op=K): 1 the dup,
 * then per iteration i and block size s (BLOCKS below, 5 of them) three:
 * MPI_Reduce_scatter_block, MPI_Alltoall, MPI_Alltoall in place; so
 * iteration i's size s starts at op 2 + 15 i + 3 s.  Each rank prints
 *     rank R iters N state <hex64>
 * a digest of every element it received.
 */
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int BLOCKS[] = {1, 100, 5000, 70000, 300000}; /* ints per block */
#define NBLOCKS (int)(sizeof(BLOCKS) / sizeof(BLOCKS[0]))

static uint64_t mix(uint64_t h, const int *v, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        h ^= (uint64_t)(unsigned)v[k] + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
        h *= 0xff51afd7ed558ccdull;
    }
    return h ^ (h >> 33);
}

static uint64_t step(MPI_Comm c, int rank, int size, int i, size_t blk, uint64_t state)
{
    size_t n = blk * (size_t)size;
    int *s = malloc(n * sizeof(int)), *r = malloc(n * sizeof(int));

    if (s == NULL || r == NULL)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (size_t k = 0; k < n; k++)
        s[k] = (int)((size_t)rank * 7 + k * 3 + (size_t)i);
    MPI_Reduce_scatter_block(s, r, (int)blk, MPI_INT, MPI_SUM, c);
    state = mix(state, r, blk);
    MPI_Alltoall(s, (int)blk, MPI_INT, r, (int)blk, MPI_INT, c);
    state = mix(state, r, n);
    memcpy(r, s, n * sizeof(int));
    r[0] ^= i;
    MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, (int)blk, MPI_INT, c);
    state = mix(state, r, n);
    free(s);
    free(r);
    return state;
}

int main(int argc, char **argv)
{
    int rank, size, iters = argc > 1 ? atoi(argv[1]) : 3;
    uint64_t state = 1;
    MPI_Comm dup;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    for (int i = 0; i < iters; i++)
        for (int b = 0; b < NBLOCKS; b++)
            state = step((i + b) % 2 ? dup : MPI_COMM_WORLD, rank, size, i, (size_t)BLOCKS[b],
                         state);
    printf("rank %d iters %d state %016llx\n", rank, iters, (unsigned long long)state);
    MPI_Comm_free(&dup);
    MPI_Finalize();
    return 0;
}
