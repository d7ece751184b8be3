/*
 * fortran.h - private interface of libencore's Fortran entry points.
 *
 * The entry points themselves (every mangling of every owned function) are
 * generated from shim/mpi/mpi.spec into fortran/gen/fwrappers.c; this
 * header holds what they share with the hand-written fortran/ sources.
 */
#ifndef ENC_FORTRAN_FORTRAN_H
#define ENC_FORTRAN_FORTRAN_H

#include <mpi.h>

#include "fortran/gen/fentries.h"

/* INTEGER arguments and arrays are passed to the C layer as they are. */
_Static_assert(sizeof(MPI_Fint) == sizeof(int), "MPI_Fint must be a C int");

/* Fortran .TRUE. as gfortran (and Open MPI's Fortran layer built with it)
 * stores it; any nonzero value reads as true. */
#define ENC_F_TRUE 1

static inline MPI_Fint enc_f_to_logical(int v)
{
    return v ? ENC_F_TRUE : 0;
}

static inline int enc_f_from_logical(MPI_Fint v)
{
    return v != 0;
}

/* The real Open MPI Fortran symbol name (dlsym(RTLD_NEXT), loading Open
 * MPI's Fortran library first if the program did not); a missing symbol
 * ends the process, as enc_mpi_resolve() does. */
void *enc_f_resolve(const char *name);

/* A Fortran buffer argument as the C layer expects it: Open MPI's Fortran
 * MPI_IN_PLACE / MPI_BOTTOM (recognised by address) become the C ones. */
void *enc_f_buf(void *buf);

#endif
