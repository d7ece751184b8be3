/* comm.c - rank and size of the encore world (other communicators go to
 * the real MPI in the generated entry points). */
#include "enc.h"

#include <mpi.h>

#include "engine/engine.h"
#include "mpi/mpi_layer.h"

static int world_check(const char *fn)
{
    if (!enc_mpi_world_ready())
        return enc_mpi_raise(MPI_ERR_COMM, "%s on MPI_COMM_WORLD before MPI_Init or after "
                             "MPI_Finalize", fn);
    return MPI_SUCCESS;
}

int enc_mpi_Comm_rank(const void *site, MPI_Comm comm, int *rank)
{
    int rv = world_check("MPI_Comm_rank");

    if (rv == MPI_SUCCESS)
        *rank = enc_engine_rank();
    return rv;
}

int enc_mpi_Comm_size(const void *site, MPI_Comm comm, int *size)
{
    int rv = world_check("MPI_Comm_size");

    if (rv == MPI_SUCCESS)
        *size = enc_engine_size();
    return rv;
}
