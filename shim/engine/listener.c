/*
 * listener.c - accepts and authenticates incoming rank connections in a
 * background thread.
 *
 * A peer may connect while this rank computes outside MPI; doing the
 * handshake here means the connecting side never waits for the application.
 * Junk, wrong secrets and silent peers are dropped here, one WARN each,
 * without the main thread noticing.
 */
#include "enc.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "core/vec.h"
#include "engine/layer.h"
#include "engine/state.h"
#include "net/sock.h"
#include "proto/auth.h"

#define LISTENER_MAX_PENDING 64

struct pending {
    int fd;
    uint64_t deadline;
    struct enc_auth_server auth;
};

static void queue_push(struct enc_listener *l, int fd, const struct enc_auth_id *id)
{
    uint64_t one = 1;

    pthread_mutex_lock(&l->lock);
    if (ENC_VEC_RESERVE(l->queue, l->capqueue, l->nqueue + 1) != ENC_OK) {
        pthread_mutex_unlock(&l->lock);
        close(fd);
        return;
    }
    l->queue[l->nqueue].fd = fd;
    l->queue[l->nqueue].id = *id;
    l->nqueue++;
    pthread_mutex_unlock(&l->lock);
    if (write(l->wake_fd, &one, sizeof(one)) < 0)
        ENC_WARN("listener", "eventfd write: %m");
}

static void accept_new(struct enc_listener *l, const struct enc_secret *s,
                       struct pending *p, int *np)
{
    int fd;

    while (enc_sock_accept(l->listen_fd, &fd) == ENC_OK) {
        if (*np == LISTENER_MAX_PENDING) {
            ENC_WARN("listener", "too many unauthenticated connections; closing one");
            close(fd);
            continue;
        }
        if (enc_auth_server_start(&p[*np].auth, fd, s) != ENC_OK) {
            close(fd);
            continue;
        }
        p[*np].fd = fd;
        p[*np].deadline = enc_deadline_ms(enc_tunable_ll(ENC_TUNE_CONNECT_TIMEOUT_MS));
        (*np)++;
    }
}

/* Point-to-point connections go straight to their layer: it reads them
 * while the program is outside collectives, when nobody drains the queue. */
static void (*p2p_accept)(int fd, const struct enc_auth_id *id);

void enc_engine_set_p2p_accept(void (*fn)(int fd, const struct enc_auth_id *id))
{
    __atomic_store_n(&p2p_accept, fn, __ATOMIC_RELEASE);
}

/* Progress handshakes; finished or failed ones leave the array. */
static void progress_pending(struct enc_listener *l, struct pending *p, int *np,
                             const struct pollfd *pfd)
{
    for (int i = *np - 1; i >= 0; i--) {
        struct enc_auth_id id;
        enc_status_t rv = ENC_INPROGRESS;

        if (pfd[i].revents)
            rv = enc_auth_server_progress(&p[i].auth, p[i].fd, &id);
        if (rv == ENC_INPROGRESS && enc_ms_left(p[i].deadline) == 0) {
            ENC_WARN("listener", "closing connection: no handshake within the connect timeout");
            rv = ENC_ERR_TIMEOUT;
        }
        if (rv == ENC_OK && id.role == ENC_ROLE_P2P && p2p_accept != NULL) {
            p2p_accept(p[i].fd, &id); /* the point-to-point layer reads it itself */
            p[i] = p[--(*np)];
            continue;
        }
        if (rv == ENC_OK && id.role != ENC_ROLE_DATA && id.role != ENC_ROLE_LOG) {
            ENC_WARN("listener", "closing connection: role %u is not a rank link", id.role);
            rv = ENC_ERR_AUTH;
        }
        if (rv == ENC_INPROGRESS)
            continue;
        if (rv == ENC_OK)
            queue_push(l, p[i].fd, &id);
        else
            close(p[i].fd);
        p[i] = p[--(*np)];
    }
}

static void *listener_main(void *arg)
{
    struct enc_listener *l = arg;
    const struct enc_secret *s = &enc_eng.secret;
    struct pending p[LISTENER_MAX_PENDING];
    struct pollfd pfd[LISTENER_MAX_PENDING + 2];
    int np = 0;

    __atomic_store_n(&l->tid, (int)gettid(), __ATOMIC_RELEASE);
    for (;;) {
        for (int i = 0; i < np; i++)
            pfd[i] = (struct pollfd){.fd = p[i].fd, .events = POLLIN};
        pfd[np] = (struct pollfd){.fd = l->listen_fd, .events = POLLIN};
        pfd[np + 1] = (struct pollfd){.fd = l->stop_fd, .events = POLLIN};
        if (poll(pfd, (nfds_t)np + 2, np ? 200 : -1) < 0 && errno != EINTR)
            break;
        if (pfd[np + 1].revents)
            break;
        progress_pending(l, p, &np, pfd);
        if (pfd[np].revents)
            accept_new(l, s, p, &np);
    }
    for (int i = 0; i < np; i++)
        close(p[i].fd);
    return NULL;
}

enc_status_t enc_listener_start(struct enc_listener *l, const struct enc_secret *s)
{
    enc_status_t rv;

    (void)s;
    if ((rv = enc_sock_listen(NULL, 0, &l->listen_fd, &l->port)) != ENC_OK)
        return rv;
    l->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    l->stop_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (l->wake_fd < 0 || l->stop_fd < 0) {
        ENC_ERROR("listener", "eventfd: %m");
        return ENC_ERR_SYS;
    }
    pthread_mutex_init(&l->lock, NULL);
    if (pthread_create(&l->thread, NULL, listener_main, l) != 0) {
        ENC_ERROR("listener", "cannot start the listener thread");
        return ENC_ERR_SYS;
    }
    l->running = true;
    return ENC_OK;
}

void enc_listener_stop(struct enc_listener *l)
{
    uint64_t one = 1;

    if (!l->running)
        return;
    if (write(l->stop_fd, &one, sizeof(one)) < 0)
        ENC_WARN("listener", "eventfd write: %m");
    pthread_join(l->thread, NULL);
    l->running = false;
    enc_sock_close(&l->listen_fd);
    for (size_t i = 0; i < l->nqueue; i++)
        close(l->queue[i].fd);
    l->nqueue = 0;
}

size_t enc_listener_drain(struct enc_listener *l, struct enc_accepted *out, size_t max)
{
    uint64_t v;
    size_t n, left;

    if (read(l->wake_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
        ENC_WARN("listener", "eventfd read: %m");
    pthread_mutex_lock(&l->lock);
    n = ENC_MIN(max, l->nqueue);
    /* The queue is NULL until the first connection, and memcpy from NULL
     * is undefined even for 0 bytes (UBSan failed every rank). */
    if (n > 0) {
        memcpy(out, l->queue, n * sizeof(*out));
        memmove(l->queue, l->queue + n, (l->nqueue - n) * sizeof(*out));
        l->nqueue -= n;
    }
    left = l->nqueue; /* read under the lock: the thread appends to it */
    pthread_mutex_unlock(&l->lock);
    if (left > 0) {
        uint64_t one = 1; /* keep the eventfd readable for the rest */

        if (write(l->wake_fd, &one, sizeof(one)) < 0)
            ENC_WARN("listener", "eventfd write: %m");
    }
    return n;
}

void enc_listener_forget(struct enc_listener *l)
{
    size_t n = ENC_MIN(l->nqueue, l->capqueue);

    for (size_t i = 0; l->queue != NULL && i < n; i++)
        close(l->queue[i].fd);
    enc_sock_close(&l->listen_fd);
    enc_sock_close(&l->wake_fd);
    enc_sock_close(&l->stop_fd);
    *l = (struct enc_listener){.listen_fd = -1, .wake_fd = -1, .stop_fd = -1};
}
