/*
 * p2p_persist.c - persistent point-to-point requests (MPI_Send_init and
 * the other modes, MPI_Recv_init, MPI_Start, MPI_Startall) and the
 * completion calls that must see through them.
 *
 * A persistent request's handle is a "shell": a generalized request of
 * the real MPI that is never completed while the application holds it,
 * so the handle stays valid (Fortran conversion included) across starts.
 * Each MPI_Start makes the operation as a nonblocking call would, and the
 * shell remembers that inner request.  The completion calls (Wait, Test,
 * their array forms, Request_get_status, Cancel, Request_free) hand the
 * real MPI each shell's inner request instead (MPI_REQUEST_NULL while
 * inactive, which the real MPI answers as the standard says for an
 * inactive persistent request), then put the shell back in the
 * application's array.  Without shells they are the real MPI's calls.
 */
#include "enc.h"

#include <pthread.h>
#include <stdlib.h>

#include <mpi.h>

#include "engine/layer.h"
#include "mpi/coll/icoll.h"
#include "mpi/p2p/p2p_mpi.h"

enum shell_kind { SH_SEND, SH_SSEND, SH_RECV };

struct shell {
    MPI_Request h;         /* the application's handle */
    MPI_Request inner;     /* the started operation's, MPI_REQUEST_NULL: inactive */
    enum shell_kind kind;
    void *buf;
    int count, peer, tag;
    MPI_Datatype type, user_type; /* type: held while the shell lives */
    MPI_Comm comm;
    struct shell *next;
};

static struct {
    pthread_mutex_t mu;
    struct shell *list;
    int n;                 /* atomic: shells held (0: every call is the real MPI's) */
} sh = {.mu = PTHREAD_MUTEX_INITIALIZER};

static struct shell *find(MPI_Request h)
{
    struct shell *s;

    if (h == MPI_REQUEST_NULL || __atomic_load_n(&sh.n, __ATOMIC_ACQUIRE) == 0)
        return NULL;
    pthread_mutex_lock(&sh.mu);
    for (s = sh.list; s != NULL && s->h != h; s = s->next)
        ;
    pthread_mutex_unlock(&sh.mu);
    return s;
}

static int shell_query(void *extra, MPI_Status *status)
{
    (void)extra;
    PMPI_Status_set_elements(status, MPI_BYTE, 0);
    PMPI_Status_set_cancelled(status, 0);
    status->MPI_SOURCE = MPI_ANY_SOURCE;
    status->MPI_TAG = MPI_ANY_TAG;
    return MPI_SUCCESS;
}

static int shell_free(void *extra)
{
    struct shell *s = extra;

    if (s->type != s->user_type)
        PMPI_Type_free(&s->type);
    free(s);
    return MPI_SUCCESS;
}

static int shell_cancel(void *extra, int complete)
{
    (void)extra;
    (void)complete;
    return MPI_SUCCESS;
}

static int make(const char *fn, enum shell_kind kind, const void *buf, int count,
                MPI_Datatype type, int peer, int tag, MPI_Comm comm, MPI_Request *request)
{
    struct enc_mpi_pcomm c;
    struct shell *s;
    int rv;

    if ((rv = enc_mpi_p2p_enter(fn, comm, &c)) != MPI_SUCCESS ||
        (rv = enc_mpi_p2p_check_peer(fn, &c, peer, kind == SH_RECV)) != MPI_SUCCESS ||
        (rv = enc_mpi_p2p_check_tag(fn, tag, kind == SH_RECV)) != MPI_SUCCESS)
        return rv;
    if (count < 0)
        return enc_mpi_raise(MPI_ERR_COUNT, "%s: negative count %d", fn, count);
    if ((s = calloc(1, sizeof(*s))) == NULL)
        return enc_mpi_raise(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    *s = (struct shell){.inner = MPI_REQUEST_NULL, .kind = kind, .buf = (void *)buf,
                        .count = count, .peer = peer, .tag = tag, .type = type, .comm = comm};
    if ((rv = enc_mpi_p2p_hold_type(type, &s->type)) != MPI_SUCCESS) {
        free(s);
        return enc_mpi_raise(rv, "%s: invalid datatype", fn);
    }
    s->user_type = type;
    if ((rv = PMPI_Grequest_start(shell_query, shell_free, shell_cancel, s, &s->h)) !=
        MPI_SUCCESS) {
        free(s);
        return enc_mpi_raise(rv, "%s: the real MPI could not make a request", fn);
    }
    pthread_mutex_lock(&sh.mu);
    s->next = sh.list;
    sh.list = s;
    __atomic_add_fetch(&sh.n, 1, __ATOMIC_ACQ_REL);
    pthread_mutex_unlock(&sh.mu);
    *request = s->h;
    return MPI_SUCCESS;
}

int enc_mpi_Send_init(const void *site, const void *buf, int count, MPI_Datatype datatype,
                      int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    (void)site;
    return make("MPI_Send_init", SH_SEND, buf, count, datatype, dest, tag, comm, request);
}

int enc_mpi_Bsend_init(const void *site, const void *buf, int count, MPI_Datatype datatype,
                       int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    (void)site;
    return make("MPI_Bsend_init", SH_SEND, buf, count, datatype, dest, tag, comm, request);
}

int enc_mpi_Rsend_init(const void *site, const void *buf, int count, MPI_Datatype datatype,
                       int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    (void)site;
    return make("MPI_Rsend_init", SH_SEND, buf, count, datatype, dest, tag, comm, request);
}

int enc_mpi_Ssend_init(const void *site, const void *buf, int count, MPI_Datatype datatype,
                       int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    (void)site;
    return make("MPI_Ssend_init", SH_SSEND, buf, count, datatype, dest, tag, comm, request);
}

int enc_mpi_Recv_init(const void *site, void *buf, int count, MPI_Datatype datatype,
                      int source, int tag, MPI_Comm comm, MPI_Request *request)
{
    (void)site;
    return make("MPI_Recv_init", SH_RECV, buf, count, datatype, source, tag, comm, request);
}

static int start(const void *site, struct shell *s)
{
    if (s->inner != MPI_REQUEST_NULL)
        return enc_mpi_raise(MPI_ERR_REQUEST, "MPI_Start: the persistent request is active "
                             "(started and not completed)");
    switch (s->kind) {
    case SH_SEND:
        return enc_mpi_Isend(site, s->buf, s->count, s->type, s->peer, s->tag, s->comm,
                             &s->inner);
    case SH_SSEND:
        return enc_mpi_Issend(site, s->buf, s->count, s->type, s->peer, s->tag, s->comm,
                              &s->inner);
    default:
        return enc_mpi_Irecv(site, s->buf, s->count, s->type, s->peer, s->tag, s->comm,
                             &s->inner);
    }
}

/* A persistent operation's start runs its Isend/Irecv/Issend, whose entry
 * is no snapshot boundary here: MPI_Start names no communicator, and a
 * snapshot inside MPI_Startall would part its requests. */
int enc_mpi_Start(const void *site, MPI_Request *request)
{
    struct shell *s = request != NULL ? find(*request) : NULL;
    int rv;

    if (s == NULL)
        return enc_real_Start(request);
    enc_mpi_p2p_hold_boundary(true);
    rv = start(site, s);
    enc_mpi_p2p_hold_boundary(false);
    return rv;
}

int enc_mpi_Startall(const void *site, int count, MPI_Request array_of_requests[])
{
    int rv = MPI_SUCCESS;

    for (int i = 0; i < count && rv == MPI_SUCCESS; i++)
        rv = enc_mpi_Start(site, &array_of_requests[i]);
    return rv;
}

/* ---- the completion calls ---- */

#define SMALL 32

/* The requests the real MPI is given: shells replaced by their inner
 * requests (in tmp, with the shells in s); false when there is none (the
 * caller passes the application's array as is). */
struct swap {
    MPI_Request small[SMALL], *tmp;
    struct shell *ssmall[SMALL], **s;
};

static bool swap_in(struct swap *w, int n, const MPI_Request *reqs)
{
    bool any = false;

    if (__atomic_load_n(&sh.n, __ATOMIC_ACQUIRE) == 0 || n <= 0)
        return false;
    w->tmp = n <= SMALL ? w->small : malloc((size_t)n * sizeof(MPI_Request));
    w->s = n <= SMALL ? w->ssmall : malloc((size_t)n * sizeof(struct shell *));
    if (w->tmp == NULL || w->s == NULL) {
        if (w->tmp != w->small)
            free(w->tmp);
        if (w->s != w->ssmall)
            free(w->s);
        return false;
    }
    for (int i = 0; i < n; i++) {
        w->s[i] = find(reqs[i]);
        w->tmp[i] = w->s[i] != NULL ? w->s[i]->inner : reqs[i];
        any = any || w->s[i] != NULL;
    }
    if (!any && w->tmp != w->small) {
        free(w->tmp);
        free(w->s);
    }
    return any;
}

/* After the real call: each shell keeps what became of its inner request
 * (MPI_REQUEST_NULL once completed), the application's array the shell. */
static void swap_out(struct swap *w, int n, MPI_Request *reqs)
{
    for (int i = 0; i < n; i++) {
        if (w->s[i] != NULL)
            w->s[i]->inner = w->tmp[i];
        else
            reqs[i] = w->tmp[i];
    }
    if (w->tmp != w->small) {
        free(w->tmp);
        free(w->s);
    }
}

/* Once point-to-point is in use, or while a nonblocking collective's
 * request is held, the completion calls are p2p_complete.c's (they sleep
 * between completions, and record their outcomes), else the real MPI's
 * (whose waits spin, starving the threads that complete encore's
 * requests on a busy host). */
#define COMPLETE(call, real)                                                                  \
    (enc_p2p_started() || enc_mpi_icoll_outstanding() > 0 ? enc_mpi_complete_##call          \
                                                          : enc_real_##real)

int enc_mpi_Wait(const void *site, MPI_Request *request, MPI_Status *status)
{
    struct shell *s = request != NULL ? find(*request) : NULL;

    (void)site;
    return COMPLETE(wait, Wait)(s != NULL ? &s->inner : request, status);
}

int enc_mpi_Test(const void *site, MPI_Request *request, int *flag, MPI_Status *status)
{
    struct shell *s = request != NULL ? find(*request) : NULL;

    (void)site;
    return COMPLETE(test, Test)(s != NULL ? &s->inner : request, flag, status);
}

int enc_mpi_Request_get_status(const void *site, MPI_Request request, int *flag,
                               MPI_Status *status)
{
    struct shell *s = find(request);

    (void)site;
    return COMPLETE(get_status, Request_get_status)(s != NULL ? s->inner : request, flag,
                                                    status);
}

int enc_mpi_Cancel(const void *site, MPI_Request *request)
{
    struct shell *s = request != NULL ? find(*request) : NULL;

    (void)site;
    return enc_real_Cancel(s != NULL ? &s->inner : request);
}

int enc_mpi_Waitall(const void *site, int count, MPI_Request array_of_requests[],
                    MPI_Status *array_of_statuses)
{
    struct swap w;
    int rv;

    (void)site;
    if (!swap_in(&w, count, array_of_requests))
        return COMPLETE(waitall, Waitall)(count, array_of_requests, array_of_statuses);
    rv = COMPLETE(waitall, Waitall)(count, w.tmp, array_of_statuses);
    swap_out(&w, count, array_of_requests);
    return rv;
}

int enc_mpi_Testall(const void *site, int count, MPI_Request array_of_requests[], int *flag,
                    MPI_Status array_of_statuses[])
{
    struct swap w;
    int rv;

    (void)site;
    if (!swap_in(&w, count, array_of_requests))
        return COMPLETE(testall, Testall)(count, array_of_requests, flag, array_of_statuses);
    rv = COMPLETE(testall, Testall)(count, w.tmp, flag, array_of_statuses);
    swap_out(&w, count, array_of_requests);
    return rv;
}

int enc_mpi_Waitany(const void *site, int count, MPI_Request array_of_requests[], int *index,
                    MPI_Status *status)
{
    struct swap w;
    int rv;

    (void)site;
    if (!swap_in(&w, count, array_of_requests))
        return COMPLETE(waitany, Waitany)(count, array_of_requests, index, status);
    rv = COMPLETE(waitany, Waitany)(count, w.tmp, index, status);
    swap_out(&w, count, array_of_requests);
    return rv;
}

int enc_mpi_Testany(const void *site, int count, MPI_Request array_of_requests[], int *index,
                    int *flag, MPI_Status *status)
{
    struct swap w;
    int rv;

    (void)site;
    if (!swap_in(&w, count, array_of_requests))
        return COMPLETE(testany, Testany)(count, array_of_requests, index, flag, status);
    rv = COMPLETE(testany, Testany)(count, w.tmp, index, flag, status);
    swap_out(&w, count, array_of_requests);
    return rv;
}

int enc_mpi_Waitsome(const void *site, int incount, MPI_Request array_of_requests[],
                     int *outcount, int array_of_indices[], MPI_Status array_of_statuses[])
{
    struct swap w;
    int rv;

    (void)site;
    if (!swap_in(&w, incount, array_of_requests))
        return COMPLETE(waitsome, Waitsome)(incount, array_of_requests, outcount,
                                            array_of_indices, array_of_statuses);
    rv = COMPLETE(waitsome, Waitsome)(incount, w.tmp, outcount, array_of_indices,
                                      array_of_statuses);
    swap_out(&w, incount, array_of_requests);
    return rv;
}

int enc_mpi_Testsome(const void *site, int incount, MPI_Request array_of_requests[],
                     int *outcount, int array_of_indices[], MPI_Status array_of_statuses[])
{
    struct swap w;
    int rv;

    (void)site;
    if (!swap_in(&w, incount, array_of_requests))
        return COMPLETE(testsome, Testsome)(incount, array_of_requests, outcount,
                                            array_of_indices, array_of_statuses);
    rv = COMPLETE(testsome, Testsome)(incount, w.tmp, outcount, array_of_indices,
                                      array_of_statuses);
    swap_out(&w, incount, array_of_requests);
    return rv;
}

/* Frees a shell: its active operation ends by itself (detached). */
static int free_shell(struct shell *s, MPI_Request *request)
{
    MPI_Request h = s->h;

    pthread_mutex_lock(&sh.mu);
    for (struct shell **p = &sh.list; *p != NULL; p = &(*p)->next)
        if (*p == s) {
            *p = s->next;
            break;
        }
    __atomic_sub_fetch(&sh.n, 1, __ATOMIC_ACQ_REL);
    pthread_mutex_unlock(&sh.mu);
    if (s->inner != MPI_REQUEST_NULL && !enc_mpi_preq_detach(&s->inner))
        enc_real_Request_free(&s->inner);
    PMPI_Grequest_complete(h);
    *request = MPI_REQUEST_NULL;
    return enc_real_Request_free(&h); /* its free callback frees s */
}

int enc_mpi_p2p_request_free(MPI_Request *request)
{
    struct shell *s = request != NULL ? find(*request) : NULL;

    if (s != NULL)
        return free_shell(s, request);
    if (enc_mpi_preq_detach(request))
        return MPI_SUCCESS;
    return enc_real_Request_free(request);
}

/* A nonblocking collective's request, a point-to-point one (persistent or
 * not), or the real MPI's own. */
int enc_mpi_Request_free(const void *site, MPI_Request *request)
{
    (void)site;
    if (request == NULL)
        return enc_real_Request_free(request);
    if (enc_mpi_icoll_detach(request))
        return MPI_SUCCESS;
    return enc_mpi_p2p_request_free(request);
}
