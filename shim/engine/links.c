/*
 * links.c - the data links between ranks, made on first use.
 *
 * Exactly one connection per pair and epoch: the higher rank connects, the
 * lower one receives it from the listener thread.  A connection is bound
 * (by the authenticated handshake) to the sender's rank, incarnation and
 * epoch; one from an older epoch or a fenced incarnation is closed unread.
 */
#include "enc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/vec.h"
#include "engine/layer.h"
#include "engine/link_io.h"
#include "engine/state.h"
#include "net/sock.h"
#include "proto/auth.h"
#include "proto/msgs.h"

enc_status_t enc_links_alloc(int size)
{
    enc_eng.link_fd = malloc((size_t)size * sizeof(int));
    enc_eng.log_fd = malloc((size_t)size * sizeof(int));
    enc_eng.serve_fd = malloc((size_t)size * sizeof(int));
    if (!enc_eng.link_fd || !enc_eng.log_fd || !enc_eng.serve_fd)
        return ENC_ERR_NOMEM;
    for (int i = 0; i < size; i++)
        enc_eng.link_fd[i] = enc_eng.log_fd[i] = enc_eng.serve_fd[i] = -1;
    return enc_link_io_alloc(size);
}

static void stash_future(const struct enc_accepted *a)
{
    if (ENC_VEC_RESERVE(enc_eng.future, enc_eng.capfuture, enc_eng.nfuture + 1) != ENC_OK) {
        close(a->fd);
        return;
    }
    enc_eng.future[enc_eng.nfuture++] = *a;
}

static void install(const struct enc_accepted *a)
{
    const struct enc_auth_id *id = &a->id;
    int *slot;

    if (enc_eng.peers == NULL || id->epoch > enc_eng.epoch) {
        stash_future(a);
        return;
    }
    if (id->epoch < enc_eng.epoch || id->rank >= (uint32_t)enc_eng.size ||
        id->incarnation != enc_eng.peers[id->rank].incarnation ||
        (id->role == ENC_ROLE_DATA && (int)id->rank <= enc_eng.rank)) {
        ENC_DEBUG("links", "closing stale link from rank %u (epoch %u, incarnation %u)",
                  id->rank, id->epoch, id->incarnation);
        close(a->fd);
        return;
    }
    slot = id->role == ENC_ROLE_LOG ? &enc_eng.serve_fd[id->rank]
                                    : &enc_eng.link_fd[id->rank];
    if (*slot >= 0)
        close(*slot);
    *slot = a->fd;
}

void enc_links_poll_accepted(void)
{
    struct enc_accepted a[16];
    size_t n;

    while ((n = enc_listener_drain(&enc_eng.lst, a, ENC_ARRAY_SIZE(a))) > 0)
        for (size_t i = 0; i < n; i++)
            install(&a[i]);
}

/* After adopting a new epoch: connections that arrived early. */
void enc_links_promote_future(void)
{
    size_t n = enc_eng.nfuture;

    enc_eng.nfuture = 0;
    for (size_t i = 0; i < n; i++)
        install(&enc_eng.future[i]);
}

static enc_status_t connect_at(const char *addr, uint16_t port, uint8_t role, int *fd)
{
    struct enc_auth_id self = {
        .role = role,
        .rank = (uint32_t)enc_eng.rank,
        .incarnation = enc_eng.incarnation,
        .epoch = enc_eng.epoch,
    };
    uint64_t deadline = enc_deadline_ms(enc_eng.connect_timeout_ms);
    enc_status_t rv;

    if ((rv = enc_sock_connect(addr, port, deadline, fd)) != ENC_OK)
        return rv;
    if ((rv = enc_auth_client(*fd, &enc_eng.secret, &self, deadline)) != ENC_OK)
        enc_sock_close(fd);
    return rv;
}

static enc_status_t connect_peer(int peer, uint8_t role, int *fd)
{
    return connect_at(enc_eng.peers[peer].addr, enc_eng.peers[peer].port, role, fd);
}

/* A failed connect is a peer failure the layer can regroup from. */
static enc_status_t as_peer_failure(enc_status_t rv)
{
    return ENC_IS_PEER_FAILURE(rv) || rv == ENC_ERR_TIMEOUT ? ENC_ERR_PEER_RESET : rv;
}

enc_status_t enc_link_fd(int peer, int *fd)
{
    enc_status_t rv;

    *fd = enc_eng.link_fd[peer];
    if (*fd >= 0 || peer > enc_eng.rank)
        return ENC_OK;
    if ((rv = connect_peer(peer, ENC_ROLE_DATA, fd)) != ENC_OK) {
        ENC_DEBUG("links", "cannot connect to rank %d: %s", peer, encore_strerror(rv));
        return as_peer_failure(rv);
    }
    enc_eng.link_fd[peer] = *fd;
    return ENC_OK;
}

enc_status_t enc_log_conn(int peer, int *fd)
{
    enc_status_t rv;

    *fd = enc_eng.log_fd[peer];
    if (*fd >= 0)
        return ENC_OK;
    if ((rv = connect_peer(peer, ENC_ROLE_LOG, fd)) != ENC_OK)
        return as_peer_failure(rv);
    enc_eng.log_fd[peer] = *fd;
    return ENC_OK;
}

enc_status_t enc_p2p_conn_open(int peer, int *fd)
{
    enc_status_t rv = connect_peer(peer, ENC_ROLE_P2P, fd);

    return rv == ENC_OK ? rv : as_peer_failure(rv);
}

enc_status_t enc_p2p_conn_open_at(const char *addr, uint16_t port, int *fd)
{
    enc_status_t rv = connect_at(addr, port, ENC_ROLE_P2P, fd);

    return rv == ENC_OK ? rv : as_peer_failure(rv);
}

uint32_t enc_p2p_peer_incarnation(int peer)
{
    return enc_eng.peers != NULL ? enc_eng.peers[peer].incarnation : 0;
}

void enc_p2p_self_addr(char *addr, size_t cap, uint16_t *port)
{
    snprintf(addr, cap, "%s", enc_eng.peers[enc_eng.rank].addr);
    *port = enc_eng.peers[enc_eng.rank].port;
}

void enc_log_conn_close(int peer) { enc_sock_close(&enc_eng.log_fd[peer]); }
int enc_log_served_fd(int peer) { return enc_eng.serve_fd[peer]; }
void enc_log_served_close(int peer) { enc_sock_close(&enc_eng.serve_fd[peer]); }

void enc_links_close_all(void)
{
    for (int i = 0; i < enc_eng.size; i++) {
        enc_sock_close(&enc_eng.link_fd[i]);
        enc_sock_close(&enc_eng.log_fd[i]);
        enc_sock_close(&enc_eng.serve_fd[i]);
    }
    enc_link_io_reset_all();
}
