/*
 * p2p_send.c - MPI_Send and its modes, blocking and nonblocking.
 *
 * Every send is buffered by encore (p2p.h): its payload is copied, so a
 * standard, buffered or ready send is complete when it returns, and its
 * request is complete at once; a synchronous one completes when the
 * receiver matched it.  A ready send is a standard one (the standard
 * allows it); a buffered one needs no attached buffer space, since encore
 * holds the copy itself (MPI_Buffer_attach/detach are the real MPI's).
 */
#include "enc.h"

#include <stdlib.h>

#include <mpi.h>

#include "engine/group.h"
#include "mpi/p2p/p2p_mpi.h"
#include "p2p/det_replica.h"

static void acked(struct enc_p2p_sync *s)
{
    struct enc_mpi_preq *r = (struct enc_mpi_preq *)(void *)((char *)s -
                                                             offsetof(struct enc_mpi_preq, sync));

    enc_mpi_preq_finish(r);
}

/* Checks and sends; *r (sync only) is the request waiting for the ACK,
 * with a reference for the caller; NULL after MPI_PROC_NULL. */
static int send_common(const char *fn, const void *buf, int count, MPI_Datatype type,
                       int dest, int tag, MPI_Comm comm, bool sync, bool blocking,
                       struct enc_mpi_preq **r)
{
    struct enc_mpi_pcomm c;
    const void *data;
    void *owned;
    size_t bytes;
    enc_status_t st;
    int rv;

    *r = NULL;
    if ((rv = enc_mpi_p2p_enter(fn, comm, &c)) != MPI_SUCCESS ||
        (rv = enc_mpi_p2p_check_peer(fn, &c, dest, false)) != MPI_SUCCESS ||
        (rv = enc_mpi_p2p_check_tag(fn, tag, false)) != MPI_SUCCESS ||
        (rv = enc_mpi_p2p_pack(fn, buf, count, type, &data, &owned, &bytes)) != MPI_SUCCESS)
        return rv;
    if (dest == MPI_PROC_NULL) {
        free(owned);
        return MPI_SUCCESS;
    }
    /* what this rank chose so far must survive its host before it tells anyone */
    enc_det_replica_flush(fn);
    if (sync && (*r = enc_mpi_preq_new(fn, comm, NULL, 0, MPI_BYTE)) == NULL) {
        free(owned);
        return enc_mpi_raise(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    if (sync) {
        (*r)->refs = 2;
        (*r)->sync.acked = acked;
    }
    /* attentive while it sends: a peer answering at once (a ping-pong)
     * need not ring this rank, which looks at its rings before it returns */
    enc_p2p_attend_begin();
    enc_p2p_lock();
    dest += c.peer_off; /* a remote group's rank, on an intercommunicator */
    st = enc_p2p_send(c.cid, c.rank, dest, enc_group_world_rank(c.g, dest), tag, data, bytes,
                      sync ? &(*r)->sync : NULL, blocking);
    enc_p2p_attend_end();
    enc_p2p_unlock();
    free(owned);
    if (st != ENC_OK && *r != NULL) {
        enc_mpi_preq_unref(*r);
        enc_mpi_preq_unref(*r);
        *r = NULL;
    }
    return st == ENC_OK ? MPI_SUCCESS : enc_mpi_engine_error(fn, st);
}

static int send_blocking(const char *fn, const void *buf, int count, MPI_Datatype type,
                         int dest, int tag, MPI_Comm comm, bool sync)
{
    struct enc_mpi_preq *r;
    int rv = send_common(fn, buf, count, type, dest, tag, comm, sync, true, &r);

    if (rv != MPI_SUCCESS || r == NULL)
        return rv;
    enc_p2p_lock();
    rv = enc_mpi_preq_wait(r);
    enc_p2p_unlock();
    enc_mpi_preq_unref(r);
    return rv;
}

/* The request of a send that is complete when it returns: the real MPI's
 * own request of a send to MPI_PROC_NULL, already complete, shared and
 * never allocated (Open MPI's empty request), instead of a generalized
 * request made and completed per send (an allocation, its completion and
 * its release: a tenth of a small Isend's time).  Its status is that of
 * a send, whose source and tag the standard leaves undefined. */
static int send_done(MPI_Request *request)
{
    int rv = enc_real_Isend(NULL, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_SELF, request);

    return rv == MPI_SUCCESS ? rv : enc_mpi_request_done(request);
}

static int send_nonblocking(const char *fn, const void *buf, int count, MPI_Datatype type,
                            int dest, int tag, MPI_Comm comm, bool sync, MPI_Request *request)
{
    struct enc_mpi_preq *r;
    int rv = send_common(fn, buf, count, type, dest, tag, comm, sync, false, &r);

    if (rv != MPI_SUCCESS)
        return rv;
    if (r == NULL)
        return send_done(request);
    enc_p2p_lock();
    rv = enc_mpi_preq_expose(r, request);
    if (rv == MPI_SUCCESS && r->done)
        PMPI_Grequest_complete(r->greq); /* acked before the handle existed */
    enc_p2p_unlock();
    enc_mpi_preq_unref(r);
    return rv;
}

int enc_mpi_p2p_send_blocking(const char *fn, const void *buf, int count, MPI_Datatype type,
                              int dest, int tag, MPI_Comm comm)
{
    return send_blocking(fn, buf, count, type, dest, tag, comm, false);
}

int enc_mpi_Send(const void *site, const void *buf, int count, MPI_Datatype datatype, int dest,
                 int tag, MPI_Comm comm)
{
    (void)site;
    return send_blocking("MPI_Send", buf, count, datatype, dest, tag, comm, false);
}

int enc_mpi_Bsend(const void *site, const void *buf, int count, MPI_Datatype datatype, int dest,
                  int tag, MPI_Comm comm)
{
    (void)site;
    return send_blocking("MPI_Bsend", buf, count, datatype, dest, tag, comm, false);
}

int enc_mpi_Rsend(const void *site, const void *ibuf, int count, MPI_Datatype datatype,
                  int dest, int tag, MPI_Comm comm)
{
    (void)site;
    return send_blocking("MPI_Rsend", ibuf, count, datatype, dest, tag, comm, false);
}

int enc_mpi_Ssend(const void *site, const void *buf, int count, MPI_Datatype datatype, int dest,
                  int tag, MPI_Comm comm)
{
    (void)site;
    return send_blocking("MPI_Ssend", buf, count, datatype, dest, tag, comm, true);
}

int enc_mpi_Isend(const void *site, const void *buf, int count, MPI_Datatype datatype, int dest,
                  int tag, MPI_Comm comm, MPI_Request *request)
{
    (void)site;
    return send_nonblocking("MPI_Isend", buf, count, datatype, dest, tag, comm, false, request);
}

int enc_mpi_Ibsend(const void *site, const void *buf, int count, MPI_Datatype datatype,
                   int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    (void)site;
    return send_nonblocking("MPI_Ibsend", buf, count, datatype, dest, tag, comm, false, request);
}

int enc_mpi_Irsend(const void *site, const void *buf, int count, MPI_Datatype datatype,
                   int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    (void)site;
    return send_nonblocking("MPI_Irsend", buf, count, datatype, dest, tag, comm, false, request);
}

int enc_mpi_Issend(const void *site, const void *buf, int count, MPI_Datatype datatype,
                   int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    (void)site;
    return send_nonblocking("MPI_Issend", buf, count, datatype, dest, tag, comm, true, request);
}
