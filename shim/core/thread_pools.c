/*
 * thread_pools.c - known thread pools and how each survives a fork
 * (thread_pools.h).
 *
 * OpenBLAS (its own pthreads pool) stops the pool in a pthread_atfork
 * prepare handler, blas_thread_shutdown_, and starts it again when next
 * used: calling that same function before the fork stops the pool where
 * this process can see it gone.  GCC's libgomp keeps its pool across a
 * fork, and the copy's first parallel region then waits forever for
 * workers that do not exist (GCC bug 60035); omp_pause_resource_all(
 * omp_pause_hard) frees the calling thread's pool first (GCC 9 on), and
 * the copy starts a new one.  LLVM's libomp resets itself in the copy from
 * its own atfork child handler, so its threads may stay; a hard pause
 * before the fork broke the copy's next parallel region instead (LLVM 14:
 * an assertion in kmp_settings.cpp), so it is not paused.
 */
#include "enc.h"
#include "core/thread_pools.h"

#define OMP_PAUSE_HARD 2 /* omp_pause_hard of omp.h's omp_pause_resource_t */

static int blas_stop(const struct enc_thread_origin *o)
{
    int (*shutdown)(void) = (int (*)(void))enc_thread_module_symbol(o, "blas_thread_shutdown_");

    return shutdown != NULL ? shutdown() : -1;
}

static int omp_pause(const struct enc_thread_origin *o)
{
    int (*pause)(int) = (int (*)(int))enc_thread_module_symbol(o, "omp_pause_resource_all");

    return pause != NULL ? pause(OMP_PAUSE_HARD) : -1;
}

static bool omp_inside(const struct enc_thread_origin *o)
{
    int (*in_parallel)(void) = (int (*)(void))enc_thread_module_symbol(o, "omp_in_parallel");

    return in_parallel == NULL || in_parallel() != 0;
}

/* In order: LLVM's libomp defines GOMP_* too, to stand in for libgomp. */
static const struct enc_pool pools[] = {
    {.name = "LLVM's OpenMP runtime", .marker = "__kmpc_fork_call", .inside = omp_inside,
     .stays = true, .remedy = "call MPI outside parallel regions"},
    {.name = "GCC's OpenMP runtime", .marker = "GOMP_parallel", .unless = "__kmpc_fork_call",
     .stop = omp_pause, .inside = omp_inside,
     .remedy = "run with encore-run --openmp llvm (LLVM's runtime stands in for libgomp and "
               "survives fork), or OMP_NUM_THREADS=1"},
    {.name = "OpenBLAS", .marker = "blas_thread_shutdown_", .stop = blas_stop,
     .remedy = "set OPENBLAS_NUM_THREADS=1"},
};

const struct enc_pool *enc_pool_of(const struct enc_thread_origin *o)
{
    for (size_t i = 0; i < ENC_ARRAY_SIZE(pools); i++)
        if (enc_thread_module_symbol(o, pools[i].marker) != NULL &&
            (pools[i].unless == NULL || enc_thread_module_symbol(o, pools[i].unless) == NULL))
            return &pools[i];
    return NULL;
}

bool enc_thread_is_python(const struct enc_thread_origin *o)
{
    return enc_thread_module_symbol(o, "PyThread_start_new_thread") != NULL;
}
