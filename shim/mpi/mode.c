#include "enc.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#include "engine/engine.h"
#include "mpi/mpi_layer.h"

/*
 * Mode and re-entry guard.
 *
 * The mode is fixed for the life of the process by the environment the
 * launcher set up: ENCORE_TRACKER present means encore mode.  It is read
 * lazily (not in a constructor) so that it also works when libencore is
 * linked in rather than preloaded.
 */

static int enc_mpi_mode = -1;          /* -1 unknown, 0 passthrough, 1 encore */
static __thread int enc_mpi_in_real;   /* >0 while this thread runs real MPI */

int enc_mpi_encore_mode(void)
{
    int m = __atomic_load_n(&enc_mpi_mode, __ATOMIC_RELAXED);
    if (m < 0) {
        m = enc_tunable_isset(ENC_TUNE_TRACKER);
        __atomic_store_n(&enc_mpi_mode, m, __ATOMIC_RELAXED);
    }
    return m;
}

int enc_mpi_intercepting(void)
{
    return enc_mpi_in_real == 0 && enc_mpi_encore_mode();
}

int enc_mpi_guard_enter(void)
{
    return enc_mpi_in_real++;
}

void enc_mpi_guard_leave(int saved)
{
    enc_mpi_in_real = saved;
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
