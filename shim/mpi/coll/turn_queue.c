/*
 * turn_queue.c - who uses the engine next (see turn_queue.h).
 *
 * A FIFO of waiting threads, each with its own condition variable, so a
 * hand-over wakes exactly the next one.  pass() is what the engine's
 * waits call: the holder queues itself at the tail and wakes the head.
 */
#include "enc.h"

#include <pthread.h>
#include <stdbool.h>
#include <sys/queue.h>

#include "engine/engine.h"
#include "mpi/coll/turn_queue.h"

struct turn {
    pthread_cond_t cv;
    STAILQ_ENTRY(turn) next;
    bool ready;          /* cv initialised */
};

static struct {
    pthread_mutex_t mu;
    struct turn *holder;
    STAILQ_HEAD(, turn) queue;
    int waiting;         /* atomic: threads in the queue */
} tq = {.mu = PTHREAD_MUTEX_INITIALIZER, .queue = STAILQ_HEAD_INITIALIZER(tq.queue)};

static __thread struct turn mine;

static struct turn *me(void)
{
    if (!mine.ready) {
        pthread_cond_init(&mine.cv, NULL);
        mine.ready = true;
    }
    return &mine;
}

static void enqueue(struct turn *t)
{
    STAILQ_INSERT_TAIL(&tq.queue, t, next);
    __atomic_fetch_add(&tq.waiting, 1, __ATOMIC_RELAXED);
}

/* The mutex held: the head of the queue becomes the holder (or nobody). */
static void hand_on(void)
{
    struct turn *t = STAILQ_FIRST(&tq.queue);

    tq.holder = t;
    if (t == NULL)
        return;
    STAILQ_REMOVE_HEAD(&tq.queue, next);
    __atomic_fetch_sub(&tq.waiting, 1, __ATOMIC_RELAXED);
    pthread_cond_signal(&t->cv);
}

static void wait_for(struct turn *t)
{
    while (tq.holder != t)
        pthread_cond_wait(&t->cv, &tq.mu);
}

/* Queued behind a holder asleep in an engine wait, a thread would wait
 * for the sleep's end (engine/turns.h): the holder is woken, looks, and
 * hands the engine on. */
void enc_mpi_turn_take(void)
{
    struct turn *t = me();

    pthread_mutex_lock(&tq.mu);
    if (tq.holder == NULL && STAILQ_EMPTY(&tq.queue)) {
        tq.holder = t;
    } else {
        enqueue(t);
        enc_engine_turn_wake();
        wait_for(t);
    }
    pthread_mutex_unlock(&tq.mu);
}

void enc_mpi_turn_give(void)
{
    pthread_mutex_lock(&tq.mu);
    hand_on();
    pthread_mutex_unlock(&tq.mu);
}

static bool wanted(void)
{
    return __atomic_load_n(&tq.waiting, __ATOMIC_RELAXED) > 0;
}

static int waiting(void)
{
    return __atomic_load_n(&tq.waiting, __ATOMIC_ACQUIRE);
}

static void pass(void)
{
    struct turn *t = me();

    pthread_mutex_lock(&tq.mu);
    if (tq.holder == t && !STAILQ_EMPTY(&tq.queue)) {
        enqueue(t);
        hand_on();
        wait_for(t);
    }
    pthread_mutex_unlock(&tq.mu);
}

void enc_mpi_turn_register(bool (*shared)(void))
{
    static struct enc_turns turns = {.wanted = wanted, .pass = pass, .waiting = waiting};

    turns.shared = shared;
    enc_engine_set_turns(&turns);
}

void enc_mpi_turn_fork_child(void)
{
    tq.mu = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
    mine.ready = false;
    tq.holder = me();
    STAILQ_INIT(&tq.queue);
    tq.waiting = 0;
}
