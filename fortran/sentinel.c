/*
 * sentinel.c - Fortran MPI_IN_PLACE and MPI_BOTTOM, recognised by address.
 *
 * In Fortran they are variables in common blocks (mpif-sentinels.h; the
 * mpi_f08 module binds to the same symbols): only their ADDRESS means
 * anything, their value is whatever the program left there.  The program's
 * own copy wins symbol resolution, so dlsym(RTLD_DEFAULT) gives exactly the
 * address the program passes.  Every compiler mangling is looked up, as
 * Open MPI's own OMPI_IS_FORTRAN_IN_PLACE does on builds that define them.
 */
#include "enc.h"

#include <dlfcn.h>
#include <pthread.h>

#include <mpi.h>

#include "fortran/fortran.h"

#define MANGLINGS(base) { base "_", base, base "__", NULL }

static const char *const in_place_names[] = MANGLINGS("mpi_fortran_in_place");
static const char *const bottom_names[] = MANGLINGS("mpi_fortran_bottom");
static const char *const upper_names[] = { "MPI_FORTRAN_IN_PLACE", "MPI_FORTRAN_BOTTOM" };

#define NSENT 4

static pthread_once_t once = PTHREAD_ONCE_INIT;
static void *in_place[NSENT];
static void *bottom[NSENT];

static void lookup(const char *const *names, const char *upper, void **out)
{
    for (int i = 0; names[i] != NULL; i++)
        out[i] = dlsym(RTLD_DEFAULT, names[i]);
    out[NSENT - 1] = dlsym(RTLD_DEFAULT, upper);
}

static void sentinels_init(void)
{
    lookup(in_place_names, upper_names[0], in_place);
    lookup(bottom_names, upper_names[1], bottom);
}

static int is_sentinel(void *const *sent, const void *buf)
{
    for (int i = 0; i < NSENT; i++)
        if (sent[i] != NULL && sent[i] == buf)
            return 1;
    return 0;
}

void *enc_f_buf(void *buf)
{
    pthread_once(&once, sentinels_init);
    if (is_sentinel(in_place, buf))
        return MPI_IN_PLACE;
    if (is_sentinel(bottom, buf))
        return MPI_BOTTOM;
    return buf;
}
