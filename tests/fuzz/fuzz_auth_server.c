/*
 * fuzz_auth_server.c - the server side of the handshake (proto/auth_server.c)
 * fed whatever a client sends.  Bit 0 of the first byte asks the harness to
 * put the correct MAC into an AUTH frame (it knows the secret and reads the
 * challenge), so the fuzzer also reaches the checks behind the MAC.
 */
#include "enc.h"
#include "proto/auth_int.h"
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct enc_secret secret = {.key = "fuzzing-secret-32-bytes-long...."};

/* Overwrites the MAC of a well-placed AUTH payload with the right one. */
static void fix_mac(uint8_t *in, size_t size, const uint8_t *nonce_s)
{
    uint8_t *p = in + ENC_FRAME_HDR_SIZE;
    struct enc_auth_id id;
    struct enc_rbuf r;

    if (size < ENC_FRAME_HDR_SIZE + ENC_AUTH_LEN)
        return;
    enc_r_init(&r, p, ENC_AUTH_ID_LEN);
    enc_auth_id_read(&r, &id);
    enc_auth_mac(&secret, ENC_AUTH_LABEL_CLIENT, nonce_s, p + ENC_AUTH_ID_LEN, &id,
                 p + ENC_AUTH_ID_LEN + ENC_NONCE_LEN);
}

/* The server's challenge, as the client end reads it. */
static int read_challenge(int peer, uint8_t nonce[ENC_NONCE_LEN])
{
    uint8_t buf[ENC_FRAME_HDR_SIZE + ENC_NONCE_LEN];

    if (read(peer, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
        return -1;
    memcpy(nonce, buf + ENC_FRAME_HDR_SIZE, ENC_NONCE_LEN);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct enc_auth_server a;
    struct enc_auth_id peer_id;
    uint8_t nonce[ENC_NONCE_LEN], *in;
    int peer, fd, rv = 0;

    if (size < 1 || (fd = fuzz_pair(&peer)) < 0)
        return 0;
    if (enc_auth_server_start(&a, fd, &secret) == ENC_OK && read_challenge(peer, nonce) == 0) {
        in = fuzz_memdup(data + 1, size - 1);
        if (data[0] & 1)
            fix_mac(in, size - 1, nonce);
        fuzz_send(peer, in, size - 1);
        free(in);
        /* the client end is shut: every call reads or meets EOF */
        for (int i = 0; i < 1000 && (rv = enc_auth_server_progress(&a, fd, &peer_id)) == ENC_INPROGRESS; i++)
            ;
        FUZZ_CHECK(rv != ENC_OK || peer_id.role == ENC_ROLE_CONTROL || peer_id.role == ENC_ROLE_DATA ||
                   peer_id.role == ENC_ROLE_LOG || peer_id.role == ENC_ROLE_AGENT ||
                   peer_id.role == ENC_ROLE_P2P);
        FUZZ_CHECK(rv != ENC_OK || (data[0] & 1));
    }
    fuzz_close_pair(fd, peer);
    return 0;
}

/* An AUTH frame for id, with a zero MAC (flag 1: the harness fixes it). */
static void seed(fuzz_emit_fn emit, const char *name, uint8_t flag, const struct enc_auth_id *id)
{
    struct enc_frame_hdr h = {.type = ENC_MSG_AUTH, .src = (uint16_t)id->rank, .len = ENC_AUTH_LEN};
    uint8_t buf[1 + ENC_FRAME_HDR_SIZE + ENC_AUTH_LEN] = {flag};
    struct enc_wbuf w;

    enc_frame_encode(&h, buf + 1);
    enc_w_init(&w, buf + 1 + ENC_FRAME_HDR_SIZE, ENC_AUTH_LEN);
    enc_auth_id_write(&w, id);
    emit(name, buf, sizeof(buf));
}

void fuzz_seeds(fuzz_emit_fn emit)
{
    seed(emit, "auth-control-good-mac", 1,
         &(struct enc_auth_id){.role = ENC_ROLE_CONTROL, .rank = 1, .epoch = 0});
    seed(emit, "auth-data-good-mac", 1,
         &(struct enc_auth_id){.role = ENC_ROLE_DATA, .rank = 3, .incarnation = 2, .epoch = 5});
    seed(emit, "auth-bad-role-good-mac", 1, &(struct enc_auth_id){.role = 9, .rank = 0});
    seed(emit, "auth-wrong-mac", 0, &(struct enc_auth_id){.role = ENC_ROLE_LOG, .rank = 2});
}
