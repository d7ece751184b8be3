/*
 * allreduce_bench.c - MPI_Allreduce latency and bus bandwidth (doubles, SUM).
 *
 * Usage: allreduce_bench [size_bytes ...]   (default 8 65536 1048576 16777216)
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

static int bench(size_t bytes, int rank, int size)
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
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        MPI_Allreduce(in, out, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        dt = MPI_Wtime() - t0;
        MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
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

int main(int argc, char **argv)
{
    static const size_t dflt[] = { 8, 65536, 1048576, 16777216 };
    int rank, size, rc = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1) {
        for (int i = 1; i < argc && rc == 0; i++)
            rc = bench(strtoull(argv[i], NULL, 10), rank, size);
    } else {
        for (size_t i = 0; i < sizeof(dflt) / sizeof(dflt[0]) && rc == 0; i++)
            rc = bench(dflt[i], rank, size);
    }
    if (rc != 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Finalize();
    return 0;
}
