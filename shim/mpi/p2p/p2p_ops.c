/*
 * p2p_ops.c - what every point-to-point entry shares: argument checks,
 * packing with the real MPI, and requests.
 *
 * A nonblocking operation's request is a generalized request of the real
 * MPI, completed when the operation ends (by the thread that made the
 * match or read the acknowledgement), so MPI_Wait, Test, their array
 * forms, Request_get_status and Request_free are the real MPI's and mix
 * point-to-point requests with nonblocking collectives' and the real
 * MPI's own.  Two references keep a request's memory: the operation
 * (dropped when it ends) and the handle (dropped by the real MPI's free
 * callback, when the application completed or freed the request), so a
 * receive freed while posted still lands, as the standard says.
 */
#include "enc.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "engine/engine.h"
#include "engine/layer.h"
#include "engine/group.h"
#include "mpi/inter/inter.h"
#include "mpi/p2p/p2p_mpi.h"
#include "p2p/det_store.h"
#include "p2p/kept.h"
#include "mpi/coll/turn_queue.h"
#include "recovery/recovery.h"

/* A snapshot at this call's entry (docs/p2p.md, 7): a boundary between
 * two calls of the program, taken inside the MPI layer's serial section
 * (its turn, and counted as inside MPI) as a collective's is.  Not from a thread other than the one that called
 * MPI_Init when several call MPI (the snapshot's own checks skip it). */
static ENC_HOT_TLS int boundary_held; /* inside MPI_Start(all): not a boundary */

void enc_mpi_p2p_hold_boundary(bool hold) { boundary_held += hold ? 1 : -1; }

static void call_boundary(void)
{
    enc_mpi_serial_enter(MPI_COMM_NULL);
    enc_recovery_call_boundary();
    enc_mpi_serial_leave();
}

int enc_mpi_p2p_enter(const char *fn, MPI_Comm comm, struct enc_mpi_pcomm *c)
{
    struct enc_mpi_comm *e;
    enc_status_t rv;

    if (!enc_mpi_world_ready())
        return enc_mpi_raise(MPI_ERR_COMM, "%s before MPI_Init or after MPI_Finalize", fn);
    if ((e = enc_mpi_comm_get(comm)) == NULL)
        return enc_mpi_raise(MPI_ERR_COMM, "%s: invalid communicator", fn);
    if (!enc_p2p_announced() && (rv = enc_p2p_start()) != ENC_OK)
        return enc_mpi_engine_error(fn, rv);
    if (boundary_held == 0 && enc_recovery_snapshot_due())
        call_boundary();
    c->h = comm;
    c->g = e->g;
    c->cid = enc_group_cid(e->g);
    c->rank = enc_mpi_comm_rank(e);
    c->size = enc_mpi_comm_size(e);
    c->peers = e->inter != NULL ? e->inter->rsize : c->size;
    c->peer_off = e->inter != NULL ? e->inter->roff : 0;
    return MPI_SUCCESS;
}

/* The record of kind an earlier incarnation made at clock: true and *d. */
static bool recorded_kind(uint64_t clock, enum enc_det_kind kind, struct enc_det *d)
{
    struct enc_det all[4];
    size_t n = enc_det_store_find_all(clock, all, 4);

    for (size_t i = 0; i < n && i < 4; i++)
        if (all[i].kind == kind) {
            *d = all[i];
            return true;
        }
    return false;
}

int enc_mpi_p2p_wildcard(const char *fn, struct enc_match_recv *mr, uint64_t cid,
                         uint64_t *clock)
{
    struct enc_det d;
    char rec[128];

    *clock = enc_det_store_tick();
    if (!enc_det_store_find(*clock, &d) || (d.kind == ENC_DET_CANCEL && d.seq == 1))
        return MPI_SUCCESS; /* live, or a receive cancelled before it matched */
    if (recorded_kind(*clock, ENC_DET_MATCH, &d) && d.cid == cid &&
        enc_match_replay(mr, &d, false) == ENC_OK)
        return MPI_SUCCESS;
    enc_det_format(&d, rec, sizeof(rec));
    return enc_mpi_raise(MPI_ERR_OTHER, "%s: replay divergence: this MPI_ANY_SOURCE call "
                         "(tag %d on communicator %llx) was recorded as %s", fn, mr->tag,
                         (unsigned long long)cid, rec);
}

int enc_mpi_p2p_recv_clock(struct enc_mpi_preq *r, uint64_t cid)
{
    struct enc_det d;
    int rv = MPI_SUCCESS;

    if (r->recv.mr.src == ENC_MATCH_ANY) {
        rv = enc_mpi_p2p_wildcard(r->fn, &r->recv.mr, cid, &r->clock);
        r->cancel_clock = r->clock;
    } else if (r->nonblocking && enc_det_store_on()) {
        r->cancel_clock = enc_det_store_tick();
    }
    if (rv != MPI_SUCCESS || !r->nonblocking || r->cancel_clock == 0 ||
        !recorded_kind(r->cancel_clock, ENC_DET_CANCEL, &d) || d.seq != 1)
        return rv;
    /* Cancelled by the first run before anything matched it: held, pinned
     * to a message that never comes, until its MPI_Cancel. */
    r->recv.mr.src = 0;
    r->recv.mr.tag = ENC_MATCH_ANY;
    r->recv.mr.pin = UINT64_MAX;
    r->clock = 0;
    return MPI_SUCCESS;
}

void enc_mpi_p2p_matched(const char *fn, uint64_t clock, uint64_t cid,
                         const struct enc_p2p_msg *m)
{
    struct enc_det d, now;
    char was[128], got[128], msg[400];

    if (clock == 0)
        return;
    enc_match_det(&now, (uint32_t)enc_engine_rank(), clock, cid, &m->mm);
    if (!recorded_kind(clock, ENC_DET_MATCH, &d)) {
        enc_det_store_record(&now);
        return;
    }
    if (enc_match_replayed_ok(&d, &m->mm))
        return;
    enc_det_format(&d, was, sizeof(was));
    enc_det_format(&now, got, sizeof(got));
    snprintf(msg, sizeof(msg), "%s: replay divergence: MPI_ANY_SOURCE matched %s, first %s",
             fn, got, was);
    ENC_ERROR("p2p", "%s", msg);
    enc_engine_abort(1, msg);
}

int enc_mpi_p2p_check_peer(const char *fn, const struct enc_mpi_pcomm *c, int peer, bool recv)
{
    if (peer == MPI_PROC_NULL || (recv && peer == MPI_ANY_SOURCE) ||
        (peer >= 0 && peer < c->peers))
        return MPI_SUCCESS;
    return enc_mpi_raise(MPI_ERR_RANK, "%s: invalid rank %d (the %s has %d ranks)", fn, peer,
                         c->peers != c->size ? "remote group" : "communicator",
                         c->peers);
}

static int tag_ub(void)
{
    static int ub;
    int *v = NULL, flag = 0;

    if (ub == 0 && PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag) == MPI_SUCCESS &&
        flag && v != NULL)
        ub = *v;
    return ub > 0 ? ub : INT_MAX;
}

int enc_mpi_p2p_check_tag(const char *fn, int tag, bool recv)
{
    if ((recv && tag == MPI_ANY_TAG) || (tag >= 0 && tag <= tag_ub()))
        return MPI_SUCCESS;
    return enc_mpi_raise(MPI_ERR_TAG, "%s: invalid tag %d (tags are 0..%d%s)", fn, tag,
                         tag_ub(), recv ? " or MPI_ANY_TAG" : "");
}

int enc_mpi_p2p_pack(const char *fn, const void *buf, int count, MPI_Datatype type,
                     const void **data, void **owned, size_t *bytes)
{
    struct enc_mpi_layout l;
    int rv, size = 0, pos = 0;

    *owned = NULL;
    if ((rv = enc_mpi_p2p_layout(fn, type, count, &l)) != MPI_SUCCESS)
        return rv;
    *bytes = l.size * (size_t)count;
    if (l.contiguous || *bytes == 0) {
        *data = (const char *)buf + l.lb;
        enc_recovery_note_buffer(*data, *bytes);
        return MPI_SUCCESS;
    }
    if (enc_real_Pack_size(count, type, MPI_COMM_SELF, &size) != MPI_SUCCESS ||
        (*owned = malloc((size_t)size)) == NULL ||
        enc_real_Pack(buf, count, type, *owned, size, &pos, MPI_COMM_SELF) != MPI_SUCCESS) {
        free(*owned);
        *owned = NULL;
        return enc_mpi_raise(MPI_ERR_TYPE, "%s: the real MPI could not pack %d elements of "
                             "the datatype", fn, count);
    }
    *data = *owned;
    *bytes = (size_t)pos;
    return MPI_SUCCESS;
}

int enc_mpi_p2p_hold_type(MPI_Datatype t, MPI_Datatype *held)
{
    int ni, na, nd, combiner;

    *held = t;
    if (t == MPI_DATATYPE_NULL || enc_mpi_p2p_type_predefined(t) ||
        PMPI_Type_get_envelope(t, &ni, &na, &nd, &combiner) != MPI_SUCCESS ||
        combiner == MPI_COMBINER_NAMED)
        return MPI_SUCCESS;
    return PMPI_Type_dup(t, held); /* the application may free its handle meanwhile */
}

/* Requests freed by this thread, kept for its next ones (p2p/kept.h): a
 * receive's request is allocated and zeroed, then freed, once per message
 * (a third of a small blocking receive's own instructions were calloc
 * and free). */
static __thread struct enc_p2p_kept kept;

static struct enc_mpi_preq *preq_alloc(void)
{
    struct enc_mpi_preq *r = enc_p2p_kept_get(&kept);

    if (r == NULL)
        return calloc(1, sizeof(*r));
    memset(r, 0, sizeof(*r));
    return r;
}

static void preq_release(struct enc_mpi_preq *r) { enc_p2p_kept_put(&kept, r); }

struct enc_mpi_preq *enc_mpi_preq_new(const char *fn, MPI_Comm comm, void *buf, int count,
                                      MPI_Datatype type)
{
    struct enc_mpi_preq *r = preq_alloc();

    if (r == NULL)
        return NULL;
    r->fn = fn;
    r->comm = comm;
    r->greq = MPI_REQUEST_NULL;
    r->buf = buf;
    r->count = count;
    r->user_type = type;
    r->refs = 1;
    r->source = MPI_ANY_SOURCE;
    r->tag = MPI_ANY_TAG;
    r->recv.deliver = enc_mpi_preq_deliver;
    if (enc_mpi_p2p_hold_type(type, &r->type) != MPI_SUCCESS) {
        preq_release(r);
        return NULL;
    }
    return r;
}

void enc_mpi_preq_unref(struct enc_mpi_preq *r)
{
    if (__atomic_sub_fetch(&r->refs, 1, __ATOMIC_ACQ_REL) > 0)
        return;
    if (r->type != r->user_type)
        PMPI_Type_free(&r->type);
    preq_release(r);
}

static int query(void *extra, MPI_Status *status)
{
    struct enc_mpi_preq *r = extra;

    (void)__atomic_load_n(&r->done, __ATOMIC_ACQUIRE);
    if (status != MPI_STATUS_IGNORE)
        status->MPI_ERROR = r->error; /* the array forms report it */
    return enc_mpi_preq_status(r, status);
}

/* No lock: the real MPI may call it inside PMPI_Grequest_complete, which
 * enc_mpi_preq_finish calls holding the p2p lock. */
static int release(void *extra)
{
    enc_mpi_preq_unref(extra);
    return MPI_SUCCESS;
}

/* MPI_Cancel: a receive not yet matched is removed and completes as
 * cancelled; a send has been delivered (buffered) and cannot be (the
 * standard allows a cancel to fail: MPI_Test_cancelled says false).  A
 * nonblocking receive's outcome is a determinant (CANCEL at the clock
 * its post took, recorded before MPI_Cancel returns): a replay that
 * recorded "matched before" waits for the match instead of cancelling,
 * and one recorded "cancelled" was held since its post (never matched). */
static int cancel(void *extra, int complete)
{
    struct enc_mpi_preq *r = extra;
    struct enc_det d;

    if (!r->is_recv)
        return MPI_SUCCESS;
    enc_p2p_lock();
    if (!complete && r->cancel_clock != 0 &&
        recorded_kind(r->cancel_clock, ENC_DET_CANCEL, &d) && d.seq == 0)
        (void)enc_mpi_preq_wait(r); /* bounded; an error is the wait's one line */
    if (!complete && !r->done && enc_p2p_cancel(&r->recv)) {
        r->cancelled = true;
        enc_mpi_preq_finish(r);
    }
    if (r->cancel_clock != 0) {
        d = (struct enc_det){.kind = ENC_DET_CANCEL, .clock = r->cancel_clock,
                             .cid = r->recv.cid, .seq = r->cancelled};
        enc_det_store_record(&d);
    }
    enc_p2p_unlock();
    return MPI_SUCCESS;
}

/* Exposed requests not yet ended (the p2p lock). */
static struct enc_mpi_preq *exposed;

struct enc_mpi_preq *enc_mpi_preq_find(MPI_Request h)
{
    for (struct enc_mpi_preq *r = exposed; r != NULL; r = r->next)
        if (r->greq == h)
            return r;
    return NULL;
}

int enc_mpi_preq_detach(MPI_Request *request)
{
    struct enc_mpi_preq *r;

    if (request == NULL || *request == MPI_REQUEST_NULL || !enc_p2p_started())
        return 0;
    enc_p2p_lock();
    if ((r = enc_mpi_preq_find(*request)) != NULL) {
        r->detached = true;
        *request = MPI_REQUEST_NULL;
    }
    enc_p2p_unlock();
    return r != NULL;
}

static void unlink_exposed(struct enc_mpi_preq *r)
{
    if (r->prev != NULL)
        r->prev->next = r->next;
    else if (exposed == r)
        exposed = r->next;
    if (r->next != NULL)
        r->next->prev = r->prev;
    r->prev = r->next = NULL;
}

int enc_mpi_preq_expose(struct enc_mpi_preq *r, MPI_Request *request)
{
    int rv;

    __atomic_add_fetch(&r->refs, 1, __ATOMIC_ACQ_REL);
    if ((rv = PMPI_Grequest_start(query, release, cancel, r, &r->greq)) != MPI_SUCCESS) {
        __atomic_sub_fetch(&r->refs, 1, __ATOMIC_ACQ_REL);
        return enc_mpi_raise(rv, "%s: the real MPI could not make a request", r->fn);
    }
    *request = r->greq;
    if (!r->done) {
        r->next = exposed;
        if (exposed != NULL)
            exposed->prev = r;
        exposed = r;
    }
    return MPI_SUCCESS;
}

void enc_mpi_preq_finish(struct enc_mpi_preq *r)
{
    MPI_Request g = r->greq;

    bool detached = r->detached;

    unlink_exposed(r);
    __atomic_store_n(&r->done, true, __ATOMIC_RELEASE);
    enc_mpi_complete_event_locked();
    if (g != MPI_REQUEST_NULL)
        PMPI_Grequest_complete(g);
    if (g != MPI_REQUEST_NULL && detached)
        enc_real_Request_free(&g); /* the application freed its handle before the end */
    enc_mpi_preq_unref(r);
}

/* The layout of r's (type, count), asked of the real MPI (three calls)
 * once per receive: at its post, for the direct read, and kept for its
 * delivery.  An error is raised each time it is asked. */
static int req_layout(struct enc_mpi_preq *r, struct enc_mpi_layout *l)
{
    int rv;

    if (r->has_layout) {
        *l = r->layout;
        return MPI_SUCCESS;
    }
    if ((rv = enc_mpi_p2p_layout(r->fn, r->type, r->count, l)) != MPI_SUCCESS)
        return rv;
    r->layout = *l;
    r->has_layout = true;
    return MPI_SUCCESS;
}

void enc_mpi_p2p_direct(struct enc_mpi_preq *r)
{
    struct enc_mpi_layout l;

    r->recv.direct = NULL;
    r->recv.direct_cap = 0;
    if (r->buf == NULL || r->count <= 0 || req_layout(r, &l) != MPI_SUCCESS || !l.contiguous)
        return;
    r->recv.direct = (char *)r->buf + l.lb;
    r->recv.direct_cap = l.size * (size_t)r->count;
    enc_recovery_note_buffer(r->recv.direct, r->recv.direct_cap);
}

/* Unpacks n bytes of m into r's buffer. */
static int unpack(struct enc_mpi_preq *r, const struct enc_p2p_msg *m, size_t n)
{
    struct enc_mpi_layout l;
    int pos = 0;

    if (n == 0 || m->direct_to == &r->recv) /* read into the buffer already */
        return MPI_SUCCESS;
    if (req_layout(r, &l) != MPI_SUCCESS)
        return MPI_ERR_TYPE;
    if (l.contiguous) {
        memcpy((char *)r->buf + l.lb, m->data, n);
        return MPI_SUCCESS;
    }
    if (enc_real_Unpack(m->data, (int)n, &pos, r->buf, (int)(n / l.size), r->type,
                        MPI_COMM_SELF) != MPI_SUCCESS)
        return enc_mpi_raise(MPI_ERR_TYPE, "%s: the real MPI could not unpack the message",
                             r->fn);
    return MPI_SUCCESS;
}

void enc_mpi_preq_deliver(struct enc_p2p_recv *rv, struct enc_p2p_msg *m)
{
    struct enc_mpi_preq *r = (struct enc_mpi_preq *)(void *)rv; /* recv is the first member */
    struct enc_mpi_layout l;
    size_t cap = 0;

    if (req_layout(r, &l) == MPI_SUCCESS)
        cap = l.size * (size_t)r->count;
    enc_mpi_p2p_matched(r->fn, r->clock, r->recv.cid, m);
    r->source = m->mm.src - r->peer_off;
    r->tag = m->mm.tag;
    r->bytes = ENC_MIN(m->bytes, cap);
    r->error = unpack(r, m, r->bytes);
    if (m->bytes > cap) {
        MPI_Comm saved = enc_mpi_errcomm_enter(r->comm);

        r->error = enc_mpi_raise(MPI_ERR_TRUNCATE, "%s: a message of %zu bytes from rank %d "
                                 "(tag %d) does not fit the receive buffer of %zu bytes",
                                 r->fn, m->bytes, r->source, m->mm.tag, cap);
        enc_mpi_errcomm_leave(saved);
    }
    enc_p2p_msg_free(m);
    enc_mpi_preq_finish(r);
}

int enc_mpi_preq_status(const struct enc_mpi_preq *r, MPI_Status *status)
{
    if (status == MPI_STATUS_IGNORE)
        return r->error;
    status->MPI_SOURCE = r->source;
    status->MPI_TAG = r->tag;
    PMPI_Status_set_elements_x(status, MPI_BYTE, (MPI_Count)r->bytes);
    PMPI_Status_set_cancelled(status, r->cancelled);
    return r->error;
}

void enc_mpi_p2p_null_status(MPI_Status *status)
{
    if (status == MPI_STATUS_IGNORE)
        return;
    status->MPI_SOURCE = MPI_PROC_NULL;
    status->MPI_TAG = MPI_ANY_TAG;
    PMPI_Status_set_elements_x(status, MPI_BYTE, 0);
    PMPI_Status_set_cancelled(status, 0);
}

/* How long a point-to-point wait sleeps before it looks at the tracker
 * and the log service. */
#define FOLLOW_MS 10

/* A death or a restart announced by the tracker is followed from inside
 * point-to-point waits as from collectives (the restarted rank's world
 * needs every survivor to regroup), and the log service is served (the
 * restarted rank replays collectives from survivors' logs). */
void enc_mpi_p2p_follow(void)
{
    enc_status_t rv;

    enc_p2p_unlock();
    enc_mpi_turn_take();
    rv = enc_engine_follow_epoch();
    enc_mpi_turn_give();
    enc_p2p_lock();
    if (rv != ENC_OK && rv != ENC_ERR_EPOCH)
        enc_engine_abort(1, "a point-to-point wait could not follow the job into its new epoch");
}

/* Followed every FOLLOW_MS of sleeping, not after each wake-up: following
 * takes the engine, polls its links and reads the tracker, and a wait
 * woken by every message, or by every completion of many nonblocking
 * collectives, would take it from their workers each time. */
enc_status_t enc_mpi_p2p_sleep(uint64_t deadline)
{
    static ENC_HOT_TLS double follow_at; /* enc_coarse_now_s() of the next follow */
    uint64_t slice = enc_coarse_deadline_ms(FOLLOW_MS);
    double now;

    if (enc_ms_left(deadline) == 0)
        return ENC_ERR_TIMEOUT;
    (void)enc_p2p_wait(deadline < slice ? deadline : slice);
    /* the coarse clock (a few ms), as the slice's: a precise read costs
     * several coarse ones, and a small message's wait made four of them */
    if ((now = enc_coarse_now_s()) >= follow_at) {
        follow_at = now + FOLLOW_MS * 1e-3;
        enc_mpi_p2p_follow();
    }
    return ENC_OK;
}

int enc_mpi_preq_wait(struct enc_mpi_preq *r)
{
    uint64_t deadline = enc_coarse_deadline_ms(enc_engine_coll_timeout_ms());
    enc_status_t st = ENC_OK;

    if (r->done)
        return MPI_SUCCESS;
    enc_p2p_attend_begin();
    while (!r->done && (st = enc_mpi_p2p_sleep(deadline)) == ENC_OK)
        ;
    enc_p2p_attend_end();
    if (st != ENC_OK)
        return enc_mpi_raise(MPI_ERR_OTHER, "%s: nothing matched within "
                             "ENCORE_COLL_TIMEOUT_MS (%d ms)", r->fn,
                             enc_engine_coll_timeout_ms());
    return MPI_SUCCESS;
}
