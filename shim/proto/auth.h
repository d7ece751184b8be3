/*
 * auth.h - per-job secret and challenge-response authentication.
 *
 * encore-run generates a 32-byte secret per job and gives it to ranks in the
 * environment (ENCORE_SECRET, hex) or a file (ENCORE_SECRET_FILE).  The
 * secret never crosses the wire and is never logged.  Handshake, on every
 * connection (rank->tracker and rank->rank), with HMAC-SHA256 (OpenSSL):
 *
 *   server -> CHALLENGE { nonce_s[32] }
 *   client -> AUTH      { id, nonce_c[32], HMAC(k, "encore-c" | nonce_s | nonce_c | id) }
 *   server -> AUTH_OK   { HMAC(k, "encore-s" | nonce_c | nonce_s | id) }
 *
 * Both sides are proven to know k; MACs are compared in constant time.  A
 * wrong MAC, a malformed or late frame fails the handshake with ENC_ERR_AUTH
 * or ENC_ERR_PROTO / ENC_ERR_TIMEOUT; the caller closes that connection.
 */
#ifndef ENC_PROTO_AUTH_H
#define ENC_PROTO_AUTH_H

#include <stdint.h>

#include "proto/frame.h"

#define ENC_SECRET_LEN 32
#define ENC_NONCE_LEN 32
#define ENC_MAC_LEN 32

struct enc_secret {
    uint8_t key[ENC_SECRET_LEN];
};

enum enc_role {
    ENC_ROLE_CONTROL = 1, /* a rank's control connection to the tracker */
    ENC_ROLE_DATA = 2,    /* a rank's data link to another rank */
    ENC_ROLE_LOG = 3,     /* a replaying rank fetching logged results */
    ENC_ROLE_AGENT = 4,   /* a host's encore-agent to encore-run (rank: host index) */
    ENC_ROLE_P2P = 5,     /* a rank's point-to-point messages to another rank */
};

/* Who the client says it is; bound into the MAC. */
struct enc_auth_id {
    uint8_t role;
    uint32_t rank;
    uint32_t incarnation;
    uint32_t epoch;
};

enc_status_t enc_secret_generate(struct enc_secret *s);
/* ENC_ERR_INVAL unless hex is exactly 2*ENC_SECRET_LEN hex digits. */
enc_status_t enc_secret_from_hex(struct enc_secret *s, const char *hex);
void enc_secret_to_hex(const struct enc_secret *s, char out[2 * ENC_SECRET_LEN + 1]);
/* From ENCORE_SECRET or ENCORE_SECRET_FILE; ENC_ERR_INVAL when neither is set or valid. */
enc_status_t enc_secret_from_env(struct enc_secret *s);

/* Client side, blocking until deadline. */
enc_status_t enc_auth_client(int fd, const struct enc_secret *s, const struct enc_auth_id *self,
                             uint64_t deadline);

/* Server side as a non-blocking state machine for poll loops:
 * enc_auth_server_start() sends the challenge; call
 * enc_auth_server_progress() when fd is readable: ENC_OK = authenticated
 * (peer filled in), ENC_INPROGRESS = needs more input, else failed. */
struct enc_auth_server {
    const struct enc_secret *secret;
    uint8_t nonce[ENC_NONCE_LEN];
    uint8_t buf[ENC_FRAME_HDR_SIZE + 128];
    size_t have;
    enc_status_t done;
};

enc_status_t enc_auth_server_start(struct enc_auth_server *a, int fd, const struct enc_secret *s);
enc_status_t enc_auth_server_progress(struct enc_auth_server *a, int fd, struct enc_auth_id *peer);

#endif
