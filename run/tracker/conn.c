/*
 * conn.c - control connections of the tracker: accept, authenticate,
 * assemble frames, send, and close.  Whatever a peer sends, the worst it
 * can do is get its own connection closed with one warning.
 */
#include "enc.h"

#include "core/vec.h"
#include "net/sock.h"
#include "proto/auth.h"
#include "proto/frame.h"
#include "tracker/tracker_int.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

static void peer_name(int fd, char *out, size_t cap)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    char host[INET6_ADDRSTRLEN] = "?";
    unsigned port = 0;

    if (getpeername(fd, (struct sockaddr *)&ss, &len) == 0) {
        if (ss.ss_family == AF_INET) {
            struct sockaddr_in *a = (struct sockaddr_in *)&ss;
            inet_ntop(AF_INET, &a->sin_addr, host, sizeof(host));
            port = ntohs(a->sin_port);
        } else if (ss.ss_family == AF_INET6) {
            struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
            inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof(host));
            port = ntohs(a->sin6_port);
        }
    }
    snprintf(out, cap, "%s:%u", host, port);
}

static enc_status_t conn_add(struct enc_tracker *t, struct trk_conn *c)
{
    if (ENC_VEC_RESERVE(t->conns, t->capconns, (size_t)t->nconns + 1) != ENC_OK)
        return ENC_ERR_NOMEM;
    t->conns[t->nconns++] = c;
    return ENC_OK;
}

/* Accepts every pending connection and sends each its challenge. */
enc_status_t enc_trk_accept(struct enc_tracker *t)
{
    struct trk_conn *c;
    enc_status_t rv;
    int fd;

    while (enc_sock_accept(t->lfd, &fd) == ENC_OK) {
        if ((c = calloc(1, sizeof(*c))) == NULL) {
            enc_sock_close(&fd);
            return ENC_ERR_NOMEM;
        }
        c->fd = fd;
        c->rank = -1;
        c->deadline = enc_deadline_ms(t->connect_timeout_ms);
        peer_name(fd, c->peer, sizeof(c->peer));
        enc_frame_reader_init(&c->rd, ENC_CTRL_MAX_PAYLOAD);
        if ((rv = conn_add(t, c)) != ENC_OK) {
            enc_trk_conn_drop(t, c);
            return rv;
        }
        if (enc_auth_server_start(&c->auth, fd, &t->secret) != ENC_OK)
            enc_trk_conn_drop(t, c); /* logged by the handshake */
    }
    return ENC_OK;
}

void enc_trk_conn_drop(struct enc_tracker *t, struct trk_conn *c)
{
    for (int i = 0; i < t->nconns; i++) {
        if (t->conns[i] == c) {
            t->conns[i] = t->conns[--t->nconns];
            break;
        }
    }
    enc_sock_close(&c->fd);
    enc_frame_reader_fini(&c->rd);
    free(c);
}

static enc_status_t auth_input(struct enc_tracker *t, struct trk_conn *c)
{
    enc_status_t rv = enc_auth_server_progress(&c->auth, c->fd, &c->id);

    if (rv == ENC_INPROGRESS)
        return ENC_OK; /* more of the handshake later */
    if (rv != ENC_OK)
        return rv;
    if (c->id.role != ENC_ROLE_CONTROL)
        return ENC_ERR_PROTO;
    c->state = TRK_WAIT_REGISTER;
    return ENC_OK;
}

enc_status_t enc_trk_conn_input(struct enc_tracker *t, struct trk_conn *c)
{
    enc_status_t rv, got;

    if (c->state == TRK_AUTH)
        return auth_input(t, c);
    while ((got = enc_frame_reader_progress(&c->rd, c->fd)) == ENC_OK) {
        if (c->state == TRK_WAIT_REGISTER) {
            if (c->rd.hdr.type != ENC_MSG_REGISTER)
                return ENC_ERR_PROTO;
            rv = t->conn_ops->on_register(t, c, c->rd.payload, (size_t)c->rd.hdr.len);
        } else {
            rv = t->conn_ops->on_frame(t, c);
        }
        enc_frame_reader_reset(&c->rd);
        if (rv != ENC_OK || c->state != TRK_RANK)
            return rv;
    }
    return got < 0 ? (enc_status_t)got : ENC_OK;
}

/* Sends one frame, bounded.  A failure marks the connection broken; the
 * sweep turns that into a lost rank outside of any broadcast loop. */
enc_status_t enc_trk_send(struct enc_tracker *t, struct trk_conn *c, uint8_t type,
                          const void *p, size_t len)
{
    struct enc_frame_hdr h = {.type = type, .src = ENC_SRC_TRACKER, .epoch = t->epoch,
                              .len = len};
    enc_status_t rv;

    if (c->broken != NULL)
        return ENC_ERR_PEER_RESET;
    rv = enc_frame_send(c->fd, &h, p, enc_deadline_ms(TRK_SEND_TIMEOUT_MS));
    if (rv != ENC_OK)
        c->broken = rv == ENC_ERR_TIMEOUT ? "not reading its control connection"
                                           : "control connection broken";
    return rv;
}

/* Drops connections that failed a send or overstayed their handshake. */
void enc_trk_sweep(struct enc_tracker *t)
{
    uint64_t now = enc_now_ns();

    for (int i = 0; i < t->nconns; i++) {
        struct trk_conn *c = t->conns[i];

        if (c->state == TRK_RANK && c->broken != NULL) {
            t->conn_ops->on_broken(t, c);
            i = -1; /* the table changed */
        } else if (c->state != TRK_RANK && now >= c->deadline) {
            ENC_WARN("tracker", "connection from %s closed: no %s within %lld ms", c->peer,
                     c->state == TRK_AUTH ? "authentication" : "REGISTER",
                     (long long)t->connect_timeout_ms);
            enc_trk_conn_drop(t, c);
            i = -1;
        }
    }
}
