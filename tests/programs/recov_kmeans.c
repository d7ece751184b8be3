/*
 * recov_kmeans.c - a copy of bench/kmeans.c's logic for the recovery tests
 * (tests/integration/recovery_random.sh): iterative k-means on deterministic
 * synthetic data, using only MPI_Allreduce and MPI_Bcast on MPI_COMM_WORLD.
 * A copy, so that benchmark changes cannot silently change what the tests
 * check.
 *
 * Usage: recov_kmeans [iterations [seed [points_per_rank [k [dim]]]]]
 *        defaults 20 42 20000 5 4; seed "random" makes rank 0 draw it from
 *        /dev/urandom (the broadcast keeps every rank consistent).
 *
 * Each rank generates its own shard (seeded by seed and rank): points around
 * k true centres, coordinates on a 2^-10 grid.  Rank 0 picks the initial
 * centroids from its shard with its own RNG and broadcasts them.  Every
 * iteration allreduces per-cluster coordinate sums and counts as int64 (in
 * grid units) and the quantised inertia as int64, so the result does not
 * depend on the reduction order: native mpirun and encore-run print
 * identical bits.  Rank 0 prints the final centroids and inertia as hex
 * floats (%a).
 */
#include <mpi.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GRID 1024.0          /* coordinates are multiples of 1/GRID */
#define INERTIA_SCALE 1048576.0

static uint64_t rng_next(uint64_t *s)
{
    uint64_t x = (*s += 0x9e3779b97f4a7c15ull);
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* uniform in [0, 1) */
static double rng_unit(uint64_t *s) { return (double)(rng_next(s) >> 11) / 9007199254740992.0; }

static uint64_t random_seed(void)
{
    uint64_t s = 0;
    FILE *f = fopen("/dev/urandom", "rb");
    if (!f || fread(&s, sizeof(s), 1, f) != 1)
        s = 12345;
    if (f)
        fclose(f);
    return s;
}

/* Points of one rank in grid units: k true centres in [-100, 100)^dim,
 * each point a centre plus noise in [-8, 8). */
static int32_t *make_shard(uint64_t seed, int rank, long n, int k, int dim)
{
    int32_t *pts = malloc(sizeof(int32_t) * (size_t)n * (size_t)dim);
    double *centres = malloc(sizeof(double) * (size_t)k * (size_t)dim);
    uint64_t gs = seed ^ 0xc0ffee, ls = seed * 1000003u + (uint64_t)rank;
    if (!pts || !centres)
        return NULL;
    for (int j = 0; j < k * dim; j++)
        centres[j] = rng_unit(&gs) * 200.0 - 100.0;
    for (long i = 0; i < n; i++) {
        int c = (int)(rng_next(&ls) % (uint64_t)k);
        for (int d = 0; d < dim; d++)
            pts[i * dim + d] = (int32_t)((centres[c * dim + d] + rng_unit(&ls) * 16.0 - 8.0) * GRID);
    }
    free(centres);
    return pts;
}

static double dist2(const int32_t *p, const double *c, int dim)
{
    double s = 0;
    for (int d = 0; d < dim; d++) {
        double x = p[d] / GRID - c[d];
        s += x * x;
    }
    return s;
}

int main(int argc, char **argv)
{
    int rank, size, iters = argc > 1 ? atoi(argv[1]) : 20;
    long n = argc > 3 ? atol(argv[3]) : 20000;
    int k = argc > 4 ? atoi(argv[4]) : 5, dim = argc > 5 ? atoi(argv[5]) : 4;
    uint64_t seed = 42;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 2)
        seed = strcmp(argv[2], "random") == 0 ? (rank == 0 ? random_seed() : 0)
                                              : strtoull(argv[2], NULL, 10);
    if (iters < 0 || n < 1 || k < 1 || dim < 1) {
        if (rank == 0)
            fprintf(stderr, "usage: recov_kmeans [iterations [seed|random [points_per_rank [k [dim]]]]]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* the data seed comes from rank 0, so "random" is one job-wide draw */
    MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);

    int32_t *pts = make_shard(seed, rank, n, k, dim);
    double *cent = malloc(sizeof(double) * (size_t)k * (size_t)dim);
    int64_t *acc = malloc(sizeof(int64_t) * (size_t)k * (size_t)(dim + 1));
    int64_t total = n, inertia_q = 0;
    if (!pts || !cent || !acc) {
        fprintf(stderr, "recov_kmeans: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);

    /* initial centroids: k points of rank 0's shard, drawn with its own RNG */
    if (rank == 0) {
        uint64_t s = seed ^ 0x5eed;
        for (int c = 0; c < k; c++) {
            long i = (long)(rng_next(&s) % (uint64_t)n);
            for (int d = 0; d < dim; d++)
                cent[c * dim + d] = pts[i * dim + d] / GRID;
        }
    }
    MPI_Bcast(cent, k * dim, MPI_DOUBLE, 0, MPI_COMM_WORLD);

    for (int it = 0; it < iters; it++) {
        memset(acc, 0, sizeof(int64_t) * (size_t)k * (size_t)(dim + 1));
        inertia_q = 0;
        for (long i = 0; i < n; i++) {
            const int32_t *p = &pts[i * dim];
            int best = 0;
            double bd = dist2(p, cent, dim);
            for (int c = 1; c < k; c++) {
                double dd = dist2(p, &cent[c * dim], dim);
                if (dd < bd) {
                    bd = dd;
                    best = c;
                }
            }
            for (int d = 0; d < dim; d++)
                acc[best * (dim + 1) + d] += p[d];
            acc[best * (dim + 1) + dim] += 1;
            inertia_q += (int64_t)(bd * INERTIA_SCALE + 0.5);
        }
        MPI_Allreduce(MPI_IN_PLACE, acc, k * (dim + 1), MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, &inertia_q, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
        for (int c = 0; c < k; c++) {
            int64_t cnt = acc[c * (dim + 1) + dim];
            if (cnt > 0) /* an empty cluster keeps its centroid */
                for (int d = 0; d < dim; d++)
                    cent[c * dim + d] = (double)acc[c * (dim + 1) + d] / GRID / (double)cnt;
        }
    }

    if (rank == 0) {
        printf("kmeans ranks %d points %" PRId64 " k %d dim %d iterations %d\n", size, total, k,
               dim, iters);
        for (int c = 0; c < k; c++) {
            printf("centroid %d", c);
            for (int d = 0; d < dim; d++)
                printf(" %a", cent[c * dim + d]);
            printf("\n");
        }
        printf("inertia %a\n", (double)inertia_q / INERTIA_SCALE);
    }
    free(pts);
    free(cent);
    free(acc);
    MPI_Finalize();
    return 0;
}
