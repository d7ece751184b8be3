/*
 * icoll.c - nonblocking collectives: each runs the blocking form on a
 * worker thread, and each one's request is a generalized request of the
 * real MPI.
 *
 * The MPI standard orders collectives per communicator only: ranks may
 * start nonblocking collectives (MPI_Comm_idup included) on different
 * communicators in different orders, and a rank may block in a collective
 * on one communicator while its peers first complete a nonblocking one on
 * another.  So the collectives of different communicators must progress
 * together: a worker takes a started collective as soon as every earlier
 * one on the same communicator has run, and a blocking call (a "serial"
 * function of mpi.spec) waits only for those of its own communicator.  The
 * engine still has one user at a time: the threads take turns
 * (turn_queue.c), handing the engine on inside its waits whenever their
 * collective has nothing to do (engine/turns.h).  A restarted rank,
 * re-executing, starts the same collectives per communicator in the same
 * order, and each communicator replays its own from the log.
 *
 * Under MPI_THREAD_MULTIPLE the application's threads take turns the same
 * way: each blocking call is a serial section on its own thread, and the
 * standard's rule (collectives on one communicator in the same order on
 * every rank) is what makes a re-executed rank's replay exact, per
 * communicator.  Once a second application thread has used the engine,
 * another may ask for it at any moment: the engine's waits then sleep at
 * most a millisecond at a time (shared()), and the one asleep when that
 * began is woken.
 *
 * MPI_Wait, Test and their array forms are the real MPI's: the request
 * completes (PMPI_Grequest_complete, from the worker; the real MPI runs
 * with MPI_THREAD_MULTIPLE for it) when the collective has run, and its
 * query function reports the collective's MPI error code.
 * MPI_Request_free of a pending one detaches it: the collective still
 * runs, and the worker frees the request afterwards.
 *
 * Snapshots (recovery/snapshot/snapshot.c) fork the process at a collective
 * boundary; only the forking thread exists in the copy.  fork_prepare
 * allows it only on an application thread, with no other application
 * thread inside a serial section, no nonblocking collective pending and
 * every worker idle in its wait for work, so no worker holds a lock of
 * ours or of the real MPI; the mutex stays held across the fork.
 * Otherwise the snapshot is postponed to a later collective boundary.  In
 * the copy, fork_child forgets the workers: new ones start with the next
 * nonblocking call.
 */
#include "enc.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/queue.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "engine/engine.h"
#include "mpi/coll/icoll.h"
#include "mpi/mpi_layer.h"
#include "mpi/p2p/p2p_mpi.h"
#include "mpi/coll/turn_queue.h"
#include "p2p/p2p.h"
#include "recovery/recovery.h"

/* Workers at most: more collectives in progress at once wait for one. */
#define MAX_WORKERS 64

struct job {
    STAILQ_ENTRY(job) next;
    enc_mpi_icoll_fn run;
    struct enc_mpi_icoll_args a;
    const void *site;
    MPI_Request req;
    MPI_Datatype user_stype, user_rtype; /* the handles the application gave */
    const MPI_Datatype *user_stypes, *user_rtypes;
    int rv;              /* the collective's MPI error code */
    bool taken;          /* a worker runs it */
    bool detached;       /* MPI_Request_free'd before completion */
    int done;            /* atomic: released before PMPI_Grequest_complete */
};

/* A job is handed to one worker the moment it becomes runnable (started
 * with no earlier job of its communicator pending, or that one ended), by
 * the thread that made it so: an idle worker is woken on its own condition
 * variable, a new one started when none is idle (the worker ending the
 * earlier job takes it itself).  One wake-up per job: the idle workers of
 * a burst of MPI_I... calls are not all woken to find one job. */
struct worker {
    pthread_cond_t cv;   /* job handed over, or stop */
    struct job *job;     /* handed to this worker, not yet run */
    bool idle;           /* in q.idle_slot[] */
};

static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;   /* a job's end: serial sections wait for their communicator's */
    STAILQ_HEAD(, job) jobs; /* every job not yet run to its end, in start order */
    bool stop;
    int idle;            /* workers waiting for work (no lock held) */
    int idle_slot[MAX_WORKERS]; /* which, the last to go idle last */
    struct worker w[MAX_WORKERS];
    int nworkers;
    uint64_t ended;      /* jobs run to their end (atomic; written under mu) */
    pthread_t thread[MAX_WORKERS];
    int tid[MAX_WORKERS]; /* their gettid(), 0 before they run (atomic) */
    int outstanding;     /* requests the application has not freed (atomic) */
    int pending;         /* jobs not yet run to their end (atomic) */
    int inside;          /* application threads inside a serial section (atomic) */
    int users;           /* application threads that ever entered one (atomic) */
} q = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER,
       .jobs = STAILQ_HEAD_INITIALIZER(q.jobs)};

/* Depth of serial sections on this thread: a serial call made from inside
 * one (an error handler, a helper) runs at once. */
static __thread int serial_depth;
static __thread bool is_worker;
static __thread bool counted; /* this application thread is one of q.users */

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

/* Whether a job of comm (any job, with all) has not run to its end (the
 * mutex held). */
static bool busy(MPI_Comm comm, bool all)
{
    struct job *j;

    STAILQ_FOREACH(j, &q.jobs, next)
        if (all || j->a.comm == comm)
            return true;
    return false;
}

static pthread_key_t app_key;   /* set in every application thread that used the engine */
static pthread_once_t app_once = PTHREAD_ONCE_INIT;

/* An application thread that used the engine ends: its scratch buffers go. */
static void app_thread_end(void *arg)
{
    (void)arg;
    enc_engine_thread_end();
}

static void make_app_key(void)
{
    pthread_key_create(&app_key, app_thread_end);
}

/* An application thread enters its outermost serial section. */
static void app_enter(void)
{
    __atomic_fetch_add(&q.inside, 1, __ATOMIC_ACQ_REL);
    if (counted)
        return;
    counted = true;
    pthread_once(&app_once, make_app_key);
    pthread_setspecific(app_key, &q);
    if (__atomic_add_fetch(&q.users, 1, __ATOMIC_ACQ_REL) == 2)
        enc_engine_turn_wake(); /* shared() from now on */
}

static void enter(MPI_Comm comm, bool all)
{
    if (serial_depth++ > 0)
        return;
    app_enter();
    if (comm != MPI_COMM_NULL || all) {
        pthread_mutex_lock(&q.mu);
        while (busy(comm, all))
            pthread_cond_wait(&q.cv, &q.mu);
        pthread_mutex_unlock(&q.mu);
    }
    enc_mpi_turn_take();
}

void enc_mpi_serial_enter(MPI_Comm comm)
{
    enter(comm, false);
}

void enc_mpi_serial_enter_all(void)
{
    enter(MPI_COMM_NULL, true);
}

void enc_mpi_serial_leave(void)
{
    if (--serial_depth > 0)
        return;
    enc_mpi_turn_give();
    __atomic_fetch_sub(&q.inside, 1, __ATOMIC_ACQ_REL);
}

/* j may run: every job started before it on its communicator has run. */
static bool runnable(const struct job *j)
{
    if (j->taken)
        return false;
    for (const struct job *e = STAILQ_FIRST(&q.jobs); e != j; e = STAILQ_NEXT(e, next))
        if (e->a.comm == j->a.comm)
            return false;
    return true;
}

static struct job *next_runnable(void)
{
    struct job *j;

    STAILQ_FOREACH(j, &q.jobs, next)
        if (runnable(j))
            return j;
    return NULL;
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

/* MPI_Ialltoallw's datatypes, one per rank of the communicator: a copy of
 * the array (the program may reuse it) with derived types duplicated. */
static int hold_types(const MPI_Datatype **types, int n)
{
    MPI_Datatype *held;
    int rv = MPI_SUCCESS;

    if (*types == NULL)
        return MPI_SUCCESS;
    if ((held = malloc(sizeof(*held) * (size_t)n + 1)) == NULL)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < n; i++) {
        held[i] = (*types)[i];
        if (rv == MPI_SUCCESS && (rv = hold_type(&held[i])) != MPI_SUCCESS)
            held[i] = (*types)[i];
    }
    *types = held;
    return rv;
}

static void release_types(const MPI_Datatype *held, const MPI_Datatype *orig, int n)
{
    if (held == NULL || held == orig)
        return;
    for (int i = 0; i < n; i++)
        release_type(held[i], orig[i]);
    free((void *)held);
}

static void run_job(struct job *j)
{
    MPI_Comm saved = enc_mpi_errcomm_enter(j->a.comm);

    serial_depth = 1;
    enc_mpi_turn_take();
    j->rv = j->run(j->site, &j->a);
    enc_mpi_turn_give();
    serial_depth = 0;
    enc_mpi_errcomm_leave(saved);
    release_type(j->a.stype, j->user_stype);
    release_type(j->a.rtype, j->user_rtype);
    release_types(j->a.stypes, j->user_stypes, j->a.nstypes);
    release_types(j->a.rtypes, j->user_rtypes, j->a.nrtypes);
    if (j->a.op != NULL)
        enc_mpi_op_release(j->a.op);
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
    STAILQ_REMOVE(&q.jobs, j, job, next); /* done: MPI_Request_free goes to the real MPI */
    __atomic_fetch_sub(&q.pending, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&j->done, 1, __ATOMIC_RELEASE);
    PMPI_Grequest_complete(req);
    __atomic_add_fetch(&q.ended, 1, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&q.cv); /* serial sections; the next job of its communicator is
                                    * this worker's (next_job) */
    pthread_mutex_unlock(&q.mu);
    if (detached)
        PMPI_Request_free(&req);
    enc_mpi_complete_event(); /* mixed waits sleep on point-to-point's condition */
}

bool enc_mpi_icoll_owns(MPI_Request h)
{
    struct job *j;
    bool mine = false;

    if (h == MPI_REQUEST_NULL || __atomic_load_n(&q.pending, __ATOMIC_ACQUIRE) == 0)
        return false;
    pthread_mutex_lock(&q.mu);
    STAILQ_FOREACH(j, &q.jobs, next)
        if (j->req == h) {
            mine = true;
            break;
        }
    pthread_mutex_unlock(&q.mu);
    return mine;
}

/* Next job for worker slot (the mutex held): one handed to it, else a
 * runnable one nobody took (its predecessor just ended, or no worker was
 * free), else it waits idle for one; NULL when stopping. */
static struct job *next_job(int slot)
{
    struct worker *w = &q.w[slot];
    struct job *j;

    for (;;) {
        if ((j = w->job) != NULL) {
            w->job = NULL;
            return j;
        }
        if (q.stop)
            return NULL;
        if ((j = next_runnable()) != NULL) {
            j->taken = true;
            return j;
        }
        w->idle = true;
        q.idle_slot[q.idle++] = slot;
        while (w->idle && !q.stop)
            pthread_cond_wait(&w->cv, &q.mu);
    }
}

static void *worker(void *arg)
{
    int slot = (int)(intptr_t)arg;

    is_worker = true;
    __atomic_store_n(&q.tid[slot], (int)gettid(), __ATOMIC_RELEASE);
    for (;;) {
        struct job *j;

        pthread_mutex_lock(&q.mu);
        j = next_job(slot);
        pthread_mutex_unlock(&q.mu);
        if (j == NULL)
            break;
        run_job(j);
        finish_job(j);
    }
    enc_engine_thread_end();
    return NULL;
}

/* Starts one more worker with job j (the mutex held).  It takes no
 * signals: the application's handlers run on its own threads, as without
 * encore. */
static int start_worker(struct job *j)
{
    struct worker *w = &q.w[q.nworkers];
    sigset_t all, old;
    int rv;

    if (q.nworkers == MAX_WORKERS)
        return MPI_SUCCESS; /* the job waits for a worker to finish one */
    pthread_cond_init(&w->cv, NULL);
    w->job = j;
    w->idle = false;
    j->taken = true;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    rv = pthread_create(&q.thread[q.nworkers], NULL, worker, (void *)(intptr_t)q.nworkers);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rv != 0) {
        j->taken = false;
        w->job = NULL;
        pthread_cond_destroy(&w->cv);
        return enc_mpi_raise(MPI_ERR_INTERN, "cannot start a thread for nonblocking "
                             "collectives: error %d", rv);
    }
    q.nworkers++;
    return MPI_SUCCESS;
}

/* Queues j (the mutex held); a runnable one goes to the worker that went
 * idle last (its stack is warm), else to a new one. */
static int enqueue(struct job *j)
{
    STAILQ_INSERT_TAIL(&q.jobs, j, next);
    __atomic_fetch_add(&q.pending, 1, __ATOMIC_RELAXED);
    if (!runnable(j))
        return MPI_SUCCESS; /* the worker of its predecessor takes it */
    if (q.idle == 0)
        return start_worker(j);
    struct worker *w = &q.w[q.idle_slot[--q.idle]];

    w->job = j;
    w->idle = false;
    j->taken = true;
    pthread_cond_signal(&w->cv);
    return MPI_SUCCESS;
}

int enc_mpi_icoll_start(const char *fn, const void *site, enc_mpi_icoll_fn run,
                        const struct enc_mpi_icoll_args *a, MPI_Request *request)
{
    struct job *j = calloc(1, sizeof(*j));
    int rv;

    if (j == NULL)
        return enc_mpi_raise(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    *j = (struct job){.run = run, .a = *a, .site = site, .user_stype = a->stype,
                      .user_rtype = a->rtype, .user_stypes = a->stypes, .user_rtypes = a->rtypes};
    if (j->a.nstypes == 0 && j->a.nrtypes == 0)
        j->a.nstypes = j->a.nrtypes = enc_mpi_comm_peers(enc_mpi_comm_get(a->comm));
    if ((rv = hold_type(&j->a.stype)) != MPI_SUCCESS ||
        (rv = hold_type(&j->a.rtype)) != MPI_SUCCESS ||
        (rv = hold_types(&j->a.stypes, j->a.nstypes)) != MPI_SUCCESS ||
        (rv = hold_types(&j->a.rtypes, j->a.nrtypes)) != MPI_SUCCESS) {
        release_type(j->a.stype, j->user_stype);
        release_type(j->a.rtype, j->user_rtype);
        release_types(j->a.stypes, j->user_stypes, j->a.nstypes);
        release_types(j->a.rtypes, j->user_rtypes, j->a.nrtypes);
        free(j);
        return enc_mpi_raise(rv, "%s: cannot keep the datatype for the pending collective",
                             fn);
    }
    if ((rv = PMPI_Grequest_start(query, release, cancel, j, &j->req)) != MPI_SUCCESS) {
        release_type(j->a.stype, j->user_stype);
        release_type(j->a.rtype, j->user_rtype);
        release_types(j->a.stypes, j->user_stypes, j->a.nstypes);
        release_types(j->a.rtypes, j->user_rtypes, j->a.nrtypes);
        free(j);
        return enc_mpi_raise(rv, "%s: the real MPI could not make a request", fn);
    }
    *request = j->req;
    if (j->a.op != NULL)
        enc_mpi_op_hold(j->a.op); /* MPI lets the program free it now */
    __atomic_fetch_add(&q.outstanding, 1, __ATOMIC_ACQ_REL);
    pthread_mutex_lock(&q.mu);
    rv = enqueue(j);
    pthread_mutex_unlock(&q.mu);
    return rv;
}

/* A worker or the application may ask for the engine at any moment while
 * a nonblocking collective has not run to its end, and another application
 * thread once several have used MPI. */
static bool shared(void)
{
    return __atomic_load_n(&q.pending, __ATOMIC_RELAXED) > 0 ||
           __atomic_load_n(&q.users, __ATOMIC_RELAXED) > 1;
}

/* A program that polls MPI_Test... in a loop makes progress with the
 * real MPI: each call advances its collectives.  Here the workers advance
 * them, and a polling thread on an oversubscribed host takes the CPU from
 * them (and, polling more often, does more of whatever else its loop does:
 * MPICH's nonblocking3 sleeps 50 ms at random once per 1000 polls).  So a
 * poll that finds nothing, when the same thread's previous one found
 * nothing less than POLL_GAP_NS ago and no request completed since, sleeps
 * until the next completion (enc_mpi_complete_event), at most POLL_NAP_MS.
 * A program that computes between its polls never sleeps here, and a
 * replayed "nothing" (p2p_complete.c) does not look, so does not sleep. */
#define POLL_GAP_NS 20000ull
#define POLL_NAP_MS 1
void enc_mpi_icoll_polled(void)
{
    static __thread uint64_t last_ns, last_events;
    uint64_t events = enc_mpi_complete_events(), now = enc_now_ns();

    if (__atomic_load_n(&q.pending, __ATOMIC_RELAXED) > 0 && events == last_events &&
        now - last_ns < POLL_GAP_NS) {
        enc_mpi_icoll_sleep(enc_mpi_icoll_ended(), enc_deadline_ms(POLL_NAP_MS));
        events = enc_mpi_complete_events();
        now = enc_now_ns();
    }
    last_ns = now;
    last_events = events;
}

uint64_t enc_mpi_icoll_ended(void)
{
    return __atomic_load_n(&q.ended, __ATOMIC_ACQUIRE);
}

void enc_mpi_icoll_sleep(uint64_t ended, uint64_t deadline)
{
    struct timespec ts;
    int left;

    if ((left = enc_ms_left(deadline)) == 0)
        return;
    clock_gettime(CLOCK_REALTIME, &ts); /* q.cv's clock */
    left = left < 0 ? 3600000 : left;
    ts.tv_sec += left / 1000;
    ts.tv_nsec += (long)(left % 1000) * 1000000;
    if (ts.tv_nsec >= 1000000000) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000;
    }
    pthread_mutex_lock(&q.mu);
    while (q.ended == ended && pthread_cond_timedwait(&q.cv, &q.mu, &ts) == 0)
        ;
    pthread_mutex_unlock(&q.mu);
}

void enc_mpi_icoll_init(void)
{
    enc_mpi_turn_register(shared);
}

int enc_mpi_icoll_outstanding(void)
{
    return __atomic_load_n(&q.outstanding, __ATOMIC_ACQUIRE);
}

/* A queued or running job whose request is req (the mutex held). */
static struct job *pending(MPI_Request req)
{
    struct job *j;

    STAILQ_FOREACH(j, &q.jobs, next)
        if (j->req == req)
            return j;
    return NULL;
}

bool enc_mpi_icoll_detach(MPI_Request *request)
{
    struct job *j;

    pthread_mutex_lock(&q.mu);
    if ((j = pending(*request)) != NULL) {
        __atomic_store_n(&j->detached, true, __ATOMIC_RELEASE);
        __atomic_fetch_sub(&q.outstanding, 1, __ATOMIC_ACQ_REL); /* the application is done with it */
    }
    pthread_mutex_unlock(&q.mu);
    if (j == NULL)
        return false;
    *request = MPI_REQUEST_NULL;
    return true;
}

void enc_mpi_icoll_fini(void)
{
    pthread_mutex_lock(&q.mu);
    q.stop = true;
    for (int i = 0; i < q.nworkers; i++)
        pthread_cond_signal(&q.w[i].cv);
    pthread_mutex_unlock(&q.mu);
    for (int i = 0; i < q.nworkers; i++) {
        pthread_join(q.thread[i], NULL);
        pthread_cond_destroy(&q.w[i].cv);
    }
    q.nworkers = q.idle = 0;
    q.stop = false;
}

static bool fork_prepare(void)
{
    static bool said;

    if (is_worker)
        return false; /* a nonblocking collective: not the program's thread */
    if (__atomic_load_n(&q.inside, __ATOMIC_ACQUIRE) > 1) {
        if (!said)
            ENC_INFO("snapshot", "snapshot postponed: another thread of the program is inside "
                     "MPI; a snapshot is taken at a collective during which no other thread is");
        said = true;
        return false;
    }
    /* point-to-point's state is copied whole, pending requests included
     * (p2p.h): its lock keeps the progress thread out of it meanwhile */
    (void)enc_p2p_fork_prepare();
    pthread_mutex_lock(&q.mu);
    if (STAILQ_EMPTY(&q.jobs) && q.idle == q.nworkers)
        return true;
    pthread_mutex_unlock(&q.mu);
    enc_p2p_fork_parent();
    return false;
}

static void fork_parent(void)
{
    pthread_mutex_unlock(&q.mu);
    enc_p2p_fork_parent();
}

/* Only this thread exists here: no worker, nothing pending. */
static void fork_child(void)
{
    q.mu = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
    q.cv = (pthread_cond_t)PTHREAD_COND_INITIALIZER;
    q.stop = false;
    STAILQ_INIT(&q.jobs);
    q.idle = q.nworkers = 0;
    q.pending = 0;
    q.inside = 1; /* this thread, in the collective it took the snapshot in */
    enc_mpi_turn_fork_child();
    enc_p2p_fork_child();
}

static int thread_ids(int *tids, int cap)
{
    int n = 0;

    if (enc_p2p_thread_id() > 0 && n < cap)
        tids[n++] = enc_p2p_thread_id();
    for (int i = 0; i < q.nworkers && n < cap; i++) {
        int t = __atomic_load_n(&q.tid[i], __ATOMIC_ACQUIRE);

        if (t > 0)
            tids[n++] = t;
    }
    return n;
}

const struct enc_fork_guard enc_mpi_icoll_fork_guard = {
    .prepare = fork_prepare, .parent = fork_parent, .child = fork_child,
    .thread_ids = thread_ids, .restored = enc_p2p_restored,
};
