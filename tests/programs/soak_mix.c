/*
 * soak_mix.c - a deterministic MPI program that mixes the collective kinds
 * encore serves, for the kill soak (bench/soak.sh, tests/integration/
 * soak_short.sh).
 *
 * Bootstrap (before encore_load_checkpoint): a seed broadcast from rank 0
 * and a MAX allreduce.  Then every iteration makes an Allreduce (SUM,
 * int64), a Bcast and a Reduce (MAX) from a root that moves with the
 * iteration (the Reduce result is broadcast from its root so every rank
 * can fold it), an Allgather, an Allgatherv with uneven counts, and every
 * fourth iteration a Barrier; every ckpt_every iterations an
 * encore_checkpoint (global: the running hash and the next iteration;
 * local: a per-rank accumulator).  Integer data only, so the results are
 * bit-identical under native mpirun and encore-run.  Every rank prints one
 * line: its rank, the final hash and the sum of the local accumulators.
 *
 * Usage: soak_mix [iterations [ckpt_every [pause_ms]]]   (defaults 200 10 0)
 * With pause_ms > 0 (bench/leaks.sh), every rank sleeps pause_ms at
 * iteration iterations/10 and before the final Allreduce, rank 0 saying
 * "soak_mix: pause N" on stderr first: the moments to sample a steady rank.
 */
#include <mpi.h>

#include <encore.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MAXR 64

struct global {
    uint64_t h;
    int64_t next_it;
};

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static uint64_t fold(uint64_t h, const uint64_t *v, int n)
{
    for (int i = 0; i < n; i++)
        h = mix(h ^ v[i]);
    return h;
}

static void check(int rc, const char *what)
{
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "soak_mix: %s failed (%d)\n", what, rc);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

/* One iteration's collectives; every result is folded into g->h. */
static void step(struct global *g, uint64_t *local, int64_t it, int rank, int size)
{
    int root = (int)(it % size), cnt[MAXR], dis[MAXR], tot = 0, mine = (int)(it + rank) % 3 + 1;
    uint64_t v[4], b[8], red[2], mx[2], ag[2 * MAXR], agv[3 * MAXR], sv[3];
    int64_t s[4], sr[4];

    for (int i = 0; i < 4; i++)
        s[i] = (int64_t)(mix(g->h + (uint64_t)(rank * 4 + i)) % 1000003) - 500000;
    check(MPI_Allreduce(s, sr, 4, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
    for (int i = 0; i < 4; i++)
        v[i] = (uint64_t)sr[i];
    g->h = fold(g->h, v, 4);
    for (int i = 0; i < 8; i++)
        b[i] = rank == root ? mix(g->h + (uint64_t)i + (uint64_t)rank) : 0;
    check(MPI_Bcast(b, 8, MPI_UINT64_T, root, MPI_COMM_WORLD), "MPI_Bcast");
    g->h = fold(g->h, b, 8);
    red[0] = mix(g->h ^ (uint64_t)rank) >> 8;
    red[1] = (uint64_t)rank * 7 + (uint64_t)it;
    check(MPI_Reduce(red, mx, 2, MPI_UINT64_T, MPI_MAX, root, MPI_COMM_WORLD), "MPI_Reduce");
    check(MPI_Bcast(mx, 2, MPI_UINT64_T, root, MPI_COMM_WORLD), "MPI_Bcast");
    g->h = fold(g->h, mx, 2);
    v[0] = mix(g->h + (uint64_t)rank);
    v[1] = *local;
    check(MPI_Allgather(v, 2, MPI_UINT64_T, ag, 2, MPI_UINT64_T, MPI_COMM_WORLD),
          "MPI_Allgather");
    g->h = fold(g->h, ag, 2 * size);
    for (int r = 0; r < size; r++) {
        cnt[r] = (int)(it + r) % 3 + 1;
        dis[r] = tot;
        tot += cnt[r];
    }
    for (int i = 0; i < mine; i++)
        sv[i] = mix(g->h + (uint64_t)(rank * 3 + i));
    check(MPI_Allgatherv(sv, mine, MPI_UINT64_T, agv, cnt, dis, MPI_UINT64_T, MPI_COMM_WORLD),
          "MPI_Allgatherv");
    g->h = fold(g->h, agv, tot);
    if (it % 4 == 3)
        check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    *local += mix(g->h ^ (uint64_t)rank) % 1000;
}

static void pause_at(int rank, int n, int64_t ms)
{
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};

    if (ms <= 0)
        return;
    if (rank == 0) {
        fprintf(stderr, "soak_mix: pause %d\n", n);
        fflush(stderr);
    }
    nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
    int rank, size, version;
    int64_t iters = argc > 1 ? atoll(argv[1]) : 200, every = argc > 2 ? atoll(argv[2]) : 10;
    int64_t pause_ms = argc > 3 ? atoll(argv[3]) : 0;
    struct global g = {0, 0};
    uint64_t local = 0, seed = 0, top, total;
    size_t glen = sizeof(g), llen = sizeof(local);

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > MAXR || every < 1)
        MPI_Abort(MPI_COMM_WORLD, 2);
    seed = rank == 0 ? 20261123 : 0;
    check(MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD), "MPI_Bcast");
    top = (uint64_t)rank * 11;
    check(MPI_Allreduce(MPI_IN_PLACE, &top, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD),
          "MPI_Allreduce");
    g.h = mix(seed ^ top);
    local = (uint64_t)rank;
    version = encore_load_checkpoint(&g, &glen, &local, &llen);
    for (int64_t it = version > 0 ? g.next_it : 0; it < iters; it++) {
        if (it == iters / 10 && !encore_is_replaying())
            pause_at(rank, 1, pause_ms);
        step(&g, &local, it, rank, size);
        if (it % every == every - 1) {
            g.next_it = it + 1;
            check(encore_checkpoint(&g, sizeof(g), &local, sizeof(local)) == 0 ? MPI_SUCCESS
                                                                                : MPI_ERR_OTHER,
                  "encore_checkpoint");
        }
    }
    pause_at(rank, 2, pause_ms);
    total = local;
    check(MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD),
          "MPI_Allreduce");
    printf("rank %d hash %016" PRIx64 " local-sum %" PRIu64 "\n", rank, g.h, total);
    MPI_Finalize();
    return 0;
}
