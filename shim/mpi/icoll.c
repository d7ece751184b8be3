/*
 * icoll.c - nonblocking collectives: a progress thread runs them in the
 * order this process started them, and each one's request is a
 * generalized request of the real MPI.
 *
 * The engine is not thread-safe, so it has one user at a time: the
 * progress thread running the oldest started collective, or the
 * application thread inside a "serial" call (mpi.spec: blocking
 * collectives, communicator creation, MPI_Finalize), which first waits
 * until every collective started before it has run.  So every rank runs
 * its collectives, blocking and nonblocking, on every communicator, in
 * start order; a restarted rank, re-executing, starts them in the same
 * order and replays them from the log in that order.
 *
 * MPI_Wait, Test and their array forms are the real MPI's: the request
 * completes (PMPI_Grequest_complete, from the progress thread; the real MPI
 * runs with MPI_THREAD_MULTIPLE for it) when the collective has run, and
 * its query function reports the collective's MPI error code.
 * MPI_Request_free of a pending one detaches it: the collective still
 * runs, and the progress thread frees the request afterwards.
 *
 * Snapshots (recovery/snapshot.c) fork the process at a collective
 * boundary; only the forking thread exists in the copy.  fork_prepare
 * allows it only on the application thread, with no nonblocking
 * collective queued or running and the progress thread (if any) idle in
 * its wait for work, so it holds no lock of ours or of the real MPI; the
 * mutex stays held across the fork.  Otherwise the snapshot is postponed
 * to a later collective boundary.  In the copy, fork_child resets the
 * queue: a new progress thread starts with the next nonblocking call.
 */
#include "enc.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <mpi.h>

#include "mpi/icoll.h"
#include "mpi/mpi_layer.h"
#include "recovery/recovery.h"

struct job {
    struct job *next;
    enc_mpi_icoll_fn run;
    struct enc_mpi_icoll_args a;
    const void *site;
    MPI_Request req;
    MPI_Datatype user_stype, user_rtype; /* the handles the application gave */
    int rv;              /* the collective's MPI error code */
    bool detached;       /* MPI_Request_free'd before completion */
    int done;            /* atomic: released before PMPI_Grequest_complete */
};

static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;   /* queue, busy or stop changed */
    struct job *head, *tail;
    struct job *running; /* taken by the progress thread */
    bool busy;           /* a thread is using the engine */
    bool started, stop;
    bool idle;           /* the progress thread waits for work (no lock held) */
    int tid;             /* its gettid(), 0 before it runs */
    int outstanding;     /* requests the application has not freed (atomic) */
    pthread_t thread;
} q = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

/* Depth of serial sections on this thread: a serial call made from inside
 * one (an error handler, a helper) runs at once. */
static __thread int serial_depth;

static int query(void *extra, MPI_Status *status)
{
    struct job *j = extra;

    /* The real MPI_Wait calls this after the completion: the acquire pairs
     * with finish_job's release, so the results the progress thread wrote
     * happen before the application reads them, also for ThreadSanitizer
     * (the real MPI's own synchronisation is not instrumented). */
    (void)__atomic_load_n(&j->done, __ATOMIC_ACQUIRE);
    PMPI_Status_set_elements(status, MPI_BYTE, 0);
    PMPI_Status_set_cancelled(status, 0);
    status->MPI_SOURCE = MPI_UNDEFINED;
    status->MPI_TAG = MPI_UNDEFINED;
    status->MPI_ERROR = j->rv;
    return j->rv;
}

/* The real MPI frees the request: the application completed it (Wait,
 * Test, ...), or the progress thread freed a detached one.  No mutex: the
 * last reference may go inside PMPI_Grequest_complete, which finish_job
 * calls holding it. */
static int release(void *extra)
{
    struct job *j = extra;

    if (!__atomic_load_n(&j->detached, __ATOMIC_ACQUIRE))
        __atomic_fetch_sub(&q.outstanding, 1, __ATOMIC_ACQ_REL);
    free(j);
    return MPI_SUCCESS;
}

static int cancel(void *extra, int complete)
{
    (void)extra;
    (void)complete;
    return MPI_SUCCESS; /* a collective cannot be cancelled: it completes */
}

/* Waits (the mutex held) until nobody uses the engine and nothing started
 * earlier is queued, then takes it. */
static void take_engine(void)
{
    while (q.busy || q.head != NULL)
        pthread_cond_wait(&q.cv, &q.mu);
    q.busy = true;
}

void enc_mpi_serial_enter(void)
{
    if (serial_depth++ > 0)
        return;
    pthread_mutex_lock(&q.mu);
    take_engine();
    pthread_mutex_unlock(&q.mu);
}

void enc_mpi_serial_leave(void)
{
    if (--serial_depth > 0)
        return;
    pthread_mutex_lock(&q.mu);
    q.busy = false;
    pthread_cond_broadcast(&q.cv);
    pthread_mutex_unlock(&q.mu);
}

/* Next job to run (the mutex held); NULL when stopping. */
static struct job *next_job(void)
{
    struct job *j;

    while (!q.stop && (q.busy || q.head == NULL)) {
        q.idle = true;
        pthread_cond_wait(&q.cv, &q.mu);
        q.idle = false;
    }
    if ((j = q.head) == NULL)
        return NULL;
    q.head = j->next;
    if (q.head == NULL)
        q.tail = NULL;
    q.busy = true;
    q.running = j;
    return j;
}

/* A derived datatype is duplicated for the job: MPI lets the application
 * free its handle while the collective is pending. */
static int hold_type(MPI_Datatype *t)
{
    int ni, na, nd, combiner;

    if (*t == NULL /* unused by this collective */ || *t == MPI_DATATYPE_NULL ||
        PMPI_Type_get_envelope(*t, &ni, &na, &nd, &combiner) != MPI_SUCCESS ||
        combiner == MPI_COMBINER_NAMED)
        return MPI_SUCCESS;
    return PMPI_Type_dup(*t, t);
}

static void release_type(MPI_Datatype t, MPI_Datatype orig)
{
    if (t != orig)
        PMPI_Type_free(&t);
}

static void run_job(struct job *j)
{
    MPI_Comm saved = enc_mpi_errcomm_enter(j->a.comm);

    serial_depth = 1;
    j->rv = j->run(j->site, &j->a);
    serial_depth = 0;
    enc_mpi_errcomm_leave(saved);
    release_type(j->a.stype, j->user_stype);
    release_type(j->a.rtype, j->user_rtype);
}

/* Completes j's request; the request (and j, by its free function) is
 * released here when the application detached it.  j is not touched once
 * the request is complete: the application may free it (and j) at once. */
static void finish_job(struct job *j)
{
    MPI_Request req = j->req;
    bool detached;

    pthread_mutex_lock(&q.mu);
    detached = j->detached; /* final: MPI_Request_free decides under the mutex */
    __atomic_store_n(&j->done, 1, __ATOMIC_RELEASE);
    PMPI_Grequest_complete(req);
    q.running = NULL; /* done: MPI_Request_free goes to the real MPI */
    q.busy = false;
    pthread_cond_broadcast(&q.cv);
    pthread_mutex_unlock(&q.mu);
    if (detached)
        PMPI_Request_free(&req);
}

static void *progress(void *arg)
{
    (void)arg;
    __atomic_store_n(&q.tid, (int)gettid(), __ATOMIC_RELEASE);
    for (;;) {
        struct job *j;

        pthread_mutex_lock(&q.mu);
        j = next_job();
        pthread_mutex_unlock(&q.mu);
        if (j == NULL)
            return NULL;
        run_job(j);
        finish_job(j);
    }
}

/* The thread takes no signals: the application's handlers run on its own
 * threads, as without encore. */
static int start_thread(void)
{
    sigset_t all, old;
    int rv;

    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    rv = pthread_create(&q.thread, NULL, progress, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rv != 0)
        return enc_mpi_raise(MPI_ERR_INTERN, "cannot start the progress thread of "
                             "nonblocking collectives: error %d", rv);
    q.started = true;
    return MPI_SUCCESS;
}

static void enqueue(struct job *j)
{
    if (q.tail)
        q.tail->next = j;
    else
        q.head = j;
    q.tail = j;
    pthread_cond_broadcast(&q.cv);
}

int enc_mpi_icoll_start(const char *fn, const void *site, enc_mpi_icoll_fn run,
                        const struct enc_mpi_icoll_args *a, MPI_Request *request)
{
    struct job *j = calloc(1, sizeof(*j));
    int rv;

    if (j == NULL)
        return enc_mpi_raise(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    *j = (struct job){.run = run, .a = *a, .site = site, .user_stype = a->stype,
                      .user_rtype = a->rtype};
    if ((rv = hold_type(&j->a.stype)) != MPI_SUCCESS ||
        (rv = hold_type(&j->a.rtype)) != MPI_SUCCESS) {
        release_type(j->a.stype, j->user_stype);
        free(j);
        return enc_mpi_raise(rv, "%s: cannot keep the datatype for the pending collective",
                             fn);
    }
    if ((rv = PMPI_Grequest_start(query, release, cancel, j, &j->req)) != MPI_SUCCESS) {
        release_type(j->a.stype, j->user_stype);
        release_type(j->a.rtype, j->user_rtype);
        free(j);
        return enc_mpi_raise(rv, "%s: the real MPI could not make a request", fn);
    }
    *request = j->req;
    pthread_mutex_lock(&q.mu);
    rv = q.started ? MPI_SUCCESS : start_thread();
    if (rv == MPI_SUCCESS) {
        enqueue(j);
        __atomic_fetch_add(&q.outstanding, 1, __ATOMIC_ACQ_REL);
    }
    pthread_mutex_unlock(&q.mu);
    return rv;
}

int enc_mpi_icoll_outstanding(void)
{
    return __atomic_load_n(&q.outstanding, __ATOMIC_ACQUIRE);
}

/* A queued or running job whose request is req (the mutex held). */
static struct job *pending(MPI_Request req)
{
    if (q.running && q.running->req == req)
        return q.running;
    for (struct job *j = q.head; j; j = j->next)
        if (j->req == req)
            return j;
    return NULL;
}

int enc_mpi_Request_free(const void *site, MPI_Request *request)
{
    struct job *j;

    (void)site;
    if (request == NULL)
        return enc_real_Request_free(request);
    pthread_mutex_lock(&q.mu);
    if ((j = pending(*request)) != NULL) {
        __atomic_store_n(&j->detached, true, __ATOMIC_RELEASE);
        __atomic_fetch_sub(&q.outstanding, 1, __ATOMIC_ACQ_REL); /* the application is done with it */
    }
    pthread_mutex_unlock(&q.mu);
    if (j == NULL)
        return enc_real_Request_free(request);
    *request = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}

void enc_mpi_icoll_fini(void)
{
    pthread_mutex_lock(&q.mu);
    q.stop = true;
    pthread_cond_broadcast(&q.cv);
    pthread_mutex_unlock(&q.mu);
    if (q.started)
        pthread_join(q.thread, NULL);
    q.started = false;
    q.tid = 0;
}

static bool fork_prepare(void)
{
    if (q.started && pthread_equal(pthread_self(), q.thread))
        return false; /* a nonblocking collective: not the program's thread */
    pthread_mutex_lock(&q.mu);
    if (q.head == NULL && q.running == NULL && (!q.started || q.idle))
        return true;
    pthread_mutex_unlock(&q.mu);
    return false;
}

static void fork_parent(void)
{
    pthread_mutex_unlock(&q.mu);
}

/* Only this thread exists here: no progress thread, nothing queued. */
static void fork_child(void)
{
    q.mu = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
    q.cv = (pthread_cond_t)PTHREAD_COND_INITIALIZER;
    q.started = q.stop = q.idle = false;
    q.tid = 0;
}

static int thread_ids(int *tids, int cap)
{
    int t = __atomic_load_n(&q.tid, __ATOMIC_ACQUIRE);

    if (cap < 1 || t <= 0)
        return 0;
    tids[0] = t;
    return 1;
}

const struct enc_fork_guard enc_mpi_icoll_fork_guard = {
    .prepare = fork_prepare, .parent = fork_parent, .child = fork_child,
    .thread_ids = thread_ids,
};
