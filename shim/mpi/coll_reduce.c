/* coll_reduce.c - MPI_Allreduce and MPI_Reduce on the encore world. */
#include "enc.h"

#include <mpi.h>

#include "engine/engine.h"
#include "mpi/mpi_layer.h"

/* Reductions need the element data itself: start of data, not of type. */
static const void *send_ptr(const void *sendbuf, MPI_Aint lb)
{
    return sendbuf == MPI_IN_PLACE ? NULL : (const char *)sendbuf + lb;
}

int enc_mpi_Allreduce(const void *site, const void *sendbuf, void *recvbuf, int count,
                      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    struct enc_mpi_reducer red;
    struct enc_callsig sig;
    enc_status_t status;
    int rv;

    if ((rv = enc_mpi_reducer_make("MPI_Allreduce", datatype, op, count, &red)) != 0)
        return rv;
    sig = enc_mpi_csig(enc_mpi_comm_get(comm), ENC_COLL_ALLREDUCE, 0, (uint64_t)count,
                       red.sig_dtype, red.sig_op, -1, site);
    status = enc_allreduce(send_ptr(sendbuf, red.lb), (char *)recvbuf + red.lb,
                           (size_t)count, &red.r, &sig);
    return status == ENC_OK ? MPI_SUCCESS : enc_mpi_engine_error("MPI_Allreduce", status);
}

int enc_mpi_Reduce(const void *site, const void *sendbuf, void *recvbuf, int count,
                   MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm)
{
    struct enc_mpi_comm *c = enc_mpi_comm_get(comm);
    struct enc_mpi_reducer red;
    struct enc_callsig sig;
    int me = enc_mpi_comm_rank(c);
    enc_status_t status;
    int rv;

    if (root < 0 || root >= enc_mpi_comm_size(c))
        return enc_mpi_raise(MPI_ERR_ROOT, "MPI_Reduce: root %d is not a rank of the "
                             "communicator (size %d)", root, enc_mpi_comm_size(c));
    if (sendbuf == MPI_IN_PLACE && me != root)
        return enc_mpi_raise(MPI_ERR_BUFFER, "MPI_Reduce: MPI_IN_PLACE is only valid "
                             "on the root");
    if ((rv = enc_mpi_reducer_make("MPI_Reduce", datatype, op, count, &red)) != 0)
        return rv;
    sig = enc_mpi_csig(c, ENC_COLL_REDUCE, 0, (uint64_t)count, red.sig_dtype, red.sig_op, root,
                       site);
    status = enc_reduce(send_ptr(sendbuf, red.lb),
                        me == root ? (char *)recvbuf + red.lb : NULL, (size_t)count, &red.r,
                        root, &sig);
    return status == ENC_OK ? MPI_SUCCESS : enc_mpi_engine_error("MPI_Reduce", status);
}
