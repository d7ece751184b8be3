/*
 * fuzz_auth_client.c - the client side of the handshake (proto/auth.c) fed
 * whatever a server sends: the input is the server's whole byte stream
 * (CHALLENGE, then AUTH_OK).  The server's proof depends on the client's
 * random nonce, so the success path stays with tests/unit/test_auth.c;
 * the oracle here is that junk never authenticates.
 */
#include "enc.h"
#include "fuzz.h"

#include <string.h>

static const struct enc_secret secret = {.key = "fuzzing-secret-32-bytes-long...."};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const struct enc_auth_id self = {.role = ENC_ROLE_DATA, .rank = 1, .incarnation = 2,
                                     .epoch = 3};
    int peer, fd = fuzz_feed(data, size, &peer);

    if (fd < 0)
        return 0;
    /* 2^-256 to pass by chance; the deadline only guards a broken harness */
    FUZZ_CHECK(enc_auth_client(fd, &secret, &self, enc_deadline_ms(5000)) != ENC_OK);
    fuzz_close_pair(fd, peer);
    return 0;
}

static size_t put_frame(uint8_t *at, uint8_t type, const void *payload, size_t len)
{
    struct enc_frame_hdr h = {.type = type, .src = ENC_SRC_TRACKER, .len = len};

    enc_frame_encode(&h, at);
    memcpy(at + ENC_FRAME_HDR_SIZE, payload, len);
    return ENC_FRAME_HDR_SIZE + len;
}

void fuzz_seeds(fuzz_emit_fn emit)
{
    static const uint8_t nonce[ENC_NONCE_LEN] = {7, 7, 7}, mac[ENC_MAC_LEN] = {1};
    uint8_t buf[2 * ENC_FRAME_HDR_SIZE + ENC_NONCE_LEN + ENC_MAC_LEN];
    size_t n = put_frame(buf, ENC_MSG_CHALLENGE, nonce, sizeof(nonce));

    emit("challenge-only", buf, n);
    n += put_frame(buf + n, ENC_MSG_AUTH_OK, mac, sizeof(mac));
    emit("challenge-auth-ok", buf, n);
}
