/*
 * recov_iter.c - an unmodified iterative MPI program for the recovery tests
 * (tests/integration/recovery_*.sh).  Uses only MPI_Allreduce and MPI_Bcast
 * on MPI_COMM_WORLD (or one communicator made from it: --comm) and knows
 * nothing of encore.
 *
 * First one MPI_Bcast (collective 1, as counted by encore-run
 * --inject ...:op=K) of a seed from root `seed-root`: in a fault-free run
 * (ENCORE_INCARNATION 0 or absent) the root draws a fixed value; a restarted
 * root (incarnation > 0) draws from the clock and its pid, as a program
 * seeding from time would.  Only the broadcast result overwriting the
 * restarted root's own buffer keeps the run equal to a fault-free one.
 * Then iteration i (0-based) makes exactly two collectives:
 *   - collective 2i+2: MPI_Allreduce(SUM) of `count` doubles (`big` doubles
 *     when i % big-every == big-every - 1: the ring path), contributions
 *     derived from the rank's running state;
 *   - collective 2i+3: MPI_Bcast of one uint64 from root i % size, derived
 *     from the seed and the iteration.
 * Every contribution is a small integer-valued double, so every sum is exact
 * in any reduction order: the output is bit-identical to native MPI's.
 *
 * Each rank prints one line at the end:
 *     rank R iters N seed <hex64> state <hex64> sum <%a of element count-1>
 *
 * Options:
 *   --iters N      iterations (default 100)
 *   --seed-root R  root of the seed broadcast (default size - 1)
 *   --clock-seed 0 a restarted root draws the fixed seed too (for
 *                  --policy fail-all, where no log overwrites it)
 *   --count C      doubles per allreduce (default 64)
 *   --big B        doubles of the large allreduce (default 0: none)
 *   --big-every E  the large allreduce replaces iteration i's when
 *                  i % E == E - 1 (default 10)
 *   --diverge I    from an incarnation > 0 on, iteration I's allreduce uses
 *                  count + 1 (a replay divergence)
 *   --diverge-op I from an incarnation > 0 on, iteration I's allreduce uses
 *                  MPI_MAX instead of MPI_SUM (a replay divergence)
 *   --comm C       every collective runs on a communicator made once at the
 *                  start (freed at the end): C is dup (MPI_Comm_dup of the
 *                  world) or rev (MPI_Comm_split of the world in reversed
 *                  rank order); roots are ranks of that communicator
 *   --usleep U     sleep U microseconds per iteration (default 0)
 *   --trace 1      print each iteration's results to stderr (debugging)
 */
#include <mpi.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdull;
    return h ^ (h >> 33);
}

static long opt(int argc, char **argv, const char *name, long dflt)
{
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], name) == 0)
            return strtol(argv[i + 1], NULL, 10);
    return dflt;
}

/* The communicator --comm names (the world without it). */
static MPI_Comm make_comm(int argc, char **argv, int rank, int size)
{
    MPI_Comm c = MPI_COMM_WORLD;
    const char *kind = NULL;

    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], "--comm") == 0)
            kind = argv[i + 1];
    if (kind != NULL && strcmp(kind, "dup") == 0)
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
    else if (kind != NULL && strcmp(kind, "rev") == 0)
        MPI_Comm_split(MPI_COMM_WORLD, 0, size - 1 - rank, &c);
    else if (kind != NULL)
        MPI_Abort(MPI_COMM_WORLD, 3);
    return c;
}

int main(int argc, char **argv)
{
    long iters = opt(argc, argv, "--iters", 100);
    long count = opt(argc, argv, "--count", 64);
    long big = opt(argc, argv, "--big", 0);
    long big_every = opt(argc, argv, "--big-every", 10);
    long diverge = opt(argc, argv, "--diverge", -1);
    long diverge_op = opt(argc, argv, "--diverge-op", -1);
    long nap = opt(argc, argv, "--usleep", 0);
    long trace = opt(argc, argv, "--trace", 0);
    long clock_seed = opt(argc, argv, "--clock-seed", 1);
    long seed_root;
    const char *inc_s = getenv("ENCORE_INCARNATION");
    uint64_t inc = inc_s != NULL ? strtoull(inc_s, NULL, 10) : 0;
    long cap = (big > count ? big : count) + 1;
    double *in, *out;
    uint64_t state, seed;
    int rank, size;
    MPI_Comm comm;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    in = malloc((size_t)cap * sizeof(double));
    out = malloc((size_t)cap * sizeof(double));
    if (in == NULL || out == NULL) {
        fprintf(stderr, "recov_iter: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    comm = make_comm(argc, argv, rank, size);
    seed_root = opt(argc, argv, "--seed-root", size - 1);
    if (inc == 0 || !clock_seed) {
        seed = 0x5eed;
    } else {
        struct timespec ts;

        clock_gettime(CLOCK_REALTIME, &ts);
        seed = mix((uint64_t)ts.tv_nsec, (uint64_t)getpid());
    }
    MPI_Bcast(&seed, 1, MPI_UINT64_T, (int)seed_root, comm);
    state = mix(seed, (uint64_t)rank);
    for (long i = 0; i < iters; i++) {
        long n = big > 0 && i % big_every == big_every - 1 ? big : count;
        uint64_t drawn;

        if (i == diverge && inc > 0)
            n++;
        for (long j = 0; j < n; j++)
            in[j] = (double)((state >> (j % 48)) & 0xfff) + (double)j;
        MPI_Allreduce(in, out, (int)n, MPI_DOUBLE, i == diverge_op && inc > 0 ? MPI_MAX : MPI_SUM,
                      comm);
        for (long j = 0; j < n; j += 1 + n / 64)
            state = mix(state, (uint64_t)out[j]);
        state = mix(state, (uint64_t)out[n - 1]);

        drawn = mix(mix(seed, (uint64_t)i), (uint64_t)rank);
        MPI_Bcast(&drawn, 1, MPI_UINT64_T, (int)(i % size), comm);
        state = mix(state, drawn);
        if (trace)
            fprintf(stderr, "trace rank %d inc %llu iter %ld sum0 %a drawn %016llx state %016llx\n",
                    rank, (unsigned long long)inc, i, out[0], (unsigned long long)drawn,
                    (unsigned long long)state);
        if (nap > 0)
            usleep((useconds_t)nap);
    }
    printf("rank %d iters %ld seed %016" PRIx64 " state %016" PRIx64 " sum %a\n", rank, iters,
           seed, state, out[count - 1]);
    free(in);
    free(out);
    if (comm != MPI_COMM_WORLD)
        MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}
