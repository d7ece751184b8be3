/*
 * auth_server.c - the server side of the handshake as a state machine that
 * never blocks, for poll loops that serve many connections: a peer that
 * connects and sends nothing, junk or half a frame costs one slot and no
 * waiting.  The caller bounds how long a connection may stay unauthenticated.
 */
#include "enc.h"
#include "net/sock.h"
#include "proto/auth.h"
#include "proto/auth_int.h"
#include "proto/frame.h"
#include "proto/wire.h"

#include <netdb.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/rand.h>

#define ENC_AUTH_FRAME_LEN (ENC_FRAME_HDR_SIZE + ENC_AUTH_LEN)

_Static_assert(ENC_AUTH_FRAME_LEN <= sizeof(((struct enc_auth_server *)0)->buf),
               "the AUTH frame must fit the server's buffer");

/* A fresh socket's send buffer always has room for one small frame, so a
 * single non-blocking write either sends it all or the peer is gone. */
static int send_now(int fd, uint8_t type, const uint8_t *payload, size_t len,
                    const char **why)
{
    struct enc_frame_hdr h = {.type = type, .len = len};
    uint8_t buf[ENC_FRAME_HDR_SIZE + ENC_MAC_LEN];
    ssize_t n;

    enc_frame_encode(&h, buf);
    memcpy(buf + ENC_FRAME_HDR_SIZE, payload, len);
    n = enc_sock_write_some(fd, buf, ENC_FRAME_HDR_SIZE + len);
    if (n == (ssize_t)(ENC_FRAME_HDR_SIZE + len))
        return ENC_OK;
    *why = n < 0 ? encore_strerror((int)n) : "send buffer full";
    return n < 0 ? (int)n : ENC_ERR_PEER_RESET;
}

static void log_reject(int fd, const char *why)
{
    char peer[NI_MAXHOST + NI_MAXSERV + 4];

    enc_auth_peer_name(fd, peer, sizeof(peer));
    ENC_WARN("auth", "rejected connection from %s: %s", peer, why);
}

enc_status_t enc_auth_server_start(struct enc_auth_server *a, int fd, const struct enc_secret *s)
{
    const char *why = "RAND_bytes failed";
    int rv = ENC_ERR_SYS;

    memset(a, 0, sizeof(*a));
    a->secret = s;
    a->done = ENC_INPROGRESS;
    if (RAND_bytes(a->nonce, ENC_NONCE_LEN) == 1)
        rv = send_now(fd, ENC_MSG_CHALLENGE, a->nonce, ENC_NONCE_LEN, &why);
    if (rv != 0) {
        log_reject(fd, why);
        a->done = rv;
    }
    return rv;
}

/* A header is complete: only an AUTH frame of the exact size may follow. */
static int check_header(const struct enc_auth_server *a, const char **why)
{
    struct enc_frame_hdr h;

    if (enc_frame_decode(a->buf, &h) != 0) {
        *why = memcmp(a->buf, "ENCR", 4) == 0 ? "bad frame version, type or length"
                                              : "not an encore frame";
        return ENC_ERR_PROTO;
    }
    if (h.type != ENC_MSG_AUTH || h.len != ENC_AUTH_LEN) {
        *why = "expected an AUTH frame";
        return ENC_ERR_PROTO;
    }
    return ENC_OK;
}

/* Reads what is there, never past the AUTH frame: ENC_OK complete,
 * ENC_INPROGRESS more to come. */
static int read_auth(struct enc_auth_server *a, int fd, const char **why)
{
    ssize_t n;
    int rv;

    while (a->have < ENC_AUTH_FRAME_LEN) {
        size_t want = a->have < ENC_FRAME_HDR_SIZE ? ENC_FRAME_HDR_SIZE : ENC_AUTH_FRAME_LEN;
        if ((n = enc_sock_read_some(fd, a->buf + a->have, want - a->have)) == 0)
            return ENC_INPROGRESS;
        if (n < 0) {
            *why = n == ENC_ERR_PEER_CLOSED ? "closed during the handshake"
                                            : encore_strerror((int)n);
            return (int)n;
        }
        a->have += (size_t)n;
        if (a->have == ENC_FRAME_HDR_SIZE && (rv = check_header(a, why)) != 0)
            return rv;
    }
    return ENC_OK;
}

/* Checks the client's proof and answers with ours. */
static int verify(struct enc_auth_server *a, int fd, struct enc_auth_id *peer,
                  const char **why)
{
    uint8_t nonce_c[ENC_NONCE_LEN], got[ENC_MAC_LEN], want[ENC_MAC_LEN];
    struct enc_auth_id id;
    struct enc_rbuf r;
    int rv;

    enc_r_init(&r, a->buf + ENC_FRAME_HDR_SIZE, ENC_AUTH_LEN);
    enc_auth_id_read(&r, &id);
    enc_r_bytes(&r, nonce_c, ENC_NONCE_LEN);
    enc_r_bytes(&r, got, ENC_MAC_LEN);
    if ((rv = enc_auth_mac(a->secret, ENC_AUTH_LABEL_CLIENT, a->nonce, nonce_c, &id, want)) != 0)
        return rv;
    if (CRYPTO_memcmp(got, want, ENC_MAC_LEN) != 0) {
        *why = "bad proof (wrong job secret?)";
        return ENC_ERR_AUTH;
    }
    if (id.role != ENC_ROLE_CONTROL && id.role != ENC_ROLE_DATA && id.role != ENC_ROLE_LOG &&
        id.role != ENC_ROLE_AGENT && id.role != ENC_ROLE_P2P) {
        *why = "unknown role";
        return ENC_ERR_PROTO;
    }
    if ((rv = enc_auth_mac(a->secret, ENC_AUTH_LABEL_SERVER, nonce_c, a->nonce, &id, want)) != 0)
        return rv;
    if ((rv = send_now(fd, ENC_MSG_AUTH_OK, want, ENC_MAC_LEN, why)) != 0)
        return rv;
    *peer = id;
    return ENC_OK;
}

/* a->done: ENC_INPROGRESS while running, then the final result (ENC_OK
 * or an error), returned again by later calls. */
enc_status_t enc_auth_server_progress(struct enc_auth_server *a, int fd, struct enc_auth_id *peer)
{
    const char *why = "internal error";
    int rv;

    if (a->done != ENC_INPROGRESS)
        return a->done;
    rv = read_auth(a, fd, &why);
    if (rv == ENC_OK)
        rv = verify(a, fd, peer, &why);
    if (rv < 0)
        log_reject(fd, why);
    a->done = rv;
    return rv;
}
