/*
 * op_create.c - MPI_Op_create from Fortran (mpi.spec: fortran=hand).
 *
 * The user function has the Fortran convention: (invec, inoutvec, len,
 * datatype) all by reference, datatype a Fortran handle; in use mpi_f08
 * the two vectors are TYPE(C_PTR), VALUE, which is the same address.  The
 * real Fortran MPI_OP_CREATE makes the handle (so Open MPI itself calls
 * the function correctly on MPI_COMM_SELF); libencore records it as a
 * Fortran op so its reducer calls it the Fortran way on the world.
 */
#include "enc.h"

#include <mpi.h>

#include "mpi/mpi_layer.h"
#include "fortran/fortran.h"

void enc_fhand_Op_create(int style, const void *site, MPI_User_function *function,
                         MPI_Fint *commute, MPI_Fint *op, MPI_Fint *ierror)
{
    MPI_Fint rv = MPI_SUCCESS;
    int saved = enc_mpi_guard_enter();

    enc_freal_Op_create(style)(function, commute, op, &rv);
    enc_mpi_guard_leave(saved);
    if (rv == MPI_SUCCESS)
        rv = enc_mpi_op_register(PMPI_Op_f2c(*op), function,
                                 enc_f_from_logical(*commute), ENC_MPI_OP_FORTRAN);
    if (ierror != NULL)   /* optional in use mpi_f08 */
        *ierror = rv;
}
