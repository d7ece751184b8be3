/* test_msgs.c - rank <-> tracker message payloads (proto/msgs.h): every
 * message round-trips, and every truncation, extension or out-of-range
 * field is rejected. */
#include "enc.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "proto/wire.h"
#include "proto/frame.h"
#include "proto/detmsg.h"
#include "proto/msgs.h"

static const struct enc_msg_register reg = {
    .rank = 2, .size = 4, .incarnation = 1, .pid = 4242, .data_port = 40001,
    .addr = "10.0.0.7", .loc = {.host = "node7", .package = 1, .numa = -1, .core = 5},
    .completed = 0x0102030405060708ull,
};
static struct enc_world_peer world_peers[3] = {
    {.incarnation = 0, .port = 5000, .addr = "a"},
    {.incarnation = 3, .port = 5001, .addr = "::1"},
    {.incarnation = 1, .port = 5002, .addr = "host-c"},
};
static uint32_t world_ring[3] = {2, 0, 1};
static const struct enc_msg_world world = {.epoch = 9, .size = 3, .peers = world_peers,
                                           .locality = world_ring};
static const struct enc_msg_heartbeat hb = {.completed = 0x1122334455667788ull};
static const struct enc_msg_event ev = {.kind = ENC_EV_DEAD, .rank = 3, .epoch = 4, .code = -2,
                                        .reason = "rank 3 killed by signal 9", .cid = 0xab};
static const struct enc_msg_status st = {.epoch = 5, .completed = 77};
static uint64_t resume_done[2] = {10, 12};
static const struct enc_msg_resume res = {.epoch = 6, .size = 2, .completed = resume_done};
static const struct enc_msg_abort ab = {.code = 3, .reason = "MPI_Abort from rank 1"};
static const struct enc_msg_stats stats = {.completed = 100, .replayed = 7, .recovery_s = 1.25,
                                           .log_peak = 4096, .spill_peak = 8192,
                                           .private_rss = 16384, .comm_completed = 42};
static const struct enc_msg_dropped drop = {.first = 31, .last = 163};

/* One codec per message, behind a common signature, so the malformed-input
 * sweeps below run over every message type. */
struct codec {
    const char *name;
    const void *sample;
    int (*encode)(const void *m, void *buf, size_t cap);
    int (*decode)(void *m, const void *buf, size_t len);
    void (*release)(void *m);
    int wire_len;
};

#define CODEC_FNS(T)                                                         \
    static int T##_enc(const void *m, void *b, size_t c)                     \
    {                                                                        \
        return enc_msg_##T##_encode(m, b, c);                                \
    }                                                                        \
    static int T##_dec(void *m, const void *b, size_t l)                     \
    {                                                                        \
        return enc_msg_##T##_decode(m, b, l);                                \
    }
CODEC_FNS(register)
CODEC_FNS(world)
CODEC_FNS(heartbeat)
CODEC_FNS(event)
CODEC_FNS(status)
CODEC_FNS(resume)
CODEC_FNS(abort)
CODEC_FNS(stats)
CODEC_FNS(dropped)

static void world_rel(void *m) { enc_msg_world_free(m); }
static void resume_rel(void *m) { enc_msg_resume_free(m); }

#define CODEC(T, sample, rel, len) {#T, &(sample), T##_enc, T##_dec, rel, len}
static const struct codec codecs[] = {
    CODEC(register, reg, NULL, 47 + 8),
    CODEC(world, world, world_rel, 8 + (4 + 2 + 2 + 1) + (4 + 2 + 2 + 3) + (4 + 2 + 2 + 6) + 12),
    CODEC(heartbeat, hb, NULL, 8),
    CODEC(event, ev, NULL, 1 + 3 * 4 + 2 + 25 + 8 + 8),
    CODEC(status, st, NULL, 4 + 8),
    CODEC(resume, res, resume_rel, 8 + 2 * 8),
    CODEC(abort, ab, NULL, 4 + 2 + 21),
    CODEC(stats, stats, NULL, 56),
    CODEC(dropped, drop, NULL, 16),
};

/* Large enough for any decoded message struct. */
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
};

static uint8_t buf[4096];

/* Decoding then re-encoding gives back the same bytes: every field survived. */
Test(msgs, every_message_round_trips_byte_for_byte)
{
    static uint8_t again[4096];

    for (size_t i = 0; i < ENC_ARRAY_SIZE(codecs); i++) {
        const struct codec *c = &codecs[i];
        int n = c->encode(c->sample, buf, sizeof(buf));
        union any_msg m;

        cr_assert_eq(n, c->wire_len, "%s", c->name);
        cr_assert_eq(c->decode(&m, buf, (size_t)n), ENC_OK, "%s", c->name);
        cr_assert_eq(c->encode(&m, again, sizeof(again)), n, "%s", c->name);
        cr_assert_arr_eq(again, buf, (size_t)n, "%s", c->name);
        if (c->release != NULL)
            c->release(&m);
    }
}

Test(msgs, register_round_trip)
{
    struct enc_msg_register m;
    int n = enc_msg_register_encode(&reg, buf, sizeof(buf));

    cr_assert_eq(n, 4 * 4 + 2 + 2 + 8 + 2 + 5 + 3 * 4 + 8);
    cr_assert_eq(enc_msg_register_decode(&m, buf, (size_t)n), ENC_OK);
    cr_assert_eq(m.rank, 2);
    cr_assert_eq(m.size, 4);
    cr_assert_eq(m.incarnation, 1);
    cr_assert_eq(m.pid, 4242);
    cr_assert_eq(m.data_port, 40001);
    cr_assert_str_eq(m.addr, "10.0.0.7");
    cr_assert_str_eq(m.loc.host, "node7");
    cr_assert_eq(m.loc.package, 1);
    cr_assert_eq(m.loc.numa, -1);
    cr_assert_eq(m.loc.core, 5);
    cr_assert_eq(m.completed, 0x0102030405060708ull);
}

Test(msgs, world_round_trip)
{
    struct enc_msg_world m;
    int n = enc_msg_world_encode(&world, buf, sizeof(buf));

    cr_assert_eq(n, 8 + (4 + 2 + 2 + 1) + (4 + 2 + 2 + 3) + (4 + 2 + 2 + 6) + 3 * 4);
    cr_assert_eq(enc_msg_world_decode(&m, buf, (size_t)n), ENC_OK);
    cr_assert_eq(m.epoch, 9);
    cr_assert_eq(m.size, 3);
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(m.peers[i].incarnation, world_peers[i].incarnation);
        cr_assert_eq(m.peers[i].port, world_peers[i].port);
        cr_assert_str_eq(m.peers[i].addr, world_peers[i].addr);
        cr_assert_eq(m.locality[i], world_ring[i]);
    }
    enc_msg_world_free(&m);
    cr_assert_null(m.peers);
    cr_assert_null(m.locality);
}

Test(msgs, event_round_trip)
{
    struct enc_msg_event m;
    int n = enc_msg_event_encode(&ev, buf, sizeof(buf));

    cr_assert_eq(n, 1 + 3 * 4 + 2 + (int)strlen(ev.reason) + 8 + 8);
    cr_assert_eq(enc_msg_event_decode(&m, buf, (size_t)n), ENC_OK);
    cr_assert_eq(m.kind, ENC_EV_DEAD);
    cr_assert_eq(m.rank, 3);
    cr_assert_eq(m.epoch, 4);
    cr_assert_eq(m.code, -2);
    cr_assert_str_eq(m.reason, ev.reason);
    cr_assert_eq(m.cid, 0xab);
}

Test(msgs, stats_round_trip)
{
    struct enc_msg_stats m;
    int n = enc_msg_stats_encode(&stats, buf, sizeof(buf));

    cr_assert_eq(n, 56);
    cr_assert_eq(enc_msg_stats_decode(&m, buf, 56), ENC_OK);
    cr_assert_eq(m.completed, 100);
    cr_assert_eq(m.replayed, 7);
    cr_assert_eq(m.recovery_s, 1.25);
    cr_assert_eq(m.log_peak, 4096);
    cr_assert_eq(m.spill_peak, 8192);
    cr_assert_eq(m.private_rss, 16384);
    cr_assert_eq(m.comm_completed, 42);
}

Test(msgs, dropped_range_backwards_rejected)
{
    struct enc_msg_dropped m = {.first = 9, .last = 8};
    int n = enc_msg_dropped_encode(&m, buf, sizeof(buf));

    cr_assert_eq(n, 16);
    cr_assert_eq(enc_msg_dropped_decode(&m, buf, (size_t)n), ENC_ERR_PROTO);
}

Test(msgs, every_truncation_of_every_message_rejected)
{
    for (size_t i = 0; i < ENC_ARRAY_SIZE(codecs); i++) {
        const struct codec *c = &codecs[i];
        int n = c->encode(c->sample, buf, sizeof(buf));
        union any_msg m;

        cr_assert_gt(n, 0, "%s", c->name);
        for (int k = 0; k < n; k++)
            cr_assert_eq(c->decode(&m, buf, (size_t)k), ENC_ERR_PROTO, "%s cut to %d", c->name, k);
    }
}

Test(msgs, trailing_byte_rejected_for_every_message)
{
    for (size_t i = 0; i < ENC_ARRAY_SIZE(codecs); i++) {
        const struct codec *c = &codecs[i];
        int n = c->encode(c->sample, buf, sizeof(buf));
        union any_msg m;

        buf[n] = 0;
        cr_assert_eq(c->decode(&m, buf, (size_t)n + 1), ENC_ERR_PROTO, "%s", c->name);
        cr_assert_eq(c->decode(&m, buf, (size_t)n), ENC_OK, "%s", c->name);
        if (c->release != NULL)
            c->release(&m);
    }
}

Test(msgs, every_encoder_refuses_a_short_buffer)
{
    for (size_t i = 0; i < ENC_ARRAY_SIZE(codecs); i++) {
        const struct codec *c = &codecs[i];
        int n = c->encode(c->sample, buf, sizeof(buf));

        for (int k = 0; k < n; k++)
            cr_assert_eq(c->encode(c->sample, buf, (size_t)k), ENC_ERR_INVAL, "%s cap %d",
                         c->name, k);
    }
}

/* Encodes the register sample with one field changed; returns decode status. */
static int register_with(void (*edit)(struct enc_msg_register *))
{
    struct enc_msg_register m = reg, out;
    int n;

    edit(&m);
    n = enc_msg_register_encode(&m, buf, sizeof(buf));
    cr_assert_gt(n, 0);
    return enc_msg_register_decode(&out, buf, (size_t)n);
}

static void rank_eq_size(struct enc_msg_register *m) { m->rank = m->size; }
static void size_zero(struct enc_msg_register *m) { m->size = 0; m->rank = 0; }
static void size_over_max(struct enc_msg_register *m) { m->size = ENC_MAX_RANKS + 1; }
static void bad_core(struct enc_msg_register *m) { m->loc.core = -2; }
static void last_rank(struct enc_msg_register *m) { m->size = ENC_MAX_RANKS; m->rank = ENC_MAX_RANKS - 1; }

Test(msgs, register_rank_and_size_ranges_checked)
{
    cr_assert_eq(register_with(rank_eq_size), ENC_ERR_PROTO);
    cr_assert_eq(register_with(size_zero), ENC_ERR_PROTO);
    cr_assert_eq(register_with(size_over_max), ENC_ERR_PROTO);
    cr_assert_eq(register_with(bad_core), ENC_ERR_PROTO);
    cr_assert_eq(register_with(last_rank), ENC_OK);
}

Test(msgs, register_oversized_address_rejected)
{
    struct enc_msg_register m = reg;
    struct enc_wbuf w;
    char longaddr[ENC_HOST_MAX + 1];

    memset(m.addr, 'x', sizeof(m.addr)); /* not NUL-terminated */
    cr_assert_eq(enc_msg_register_encode(&m, buf, sizeof(buf)), ENC_ERR_INVAL);
    /* A hand-made payload with a 64-byte address: too long for addr[64]. */
    memset(longaddr, 'x', ENC_HOST_MAX);
    longaddr[ENC_HOST_MAX] = '\0';
    enc_w_init(&w, buf, sizeof(buf));
    for (int i = 0; i < 4; i++)
        enc_w_u32(&w, i == 1 ? 4 : 0);
    enc_w_u16(&w, 1);
    enc_w_str(&w, longaddr);
    enc_w_str(&w, "h");
    for (int i = 0; i < 3; i++)
        enc_w_u32(&w, 0);
    cr_assert_eq(enc_msg_register_decode(&m, buf, w.len), ENC_ERR_PROTO);
}

Test(msgs, world_ring_must_be_a_permutation)
{
    uint32_t dup[3] = {0, 1, 1}, out_of_range[3] = {0, 1, 3};
    struct enc_msg_world w = world, m;
    int n;

    w.locality = dup;
    n = enc_msg_world_encode(&w, buf, sizeof(buf));
    cr_assert_eq(enc_msg_world_decode(&m, buf, (size_t)n), ENC_ERR_PROTO);
    cr_assert_null(m.peers, "nothing left allocated on failure");
    w.locality = out_of_range;
    n = enc_msg_world_encode(&w, buf, sizeof(buf));
    cr_assert_eq(enc_msg_world_decode(&m, buf, (size_t)n), ENC_ERR_PROTO);
}

Test(msgs, world_huge_size_rejected_before_allocating)
{
    struct enc_msg_world m;
    struct enc_wbuf w;

    enc_w_init(&w, buf, sizeof(buf));
    enc_w_u32(&w, 1);
    enc_w_u32(&w, ENC_MAX_RANKS + 1);
    cr_assert_eq(enc_msg_world_decode(&m, buf, w.len), ENC_ERR_PROTO);
    enc_w_init(&w, buf, sizeof(buf));
    enc_w_u32(&w, 1);
    enc_w_u32(&w, ENC_MAX_RANKS); /* claims 4096 ranks, carries none */
    cr_assert_eq(enc_msg_world_decode(&m, buf, w.len), ENC_ERR_PROTO);
    cr_assert_null(m.locality);
    struct enc_msg_world empty = {.epoch = 1, .size = 0, .peers = world_peers, .locality = world_ring};
    cr_assert_eq(enc_msg_world_encode(&empty, buf, sizeof(buf)), ENC_ERR_INVAL);
}

Test(msgs, world_of_max_ranks_fits_a_control_frame)
{
    static struct enc_world_peer peers[ENC_MAX_RANKS];
    static uint32_t ring[ENC_MAX_RANKS];
    struct enc_msg_world w = {.epoch = 1, .size = ENC_MAX_RANKS, .peers = peers, .locality = ring};
    struct enc_msg_world m;
    uint8_t *big = malloc(ENC_CTRL_MAX_PAYLOAD);
    int n;

    for (uint32_t i = 0; i < ENC_MAX_RANKS; i++) {
        memset(peers[i].addr, 'a', ENC_HOST_MAX - 1);
        ring[i] = ENC_MAX_RANKS - 1 - i;
    }
    n = enc_msg_world_encode(&w, big, ENC_CTRL_MAX_PAYLOAD);
    cr_assert_gt(n, 0);
    cr_assert_eq(enc_msg_world_decode(&m, big, (size_t)n), ENC_OK);
    cr_assert_eq(m.locality[0], ENC_MAX_RANKS - 1);
    enc_msg_world_free(&m);
    free(big);
}

Test(msgs, event_kind_out_of_range_rejected)
{
    struct enc_msg_event e = ev, m;
    int n;

    e.kind = ENC_EV_TRIM + 1; /* the first kind that does not exist */
    n = enc_msg_event_encode(&e, buf, sizeof(buf));
    cr_assert_eq(enc_msg_event_decode(&m, buf, (size_t)n), ENC_ERR_PROTO);
    e.kind = ENC_EV_DEAD;
    e.rank = ENC_MAX_RANKS;
    n = enc_msg_event_encode(&e, buf, sizeof(buf));
    cr_assert_eq(enc_msg_event_decode(&m, buf, (size_t)n), ENC_ERR_PROTO);
    e.kind = ENC_EV_ABORT; /* an abort may come from the tracker: any rank */
    n = enc_msg_event_encode(&e, buf, sizeof(buf));
    cr_assert_eq(enc_msg_event_decode(&m, buf, (size_t)n), ENC_OK);
}

Test(msgs, resume_count_must_match_size)
{
    struct enc_msg_resume m;
    int n = enc_msg_resume_encode(&res, buf, sizeof(buf));

    buf[7] = 3; /* size 3, but two counters follow */
    cr_assert_eq(enc_msg_resume_decode(&m, buf, (size_t)n), ENC_ERR_PROTO);
    cr_assert_null(m.completed);
}

Test(msgs, stats_non_finite_recovery_time_rejected)
{
    struct enc_msg_stats s = stats, m;
    int n;

    s.recovery_s = NAN;
    n = enc_msg_stats_encode(&s, buf, sizeof(buf));
    cr_assert_eq(enc_msg_stats_decode(&m, buf, (size_t)n), ENC_ERR_PROTO);
    s.recovery_s = -1.0;
    n = enc_msg_stats_encode(&s, buf, sizeof(buf));
    cr_assert_eq(enc_msg_stats_decode(&m, buf, (size_t)n), ENC_ERR_PROTO);
}

Test(msgs, reason_with_embedded_nul_rejected)
{
    struct enc_msg_abort m;
    int n = enc_msg_abort_encode(&ab, buf, sizeof(buf));

    buf[4 + 2 + 3] = '\0';
    cr_assert_eq(enc_msg_abort_decode(&m, buf, (size_t)n), ENC_ERR_PROTO);
}

Test(msgs, det_records_round_trip_and_misaligned_rejected)
{
    uint8_t recs[80] = {1, [40] = 2}, buf[ENC_DETMSG_HDR + 80];
    struct enc_msg_det m = {.word = 7, .off = 40, .bytes = recs, .n = 80}, back;
    uint64_t v;
    int n = enc_msg_det_encode(&m, buf, sizeof(buf));

    cr_assert_eq(n, ENC_DETMSG_HDR + 80);
    cr_assert_eq(enc_msg_det_decode(&back, buf, (size_t)n), ENC_OK);
    cr_assert_eq(back.word, 7);
    cr_assert_eq(back.off, 40);
    cr_assert_eq(back.n, 80);
    cr_assert_eq(memcmp(back.bytes, recs, 80), 0);
    cr_assert_neq(enc_msg_det_decode(&back, buf, (size_t)n - 1), ENC_OK, "short");
    m.off = 41;
    cr_assert_lt(enc_msg_det_encode(&m, buf, sizeof(buf)), 0, "offset inside a record");
    m.off = 40;
    m.n = 79;
    cr_assert_lt(enc_msg_det_encode(&m, buf, sizeof(buf)), 0, "part of a record");
    buf[19] = 40; /* n says 40, 80 bytes follow */
    cr_assert_neq(enc_msg_det_decode(&back, buf, (size_t)n), ENC_OK);
    cr_assert_eq(enc_msg_det_ack_encode(99, buf, sizeof(buf)), 8);
    cr_assert_eq(enc_msg_det_ack_decode(&v, buf, 8), ENC_OK);
    cr_assert_eq(v, 99);
    cr_assert_neq(enc_msg_det_ack_decode(&v, buf, 7), ENC_OK);
}
