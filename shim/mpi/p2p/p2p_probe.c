/*
 * p2p_probe.c - MPI_Probe, Iprobe, Mprobe, Improbe, Mrecv and Imrecv.
 *
 * A matched probe takes the message out of the matching; its MPI_Message
 * handle is encore's own record of it (kept in a list, so MPI_Mrecv tells
 * it from the real MPI's messages, such as MPI_MESSAGE_NO_PROC, which go
 * to the real MPI).  These handles are C handles: Fortran's conversion of
 * them (MPI_Message_c2f) is not supported.
 */
#include "enc.h"

#include <stdlib.h>

#include <mpi.h>

#include "engine/engine.h"
#include "engine/layer.h"
#include "mpi/p2p/p2p_mpi.h"
#include "p2p/det_store.h"

struct pmsg {
    struct enc_p2p_msg *m;
    struct pmsg *next;
    MPI_Comm comm;
    int peer_off;           /* the communicator's (struct enc_mpi_pcomm) */
};

static struct pmsg *taken; /* matched by a probe, not yet received (the p2p lock) */

static void describe(const struct enc_p2p_msg *m, int peer_off, MPI_Status *status)
{
    if (status == MPI_STATUS_IGNORE)
        return;
    status->MPI_SOURCE = m->mm.src - peer_off;
    status->MPI_TAG = m->mm.tag; /* MPI_ERROR is left as it was, as the standard says */
    PMPI_Status_set_elements_x(status, MPI_BYTE, (MPI_Count)m->bytes);
    PMPI_Status_set_cancelled(status, 0);
}

/* One look (the p2p lock held): true when a message is there. */
static int look(const struct enc_mpi_pcomm *c, int source, int tag, bool take,
                MPI_Message *message, MPI_Status *status, const struct enc_p2p_msg **found)
{
    int src = source == MPI_ANY_SOURCE ? ENC_MATCH_ANY : c->peer_off + source;
    int tg = tag == MPI_ANY_TAG ? ENC_MATCH_ANY : tag;
    struct pmsg *p;

    *found = NULL;
    if (!take) {
        const struct enc_p2p_msg *m = enc_p2p_probe(c->cid, src, tg);

        if (m != NULL)
            describe(m, c->peer_off, status);
        *found = m;
        return MPI_SUCCESS;
    }
    if ((p = malloc(sizeof(*p))) == NULL)
        return enc_mpi_raise(MPI_ERR_NO_MEM, "MPI_Mprobe: out of memory");
    if ((p->m = enc_p2p_mprobe(c->cid, src, tg)) == NULL) {
        free(p);
        return MPI_SUCCESS;
    }
    describe(p->m, c->peer_off, status);
    p->comm = c->h;
    p->peer_off = c->peer_off;
    p->next = taken;
    taken = p;
    *message = (MPI_Message)(void *)p;
    *found = p->m;
    return MPI_SUCCESS;
}

/* A nonblocking probe's clock (det_store.h): a replayed NONE gives
 * *clock 0 (the probe answers "nothing"), a replayed MATCH narrows pat to
 * the recorded source and makes the probe wait for that message
 * (*wait); else the probe runs live and its outcome is recorded. */
static int iprobe_replay(const char *fn, struct enc_match_recv *pat, uint64_t cid,
                         uint64_t *clock, bool *wait)
{
    struct enc_det d;
    char rec[128];

    *clock = enc_det_store_tick();
    if (!enc_det_store_find(*clock, &d))
        return MPI_SUCCESS;
    if (d.kind == ENC_DET_NONE) {
        *clock = 0;
        return MPI_SUCCESS;
    }
    if (d.kind == ENC_DET_MATCH && d.cid == cid && enc_match_replay(pat, &d, false) == ENC_OK) {
        *wait = true;
        return MPI_SUCCESS;
    }
    enc_det_format(&d, rec, sizeof(rec));
    return enc_mpi_raise(MPI_ERR_OTHER, "%s: replay divergence: this probe (tag %d on "
                         "communicator %llx) was recorded as %s", fn, pat->tag,
                         (unsigned long long)cid, rec);
}

int enc_mpi_p2p_probe(const char *fn, int source, int tag, MPI_Comm comm, bool take,
                      bool wait, int *flag, MPI_Message *message, MPI_Status *status)
{
    uint64_t deadline = enc_deadline_ms(enc_engine_coll_timeout_ms());
    struct enc_match_recv pat = {.src = ENC_MATCH_ANY, .tag = tag};
    const struct enc_p2p_msg *found = NULL;
    struct enc_mpi_pcomm c;
    uint64_t clock = 0;
    int rv;

    *flag = 0;
    if ((rv = enc_mpi_p2p_recv_checks(fn, 0, source, tag, comm, &c)) != MPI_SUCCESS)
        return rv;
    if (source == MPI_PROC_NULL) {
        *flag = 1;
        if (take)
            *message = MPI_MESSAGE_NO_PROC;
        enc_mpi_p2p_null_status(status);
        return MPI_SUCCESS;
    }
    /* A blocking wildcard probe's outcome is recorded like a receive's;
     * a nonblocking probe's always (whether it found one, and which). */
    if ((wait && source == MPI_ANY_SOURCE) || (!wait && enc_det_store_on())) {
        pat.src = source == MPI_ANY_SOURCE ? ENC_MATCH_ANY : c.peer_off + source;
        pat.tag = tag == MPI_ANY_TAG ? ENC_MATCH_ANY : tag;
        if (!wait && (rv = iprobe_replay(fn, &pat, c.cid, &clock, &wait)) != MPI_SUCCESS)
            return rv;
        if (wait && clock == 0 &&
            (rv = enc_mpi_p2p_wildcard(fn, &pat, c.cid, &clock)) != MPI_SUCCESS)
            return rv;
        if (clock == 0) { /* a replayed "found nothing" */
            enc_mpi_complete_idle();
            return MPI_SUCCESS;
        }
        source = pat.src == ENC_MATCH_ANY ? MPI_ANY_SOURCE : pat.src - c.peer_off;
    }
    enc_p2p_lock();
    if (wait)
        enc_p2p_attend_begin();
    while ((rv = look(&c, source, tag, take, message, status, &found)) == MPI_SUCCESS &&
           found == NULL && wait)
        if (enc_mpi_p2p_sleep(deadline) != ENC_OK) {
            rv = enc_mpi_raise(MPI_ERR_OTHER, "%s: no message from rank %d (tag %d) within "
                               "ENCORE_COLL_TIMEOUT_MS", fn, source, tag);
            break;
        }
    if (wait)
        enc_p2p_attend_end();
    if (found != NULL)
        enc_mpi_p2p_matched(fn, clock, c.cid, found);
    else if (rv == MPI_SUCCESS && clock != 0)
        enc_det_store_none(clock);
    enc_p2p_unlock();
    *flag = found != NULL;
    if (rv == MPI_SUCCESS && found == NULL)
        enc_mpi_complete_idle();
    return rv;
}

int enc_mpi_Iprobe(const void *site, int source, int tag, MPI_Comm comm, int *flag,
                   MPI_Status *status)
{
    (void)site;
    return enc_mpi_p2p_probe("MPI_Iprobe", source, tag, comm, false, false, flag, NULL, status);
}

int enc_mpi_Probe(const void *site, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    int flag;

    (void)site;
    return enc_mpi_p2p_probe("MPI_Probe", source, tag, comm, false, true, &flag, NULL, status);
}

int enc_mpi_Mprobe(const void *site, int source, int tag, MPI_Comm comm, MPI_Message *message,
                   MPI_Status *status)
{
    int flag;

    (void)site;
    return enc_mpi_p2p_probe("MPI_Mprobe", source, tag, comm, true, true, &flag, message,
                             status);
}

int enc_mpi_Improbe(const void *site, int source, int tag, MPI_Comm comm, int *flag,
                    MPI_Message *message, MPI_Status *status)
{
    (void)site;
    return enc_mpi_p2p_probe("MPI_Improbe", source, tag, comm, true, false, flag, message,
                             status);
}

/* encore's message behind handle h, removed from the list (the p2p lock
 * held); NULL when h is not one. */
static struct pmsg *untake(MPI_Message h)
{
    for (struct pmsg **p = &taken; *p != NULL; p = &(*p)->next)
        if ((MPI_Message)(void *)*p == h) {
            struct pmsg *found = *p;

            *p = found->next;
            return found;
        }
    return NULL;
}

/* Receives a matched message: into a new request (Imrecv) or at once. */
static int mrecv(const char *fn, void *buf, int count, MPI_Datatype type, MPI_Message *message,
                 MPI_Status *status, MPI_Request *request, bool *mine)
{
    struct pmsg *p;
    struct enc_mpi_preq *r;
    int rv = MPI_SUCCESS;

    enc_p2p_lock();
    if ((p = untake(*message)) == NULL) {
        enc_p2p_unlock();
        *mine = false;
        return MPI_SUCCESS;
    }
    *mine = true;
    *message = MPI_MESSAGE_NULL;
    if ((r = enc_mpi_preq_new(fn, p->comm, buf, count, type)) == NULL) {
        enc_p2p_unlock();
        enc_p2p_msg_free(p->m);
        free(p);
        return enc_mpi_raise(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    r->refs = 2;
    r->peer_off = p->peer_off;
    if (request != NULL)
        rv = enc_mpi_preq_expose(r, request);
    enc_mpi_preq_deliver(&r->recv, p->m);
    enc_p2p_unlock();
    free(p);
    if (request == NULL)
        rv = enc_mpi_preq_status(r, status);
    enc_mpi_preq_unref(r);
    return rv;
}

int enc_mpi_Mrecv(const void *site, void *buf, int count, MPI_Datatype datatype,
                  MPI_Message *message, MPI_Status *status)
{
    bool mine = false;
    int rv;

    (void)site;
    if (message == NULL || !enc_p2p_started())
        return enc_real_Mrecv(buf, count, datatype, message, status);
    rv = mrecv("MPI_Mrecv", buf, count, datatype, message, status, NULL, &mine);
    return mine ? rv : enc_real_Mrecv(buf, count, datatype, message, status);
}

int enc_mpi_Imrecv(const void *site, void *buf, int count, MPI_Datatype datatype,
                   MPI_Message *message, MPI_Request *request)
{
    bool mine = false;
    int rv;

    (void)site;
    if (message == NULL || !enc_p2p_started())
        return enc_real_Imrecv(buf, count, datatype, message, request);
    rv = mrecv("MPI_Imrecv", buf, count, datatype, message, MPI_STATUS_IGNORE, request, &mine);
    return mine ? rv : enc_real_Imrecv(buf, count, datatype, message, request);
}
