/*
 * p2p_recv.c - MPI_Recv, Irecv, Sendrecv and Sendrecv_replace on encore
 * communicators.
 */
#include "enc.h"

#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "engine/engine.h"
#include "engine/layer.h"
#include "mpi/p2p/p2p_mpi.h"

int enc_mpi_p2p_recv_checks(const char *fn, int count, int source, int tag, MPI_Comm comm,
                       struct enc_mpi_pcomm *c)
{
    int rv;

    if ((rv = enc_mpi_p2p_enter(fn, comm, c)) != MPI_SUCCESS ||
        (rv = enc_mpi_p2p_check_peer(fn, c, source, true)) != MPI_SUCCESS ||
        (rv = enc_mpi_p2p_check_tag(fn, tag, true)) != MPI_SUCCESS)
        return rv;
    if (count < 0)
        return enc_mpi_raise(MPI_ERR_COUNT, "%s: negative count %d", fn, count);
    return MPI_SUCCESS;
}

/* What r receives: source and tag, narrowed by a recorded outcome. */
int enc_mpi_p2p_target(struct enc_mpi_preq *r, const struct enc_mpi_pcomm *c, int source,
                       int tag)
{
    r->is_recv = true;
    r->recv.cid = c->cid;
    r->peer_off = c->peer_off;
    r->recv.mr.src = source == MPI_ANY_SOURCE ? ENC_MATCH_ANY : c->peer_off + source;
    r->recv.mr.tag = tag == MPI_ANY_TAG ? ENC_MATCH_ANY : tag;
    enc_mpi_p2p_direct(r);
    return enc_mpi_p2p_recv_clock(r, c->cid);
}

/* Posts a receive (the p2p lock held); *out has a reference for the caller. */
static int post(const char *fn, void *buf, int count, MPI_Datatype type, int source, int tag,
                const struct enc_mpi_pcomm *c, struct enc_mpi_preq **out)
{
    struct enc_mpi_preq *r = enc_mpi_preq_new(fn, c->h, buf, count, type);
    enc_status_t st;
    int rv;

    if (r == NULL)
        return enc_mpi_raise(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    r->refs = 2;
    if ((rv = enc_mpi_p2p_target(r, c, source, tag)) != MPI_SUCCESS) {
        free(r);
        return rv;
    }
    if ((st = enc_p2p_post(&r->recv)) != ENC_OK) {
        free(r);
        return enc_mpi_engine_error(fn, st);
    }
    *out = r;
    return MPI_SUCCESS;
}

static int recv_blocking(const char *fn, void *buf, int count, MPI_Datatype type, int source,
                         int tag, MPI_Comm comm, MPI_Status *status)
{
    struct enc_mpi_pcomm c;
    struct enc_mpi_preq *r = NULL;
    int rv;

    if ((rv = enc_mpi_p2p_recv_checks(fn, count, source, tag, comm, &c)) != MPI_SUCCESS)
        return rv;
    if (source == MPI_PROC_NULL) {
        enc_mpi_p2p_null_status(status);
        return MPI_SUCCESS;
    }
    enc_p2p_attend_begin(); /* from the post on, as a wait (p2p.h) */
    enc_p2p_lock();
    if ((rv = post(fn, buf, count, type, source, tag, &c, &r)) == MPI_SUCCESS &&
        (rv = enc_mpi_preq_wait(r)) != MPI_SUCCESS && enc_p2p_cancel(&r->recv))
        enc_mpi_preq_unref(r); /* the operation's reference: it never ends now */
    enc_p2p_attend_end();
    enc_p2p_unlock();
    if (rv != MPI_SUCCESS)
        return rv;
    rv = enc_mpi_preq_status(r, status);
    enc_mpi_preq_unref(r);
    return rv;
}

int enc_mpi_Recv(const void *site, void *buf, int count, MPI_Datatype datatype, int source,
                 int tag, MPI_Comm comm, MPI_Status *status)
{
    (void)site;
    return recv_blocking("MPI_Recv", buf, count, datatype, source, tag, comm, status);
}

/* A request that is complete at once with a receive's status. */
static int done_request(const char *fn, MPI_Comm comm, MPI_Request *request)
{
    struct enc_mpi_preq *r = enc_mpi_preq_new(fn, comm, NULL, 0, MPI_BYTE);
    int rv;

    if (r == NULL)
        return enc_mpi_raise(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    r->source = MPI_PROC_NULL;
    enc_p2p_lock(); /* the list of exposed requests is the lock's */
    if ((rv = enc_mpi_preq_expose(r, request)) == MPI_SUCCESS)
        enc_mpi_preq_finish(r);
    else
        enc_mpi_preq_unref(r);
    enc_p2p_unlock();
    return rv;
}

/* MPI_Irecv, its errors naming fn (MPI_Sendrecv's too). */
static int irecv(const char *fn, void *buf, int count, MPI_Datatype datatype, int source,
                 int tag, MPI_Comm comm, MPI_Request *request)
{
    struct enc_mpi_pcomm c;
    struct enc_mpi_preq *r;
    int rv;

    if ((rv = enc_mpi_p2p_recv_checks(fn, count, source, tag, comm, &c)) != MPI_SUCCESS)
        return rv;
    if (source == MPI_PROC_NULL)
        return done_request(fn, comm, request);
    enc_p2p_lock();
    /* The handle exists before the receive can match (then it completes it). */
    if ((r = enc_mpi_preq_new(fn, comm, buf, count, datatype)) == NULL) {
        enc_p2p_unlock();
        return enc_mpi_raise(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    r->nonblocking = true;
    if ((rv = enc_mpi_p2p_target(r, &c, source, tag)) != MPI_SUCCESS) {
        enc_mpi_preq_unref(r);
        enc_p2p_unlock();
        return rv;
    }
    if ((rv = enc_mpi_preq_expose(r, request)) == MPI_SUCCESS &&
        enc_p2p_post(&r->recv) != ENC_OK) {
        rv = enc_mpi_raise(MPI_ERR_NO_MEM, "%s: out of memory", fn);
        enc_mpi_preq_finish(r);
    }
    enc_p2p_unlock();
    return rv;
}

int enc_mpi_Irecv(const void *site, void *buf, int count, MPI_Datatype datatype, int source,
                  int tag, MPI_Comm comm, MPI_Request *request)
{
    (void)site;
    return irecv("MPI_Irecv", buf, count, datatype, source, tag, comm, request);
}

/* MPI_Sendrecv, its errors naming fn (MPI_Sendrecv_replace's too). */
static int sendrecv(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    int dest, int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                    int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    MPI_Request req;
    int rv;

    /* The receive is posted first, so a message to oneself finds it. */
    if ((rv = irecv(fn, recvbuf, recvcount, recvtype, source, recvtag, comm, &req)) !=
        MPI_SUCCESS)
        return rv;
    if ((rv = enc_mpi_p2p_send_blocking(fn, sendbuf, sendcount, sendtype, dest, sendtag,
                                        comm)) != MPI_SUCCESS) {
        PMPI_Cancel(&req);
        PMPI_Request_free(&req);
        return rv;
    }
    return PMPI_Wait(&req, status);
}

int enc_mpi_Sendrecv(const void *site, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                     int dest, int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                     int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    (void)site;
    return sendrecv("MPI_Sendrecv", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                    recvcount, recvtype, source, recvtag, comm, status);
}

int enc_mpi_Sendrecv_replace(const void *site, void *buf, int count, MPI_Datatype datatype,
                             int dest, int sendtag, int source, int recvtag, MPI_Comm comm,
                             MPI_Status *status)
{
    const void *data;
    void *owned;
    size_t bytes;
    int rv;

    /* The send side is copied first: the receive overwrites the buffer. */
    if ((rv = enc_mpi_p2p_pack("MPI_Sendrecv_replace", buf, count, datatype, &data, &owned,
                               &bytes)) != MPI_SUCCESS)
        return rv;
    if (owned == NULL && bytes > 0) {
        if ((owned = malloc(bytes)) == NULL)
            return enc_mpi_raise(MPI_ERR_NO_MEM, "MPI_Sendrecv_replace: out of memory");
        memcpy(owned, data, bytes);
    }
    (void)site;
    rv = sendrecv("MPI_Sendrecv_replace", owned, (int)bytes, MPI_PACKED, dest, sendtag, buf,
                  count, datatype, source, recvtag, comm, status);
    free(owned);
    return rv;
}
