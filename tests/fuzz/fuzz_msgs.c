/*
 * fuzz_msgs.c - every rank <-> tracker payload decoder (proto/msgs.c and
 * the determinant copies' proto/detmsg.c, on top of proto/wire.c).  The first byte picks the message, the rest is its
 * payload.  Oracle: a payload that decodes re-encodes to the same bytes.
 */
#include "enc.h"
#include "fuzz.h"
#include "proto/detmsg.h"

#include <stdlib.h>
#include <string.h>

union any_msg {
    struct enc_msg_register reg;
    struct enc_msg_world world;
    struct enc_msg_heartbeat hb;
    struct enc_msg_event ev;
    struct enc_msg_status st;
    struct enc_msg_resume res;
    struct enc_msg_abort ab;
    struct enc_msg_stats stats;
    struct enc_msg_dropped drop;
    struct enc_msg_det det;
    uint64_t ack;
};

struct codec {
    const char *name;
    int (*encode)(const void *m, void *buf, size_t cap);
    int (*decode)(void *m, const void *buf, size_t len);
    void (*release)(void *m);
};

#define CODEC_FNS(T)                                                              \
    static int T##_enc(const void *m, void *b, size_t c) { return enc_msg_##T##_encode(m, b, c); } \
    static int T##_dec(void *m, const void *b, size_t l) { return enc_msg_##T##_decode(m, b, l); }
CODEC_FNS(register)
CODEC_FNS(world)
CODEC_FNS(heartbeat)
CODEC_FNS(event)
CODEC_FNS(status)
CODEC_FNS(resume)
CODEC_FNS(abort)
CODEC_FNS(stats)
CODEC_FNS(dropped)

static int det_enc(const void *m, void *b, size_t c) { return enc_msg_det_encode(m, b, c); }
static int det_dec(void *m, const void *b, size_t l) { return enc_msg_det_decode(m, b, l); }
static int det_ack_enc(const void *m, void *b, size_t c)
{
    return enc_msg_det_ack_encode(*(const uint64_t *)m, b, c);
}
static int det_ack_dec(void *m, const void *b, size_t l) { return enc_msg_det_ack_decode(m, b, l); }

static void world_rel(void *m) { enc_msg_world_free(m); }
static void resume_rel(void *m) { enc_msg_resume_free(m); }

#define CODEC(T, rel) {#T, T##_enc, T##_dec, rel}
static const struct codec codecs[] = {
    CODEC(register, NULL), CODEC(world, world_rel),   CODEC(heartbeat, NULL),
    CODEC(event, NULL),    CODEC(status, NULL),       CODEC(resume, resume_rel),
    CODEC(abort, NULL),    CODEC(stats, NULL),        CODEC(dropped, NULL),
    CODEC(det, NULL),      CODEC(det_ack, NULL),
};
#define NCODECS (sizeof(codecs) / sizeof(codecs[0]))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const struct codec *c;
    union any_msg m;
    uint8_t *again;
    int n;

    if (size < 1)
        return 0;
    c = &codecs[data[0] % NCODECS];
    if (c->decode(&m, data + 1, size - 1) != ENC_OK)
        return 0;
    if ((again = malloc(size)) == NULL)
        fuzz_fail("out of memory");
    n = c->encode(&m, again, size - 1);
    FUZZ_CHECK(n == (int)(size - 1) && memcmp(again, data + 1, size - 1) == 0);
    free(again);
    if (c->release != NULL)
        c->release(&m);
    return 0;
}

/* Samples as in tests/unit/test_msgs.c. */
static struct enc_world_peer peers[3] = {
    {.incarnation = 0, .port = 5000, .addr = "a"},
    {.incarnation = 3, .port = 5001, .addr = "::1"},
    {.incarnation = 1, .port = 5002, .addr = "host-c"},
};
static uint32_t ring[3] = {2, 0, 1};
static uint64_t done[2] = {10, 12};
static const uint8_t two_records[80] = {1, 0, 0, 0, 0, 0, 0, 2, [15] = 7, [40] = 2, [47] = 2};
static const union any_msg samples[NCODECS] = {
    {.reg = {.rank = 2, .size = 4, .incarnation = 1, .pid = 4242, .data_port = 40001,
             .addr = "10.0.0.7", .loc = {.host = "node7", .package = 1, .numa = -1, .core = 5}}},
    {.world = {.epoch = 9, .size = 3, .peers = peers, .locality = ring}},
    {.hb = {.completed = 0x1122334455667788ull}},
    {.ev = {.kind = ENC_EV_DEAD, .rank = 3, .epoch = 4, .code = -2,
            .reason = "rank 3 killed by signal 9"}},
    {.st = {.epoch = 5, .completed = 77}},
    {.res = {.epoch = 6, .size = 2, .completed = done}},
    {.ab = {.code = 3, .reason = "MPI_Abort from rank 1"}},
    {.stats = {.completed = 100, .replayed = 7, .recovery_s = 1.25, .spill_peak = 8192}},
    {.drop = {.first = 31, .last = 163}},
    {.det = {.word = 9, .off = 120, .bytes = two_records, .n = 80}},
    {.ack = 9},
};

void fuzz_seeds(fuzz_emit_fn emit)
{
    uint8_t buf[1024];

    for (size_t i = 0; i < NCODECS; i++) {
        int n = codecs[i].encode(&samples[i], buf + 1, sizeof(buf) - 1);

        FUZZ_CHECK(n > 0);
        buf[0] = (uint8_t)i;
        emit(codecs[i].name, buf, (size_t)n + 1);
    }
}
