/*
 * test_p2p_chanseq.c - shim/p2p/chanseq: channel numbers count per
 * (communicator, peer), a re-sent message is dropped and a gap is a fault,
 * positions survive a table that grows and a communicator that is freed,
 * determinant records round-trip exactly while every malformed one is
 * refused, and a channel's chain tells a changed re-execution.
 */
#include "enc.h"

#include <criterion/criterion.h>
#include <string.h>

#include "p2p/chanseq.h"

static struct enc_chanseq cs;

static void setup(void)
{
    enc_chanseq_init(&cs);
}

static void teardown(void)
{
    enc_chanseq_fini(&cs);
}

TestSuite(p2p_chanseq, .init = setup, .fini = teardown);

static uint64_t next(uint64_t cid, int peer)
{
    uint64_t seq = UINT64_MAX;

    cr_assert_eq(enc_chanseq_next_send(&cs, cid, peer, &seq), ENC_OK);
    return seq;
}

Test(p2p_chanseq, each_channel_counts_its_own_sends_from_zero)
{
    cr_assert_eq(next(1, 0), 0);
    cr_assert_eq(next(1, 0), 1);
    cr_assert_eq(next(1, 2), 0);
    cr_assert_eq(next(7, 0), 0);
    cr_assert_eq(next(1, 0), 2);
    cr_assert_eq(enc_chanseq_pos(&cs, 1, 0).send, 3);
    cr_assert_eq(enc_chanseq_pos(&cs, 1, 0).recv, 0);
    cr_assert_eq(enc_chanseq_count(&cs), 3);
}

Test(p2p_chanseq, the_next_number_is_delivered_a_smaller_dropped_a_larger_a_gap)
{
    uint64_t want;

    cr_assert_eq(enc_chanseq_accept(&cs, 3, 1, 0, &want), ENC_CHAN_DELIVER);
    cr_assert_eq(want, 0);
    cr_assert_eq(enc_chanseq_accept(&cs, 3, 1, 1, NULL), ENC_CHAN_DELIVER);
    cr_assert_eq(enc_chanseq_accept(&cs, 3, 1, 0, &want), ENC_CHAN_DUPLICATE);
    cr_assert_eq(want, 2);
    cr_assert_eq(enc_chanseq_accept(&cs, 3, 1, 1, NULL), ENC_CHAN_DUPLICATE);
    cr_assert_eq(enc_chanseq_accept(&cs, 3, 1, 3, &want), ENC_CHAN_GAP);
    cr_assert_eq(want, 2, "a gap does not move the channel");
    cr_assert_eq(enc_chanseq_accept(&cs, 3, 1, 2, NULL), ENC_CHAN_DELIVER);
    cr_assert_eq(enc_chanseq_accept(&cs, 3, 2, 0, NULL), ENC_CHAN_DELIVER, "another peer");
    cr_assert_eq(enc_chanseq_pos(&cs, 3, 1).recv, 3);
}

Test(p2p_chanseq, a_restored_senders_resends_are_dropped_until_it_catches_up)
{
    /* The survivor delivered 0..4 from rank 2; rank 2 restarts from a
     * snapshot taken after its send 1 and sends 2, 3, 4 again, then 5. */
    for (uint64_t s = 0; s < 5; s++)
        cr_assert_eq(enc_chanseq_accept(&cs, 1, 2, s, NULL), ENC_CHAN_DELIVER);
    for (uint64_t s = 2; s < 5; s++)
        cr_assert_eq(enc_chanseq_accept(&cs, 1, 2, s, NULL), ENC_CHAN_DUPLICATE, "seq %lu",
                     (unsigned long)s);
    cr_assert_eq(enc_chanseq_accept(&cs, 1, 2, 5, NULL), ENC_CHAN_DELIVER);
}

Test(p2p_chanseq, positions_set_from_a_checkpoint_continue_from_there)
{
    cr_assert_eq(enc_chanseq_set(&cs, 4, 0, (struct enc_chan_pos){.send = 10, .recv = 6}), ENC_OK);
    cr_assert_eq(next(4, 0), 10);
    cr_assert_eq(enc_chanseq_accept(&cs, 4, 0, 5, NULL), ENC_CHAN_DUPLICATE);
    cr_assert_eq(enc_chanseq_accept(&cs, 4, 0, 6, NULL), ENC_CHAN_DELIVER);
    cr_assert_eq(enc_chanseq_pos(&cs, 9, 9).send, 0, "unknown channel");
}

Test(p2p_chanseq, thousands_of_channels_keep_their_positions_and_a_freed_comm_goes)
{
    for (int cid = 1; cid <= 50; cid++)
        for (int peer = 0; peer < 100; peer++)
            for (int k = 0; k <= peer % 3; k++)
                next((uint64_t)cid, peer);
    cr_assert_eq(enc_chanseq_count(&cs), 5000);
    enc_chanseq_drop_comm(&cs, 17);
    cr_assert_eq(enc_chanseq_count(&cs), 4900);
    for (int cid = 1; cid <= 50; cid++)
        for (int peer = 0; peer < 100; peer++)
            cr_assert_eq(enc_chanseq_pos(&cs, (uint64_t)cid, peer).send,
                         cid == 17 ? 0u : (uint64_t)(peer % 3 + 1), "cid %d peer %d", cid, peer);
}

/* ---- determinant records ---- */

static void round_trip(const struct enc_det *d)
{
    uint8_t wire[ENC_DET_WIRE];
    struct enc_det back;

    enc_det_encode(d, wire);
    cr_assert_eq(enc_det_decode(&back, wire, sizeof(wire)), ENC_OK);
    cr_assert_eq(back.kind, d->kind);
    cr_assert_eq(back.flags, d->flags);
    cr_assert_eq(back.creator, d->creator);
    cr_assert_eq(back.clock, d->clock);
    cr_assert_eq(back.cid, d->cid);
    cr_assert_eq(back.src, d->src);
    cr_assert_eq(back.tag, d->tag);
    cr_assert_eq(back.seq, d->seq);
    cr_assert_eq(back.idx, d->idx);
}

static const struct enc_det samples[] = {
    {.kind = ENC_DET_MATCH, .creator = 3, .clock = 12, .cid = 5, .src = 2, .tag = 7,
     .seq = (uint64_t)1 << 40},
    {.kind = ENC_DET_NONE, .creator = 4095, .clock = UINT64_MAX - 1, .seq = 100000},
    {.kind = ENC_DET_DONE, .creator = 1, .clock = 9, .idx = 17, .flags = ENC_DET_LAST},
    {.kind = ENC_DET_DONE, .creator = 1, .clock = 10, .idx = ENC_DET_ALL},
    {.kind = ENC_DET_CANCEL, .creator = 0, .clock = 2, .cid = 1, .seq = 1},
    {.kind = ENC_DET_SEND, .creator = 2, .clock = (uint64_t)3 << 48 | 5, .cid = 4, .src = 1,
     .tag = 0, .seq = 6},
};

struct seen {
    uint64_t sent, received;
    size_t n;
};

static void count_channel(void *arg, uint64_t cid, int peer, struct enc_chan_pos pos)
{
    struct seen *s = arg;

    cr_assert(cid >= 1 && cid <= 3 && peer >= 0 && peer < 50, "channel (%llu, %d)",
              (unsigned long long)cid, peer);
    s->sent += pos.send;
    s->received += pos.recv;
    s->n++;
}

/* A snapshot image lists every channel's positions (POSITIONS, trim keys). */
Test(p2p_chanseq, each_channel_is_listed_once_with_its_positions)
{
    struct seen s = {0};

    for (uint64_t cid = 1; cid <= 3; cid++)
        for (int peer = 0; peer < 50; peer++) {
            (void)next(cid, peer);
            cr_assert_eq(enc_chanseq_accept(&cs, cid, peer, 0, NULL), ENC_CHAN_DELIVER);
            cr_assert_eq(enc_chanseq_accept(&cs, cid, peer, 1, NULL), ENC_CHAN_DELIVER);
        }
    enc_chanseq_drop_comm(&cs, 2);
    enc_chanseq_each(&cs, count_channel, &s);
    cr_assert_eq(s.n, 100);
    cr_assert_eq(s.sent, 100);
    cr_assert_eq(s.received, 200);
}

Test(p2p_chanseq, every_kind_of_determinant_round_trips)
{
    for (size_t i = 0; i < ENC_ARRAY_SIZE(samples); i++)
        round_trip(&samples[i]);
}

Test(p2p_chanseq, the_record_layout_is_fixed_big_endian)
{
    uint8_t wire[ENC_DET_WIRE];
    static const uint8_t want[ENC_DET_WIRE] = {
        1, 0, 0, 0, 0, 0, 0, 3,                 /* kind, flags, 0, creator */
        0, 0, 0, 0, 0, 0, 0, 12,                /* clock */
        0, 0, 0, 0, 0, 0, 0, 5,                 /* cid */
        0, 0, 0, 2, 0, 0, 0, 7,                 /* src, tag */
        0, 0, 1, 0, 0, 0, 0, 0,                 /* seq */
    };

    enc_det_encode(&samples[0], wire);
    cr_assert_arr_eq(wire, want, sizeof(want));
}

/* Encodes samples[i], lets patch spoil it, expects a refusal. */
static void refused(size_t i, size_t off, uint8_t val)
{
    uint8_t wire[ENC_DET_WIRE];
    struct enc_det back;

    enc_det_encode(&samples[i], wire);
    wire[off] = val;
    cr_assert_eq(enc_det_decode(&back, wire, sizeof(wire)), ENC_ERR_PROTO,
                 "sample %zu byte %zu = %u", i, off, val);
}

Test(p2p_chanseq, malformed_determinants_are_refused)
{
    uint8_t wire[ENC_DET_WIRE];
    struct enc_det back;

    enc_det_encode(&samples[0], wire);
    cr_assert_eq(enc_det_decode(&back, wire, sizeof(wire) - 1), ENC_ERR_PROTO);
    enc_det_encode(&(struct enc_det){.kind = ENC_DET_NONE, .clock = 1, .seq = 0}, wire);
    cr_assert_eq(enc_det_decode(&back, wire, sizeof(wire)), ENC_ERR_PROTO, "none of no call");
    refused(0, 0, 0);           /* kind 0 */
    refused(0, 0, 6);           /* unknown kind */
    refused(0, 1, ENC_DET_LAST);/* flags on a match */
    refused(0, 2, 1);           /* reserved */
    refused(0, 24, 0x80);       /* negative source */
    refused(0, 28, 0xff);       /* negative tag */
    refused(1, 23, 1);          /* none with a communicator */
    refused(2, 1, 0x02);        /* unknown flag */
    refused(2, 27, 1);          /* done with a source */
    refused(4, 39, 2);          /* cancel neither 0 nor 1 */
    refused(5, 1, ENC_DET_LAST);/* flags on a send */
}

Test(p2p_chanseq, determinants_format_for_divergence_reports)
{
    static const char *want[] = {
        "match clock=12 cid=5 src=2 tag=7 seq=1099511627776",
        "none clock=18446744073709551614 calls=100000",
        "done clock=9 index=17 last",
        "done clock=10 all",
        "cancel clock=2 cid=1 cancelled",
        "send clock=844424930131973 cid=4 dst=1 tag=0 seq=6",
    };
    char line[128];

    for (size_t i = 0; i < ENC_ARRAY_SIZE(samples); i++) {
        enc_det_format(&samples[i], line, sizeof(line));
        cr_assert_str_eq(line, want[i]);
    }
}

/* A sender's chains, as its frames carry them, for messages of these tags
 * (8 bytes each, standard mode). */
static void send_chains(struct enc_chanseq *s, const int *tags, int n, uint64_t *chain)
{
    for (int i = 0; i < n; i++) {
        uint64_t seq;

        cr_assert_eq(enc_chanseq_next_send_linked(s, 5, 1, tags[i], 8, false, &seq, &chain[i]),
                     ENC_OK);
        cr_assert_eq(seq, (uint64_t)i);
    }
}

/* The receiver's check of message seq with chain (tag, 8 bytes). */
static bool receive(uint64_t seq, int tag, uint64_t chain)
{
    enum enc_chan_verdict v = enc_chanseq_accept(&cs, 5, 0, seq, NULL);

    return enc_chanseq_chain_ok(&cs, 5, 0, seq, v, tag, 8, false, chain);
}

/* A first run of five messages of tag 7, delivered, and the chains of a
 * re-execution that sends again (six messages of tags again). */
static void first_then_again(const int *again, uint64_t *c1, uint64_t *c2)
{
    const int first[5] = {7, 7, 7, 7, 7};
    struct enc_chanseq a, b;

    enc_chanseq_init(&a);
    enc_chanseq_init(&b);
    send_chains(&a, first, 5, c1);
    send_chains(&b, again, 6, c2);
    enc_chanseq_fini(&a);
    enc_chanseq_fini(&b);
    for (int i = 0; i < 5; i++)
        cr_assert(receive((uint64_t)i, 7, c1[i]), "first delivery of %d", i);
}

Test(p2p_chanseq, the_chain_passes_the_same_sends_and_catches_a_changed_one)
{
    const int again[6] = {7, 7, 99, 7, 7, 7}; /* message 2's tag changed */
    uint64_t c1[5], c2[6];

    first_then_again(again, c1, c2);
    cr_assert_eq(enc_chanseq_pos(&cs, 5, 0).recv_chain, c1[4]);
    /* the same re-sends pass; only the last one delivered is compared */
    cr_assert(receive(4, 7, c1[4]));
    cr_assert(receive(3, 7, c2[3]), "an earlier re-send is not checked (its chain differs)");
    cr_assert_not(receive(4, 7, c2[4]), "the last re-send carries the changed chain");
}

Test(p2p_chanseq, a_new_message_after_changed_re_sends_fails_its_chain)
{
    const int again[6] = {7, 7, 7, 7, 3, 7};
    uint64_t c1[5], c2[6];

    first_then_again(again, c1, c2);
    cr_assert_not(receive(5, 7, c2[5]), "message 5 links onto a history that differs");
    /* and a frame whose own fields disagree with its chain fails too */
    cr_assert_not(receive(6, 8, enc_chan_link(c2[5], 7, 8, false)));
}
