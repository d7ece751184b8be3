/*
 * mode.c - the process's mode, the world's state and the re-entry guard.
 *
 * The mode is fixed for the life of the process by the environment the
 * launcher set up: ENCORE_TRACKER present means encore mode.  It is read
 * lazily (not in a constructor) so that it also works when libencore is
 * linked in rather than preloaded.  The world is "ready" between a
 * successful MPI_Init in encore mode and MPI_Finalize (lifecycle.c sets
 * it); error surfacing and the world's rank and size read it.
 */
#include "enc.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#include "engine/engine.h"
#include "mpi/mpi_layer.h"

static int mode = -1;           /* -1 unknown, 0 passthrough, 1 encore */
static int world_ready;         /* 1 between init and finalize */
static ENC_HOT_TLS int in_real;    /* >0 while this thread runs real MPI */

int enc_mpi_encore_mode(void)
{
    int m = __atomic_load_n(&mode, __ATOMIC_RELAXED);
    if (m < 0) {
        m = enc_tunable_isset(ENC_TUNE_TRACKER);
        __atomic_store_n(&mode, m, __ATOMIC_RELAXED);
    }
    return m;
}

int enc_mpi_intercepting(void)
{
    return in_real == 0 && enc_mpi_encore_mode();
}

int enc_mpi_guard_enter(void)
{
    return in_real++;
}

void enc_mpi_guard_leave(int saved)
{
    in_real = saved;
}

int enc_mpi_world_ready(void)
{
    return __atomic_load_n(&world_ready, __ATOMIC_ACQUIRE);
}

void enc_mpi_world_set_ready(int ready)
{
    __atomic_store_n(&world_ready, ready, __ATOMIC_RELEASE);
}

void *enc_mpi_resolve(const char *name)
{
    void *p = dlsym(RTLD_NEXT, name);
    if (p == NULL) {
        /* No MPI to fall back on: nothing sensible can continue. */
        fprintf(stderr, "encore: cannot find the real %s (is libencore linked "
                "before Open MPI's libmpi?): %s\n", name, dlerror());
        abort();
    }
    return p;
}

int encore_active(void)
{
    return enc_mpi_encore_mode();
}
