/*
 * omp_iter.c - an unmodified MPI program with an OpenMP loop, for the
 * snapshot tests and bench/recovery.sh: per iteration, local work in an
 * OpenMP parallel loop (each element computed on its own, so the result
 * does not depend on the number of threads) and one in-place
 * MPI_Allreduce (SUM of integer-valued doubles, exact in any order).
 * MPI is called outside parallel regions (MPI_THREAD_FUNNELED).
 *
 * Options:
 *   --iters N     iterations (default 200)
 *   --count C     doubles per allreduce (default 524288: 4 MiB)
 *   --work W      rounds of arithmetic per element per iteration (default 8)
 *   --sleep-us U  microseconds of sleep per iteration besides (default 0)
 *
 * Each rank prints one line at the end:
 *     rank R iters N state <hex64> sum <%a of element 0>
 */
#include <mpi.h>
#include <omp.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long opt(int argc, char **argv, const char *name, long dflt)
{
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], name) == 0)
            return strtol(argv[i + 1], NULL, 10);
    return dflt;
}

/* Element k of this iteration: W rounds of a 64-bit mix, reduced to 0..1023. */
static double element(uint64_t state, long k, int rank, long work)
{
    uint64_t x = state ^ ((uint64_t)k * 0x9e3779b97f4a7c15ull);

    for (long r = 0; r < work; r++)
        x = (x ^ (x >> 29)) * 0xbf58476d1ce4e5b9ull + (uint64_t)r;
    return (double)(x % 1024 + (uint64_t)rank);
}

int main(int argc, char **argv)
{
    long iters = opt(argc, argv, "--iters", 200), count = opt(argc, argv, "--count", 524288);
    long work = opt(argc, argv, "--work", 8), nap = opt(argc, argv, "--sleep-us", 0);
    uint64_t state = 0x9e3779b97f4a7c15ull;
    int rank, provided;
    double *v;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (provided < MPI_THREAD_FUNNELED || (v = malloc((size_t)count * sizeof(double))) == NULL)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (long i = 0; i < iters; i++) {
#pragma omp parallel for schedule(static)
        for (long k = 0; k < count; k++)
            v[k] = element(state, k, rank, work);
        if (nap > 0)
            usleep((useconds_t)nap);
        MPI_Allreduce(MPI_IN_PLACE, v, (int)count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        for (long k = 0; k < count; k++)
            state = (state ^ (uint64_t)v[k]) * 0x100000001b3ull;
    }
    printf("rank %d iters %ld state %016llx sum %a\n", rank, iters, (unsigned long long)state,
           v[0]);
    free(v);
    MPI_Finalize();
    return 0;
}
