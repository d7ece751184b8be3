/*
 * state.c - the point-to-point layer's one state, its lock, the wake-up of
 * its waiters and of its progress thread, and the end of a job whose peer
 * broke the protocol (p2p_int.h), used by every file of the layer; the
 * waits themselves are in shm_wait.c and tcp_wait.c, the progress thread
 * in progress.c.
 */
#include "enc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/engine.h"

#include "p2p/kept.h"
#include "p2p/p2p_int.h"
#include "p2p/pool.h"
#include "p2p/shm_link.h"

struct p2p_state enc_p2p = {
    .mu = PTHREAD_MUTEX_INITIALIZER,
    .wake_fd = -1,
    .wait_fd = -1,
};

void enc_p2p_lock(void) { pthread_mutex_lock(&enc_p2p.mu); }
void enc_p2p_unlock(void) { pthread_mutex_unlock(&enc_p2p.mu); }
bool enc_p2p_started(void) { return __atomic_load_n(&enc_p2p.started, __ATOMIC_ACQUIRE); }
bool enc_p2p_announced(void) { return __atomic_load_n(&enc_p2p.announced, __ATOMIC_ACQUIRE); }

/* The progress thread (progress.c): it computes its poll set anew after
 * every turn, so it never needs to wake itself (that made it spin on the
 * eventfd while a ring was full). */
ENC_HOT_TLS bool enc_p2p_on_progress_thread;

void enc_p2p_wake_thread(void)
{
    uint64_t one = 1;

    if (write(enc_p2p.wake_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
        ENC_WARN("p2p", "eventfd write: %m");
}

void enc_p2p_conn_wake(void)
{
    if (enc_p2p.wake_fd >= 0)
        enc_p2p_wake_thread();
}

void enc_p2p_wake_waiters(void)
{
    /* read without the lock by a spinning wait (shm_wait.c) */
    __atomic_store_n(&enc_p2p.events, enc_p2p.events + 1, __ATOMIC_RELAXED);
    pthread_cond_broadcast(&enc_p2p.cv);
    enc_p2p_shm_wake_self();
    if (enc_p2p.tcp_polling) { /* the TCP reader sleeps in poll (tcp_wait.c) */
        uint64_t one = 1;

        enc_p2p.tcp_polling = false; /* one write per sleep */
        (void)!write(enc_p2p.wait_fd, &one, sizeof(one));
    }
}



/* A payload this small lives in the message's own allocation, and such
 * allocations freed by a thread are kept for its next messages (kept.h):
 * an arriving small message costs no malloc nor free. */
#define INLINE_MAX ENC_P2P_INLINE_MAX

static __thread struct enc_p2p_kept kept;

struct enc_p2p_msg *enc_p2p_msg_new(size_t bytes)
{
    bool small = bytes <= INLINE_MAX;
    struct enc_p2p_msg *m = small ? enc_p2p_kept_get(&kept) : NULL;

    if (m == NULL && (m = malloc(sizeof(*m) + (small ? INLINE_MAX : 0))) == NULL)
        return NULL;
    memset(m, 0, sizeof(*m));
    if (small && bytes > 0)
        m->data = (uint8_t *)(m + 1);
    return m;
}

void enc_p2p_msg_free(struct enc_p2p_msg *m)
{
    if (m == NULL)
        return;
    /* else the receive's own buffer, or the message's inline bytes */
    if (m->direct_to == NULL && m->data != (uint8_t *)(m + 1))
        enc_p2p_pool_put(m->data);
    if (m->bytes <= INLINE_MAX) /* it has the inline room */
        enc_p2p_kept_put(&kept, m);
    else
        free(m);
}

void enc_p2p_peer_lost(int peer, const char *what)
{
    char reason[400];

    snprintf(reason, sizeof(reason), "rank %d %s", peer, what);
    ENC_ERROR("p2p", "%s", reason);
    enc_engine_abort(1, reason);
}
