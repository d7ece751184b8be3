/*
 * progress.c - the point-to-point progress thread (progress.h): its loop,
 * its start, its restart in a restored image and its stop at finalize.
 *
 * Writes go out at once from the sending thread as far as the socket
 * takes them; the rest, and every read a waiting thread does not do
 * itself (tcp_wait.c), is the progress thread's, which sleeps in poll on
 * the connections peers made to us, on ours that have bytes queued, and
 * on an eventfd that says "poll anew" (a new queue, a new connection,
 * stop).  The lock is held while a ready connection is served, never
 * while poll sleeps.  It reads the rings of peers of this host when they
 * ring its BELL, and looks again within SHM_RETRY_MS at a ring that waits
 * for room.
 */
#include "enc.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "engine/engine.h"
#include "engine/layer.h"
#include "net/sock.h"
#include "p2p/conn.h"
#include "p2p/conn_rx.h"
#include "p2p/conn_tx.h"
#include "p2p/p2p_int.h"
#include "p2p/pool.h"
#include "p2p/progress.h"
#include "p2p/shm_link.h"
#include "p2p/tcp_lead.h"

#define RESUME_RETRY_MS 100
#define SHM_RETRY_MS 2

static void serve(const struct pollfd *p, const int *who, const bool *is_in, int n)
{
    for (int i = 0; i < n; i++) {
        int peer = who[i];

        if (p[i].revents == 0)
            continue;
        if (!is_in[i]) {
            if (enc_p2p.out[peer].fd == p[i].fd)
                enc_p2p_conn_push(peer);
        } else if (!enc_p2p.tcp_led) { /* else a waiting thread reads (tcp_wait.c) */
            enc_p2p_conn_read_peer(peer, p[i].fd);
        }
    }
}

/* The poll set (the lock held): the eventfd, then connections. */
static int poll_set(struct pollfd *p, int *who, bool *is_in, int *timeout)
{
    int n = 1, tcp_timeout = -1;
    bool reads = enc_p2p_tcp_progress_reads(&tcp_timeout);

    *timeout = -1;

    p[0] = (struct pollfd){.fd = enc_p2p.wake_fd, .events = POLLIN};
    for (int r = 0; r < enc_p2p.size; r++) {
        const struct p2p_out *o = &enc_p2p.out[r];

        if (enc_p2p.in[r].fd >= 0 && reads) {
            p[n] = (struct pollfd){.fd = enc_p2p.in[r].fd, .events = POLLIN};
            who[n] = r;
            is_in[n++] = true;
        }
        if (o->fd >= 0 && (o->cursor != NULL || o->ctrl != NULL)) {
            p[n] = (struct pollfd){.fd = o->fd, .events = POLLOUT};
            who[n] = r;
            is_in[n++] = false;
        }
        if (enc_p2p_conn_resume_waits(o))
            *timeout = RESUME_RETRY_MS;
        /* a ring not reset yet by its reader, or full: look again soon (its
         * bell or reset normally comes first) */
        if (o->shm && o->fd >= 0 && o->cursor != NULL)
            *timeout = *timeout < 0 ? SHM_RETRY_MS : ENC_MIN(*timeout, SHM_RETRY_MS);
    }
    if (enc_p2p.rings_behind)
        *timeout = 0;
    enc_p2p.shm_retry = *timeout >= 0 && *timeout <= SHM_RETRY_MS;
    if (tcp_timeout >= 0) /* a leader's reads are looked after */
        *timeout = *timeout < 0 ? tcp_timeout : ENC_MIN(*timeout, tcp_timeout);
    return n;
}

static void *progress_main(void *arg)
{
    int cap = 1 + 2 * enc_p2p.size;
    struct pollfd *p = calloc((size_t)cap, sizeof(*p));
    int *who = calloc((size_t)cap, sizeof(int));
    bool *is_in = calloc((size_t)cap, sizeof(bool));

    (void)arg;
    enc_p2p_on_progress_thread = true;
    __atomic_store_n(&enc_p2p.tid, (int)gettid(), __ATOMIC_RELEASE);
    if (p == NULL || who == NULL || is_in == NULL)
        enc_p2p_peer_lost(enc_p2p.rank, "ran out of memory for point-to-point progress");
    for (;;) {
        uint64_t v;
        int n, timeout;

        enc_p2p_lock();
        if (enc_p2p.stop) {
            enc_p2p_unlock();
            break;
        }
        enc_p2p_conn_install_accepted();
        n = poll_set(p, who, is_in, &timeout);
        enc_p2p_unlock();
        if (poll(p, (nfds_t)n, timeout) < 0 && errno != EINTR)
            ENC_WARN("p2p", "poll: %m");
        if (p[0].revents && read(enc_p2p.wake_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
            ENC_WARN("p2p", "eventfd read: %m");
        enc_p2p_lock();
        enc_p2p.shm_retry = false;
        enc_p2p.rings_behind = false; /* the look below reads on */
        enc_p2p_tcp_progress_woke(); /* may take the reads back from an idle leader */
        serve(p + 1, who + 1, is_in + 1, n - 1);
        (void)enc_p2p_conn_shm_progress();
        if (timeout >= 0)
            enc_p2p_conn_retry_resumes();
        enc_p2p_unlock();
    }
    free(p);
    free(who);
    free(is_in);
    return NULL;
}

enc_status_t enc_p2p_conn_start(void)
{
    if (pthread_create(&enc_p2p.thread, NULL, progress_main, NULL) != 0) {
        ENC_ERROR("p2p", "cannot start the point-to-point progress thread");
        return ENC_ERR_SYS;
    }
    return ENC_OK;
}

enc_status_t enc_p2p_conn_restart(void)
{
    enc_p2p_shm_reset_line(); /* the image's threads that polled or slept are gone */
    if ((enc_p2p.wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0) {
        ENC_ERROR("p2p", "eventfd: %m");
        return ENC_ERR_SYS;
    }
    if (enc_p2p_tcp_open() != ENC_OK)
        return ENC_ERR_SYS;
    return enc_p2p_conn_start();
}

void enc_p2p_finalize(void)
{
    struct enc_p2p_pool_stats ps;

    if (!enc_p2p_started())
        return;
    enc_engine_set_p2p_accept(NULL);
    enc_p2p_lock();
    enc_p2p.stop = true;
    enc_p2p_unlock();
    enc_p2p_wake_thread();
    pthread_join(enc_p2p.thread, NULL);
    ENC_DEBUG("p2p", "messages through shared memory: %llu sent, %llu received (%llu of them "
              "read from the sender's log) (%llu of them read from its lent buffer)",
              (unsigned long long)enc_p2p.shm_sent, (unsigned long long)enc_p2p.shm_recvd,
              (unsigned long long)(enc_p2p.shm_remote - enc_p2p.shm_lent),
              (unsigned long long)enc_p2p.shm_lent);
    ENC_DEBUG("p2p", "bells rung on TCP for readers of this rank's rings: %llu",
              (unsigned long long)enc_p2p.shm_bells);
    enc_p2p_pool_stats(&ps);
    ENC_DEBUG("p2p", "payload memory: %zu chunks of %zu bytes held (%zu kept free, %zu bytes), "
              "%zu mapped in all, %zu dropped after a fork", ps.chunks, ps.bytes, ps.kept_chunks,
              ps.kept_bytes, ps.mapped, ps.dropped);
    for (int r = 0; r < enc_p2p.size; r++) {
        enc_sock_close(&enc_p2p.out[r].fd);
        enc_p2p_conn_close_in(&enc_p2p.in[r]);
    }
    __atomic_store_n(&enc_p2p.tid, 0, __ATOMIC_RELEASE);
}

int enc_p2p_thread_id(void) { return __atomic_load_n(&enc_p2p.tid, __ATOMIC_ACQUIRE); }
