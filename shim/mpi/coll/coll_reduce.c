/*
 * coll_reduce.c - MPI_Allreduce and MPI_Reduce on the encore world and the
 * communicators derived from it.  The engine reduces elements back to back:
 * a user op's non-contiguous datatype is packed first and the result
 * unpacked (buffer.c); anything else is used in place (a predefined pair
 * type's padding is the kernel's element size).
 */
#include "enc.h"

#include <mpi.h>

#include "engine/engine.h"
#include "mpi/inter/inter_coll.h"
#include "mpi/mpi_layer.h"

/* The engine's view of the send and receive buffers (recvbuf NULL: none;
 * MPI_IN_PLACE: the input is in recvbuf). */
static int open_bufs(const char *fn, const struct enc_mpi_reducer *red, const void *sendbuf,
                     void *recvbuf, int count, MPI_Datatype t, struct enc_mpi_buf *sb,
                     struct enc_mpi_buf *rb)
{
    int rv;

    *sb = *rb = (struct enc_mpi_buf){0};
    if (!red->packed) { /* the data starts at the true lower bound */
        sb->data = sendbuf == MPI_IN_PLACE ? NULL : (char *)sendbuf + red->lb;
        rb->data = recvbuf ? (char *)recvbuf + red->lb : NULL;
        return MPI_SUCCESS;
    }
    if (sendbuf != MPI_IN_PLACE &&
        (rv = enc_mpi_buf_open(fn, (void *)sendbuf, count, t, 1, sb)) != MPI_SUCCESS)
        return rv;
    if (recvbuf != NULL &&
        (rv = enc_mpi_buf_open(fn, recvbuf, count, t, sendbuf == MPI_IN_PLACE, rb)) !=
            MPI_SUCCESS) {
        enc_mpi_buf_close(fn, sb, (void *)sendbuf, count, t, 0);
        return rv;
    }
    return MPI_SUCCESS;
}

/* Closes both views; the result reaches recvbuf when the reduction ran. */
static int close_bufs(const char *fn, const void *sendbuf, void *recvbuf, int count,
                      MPI_Datatype t, struct enc_mpi_buf *sb, struct enc_mpi_buf *rb,
                      enc_status_t status)
{
    int rv;

    enc_mpi_buf_close(fn, sb, (void *)sendbuf, count, t, 0);
    rv = recvbuf ? enc_mpi_buf_close(fn, rb, recvbuf, count, t, status == ENC_OK)
                 : MPI_SUCCESS;
    if (status != ENC_OK)
        return enc_mpi_engine_error(fn, status);
    return rv;
}

int enc_mpi_Allreduce(const void *site, const void *sendbuf, void *recvbuf, int count,
                      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    if (enc_mpi_is_intercomm(comm))
        return enc_mpi_inter_allreduce(site, sendbuf, recvbuf, count, datatype, op, comm);
    const char *fn = "MPI_Allreduce";
    struct enc_mpi_reducer red;
    struct enc_mpi_buf sb, rb;
    struct enc_callsig sig;
    enc_status_t status;
    int rv;

    if ((rv = enc_mpi_reducer_make(fn, datatype, op, count, &red)) != 0 ||
        (rv = open_bufs(fn, &red, sendbuf, recvbuf, count, datatype, &sb, &rb)) != 0)
        return rv;
    sig = enc_mpi_csig(enc_mpi_comm_get(comm), ENC_COLL_ALLREDUCE, 0, (uint64_t)count,
                       red.sig_dtype, red.sig_op, -1, site);
    status = enc_allreduce(sendbuf == MPI_IN_PLACE ? NULL : sb.data, rb.data, (size_t)count,
                           &red.r, &sig);
    return close_bufs(fn, sendbuf, recvbuf, count, datatype, &sb, &rb, status);
}

int enc_mpi_Reduce(const void *site, const void *sendbuf, void *recvbuf, int count,
                   MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm)
{
    if (enc_mpi_is_intercomm(comm))
        return enc_mpi_inter_reduce(site, sendbuf, recvbuf, count, datatype, op, root, comm);
    const char *fn = "MPI_Reduce";
    struct enc_mpi_comm *c = enc_mpi_comm_get(comm);
    struct enc_mpi_reducer red;
    struct enc_mpi_buf sb, rb;
    struct enc_callsig sig;
    int me = enc_mpi_comm_rank(c);
    void *rbuf = me == root ? recvbuf : NULL;
    enc_status_t status;
    int rv;

    if (root < 0 || root >= enc_mpi_comm_size(c))
        return enc_mpi_raise(MPI_ERR_ROOT, "MPI_Reduce: root %d is not a rank of the "
                             "communicator (size %d)", root, enc_mpi_comm_size(c));
    if (sendbuf == MPI_IN_PLACE && me != root)
        return enc_mpi_raise(MPI_ERR_BUFFER, "MPI_Reduce: MPI_IN_PLACE is only valid "
                             "on the root");
    if ((rv = enc_mpi_reducer_make(fn, datatype, op, count, &red)) != 0 ||
        (rv = open_bufs(fn, &red, sendbuf, rbuf, count, datatype, &sb, &rb)) != 0)
        return rv;
    sig = enc_mpi_csig(c, ENC_COLL_REDUCE, 0, (uint64_t)count, red.sig_dtype, red.sig_op, root,
                       site);
    status = enc_reduce(sendbuf == MPI_IN_PLACE ? NULL : sb.data, rbuf ? rb.data : NULL,
                        (size_t)count, &red.r, root, &sig);
    return close_bufs(fn, sendbuf, rbuf, count, datatype, &sb, &rb, status);
}
