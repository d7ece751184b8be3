/*
 * comm_ckpt.c - the checkpoint API with collectives on derived
 * communicators, for tests/integration/comm_ckpt.sh and
 * bench/comm_ckpt_rss.sh.
 *
 * Collectives (as counted by encore-run --inject ...:op=K): 1 dup of the
 * world, 2 split by rank parity, 3 an allreduce on the dup (bootstrap
 * phase, before encore_load_checkpoint), then per iteration i an
 * allreduce on the dup and an allgather on the split, and after every
 * EVERY-th iteration a checkpoint (EVERY 0: none).  With 40 iterations and
 * EVERY 10 iteration i is ops 4 + 2i + i/10 and 5 + 2i + i/10; the
 * checkpoints are ops 24, 45, 66, 87.  Each rank prints
 *     rank R iters N state <hex64> version V
 *
 * comm_ckpt ITERS EVERY pending: an Iallreduce on the dup is started and
 * encore_checkpoint called before MPI_Wait (encore refuses it), then again
 * after; each rank prints
 *     rank R pending <status> waited <status> sum S
 */
#include <mpi.h>

#include <encore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The state differs between the halves of the split, so it is each rank's
 * local state; the iteration to resume at is the global one. */
struct model {
    uint64_t state;
    int next_it;
};

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdull;
    return h ^ (h >> 33);
}

static int pending(MPI_Comm dup, int rank)
{
    long a = rank + 1, s = 0;
    MPI_Request r;
    int before, after;

    MPI_Iallreduce(&a, &s, 1, MPI_LONG, MPI_SUM, dup, &r);
    before = encore_checkpoint(&a, sizeof(a), NULL, 0);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    after = encore_checkpoint(&s, sizeof(s), NULL, 0);
    printf("rank %d pending %d waited %d sum %ld\n", rank, before, after, s);
    return 0;
}

static void iteration(MPI_Comm dup, MPI_Comm half, int rank, int i, struct model *m)
{
    long v[2] = {(long)(m->state % 1000) + rank, i}, s[2];
    int hs, g[64];

    MPI_Allreduce(v, s, 2, MPI_LONG, MPI_SUM, dup);
    MPI_Comm_size(half, &hs);
    MPI_Allgather(&rank, 1, MPI_INT, g, 1, MPI_INT, half);
    m->state = mix(m->state, (uint64_t)s[0] << 20 ^ (uint64_t)s[1]);
    for (int k = 0; k < hs; k++)
        m->state = mix(m->state, (uint64_t)g[k]);
}

int main(int argc, char **argv)
{
    int rank, size, version, iters = argc > 1 ? atoi(argv[1]) : 40;
    int every = argc > 2 ? atoi(argv[2]) : 10;
    struct model m = {1, 0};
    size_t glen = sizeof(m.next_it), llen = sizeof(m.state);
    long boot, bsum = 0;
    MPI_Comm dup, half;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &half);
    if (argc > 3 && strcmp(argv[3], "pending") == 0) {
        pending(dup, rank);
        MPI_Finalize();
        return 0;
    }
    boot = rank * 3 + 1;
    MPI_Allreduce(&boot, &bsum, 1, MPI_LONG, MPI_SUM, dup);
    m.state = (uint64_t)bsum;
    version = encore_load_checkpoint(&m.next_it, &glen, &m.state, &llen);
    for (int i = version > 0 ? m.next_it : 0; i < iters; i++) {
        iteration(dup, half, rank, i, &m);
        if (every > 0 && i % every == every - 1) {
            m.next_it = i + 1;
            if (encore_checkpoint(&m.next_it, sizeof(m.next_it), &m.state, sizeof(m.state)) != 0)
                MPI_Abort(MPI_COMM_WORLD, 3);
        }
    }
    printf("rank %d iters %d state %016llx version %d\n", rank, iters,
           (unsigned long long)m.state, encore_version());
    MPI_Comm_free(&half);
    MPI_Comm_free(&dup);
    MPI_Finalize();
    return 0;
}
