/*
 * recov_comm.c - an unmodified MPI program that works on communicators
 * derived from the world, for tests/integration/recovery_comm.sh.
 *
 * Collectives (as counted by encore-run --inject ...:op=K, every
 * communicator together): 1 dup of the world, 2 split by rank parity,
 * then per iteration i: allreduce on the split, bcast on the dup from rank
 * i % size, allgather on the split, and every 5th iteration a new split
 * (by i % 3) with one allreduce on it, then freed.  Sums are of small
 * integers, so the result is exact in any order.  With a second argument
 * "more", each iteration then also makes a gather, a scatter, an alltoall
 * on the split, an alltoall of 64 KiB blocks on the dup and a scan on the
 * split, and an Iallreduce on the dup with an Ibcast on
 * the split, both pending while the rank computes.  With "rest" instead,
 * each iteration then makes a reduce, a barrier, a reduce_scatter_block
 * and an exscan on the split, and an MPI_Comm_create on the dup (the
 * group of ranks 0 and size-1) with one allreduce on it, then freed.
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

/* Something to do while nonblocking collectives progress. */
static uint64_t compute(uint64_t h)
{
    for (int k = 0; k < 100000; k++)
        h = mix(h, (uint64_t)k);
    return h;
}

/* An alltoall of BIG_INTS ints per block on the dup, large enough for the
 * host's result buffer (encore reads only its column there). */
#define BIG_INTS 16384
static uint64_t big_alltoall(MPI_Comm dup, int rank, int i, uint64_t state)
{
    int ds;

    MPI_Comm_size(dup, &ds);
    size_t n = (size_t)ds * BIG_INTS;
    int *s = malloc(n * sizeof(int)), *r = malloc(n * sizeof(int));

    if (s == NULL || r == NULL)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (size_t k = 0; k < n; k++)
        s[k] = (int)((size_t)rank * 1000003u + k * 7u + (size_t)i);
    MPI_Alltoall(s, BIG_INTS, MPI_INT, r, BIG_INTS, MPI_INT, dup);
    for (size_t k = 0; k < n; k += 61)
        state = mix(state, (uint64_t)(unsigned)r[k] ^ k << 32);
    free(s);
    free(r);
    return state;
}

/* The "more" part of iteration i on the split half (and the dup). */
static uint64_t more(MPI_Comm dup, MPI_Comm half, int rank, int i, uint64_t state)
{
    int hs, hr, sb[8], rb[64], sc[2], x = rank + i, y = 0, bb;
    long a = rank + i, ar = 0;
    MPI_Request r[2];

    MPI_Comm_size(half, &hs);
    MPI_Comm_rank(half, &hr);
    for (int k = 0; k < 8; k++)
        sb[k] = rank * 100 + i + k;
    MPI_Gather(sb, 2, MPI_INT, rb, 2, MPI_INT, i % hs, half);
    MPI_Scatter(rb, 2, MPI_INT, sc, 2, MPI_INT, i % hs, half);
    state = mix(state, (uint64_t)sc[0] << 32 ^ (uint64_t)sc[1]);
    MPI_Alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, half);
    for (int k = 0; k < hs; k++)
        state = mix(state, (uint64_t)rb[k]);
    state = big_alltoall(dup, rank, i, state);
    MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, half);
    bb = hr == i % hs ? i * 7 + rank : -1;
    MPI_Iallreduce(&a, &ar, 1, MPI_LONG, MPI_SUM, dup, &r[0]);
    MPI_Ibcast(&bb, 1, MPI_INT, i % hs, half, &r[1]);
    state = compute(state);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    return mix(state, (uint64_t)y << 40 ^ (uint64_t)ar << 20 ^ (uint64_t)bb);
}

/* The "rest" part of iteration i: the other kinds on the split, and
 * communicator creation from a group. */
static uint64_t rest(MPI_Comm dup, MPI_Comm half, int rank, int size, int i, uint64_t state)
{
    int hs, x = rank * 3 + i, y = -1, z = 0, sb[64], rb = 0, ends[2] = {0, size - 1};
    long a = rank + 1, b = 0;
    MPI_Group wg, eg;
    MPI_Comm c;

    MPI_Comm_size(half, &hs);
    MPI_Reduce(&x, &y, 1, MPI_INT, MPI_MAX, i % hs, half);
    MPI_Barrier(half);
    for (int k = 0; k < hs; k++)
        sb[k] = rank * 10 + k + i;
    MPI_Reduce_scatter_block(sb, &rb, 1, MPI_INT, MPI_SUM, half);
    MPI_Exscan(&x, &z, 1, MPI_INT, MPI_SUM, half);
    MPI_Comm_group(dup, &wg);
    MPI_Group_incl(wg, size > 1 ? 2 : 1, ends, &eg);
    MPI_Comm_create(dup, eg, &c);
    if (c != MPI_COMM_NULL) {
        MPI_Allreduce(&a, &b, 1, MPI_LONG, MPI_SUM, c);
        MPI_Comm_free(&c);
    }
    MPI_Group_free(&eg);
    MPI_Group_free(&wg);
    return mix(state, (uint64_t)(unsigned)y << 40 ^ (uint64_t)(unsigned)rb << 20 ^
                          (uint64_t)(unsigned)z << 8 ^ (uint64_t)b);
}

int main(int argc, char **argv)
{
    int rank, size, iters = argc > 1 ? atoi(argv[1]) : 40;
    int extra = argc > 2 && strcmp(argv[2], "more") == 0;
    int others = argc > 2 && strcmp(argv[2], "rest") == 0;
    uint64_t state = 1;
    MPI_Comm dup, half;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &half);
    for (int i = 0; i < iters; i++) {
        long v[4] = {rank + i, (long)(state % 1000), i, 1}, s[4];
        uint64_t b = mix(state, (uint64_t)i);
        int hs, g[64];

        MPI_Allreduce(v, s, 4, MPI_LONG, MPI_SUM, half);
        MPI_Bcast(&b, 1, MPI_UINT64_T, i % size, dup);
        MPI_Comm_size(half, &hs);
        MPI_Allgather(&rank, 1, MPI_INT, g, 1, MPI_INT, half);
        state = mix(state, (uint64_t)s[0] ^ (uint64_t)s[1] << 20 ^ b);
        for (int k = 0; k < hs; k++)
            state = mix(state, (uint64_t)g[k]);
        if (extra)
            state = more(dup, half, rank, i, state);
        if (others)
            state = rest(dup, half, rank, size, i, state);
        if (i % 5 == 4) {
            MPI_Comm t;
            long x = rank, y = 0;

            MPI_Comm_split(dup, i % 3 == rank % 3 ? 0 : 1, rank, &t);
            MPI_Allreduce(&x, &y, 1, MPI_LONG, MPI_SUM, t);
            state = mix(state, (uint64_t)y);
            MPI_Comm_free(&t);
        }
    }
    printf("rank %d iters %d state %016llx\n", rank, iters, (unsigned long long)state);
    MPI_Comm_free(&half);
    MPI_Comm_free(&dup);
    MPI_Finalize();
    return 0;
}
