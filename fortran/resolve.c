/*
 * resolve.c - the real Fortran entry points.
 *
 * Normally Open MPI's Fortran library is loaded after libencore and
 * dlsym(RTLD_NEXT) finds them.  A program relinked with -lencore ahead of
 * Open MPI's libraries can lose it: every symbol it wanted from
 * libmpi_mpifh is now libencore's, so the linker's --as-needed drops the
 * library.  Then it is loaded here, globally, so its
 * own references still resolve to the program and to libencore first.
 */
#include "enc.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "config.h"
#include "mpi/mpi_layer.h"
#include "fortran/fortran.h"

void *enc_f_resolve(const char *name)
{
    void *p = dlsym(RTLD_NEXT, name);

    if (p != NULL)
        return p;
    if (dlopen(ENC_MPIFH_SONAME, RTLD_NOW | RTLD_GLOBAL) == NULL) {
        fprintf(stderr, "encore: cannot load Open MPI's Fortran library %s for %s: %s\n",
                ENC_MPIFH_SONAME, name, dlerror());
        abort();
    }
    return enc_mpi_resolve(name);
}
