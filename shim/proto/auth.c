/*
 * auth.c - the client side of the challenge-response handshake, and the
 * MAC and identity encoding both sides share (see proto/auth.h).
 */
#include "enc.h"
#include "proto/auth.h"
#include "proto/auth_int.h"
#include "proto/frame.h"
#include "proto/wire.h"

#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#define ENC_AUTH_LABEL_LEN 8
#define ENC_AUTH_MSG_LEN (ENC_AUTH_LABEL_LEN + 2 * ENC_NONCE_LEN + ENC_AUTH_ID_LEN)

void enc_auth_id_write(struct enc_wbuf *w, const struct enc_auth_id *id)
{
    enc_w_u8(w, id->role);
    enc_w_u32(w, id->rank);
    enc_w_u32(w, id->incarnation);
    enc_w_u32(w, id->epoch);
}

void enc_auth_id_read(struct enc_rbuf *r, struct enc_auth_id *id)
{
    enc_r_u8(r, &id->role);
    enc_r_u32(r, &id->rank);
    enc_r_u32(r, &id->incarnation);
    enc_r_u32(r, &id->epoch);
}

enc_status_t enc_auth_mac(const struct enc_secret *s, const char *label, const uint8_t *first,
                          const uint8_t *second, const struct enc_auth_id *id,
                          uint8_t out[ENC_MAC_LEN])
{
    uint8_t msg[ENC_AUTH_MSG_LEN];
    unsigned int outlen = 0;
    struct enc_wbuf w;

    enc_w_init(&w, msg, sizeof(msg));
    enc_w_bytes(&w, label, ENC_AUTH_LABEL_LEN);
    enc_w_bytes(&w, first, ENC_NONCE_LEN);
    enc_w_bytes(&w, second, ENC_NONCE_LEN);
    enc_auth_id_write(&w, id);
    if (w.err || HMAC(EVP_sha256(), s->key, ENC_SECRET_LEN, msg, w.len, out, &outlen) == NULL ||
        outlen != ENC_MAC_LEN) {
        ENC_ERROR("auth", "HMAC-SHA256 failed");
        return ENC_ERR_SYS;
    }
    return ENC_OK;
}

void enc_auth_peer_name(int fd, char *buf, size_t cap)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);
    char host[NI_MAXHOST], serv[NI_MAXSERV];

    if (getpeername(fd, (struct sockaddr *)&ss, &sl) != 0 ||
        getnameinfo((struct sockaddr *)&ss, sl, host, sizeof(host), serv, sizeof(serv),
                    NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
        snprintf(buf, cap, "local peer");
        return;
    }
    snprintf(buf, cap, ss.ss_family == AF_INET6 ? "[%s]:%s" : "%s:%s", host, serv);
}

/* Receives one handshake frame of exactly the expected type and length. */
static int recv_exact(int fd, uint8_t type, uint8_t *payload, size_t len, uint64_t deadline,
                      const char **why)
{
    uint8_t buf[256];
    struct enc_frame_hdr h;
    int rv;

    if ((rv = enc_frame_recv(fd, &h, buf, sizeof(buf), deadline)) != 0) {
        *why = rv == ENC_ERR_PROTO ? "malformed frame" : encore_strerror(rv);
        return rv;
    }
    if (h.type != type || h.len != len) {
        *why = "unexpected frame";
        return ENC_ERR_PROTO;
    }
    memcpy(payload, buf, len);
    return ENC_OK;
}

/* AUTH frame: who we are, our nonce, and the proof that we know k.  The
 * header's src and epoch are informational; the server trusts only the
 * MAC-bound identity in the payload. */
static int send_auth(int fd, const struct enc_secret *s, const struct enc_auth_id *self,
                     const uint8_t *nonce_s, const uint8_t *nonce_c, uint64_t deadline)
{
    struct enc_frame_hdr h = {.type = ENC_MSG_AUTH, .src = (uint16_t)self->rank,
                              .epoch = self->epoch, .len = ENC_AUTH_LEN};
    uint8_t payload[ENC_AUTH_LEN], mac[ENC_MAC_LEN];
    struct enc_wbuf w;
    int rv;

    if ((rv = enc_auth_mac(s, ENC_AUTH_LABEL_CLIENT, nonce_s, nonce_c, self, mac)) != 0)
        return rv;
    enc_w_init(&w, payload, sizeof(payload));
    enc_auth_id_write(&w, self);
    enc_w_bytes(&w, nonce_c, ENC_NONCE_LEN);
    enc_w_bytes(&w, mac, ENC_MAC_LEN);
    return enc_frame_send(fd, &h, payload, deadline);
}

static int client_run(int fd, const struct enc_secret *s, const struct enc_auth_id *self,
                      uint64_t deadline, const char **why)
{
    uint8_t nonce_s[ENC_NONCE_LEN], nonce_c[ENC_NONCE_LEN];
    uint8_t got[ENC_MAC_LEN], want[ENC_MAC_LEN];
    int rv;

    if ((rv = recv_exact(fd, ENC_MSG_CHALLENGE, nonce_s, ENC_NONCE_LEN, deadline, why)) != 0)
        return rv;
    if (RAND_bytes(nonce_c, ENC_NONCE_LEN) != 1) {
        *why = "RAND_bytes failed";
        return ENC_ERR_SYS;
    }
    if ((rv = send_auth(fd, s, self, nonce_s, nonce_c, deadline)) != 0) {
        *why = encore_strerror(rv);
        return rv;
    }
    if ((rv = recv_exact(fd, ENC_MSG_AUTH_OK, got, ENC_MAC_LEN, deadline, why)) != 0) {
        /* The protocol has no "rejected" frame: a server hangs up instead. */
        if (rv == ENC_ERR_PEER_CLOSED || rv == ENC_ERR_PEER_RESET)
            *why = "server hung up after our proof (wrong job secret, or it is going away)";
        return rv;
    }
    if ((rv = enc_auth_mac(s, ENC_AUTH_LABEL_SERVER, nonce_c, nonce_s, self, want)) != 0)
        return rv;
    if (CRYPTO_memcmp(got, want, ENC_MAC_LEN) != 0) {
        *why = "server proof does not match (wrong job secret?)";
        return ENC_ERR_AUTH;
    }
    return ENC_OK;
}

enc_status_t enc_auth_client(int fd, const struct enc_secret *s, const struct enc_auth_id *self,
                             uint64_t deadline)
{
    const char *why = "internal error";
    char peer[NI_MAXHOST + NI_MAXSERV + 4];
    int rv = client_run(fd, s, self, deadline, &why);

    if (rv != 0) {
        enc_auth_peer_name(fd, peer, sizeof(peer));
        /* A peer that hangs up is usually dying or restarting (recovery
         * handles that); a bad proof is worth a warning. */
        ENC_LOG_AT(rv == ENC_ERR_AUTH || rv == ENC_ERR_PROTO ? ENC_LOG_WARN : ENC_LOG_DEBUG,
                   "auth", "handshake with %s failed: %s", peer, why);
    }
    return rv;
}
