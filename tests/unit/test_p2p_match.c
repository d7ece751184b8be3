/*
 * test_p2p_match.c - shim/p2p/match: MPI's matching rules on one
 * communicator, in exact orders: wildcards mixed with specific receives,
 * several senders, non-overtaking, probe and matched probe, cancel, the
 * determinism of specific-source matching over every interleaving, and
 * replay of recorded wildcard matches under another arrival order.
 */
#include "enc.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "p2p/match.h"

#define ANY ENC_MATCH_ANY
#define POOL 64

static struct enc_match m;
static struct enc_match_msg msgs[POOL];
static struct enc_match_recv recvs[POOL];
static int nmsg, nrecv;
static uint64_t chan_seq[POOL]; /* per sender: its next channel number */

static void setup(void)
{
    enc_match_init(&m);
    memset(msgs, 0, sizeof(msgs));
    memset(recvs, 0, sizeof(recvs));
    memset(chan_seq, 0, sizeof(chan_seq));
    nmsg = nrecv = 0;
}

static void teardown(void)
{
    enc_match_fini(&m);
}

TestSuite(p2p_match, .init = setup, .fini = teardown);

/* A message from src with tag arrives (its channel's next number); returns
 * the index of the receive it matched, or -1 when it was queued. */
static int arrive(int src, int tag)
{
    struct enc_match_msg *msg = &msgs[nmsg++];
    struct enc_match_recv *r;

    msg->src = src;
    msg->tag = tag;
    msg->seq = chan_seq[src]++;
    cr_assert_eq(enc_match_arrive(&m, msg, &r), ENC_OK);
    return r ? (int)(r - recvs) : -1;
}

/* Posts a receive; returns the index of the message it took, or -1. */
static int post(int src, int tag)
{
    struct enc_match_recv *r = &recvs[nrecv++];
    struct enc_match_msg *msg;

    r->src = src;
    r->tag = tag;
    cr_assert_eq(enc_match_post(&m, r, &msg), ENC_OK);
    return msg ? (int)(msg - msgs) : -1;
}

static int idx(const struct enc_match_msg *msg)
{
    return msg ? (int)(msg - msgs) : -1;
}

Test(p2p_match, receives_of_one_pattern_match_in_post_order)
{
    cr_assert_eq(post(1, 5), -1);
    cr_assert_eq(post(1, 5), -1);
    cr_assert_eq(arrive(1, 5), 0);
    cr_assert_eq(arrive(1, 5), 1);
    cr_assert_eq(m.nposted, 0);
}

Test(p2p_match, an_arrival_takes_the_earliest_posted_of_all_four_patterns)
{
    post(ANY, 7);  /* r0 */
    post(2, ANY);  /* r1 */
    post(2, 7);    /* r2 */
    post(ANY, ANY);/* r3 */
    post(2, 7);    /* r4 */
    cr_assert_eq(arrive(3, 9), 3);  /* only (any, any) matches */
    cr_assert_eq(arrive(2, 7), 0);
    cr_assert_eq(arrive(2, 7), 1);
    cr_assert_eq(arrive(2, 7), 2);
    cr_assert_eq(arrive(2, 7), 4);
    cr_assert_eq(arrive(2, 7), -1);
    cr_assert_eq(m.nposted, 0);
    cr_assert_eq(m.nunexpected, 1);
}

/* enc_match_peek names the receive the arrival then takes, and changes
 * nothing (the transport reads a payload straight into that receive). */
Test(p2p_match, peek_names_the_receive_the_arrival_takes_and_changes_nothing)
{
    struct enc_match_msg probe = {.src = 2, .tag = 7};

    cr_assert_null(enc_match_peek(&m, &probe));
    post(2, ANY);  /* r0 */
    post(ANY, 7);  /* r1 */
    post(2, 7);    /* r2 */
    cr_assert_eq(enc_match_peek(&m, &probe), &recvs[0]);
    cr_assert_eq(m.nposted, 3);
    cr_assert_eq(arrive(2, 7), 0);
    cr_assert_eq(enc_match_peek(&m, &probe), &recvs[1]);
    cr_assert_eq(arrive(2, 7), 1);
    probe.tag = -2; /* a bad envelope matches nothing */
    cr_assert_null(enc_match_peek(&m, &probe));
    cr_assert_eq(m.nposted, 1);
}

Test(p2p_match, a_wildcard_posted_later_never_overtakes_a_specific_receive)
{
    post(1, 5);
    post(ANY, ANY);
    cr_assert_eq(arrive(1, 6), 1);
    cr_assert_eq(arrive(1, 5), 0);
}

Test(p2p_match, a_posted_receive_takes_the_earliest_matching_arrival)
{
    arrive(2, 1); /* m0 */
    arrive(1, 1); /* m1 */
    arrive(2, 2); /* m2 */
    arrive(1, 2); /* m3 */
    cr_assert_eq(post(ANY, ANY), 0);
    cr_assert_eq(post(1, ANY), 1);
    cr_assert_eq(post(ANY, 2), 2);
    cr_assert_eq(post(ANY, ANY), 3);
    cr_assert_eq(post(ANY, ANY), -1);
    cr_assert_eq(m.nunexpected, 0);
    cr_assert_eq(m.nposted, 1);
}

Test(p2p_match, messages_of_one_sender_are_not_overtaken_by_tag)
{
    arrive(1, 3); /* seq 0 */
    arrive(1, 4); /* seq 1 */
    arrive(1, 3); /* seq 2 */
    cr_assert_eq(post(1, 3), 0);
    cr_assert_eq(post(1, ANY), 1);
    cr_assert_eq(post(1, 3), 2);
}

Test(p2p_match, several_senders_interleave_in_arrival_order_for_any_source)
{
    int want[] = {0, 1, 2, 3, 4, 5};

    for (int i = 0; i < 6; i++)
        arrive(i % 3, 0); /* senders 0 1 2 0 1 2 */
    for (int i = 0; i < 6; i++)
        cr_assert_eq(post(ANY, 0), want[i], "receive %d", i);
    for (int s = 0; s < 3; s++)
        cr_assert_eq(msgs[s].seq, 0);
    cr_assert_eq(msgs[3].seq, 1);
}

Test(p2p_match, probe_leaves_the_message_and_the_receive_gets_it)
{
    arrive(2, 5); /* m0 */
    arrive(1, 5); /* m1 */
    cr_assert_eq(idx(enc_match_probe(&m, ANY, 5)), 0);
    cr_assert_eq(idx(enc_match_probe(&m, ANY, 5)), 0);
    cr_assert_eq(idx(enc_match_probe(&m, 1, ANY)), 1);
    cr_assert_eq(idx(enc_match_probe(&m, 3, ANY)), -1);
    cr_assert_eq(post(ANY, 5), 0);
    cr_assert_eq(idx(enc_match_probe(&m, ANY, ANY)), 1);
    cr_assert_eq(m.nunexpected, 1);
}

Test(p2p_match, probe_does_not_see_a_message_a_posted_receive_took)
{
    post(1, ANY);
    cr_assert_eq(arrive(1, 4), 0);
    cr_assert_null(enc_match_probe(&m, 1, ANY));
    arrive(1, 4);
    cr_assert_eq(idx(enc_match_probe(&m, 1, ANY)), 1);
}

Test(p2p_match, matched_probe_removes_the_message_for_its_handle)
{
    arrive(1, 1); /* m0 */
    arrive(1, 1); /* m1 */
    cr_assert_eq(idx(enc_match_mprobe(&m, 1, 1)), 0);
    cr_assert_eq(idx(enc_match_probe(&m, ANY, ANY)), 1);
    cr_assert_eq(post(1, 1), 1);
    cr_assert_null(enc_match_mprobe(&m, ANY, ANY));
    cr_assert_eq(m.nunexpected, 0);
}

Test(p2p_match, cancel_removes_a_queued_receive_only)
{
    struct enc_match_recv *r0 = &recvs[0], *r1 = &recvs[1];

    post(ANY, ANY);
    post(1, ANY);
    cr_assert(enc_match_cancel(&m, r0));
    cr_assert_not(enc_match_cancel(&m, r0));
    cr_assert_eq(arrive(1, 0), 1);
    cr_assert_not(enc_match_cancel(&m, r1), "it had matched");
    cr_assert_eq(arrive(1, 0), -1, "the cancelled receive takes nothing");
    cr_assert_eq(m.nposted, 0);
}

Test(p2p_match, bad_patterns_and_envelopes_are_refused)
{
    struct enc_match_recv r = {.src = 0, .tag = -2};
    struct enc_match_msg msg = {.src = 0, .tag = ANY}, *got;
    struct enc_match_recv *rr;

    cr_assert_eq(enc_match_post(&m, &r, &got), ENC_ERR_INVAL);
    r = (struct enc_match_recv){.src = -2, .tag = 0};
    cr_assert_eq(enc_match_post(&m, &r, &got), ENC_ERR_INVAL);
    r = (struct enc_match_recv){.src = ANY, .tag = 0, .pin = 1};
    cr_assert_eq(enc_match_post(&m, &r, &got), ENC_ERR_INVAL);
    cr_assert_eq(enc_match_arrive(&m, &msg, &rr), ENC_ERR_INVAL);
    msg = (struct enc_match_msg){.src = ENC_MATCH_MAX_SRC + 1, .tag = 0};
    cr_assert_eq(enc_match_arrive(&m, &msg, &rr), ENC_ERR_INVAL);
    cr_assert_eq(m.nposted + m.nunexpected, 0);
}

Test(p2p_match, a_new_tag_per_message_keeps_the_tables_flat)
{
    static struct enc_match_msg many[2];
    struct enc_match_recv r;
    struct enc_match_msg *got;
    struct enc_match_recv *rr;

    for (int i = 0; i < 20000; i++) {
        struct enc_match_msg *msg = &many[i & 1];
        *msg = (struct enc_match_msg){.src = i % 7, .tag = i, .seq = (uint64_t)i};
        cr_assert_eq(enc_match_arrive(&m, msg, &rr), ENC_OK);
        r = (struct enc_match_recv){.src = i % 7, .tag = i};
        cr_assert_eq(enc_match_post(&m, &r, &got), ENC_OK);
        cr_assert_eq(got, msg);
    }
    cr_assert_eq(m.unexpected.n, 0);
    cr_assert_eq(m.posted.n, 0);
    cr_assert_leq(m.unexpected.cap, 64);
}

/* ---- determinism of specific-source matching ---- */

struct scenario {
    int nposts, nmsgs;
    int post_tag[4];  /* ANY or a tag; every post names source 1 */
    int msg_tag[4];   /* messages of source 1, in channel order */
};

/* Runs one interleaving (bit i of order: event i is an arrival) and writes
 * which message each post got (-1: none). */
static void run_order(const struct scenario *s, unsigned order, int *got)
{
    int p = 0, a = 0;

    setup();
    for (int e = 0; e < s->nposts + s->nmsgs; e++) {
        if (order >> e & 1) {
            int r = arrive(1, s->msg_tag[a++]);
            if (r >= 0)
                got[r] = a - 1;
        } else {
            int k = post(1, s->post_tag[p]);
            got[p++] = k;
        }
    }
    teardown();
}

static void all_interleavings_agree(const struct scenario *s)
{
    int first[4], got[4], n = s->nposts + s->nmsgs, seen = 0;

    for (unsigned order = 0; order < 1u << n; order++) {
        if (__builtin_popcount(order) != s->nmsgs)
            continue;
        memset(got, -1, sizeof(got));
        run_order(s, order, got);
        if (seen++ == 0)
            memcpy(first, got, sizeof(got));
        else
            cr_assert_arr_eq(got, first, sizeof(got), "interleaving %#x differs", order);
    }
}

Test(p2p_match, specific_source_matching_is_the_same_under_every_interleaving)
{
    static const int tags[] = {ANY, 1, 2};
    unsigned rng = 12345;

    all_interleavings_agree(&(struct scenario){4, 4, {ANY, 2, ANY, 1}, {1, 2, 2, 1}});
    for (int t = 0; t < 300; t++) {
        struct scenario s;
        rng = rng * 1103515245u + 12345u;
        s.nposts = 1 + (int)(rng >> 8) % 4;
        s.nmsgs = 1 + (int)(rng >> 12) % 4;
        for (int i = 0; i < 4; i++) {
            rng = rng * 1103515245u + 12345u;
            s.post_tag[i] = tags[(rng >> 8) % 3];
            s.msg_tag[i] = 1 + (int)(rng >> 16) % 2;
        }
        all_interleavings_agree(&s);
    }
}

/* ---- recording and replaying wildcard matches ---- */

/* A program's receives on one communicator, posted in this order before
 * any message arrives or (sparse) between arrivals. */
static const struct { int src, tag; } prog[] = {
    {ANY, ANY}, {ANY, 4}, {2, ANY}, {ANY, ANY}, {1, 4}, {ANY, ANY},
};
#define NPROG ((int)ENC_ARRAY_SIZE(prog))

/* Arrivals (sender, tag), each sender's in channel order; two interleavings. */
static const int arr_a[][2] = {{1, 4}, {2, 4}, {1, 3}, {2, 5}, {3, 4}, {1, 4}};
static const int arr_b[][2] = {{3, 4}, {2, 4}, {2, 5}, {1, 4}, {1, 3}, {1, 4}};

/* Posts receive i, replaying dets[i] when dets is given; then one arrival. */
static void run_program(const int (*arr)[2], struct enc_det *rec, const struct enc_det *dets,
                        struct enc_match_msg **got)
{
    setup();
    for (int i = 0; i < NPROG; i++) {
        struct enc_match_recv *r = &recvs[nrecv++];
        struct enc_match_msg *msg;
        bool wild = prog[i].src == ANY;

        r->src = prog[i].src;
        r->tag = prog[i].tag;
        if (dets != NULL && wild)
            cr_assert_eq(enc_match_replay(r, &dets[i], false), ENC_OK);
        cr_assert_eq(enc_match_post(&m, r, &msg), ENC_OK);
        if (msg != NULL)
            got[i] = msg;
        int k = arrive(arr[i][0], arr[i][1]);
        if (k >= 0)
            got[k] = &msgs[nmsg - 1];
    }
    for (int i = 0; i < NPROG; i++) {
        cr_assert_not_null(got[i], "receive %d matched", i);
        if (rec != NULL && prog[i].src == ANY)
            enc_match_det(&rec[i], 5, (uint64_t)i, 9, got[i]);
    }
}

Test(p2p_match, replayed_determinants_give_the_recorded_matches_under_another_order)
{
    struct enc_det rec[NPROG];
    struct enc_match_msg *a[NPROG] = {0}, *b[NPROG] = {0}, *c[NPROG] = {0};
    struct { int src; uint64_t seq; } first[NPROG];
    int differ = 0;

    memset(rec, 0, sizeof(rec));
    run_program(arr_a, rec, NULL, a);
    for (int i = 0; i < NPROG; i++) {
        first[i].src = a[i]->src;
        first[i].seq = a[i]->seq;
    }
    teardown();
    /* The exact matches of the recorded run. */
    cr_assert_eq(first[0].src, 1);
    cr_assert_eq(first[0].seq, 0);
    cr_assert_eq(first[1].src, 2);
    cr_assert_eq(first[2].src, 2);
    cr_assert_eq(first[2].seq, 1);
    cr_assert_eq(first[4].src, 1);
    cr_assert_eq(first[4].seq, 2);

    /* Without the determinants the other order matches differently... */
    run_program(arr_b, NULL, NULL, b);
    for (int i = 0; i < NPROG; i++)
        differ += b[i]->src != first[i].src || b[i]->seq != first[i].seq;
    teardown();
    cr_assert_gt(differ, 0, "the orders must make the wildcards nondeterministic");

    /* ...and with them it matches exactly as recorded. */
    run_program(arr_b, NULL, rec, c);
    for (int i = 0; i < NPROG; i++) {
        cr_assert_eq(c[i]->src, first[i].src, "receive %d", i);
        cr_assert_eq(c[i]->seq, first[i].seq, "receive %d", i);
        if (prog[i].src == ANY)
            cr_assert(enc_match_replayed_ok(&rec[i], c[i]));
    }
}

Test(p2p_match, a_determinant_the_receive_could_not_have_made_is_a_divergence)
{
    struct enc_det d = {.kind = ENC_DET_MATCH, .src = 3, .tag = 4, .seq = 0};
    struct enc_match_recv r = {.src = 2, .tag = ANY};

    cr_assert_eq(enc_match_replay(&r, &d, false), ENC_ERR_DIVERGED);
    r = (struct enc_match_recv){.src = ANY, .tag = 5};
    cr_assert_eq(enc_match_replay(&r, &d, false), ENC_ERR_DIVERGED);
    d.kind = ENC_DET_NONE;
    r = (struct enc_match_recv){.src = ANY, .tag = 4};
    cr_assert_eq(enc_match_replay(&r, &d, false), ENC_ERR_DIVERGED);
    d.kind = ENC_DET_MATCH;
    cr_assert_eq(enc_match_replay(&r, &d, false), ENC_OK);
    cr_assert_eq(r.src, 3);
    cr_assert_eq(r.tag, 4);
    cr_assert_eq(r.pin, 0);
}

Test(p2p_match, a_pinned_receive_takes_only_its_recorded_message)
{
    struct enc_det d = {.kind = ENC_DET_MATCH, .src = 1, .tag = 0, .seq = 1};
    struct enc_match_recv *r = &recvs[nrecv++];
    struct enc_match_msg *msg;

    arrive(1, 0); /* m0 seq 0 */
    arrive(1, 0); /* m1 seq 1 */
    *r = (struct enc_match_recv){.src = ANY, .tag = ANY};
    cr_assert_eq(enc_match_replay(r, &d, true), ENC_OK);
    cr_assert_eq(enc_match_post(&m, r, &msg), ENC_OK);
    cr_assert_eq(idx(msg), 1);
    /* pinned to seq 3, posted before it arrives */
    r = &recvs[nrecv++];
    *r = (struct enc_match_recv){.src = 1, .tag = ANY, .pin = 3 + 1};
    cr_assert_eq(enc_match_post(&m, r, &msg), ENC_OK);
    cr_assert_null(msg);
    cr_assert_eq(arrive(1, 0), -1, "seq 2 is not its message");
    cr_assert_eq(arrive(1, 0), 1, "seq 3 is");
    cr_assert_eq(post(1, 0), 0, "the unpinned receive takes seq 0");
    cr_assert_eq(post(1, 0), 2, "then seq 2");
}
