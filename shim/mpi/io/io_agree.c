/*
 * io_agree.c - the one collective MPI-IO's group operations use: an
 * allgather of (incarnation id, value) over the file's communicator.
 *
 * Recovery logs its result, so a restored rank repeating it gets the
 * values the survivors saw in the first run (same shared-pointer offsets),
 * and sees in its own slot the id of the incarnation that took part then,
 * which is how it knows the file already went through that step.
 */
#include "enc.h"

#include <stdlib.h>

#include <mpi.h>

#include "engine/layer.h"
#include "mpi/io/io.h"
#include "mpi/mpi_layer.h"

/* Differs between the first run of a rank and every restored copy (a
 * restart or a snapshot's fork takes the next incarnation number). */
static int64_t incarnation(void)
{
    return (int64_t)enc_engine_incarnation();
}

int enc_io_agree(const void *site, const char *fn, MPI_Comm comm, int64_t mine, int64_t *all,
                 int *replayed)
{
    struct enc_mpi_comm *c = enc_mpi_comm_get(comm);
    int n = enc_mpi_comm_size(c), me = enc_mpi_comm_rank(c);
    int64_t send[2] = {incarnation(), mine};
    int64_t *recv = malloc(sizeof *recv * 2 * (size_t)n);
    int rv;

    if (recv == NULL)
        return enc_mpi_raise(MPI_ERR_NO_MEM, "%s: cannot allocate %d ranks' values", fn, n);
    rv = enc_mpi_Allgather(site, send, 2, MPI_INT64_T, recv, 2, MPI_INT64_T, comm);
    if (rv == MPI_SUCCESS) {
        for (int i = 0; i < n; i++)
            all[i] = recv[2 * i + 1];
        *replayed = recv[2 * me] != send[0];
    }
    free(recv);
    return rv;
}
