/*
 * fuzz_logreq.c - log-service requests as a survivor receives them from a
 * replaying rank (recovery/log/logreq.c).
 * Oracle: an accepted request survives encode + decode unchanged.
 */
#include "enc.h"
#include "recovery/log/logreq.h"
#include "fuzz.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct enc_logreq q, back;
    uint8_t again[ENC_LOGREQ_WIRE];

    memset(&q, 0, sizeof(q)); /* padding compares equal below */
    memset(&back, 0, sizeof(back));
    if (enc_logreq_decode(&q, data, size) != ENC_OK)
        return 0;
    FUZZ_CHECK(size == ENC_LOGREQ_WIRE && strlen(q.site_mod) < sizeof(q.site_mod));
    enc_logreq_encode(&q, again);
    FUZZ_CHECK(enc_logreq_decode(&back, again, sizeof(again)) == ENC_OK);
    FUZZ_CHECK(memcmp(&back, &q, sizeof(q)) == 0);
    return 0;
}

void fuzz_seeds(fuzz_emit_fn emit)
{
    const struct enc_logreq reqs[] = {
        {.what = ENC_LOGREQ_SEQ, .seq = 41, .cid = 0x5eed0c1d},
        {.what = ENC_LOGREQ_BOOTSTRAP, .seq = 3, .site_off = 0x1234, .site_mod = "kmeans",
         .occ = 2, .kind = 1, .root = -1, .count = 8, .dtype = 3, .op = 0},
        {.what = ENC_LOGREQ_CKPT_LOCAL, .version = 4, .rank = 2},
        {.what = ENC_LOGREQ_RUN, .seq = 100, .rank = 64},
    };
    uint8_t buf[ENC_LOGREQ_WIRE];
    char name[16];

    for (size_t i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++) {
        enc_logreq_encode(&reqs[i], buf);
        snprintf(name, sizeof(name), "what-%u", reqs[i].what);
        emit(name, buf, sizeof(buf));
    }
}
