/*
 * allreduce_bench.c - MPI_Allreduce latency and bus bandwidth (doubles, SUM).
 *
 * Usage: allreduce_bench [--comm world|dup] [--inplace] [size_bytes ...]
 *        (default: world, out of place, 8 65536 1048576 16777216)
 * --comm dup runs every collective of the benchmark on an MPI_Comm_dup of
 * MPI_COMM_WORLD made once at the start; --inplace passes MPI_IN_PLACE, the
 * input being copied into the result buffer before each iteration's barrier
 * (not timed).
 * Sizes up to 256 MiB and more work (two buffers per rank; the count must
 * fit an int: up to 16 GiB of doubles).
 * For each size: warm-up, then many timed iterations, each bracketed by a
 * barrier; an iteration's time is the slowest rank's (MPI_MAX, not timed).
 * Rank 0 prints one line per size:
 *     size_bytes ranks median_us busbw_GBps
 * busbw = 2 (n-1)/n * bytes / median (the usual ring-allreduce bus bandwidth;
 * 0 on one rank).  The result is checked: every element must equal the sum
 * over ranks.
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct variant {
    MPI_Comm comm; /* MPI_COMM_WORLD or a dup of it */
    int inplace;   /* pass MPI_IN_PLACE */
};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int iterations(size_t bytes)
{
    if (bytes <= 65536)
        return 300;
    if (bytes <= (1u << 20))
        return 60;
    if (bytes <= (64u << 20))
        return 15;
    return 5; /* 256 MiB: 5 timed, 2 warm-up */
}

static int bench(size_t bytes, const struct variant *v, int rank, int size)
{
    size_t n = bytes / sizeof(double) ? bytes / sizeof(double) : 1;
    double *in = malloc(n * sizeof(double)), *out = malloc(n * sizeof(double));
    int iters = iterations(bytes), warm = iters / 10 + 2;
    double *t = malloc(sizeof(double) * (size_t)iters);
    double expect = (double)size * (size - 1) / 2.0;

    if (!in || !out || !t)
        return -1;
    for (size_t i = 0; i < n; i++)
        in[i] = rank;
    for (int it = -warm; it < iters; it++) {
        double t0, dt;
        if (v->inplace)
            memcpy(out, in, n * sizeof(double));
        MPI_Barrier(v->comm);
        t0 = MPI_Wtime();
        MPI_Allreduce(v->inplace ? MPI_IN_PLACE : in, out, (int)n, MPI_DOUBLE, MPI_SUM, v->comm);
        dt = MPI_Wtime() - t0;
        MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MAX, v->comm);
        if (it >= 0)
            t[it] = dt;
    }
    for (size_t i = 0; i < n; i++)
        if (out[i] != expect) {
            fprintf(stderr, "allreduce_bench: wrong result %g at %zu (expected %g)\n", out[i], i,
                    expect);
            return -1;
        }
    qsort(t, (size_t)iters, sizeof(double), cmp_double);
    if (rank == 0) {
        double med = t[iters / 2];
        double busbw = size > 1 ? 2.0 * (size - 1) / size * (double)(n * sizeof(double)) / med / 1e9 : 0;
        printf("%zu %d %.2f %.4f\n", n * sizeof(double), size, med * 1e6, busbw);
        fflush(stdout);
    }
    free(in);
    free(out);
    free(t);
    return 0;
}

/* options: returns the index of the first size, or -1 on a bad option */
static int options(int argc, char **argv, struct variant *v)
{
    int i = 1;

    v->comm = MPI_COMM_WORLD;
    v->inplace = 0;
    for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
        if (strcmp(argv[i], "--inplace") == 0)
            v->inplace = 1;
        else if (strcmp(argv[i], "--comm") == 0 && i + 1 < argc &&
                 (strcmp(argv[i + 1], "world") == 0 || strcmp(argv[i + 1], "dup") == 0)) {
            if (strcmp(argv[++i], "dup") == 0)
                MPI_Comm_dup(MPI_COMM_WORLD, &v->comm);
        } else
            return -1;
    }
    return i;
}

int main(int argc, char **argv)
{
    static const size_t dflt[] = { 8, 65536, 1048576, 16777216 };
    struct variant v;
    int rank, size, rc = 0, first;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if ((first = options(argc, argv, &v)) < 0) {
        if (rank == 0)
            fprintf(stderr, "usage: allreduce_bench [--comm world|dup] [--inplace] [size_bytes ...]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (first < argc) {
        for (int i = first; i < argc && rc == 0; i++)
            rc = bench(strtoull(argv[i], NULL, 10), &v, rank, size);
    } else {
        for (size_t i = 0; i < sizeof(dflt) / sizeof(dflt[0]) && rc == 0; i++)
            rc = bench(dflt[i], &v, rank, size);
    }
    if (rc != 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    if (v.comm != MPI_COMM_WORLD)
        MPI_Comm_free(&v.comm);
    MPI_Finalize();
    return 0;
}
