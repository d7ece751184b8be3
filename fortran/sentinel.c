#include "enc.h"

#include <dlfcn.h>
#include <pthread.h>

#include <mpi.h>

#include "fortran/fortran.h"

/*
 * Fortran MPI_IN_PLACE and MPI_BOTTOM.
 *
 * In Fortran they are variables in common blocks (mpif-sentinels.h; the
 * mpi_f08 module binds to the same symbols): only their ADDRESS means
 * anything, their value is whatever the program left there.  The program's
 * own copy wins symbol resolution, so dlsym(RTLD_DEFAULT) gives exactly the
 * address the program passes.  Every compiler mangling is looked up, as
 * Open MPI's own OMPI_IS_FORTRAN_IN_PLACE does on builds that define them.
 */

#define ENC_F_MANGLINGS(base) { base "_", base, base "__", NULL }

static const char *const enc_f_in_place_names[] = ENC_F_MANGLINGS("mpi_fortran_in_place");
static const char *const enc_f_bottom_names[] = ENC_F_MANGLINGS("mpi_fortran_bottom");
static const char *const enc_f_upper_names[] = { "MPI_FORTRAN_IN_PLACE", "MPI_FORTRAN_BOTTOM" };

#define ENC_F_NSENT 4

static pthread_once_t enc_f_once = PTHREAD_ONCE_INIT;
static void *enc_f_in_place[ENC_F_NSENT];
static void *enc_f_bottom[ENC_F_NSENT];

static void enc_f_lookup(const char *const *names, const char *upper, void **out)
{
    for (int i = 0; names[i] != NULL; i++)
        out[i] = dlsym(RTLD_DEFAULT, names[i]);
    out[ENC_F_NSENT - 1] = dlsym(RTLD_DEFAULT, upper);
}

static void enc_f_sentinels_init(void)
{
    enc_f_lookup(enc_f_in_place_names, enc_f_upper_names[0], enc_f_in_place);
    enc_f_lookup(enc_f_bottom_names, enc_f_upper_names[1], enc_f_bottom);
}

static int enc_f_is(void *const *sent, const void *buf)
{
    for (int i = 0; i < ENC_F_NSENT; i++)
        if (sent[i] != NULL && sent[i] == buf)
            return 1;
    return 0;
}

void *enc_f_buf(void *buf)
{
    pthread_once(&enc_f_once, enc_f_sentinels_init);
    if (enc_f_is(enc_f_in_place, buf))
        return MPI_IN_PLACE;
    if (enc_f_is(enc_f_bottom, buf))
        return MPI_BOTTOM;
    return buf;
}
