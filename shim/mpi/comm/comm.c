/* comm.c - rank and size on the encore world and derived communicators
 * (an intercommunicator's: in its local group). */
#include "enc.h"

#include <mpi.h>

#include "engine/engine.h"
#include "mpi/inter/inter.h"
#include "mpi/mpi_layer.h"

static struct enc_mpi_comm *comm_check(const char *fn, MPI_Comm comm, int *rv)
{
    *rv = MPI_SUCCESS;
    if (!enc_mpi_world_ready()) {
        *rv = enc_mpi_raise(MPI_ERR_COMM, "%s on MPI_COMM_WORLD before MPI_Init or after "
                            "MPI_Finalize", fn);
        return NULL;
    }
    return enc_mpi_comm_get(comm);
}

int enc_mpi_Comm_rank(const void *site, MPI_Comm comm, int *rank)
{
    int rv;
    struct enc_mpi_comm *c = comm_check("MPI_Comm_rank", comm, &rv);

    if (c != NULL)
        *rank = enc_mpi_comm_rank(c) - (c->inter != NULL ? c->inter->loff : 0);
    return rv;
}

int enc_mpi_Comm_size(const void *site, MPI_Comm comm, int *size)
{
    int rv;
    struct enc_mpi_comm *c = comm_check("MPI_Comm_size", comm, &rv);

    if (c != NULL)
        *size = c->inter != NULL ? c->inter->lsize : enc_mpi_comm_size(c);
    return rv;
}
