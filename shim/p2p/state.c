/*
 * state.c - the point-to-point layer's one state, its lock and the
 * waits on it (p2p_int.h), used by p2p.c and conn.c alike.
 */
#include "enc.h"

#include <stdlib.h>
#include <time.h>

#include "p2p/p2p_int.h"
#include "p2p/shm_link.h"

struct p2p_state enc_p2p = {
    .mu = PTHREAD_MUTEX_INITIALIZER,
    .wake_fd = -1,
};

void enc_p2p_lock(void) { pthread_mutex_lock(&enc_p2p.mu); }
void enc_p2p_unlock(void) { pthread_mutex_unlock(&enc_p2p.mu); }
bool enc_p2p_started(void) { return __atomic_load_n(&enc_p2p.started, __ATOMIC_ACQUIRE); }
bool enc_p2p_announced(void) { return __atomic_load_n(&enc_p2p.announced, __ATOMIC_ACQUIRE); }

void enc_p2p_wake_waiters(void)
{
    enc_p2p.events++;
    pthread_cond_broadcast(&enc_p2p.cv);
    enc_p2p_shm_wake_self();
}

enc_status_t enc_p2p_wait(uint64_t deadline)
{
    struct timespec ts;
    uint64_t ns;

    /* peers of this host: poll their rings a while before sleeping */
    if (enc_p2p_conn_spin())
        return ENC_OK;
    if (enc_p2p_shm_any()) /* sleep where peers' writes wake us */
        return enc_p2p_conn_sleep(deadline);
    if (deadline == ENC_NEVER) {
        pthread_cond_wait(&enc_p2p.cv, &enc_p2p.mu);
        return ENC_OK;
    }
    if (enc_ms_left(deadline) == 0)
        return ENC_ERR_TIMEOUT;
    ns = deadline;
    ts.tv_sec = (time_t)(ns / 1000000000u);
    ts.tv_nsec = (long)(ns % 1000000000u);
    pthread_cond_timedwait(&enc_p2p.cv, &enc_p2p.mu, &ts);
    return ENC_OK;
}


void enc_p2p_msg_free(struct enc_p2p_msg *m)
{
    if (m != NULL)
        free(m->data);
    free(m);
}
