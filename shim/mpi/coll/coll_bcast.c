/*
 * coll_bcast.c - MPI_Bcast and MPI_Barrier on the encore world.
 *
 * Broadcast data travels as bytes (ENC_SIG_DTYPE_BYTES, count in bytes):
 * MPI lets ranks describe the same data with different datatypes, so only
 * the byte count is comparable across ranks.
 */
#include "enc.h"

#include <mpi.h>

#include "engine/engine.h"
#include "mpi/inter/inter_coll.h"
#include "mpi/mpi_layer.h"

int enc_mpi_Bcast(const void *site, void *buffer, int count, MPI_Datatype datatype, int root,
                  MPI_Comm comm)
{
    if (enc_mpi_is_intercomm(comm))
        return enc_mpi_inter_bcast(site, buffer, count, datatype, root, comm);
    struct enc_mpi_comm *c = enc_mpi_comm_get(comm);
    struct enc_mpi_buf b;
    struct enc_callsig sig;
    int me = enc_mpi_comm_rank(c);
    enc_status_t status;
    int rv;

    if (root < 0 || root >= enc_mpi_comm_size(c))
        return enc_mpi_raise(MPI_ERR_ROOT, "MPI_Bcast: root %d is not a rank of the "
                             "communicator (size %d)", root, enc_mpi_comm_size(c));
    if ((rv = enc_mpi_buf_open("MPI_Bcast", buffer, count, datatype, me == root, &b)) != 0)
        return rv;
    sig = enc_mpi_csig(c, ENC_COLL_BCAST, 0, b.bytes, ENC_SIG_DTYPE_BYTES, ENC_SIG_OP_NONE, root,
                       site);
    status = enc_bcast(b.data, b.bytes, root, &sig);
    rv = enc_mpi_buf_close("MPI_Bcast", &b, buffer, count, datatype,
                           status == ENC_OK && me != root);
    if (status != ENC_OK)
        return enc_mpi_engine_error("MPI_Bcast", status);
    return rv;
}

int enc_mpi_Barrier(const void *site, MPI_Comm comm)
{
    struct enc_callsig sig = enc_mpi_csig(enc_mpi_comm_get(comm), ENC_COLL_BARRIER, 0, 0,
                                          ENC_SIG_DTYPE_BYTES, ENC_SIG_OP_NONE, -1, site);
    enc_status_t status = enc_barrier(&sig);

    return status == ENC_OK ? MPI_SUCCESS : enc_mpi_engine_error("MPI_Barrier", status);
}
