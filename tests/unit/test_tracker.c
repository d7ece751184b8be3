/*
 * test_tracker.c - the tracker (rendezvous) with real clients: a tracker
 * on a kernel-chosen port in a thread, ranks through the real tracker
 * client (exit-on-lost off), hostile peers through raw sockets.
 */
#include "enc.h"
#include "net/sock.h"
#include "proto/auth.h"
#include "proto/detmsg.h"
#include "proto/frame.h"
#include "proto/msgs.h"
#include "tracker_client/tclient.h"
#include "tracker/tracker.h"

#include <criterion/criterion.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WAIT_MS 5000

static struct enc_secret secret;
static struct enc_tracker *trk;
static pthread_t trk_thread;
static int trk_stop;
static char hostport[64];

static void *trk_main(void *arg)
{
    while (!__atomic_load_n(&trk_stop, __ATOMIC_ACQUIRE))
        enc_tracker_poll(trk, 20, NULL, 0);
    return NULL;
}

static int dropped_calls;

static void count_dropped(void *arg, int rank, uint64_t first, uint64_t last)
{
    (void)arg;
    (void)rank;
    (void)first;
    (void)last;
    __atomic_add_fetch(&dropped_calls, 1, __ATOMIC_RELEASE);
}

static void start(int size, int64_t hb_timeout_ms, int64_t connect_timeout_ms)
{
    struct enc_tracker_config cfg = {.size = size, .bind_host = "127.0.0.1",
                                     .secret = &secret, .register_timeout_ms = 20000,
                                     .heartbeat_timeout_ms = hb_timeout_ms,
                                     .connect_timeout_ms = connect_timeout_ms,
                                     .hooks = {.dropped = count_dropped}};

    enc_tclient_set_exit_on_lost(false);
    setenv("ENCORE_HEARTBEAT_MS", "50", 1);
    cr_assert_eq(enc_secret_generate(&secret), 0);
    cr_assert_eq(enc_tracker_create(&trk, &cfg), 0);
    cr_assert_neq(enc_tracker_port(trk), 0);
    snprintf(hostport, sizeof(hostport), "127.0.0.1:%u", enc_tracker_port(trk));
    trk_stop = 0;
    cr_assert_eq(pthread_create(&trk_thread, NULL, trk_main, NULL), 0);
}

static void stop(void)
{
    __atomic_store_n(&trk_stop, 1, __ATOMIC_RELEASE);
    pthread_join(trk_thread, NULL);
    enc_tracker_destroy(trk);
}

static struct enc_msg_register reg_of(int rank, int size, uint32_t inc, const char *host)
{
    struct enc_msg_register m = {.rank = (uint32_t)rank, .size = (uint32_t)size,
                                 .incarnation = inc, .pid = 1000u + (uint32_t)rank,
                                 .data_port = (uint16_t)(5000 + rank),
                                 .loc = {.package = -1, .numa = -1, .core = -1}};

    snprintf(m.addr, sizeof(m.addr), "10.0.0.%d", rank + 1);
    snprintf(m.loc.host, sizeof(m.loc.host), "%s", host);
    return m;
}

static struct enc_tclient *join(int rank, int size, uint32_t inc)
{
    struct enc_msg_register m = reg_of(rank, size, inc, "node");
    struct enc_tclient *c = NULL;

    cr_assert_eq(enc_tclient_open(&c, hostport, &secret, &m, enc_deadline_ms(WAIT_MS)), 0);
    return c;
}

/* The next event, which must be of this type. */
static void expect(struct enc_tclient *c, uint8_t type, struct enc_tclient_event *ev)
{
    int rv = enc_tclient_wait_event(c, ev, enc_deadline_ms(WAIT_MS));

    cr_assert_eq(rv, ENC_OK, "wait: %d (%s)", rv, encore_strerror(rv));
    cr_assert_eq(ev->type, type, "got frame type %u, expected %u", ev->type, type);
}

static void expect_world(struct enc_tclient *c, uint32_t epoch)
{
    struct enc_tclient_event ev;

    expect(c, ENC_MSG_WORLD, &ev);
    cr_assert_eq(ev.u.world.epoch, epoch);
    enc_msg_world_free(&ev.u.world);
}

static void expect_dead(struct enc_tclient *c, int rank, uint32_t epoch)
{
    struct enc_tclient_event ev;

    expect(c, ENC_MSG_EVENT, &ev);
    cr_assert_eq(ev.u.ev.kind, ENC_EV_DEAD);
    cr_assert_eq(ev.u.ev.rank, (uint32_t)rank);
    cr_assert_eq(ev.u.ev.epoch, epoch);
}

static void expect_resume(struct enc_tclient *c, uint32_t epoch, const uint64_t *done, int n)
{
    struct enc_tclient_event ev;

    expect(c, ENC_MSG_RESUME, &ev);
    cr_assert_eq(ev.u.resume.epoch, epoch);
    cr_assert_eq(ev.u.resume.size, (uint32_t)n);
    for (int i = 0; i < n; i++)
        cr_assert_eq(ev.u.resume.completed[i], done[i], "completed[%d]", i);
    enc_msg_resume_free(&ev.u.resume);
}

static void expect_lost(struct enc_tclient *c)
{
    struct enc_tclient_event ev;

    cr_assert_lt(enc_tclient_wait_event(c, &ev, enc_deadline_ms(WAIT_MS)), 0);
}

static void send_status(struct enc_tclient *c, uint32_t epoch, uint64_t completed)
{
    struct enc_msg_status st = {.epoch = epoch, .completed = completed};

    cr_assert_eq(enc_tclient_send_status(c, &st), 0);
}

/* 1 when the tracker closes fd (after whatever it sends) within WAIT_MS. */
static int closed_by_tracker(int fd)
{
    uint64_t deadline = enc_deadline_ms(WAIT_MS);
    uint8_t buf[256];
    int rv;

    while ((rv = enc_sock_read_all(fd, buf, 1, deadline)) == 0)
        ;
    return rv == ENC_ERR_PEER_CLOSED || rv == ENC_ERR_PEER_RESET;
}

static int raw_connect(void)
{
    char host[64];
    uint16_t port;
    int fd = -1;

    cr_assert_eq(enc_parse_hostport(hostport, host, sizeof(host), &port), 0);
    cr_assert_eq(enc_sock_connect(host, port, enc_deadline_ms(WAIT_MS), &fd), 0);
    return fd;
}

static int raw_auth(int rank, uint32_t inc)
{
    struct enc_auth_id id = {.role = ENC_ROLE_CONTROL, .rank = (uint32_t)rank,
                             .incarnation = inc};
    int fd = raw_connect();

    cr_assert_eq(enc_auth_client(fd, &secret, &id, enc_deadline_ms(WAIT_MS)), 0);
    return fd;
}

Test(tracker, all_ranks_get_the_same_world_with_the_ring)
{
    const char *hosts[3] = {"b", "a", "a"};
    struct enc_tclient *c[3];
    struct enc_tclient_event ev;

    start(3, 60000, 0);
    for (int i = 0; i < 3; i++) {
        struct enc_msg_register m = reg_of(i, 3, 0, hosts[i]);
        cr_assert_eq(enc_tclient_open(&c[i], hostport, &secret, &m, enc_deadline_ms(WAIT_MS)), 0);
    }
    for (int i = 0; i < 3; i++) {
        expect(c[i], ENC_MSG_WORLD, &ev);
        cr_assert_eq(ev.u.world.epoch, 0);
        cr_assert_eq(ev.u.world.size, 3);
        cr_assert_eq(ev.u.world.locality[0], 1);
        cr_assert_eq(ev.u.world.locality[1], 2);
        cr_assert_eq(ev.u.world.locality[2], 0);
        for (int r = 0; r < 3; r++) {
            char addr[16];
            snprintf(addr, sizeof(addr), "10.0.0.%d", r + 1);
            cr_assert_str_eq(ev.u.world.peers[r].addr, addr);
            cr_assert_eq(ev.u.world.peers[r].port, 5000 + r);
            cr_assert_eq(ev.u.world.peers[r].incarnation, 0);
        }
        enc_msg_world_free(&ev.u.world);
    }
    for (int i = 0; i < 3; i++)
        enc_tclient_close(c[i]);
    stop();
}

Test(tracker, hostile_connections_are_closed_and_ranks_complete)
{
    struct enc_secret wrong;
    struct enc_auth_id id = {.role = ENC_ROLE_CONTROL};
    struct enc_frame_hdr h = {.type = ENC_MSG_REGISTER, .len = 1ull << 40};
    uint8_t hdr[ENC_FRAME_HDR_SIZE];
    struct enc_tclient *c[2];
    int fd;

    start(2, 60000, 300);
    c[0] = join(0, 2, 0);
    /* wrong secret */
    fd = raw_connect();
    enc_secret_generate(&wrong);
    cr_assert_neq(enc_auth_client(fd, &wrong, &id, enc_deadline_ms(WAIT_MS)), 0);
    cr_assert(closed_by_tracker(fd));
    enc_sock_close(&fd);
    /* junk bytes instead of AUTH */
    fd = raw_connect();
    cr_assert_eq(enc_sock_write_all(fd, "GET / HTTP/1.0\r\n\r\n0123456789abcdef", 34,
                                    enc_deadline_ms(WAIT_MS)), 0);
    cr_assert(closed_by_tracker(fd));
    enc_sock_close(&fd);
    /* oversized length after a valid handshake */
    fd = raw_auth(1, 0);
    enc_frame_encode(&h, hdr);
    cr_assert_eq(enc_sock_write_all(fd, hdr, sizeof(hdr), enc_deadline_ms(WAIT_MS)), 0);
    cr_assert(closed_by_tracker(fd));
    enc_sock_close(&fd);
    /* truncated frame: half a header, then silence until the connect timeout */
    fd = raw_auth(1, 0);
    cr_assert_eq(enc_sock_write_all(fd, hdr, 10, enc_deadline_ms(WAIT_MS)), 0);
    cr_assert(closed_by_tracker(fd));
    enc_sock_close(&fd);
    /* the real ranks are undisturbed */
    c[1] = join(1, 2, 0);
    expect_world(c[0], 0);
    expect_world(c[1], 0);
    enc_tclient_close(c[0]);
    enc_tclient_close(c[1]);
    stop();
}

Test(tracker, newer_incarnation_fences_the_old_and_stale_is_refused)
{
    struct enc_tclient *a, *b, *a2, *stale;
    const uint64_t done[2] = {0, 7};

    start(2, 60000, 0);
    a = join(0, 2, 0);
    b = join(1, 2, 0);
    expect_world(a, 0);
    expect_world(b, 0);
    a2 = join(0, 2, 1);
    expect_lost(a);               /* fenced: its connection is closed */
    expect_dead(b, 0, 1);
    stale = join(0, 2, 0);
    expect_lost(stale);           /* incarnation 0 is never accepted again */
    send_status(b, 1, 7);
    expect_world(a2, 1);
    expect_world(b, 1);
    expect_resume(a2, 1, done, 2);
    expect_resume(b, 1, done, 2);
    enc_tclient_close(stale);
    enc_tclient_close(a);
    enc_tclient_close(a2);
    enc_tclient_close(b);
    stop();
}

Test(tracker, dead_rank_gives_event_dead_then_world_and_resume)
{
    struct enc_tclient *c[3];
    const uint64_t done[3] = {5, 0, 6};

    start(3, 60000, 0);
    for (int i = 0; i < 3; i++)
        c[i] = join(i, 3, 0);
    for (int i = 0; i < 3; i++)
        expect_world(c[i], 0);
    enc_tclient_close(c[1]);      /* dies without FINALIZE */
    expect_dead(c[0], 1, 1);
    expect_dead(c[2], 1, 1);
    send_status(c[0], 1, 5);
    send_status(c[2], 1, 6);
    c[1] = join(1, 3, 1);
    for (int i = 0; i < 3; i++) {
        expect_world(c[i], 1);
        expect_resume(c[i], 1, done, 3);
    }
    for (int i = 0; i < 3; i++)
        enc_tclient_close(c[i]);
    stop();
}

Test(tracker, silent_rank_is_declared_dead_by_heartbeat_timeout)
{
    struct enc_msg_register m = reg_of(1, 2, 0, "node");
    struct enc_frame_hdr h = {.type = ENC_MSG_REGISTER, .src = 1};
    struct enc_tclient *c;
    uint8_t buf[512];
    int fd, n;

    start(2, 300, 0);
    c = join(0, 2, 0);
    fd = raw_auth(1, 0);          /* registers, then never says a word */
    n = enc_msg_register_encode(&m, buf, sizeof(buf));
    cr_assert_gt(n, 0);
    h.len = (uint64_t)n;
    cr_assert_eq(enc_frame_send(fd, &h, buf, enc_deadline_ms(WAIT_MS)), 0);
    expect_world(c, 0);
    expect_dead(c, 1, 1);
    cr_assert(closed_by_tracker(fd));
    enc_sock_close(&fd);
    enc_tclient_close(c);
    stop();
}

Test(tracker, finalize_then_close_is_not_a_death)
{
    struct enc_tclient *c[2];
    struct enc_msg_stats st = {.completed = 3};
    struct enc_tclient_event ev;

    start(2, 60000, 0);
    c[0] = join(0, 2, 0);
    c[1] = join(1, 2, 0);
    expect_world(c[0], 0);
    expect_world(c[1], 0);
    cr_assert_eq(enc_tclient_send_finalize(c[1], &st), 0);
    enc_tclient_close(c[1]);
    /* no EVENT for rank 0: a bounded wait must time out */
    cr_assert_eq(enc_tclient_wait_event(c[0], &ev, enc_deadline_ms(300)), ENC_ERR_TIMEOUT);
    enc_tclient_close(c[0]);
    stop();
}

/* A tracker of two ranks, both registered and in the world. */
static void two_ranks(struct enc_tclient *c[2])
{
    start(2, 60000, 0);
    c[0] = join(0, 2, 0);
    c[1] = join(1, 2, 0);
    expect_world(c[0], 0);
    expect_world(c[1], 0);
}

/* DROPPED ranges are merged per rank and over ranks; the owner hears of
 * the first one only. */
Test(tracker, dropped_results_merged_and_reported_once)
{
    struct enc_tclient *c[2];
    uint64_t first = 0, last = 0;
    uint64_t deadline = enc_deadline_ms(WAIT_MS);

    dropped_calls = 0;
    two_ranks(c);
    cr_assert_eq(enc_tclient_send_dropped(c[1], &(struct enc_msg_dropped){5, 9}), 0);
    cr_assert_eq(enc_tclient_send_dropped(c[1], &(struct enc_msg_dropped){5, 12}), 0);
    cr_assert_eq(enc_tclient_send_dropped(c[0], &(struct enc_msg_dropped){3, 7}), 0);
    while ((!enc_tracker_dropped(trk, &first, &last) || first != 3 || last != 12) &&
           enc_ms_left(deadline) > 0)
        usleep(10000);
    cr_assert_eq(first, 3);
    cr_assert_eq(last, 12);
    cr_assert_eq(__atomic_load_n(&dropped_calls, __ATOMIC_ACQUIRE), 1);
    enc_tclient_close(c[0]);
    enc_tclient_close(c[1]);
    stop();
}

/* NONDET marks the rank (and only it) for good: encore-run's host-loss
 * rule asks for it. */
Test(tracker, nondet_marks_the_rank)
{
    struct enc_tclient *c[2];
    uint64_t deadline = enc_deadline_ms(WAIT_MS);

    two_ranks(c);
    cr_assert(!enc_tracker_rank_nondet(trk, 0));
    cr_assert(!enc_tracker_rank_nondet(trk, 1));
    cr_assert_eq(enc_tclient_send_nondet(c[1]), 0);
    while (!enc_tracker_rank_nondet(trk, 1) && enc_ms_left(deadline) > 0)
        usleep(10000);
    cr_assert(enc_tracker_rank_nondet(trk, 1));
    cr_assert(!enc_tracker_rank_nondet(trk, 0));
    cr_assert(!enc_tracker_rank_nondet(trk, 2));
    cr_assert(!enc_tracker_rank_nondet(trk, -1));
    enc_tclient_close(c[0]);
    enc_tclient_close(c[1]);
    stop();
}

/* A backwards range is malformed: that rank's connection goes. */
Test(tracker, dropped_backwards_range_closes_the_connection)
{
    struct enc_tclient *c[2];

    two_ranks(c);
    cr_assert_eq(enc_tclient_send_dropped(c[1], &(struct enc_msg_dropped){9, 8}), 0);
    expect_dead(c[0], 1, 1);
    enc_tclient_close(c[0]);
    enc_tclient_close(c[1]);
    stop();
}

/* Determinant copies (S2, docs/p2p.md 5.3): shipments acked by version, a
 * record shipped again replaces its copy, a new incarnation of the rank
 * reads the copy back whole (in two chunks when it is larger than one). */
Test(tracker, determinant_copy_acked_and_read_back_by_the_next_incarnation)
{
    struct enc_tclient *c[2], *again;
    size_t big = ENC_DETMSG_CHUNK + 2 * ENC_DETMSG_REC, n;
    uint8_t *recs = calloc(1, big), *back;

    cr_assert_not_null(recs);
    for (size_t i = 0; i < big; i += ENC_DETMSG_REC)
        recs[i] = (uint8_t)(1 + i / ENC_DETMSG_REC % 7);
    two_ranks(c);
    cr_assert(enc_tclient_tracker_local(c[1]), "both ends are 127.0.0.1");
    cr_assert_eq(enc_tclient_det_put(c[1], 1, 0, recs, 2 * ENC_DETMSG_REC), 0);
    cr_assert_eq(enc_tclient_det_wait_ack(c[1], 1, enc_deadline_ms(WAIT_MS)), 0);
    cr_assert(enc_tracker_rank_det_kept(trk, 1));
    cr_assert_not(enc_tracker_rank_det_kept(trk, 0));
    recs[ENC_DETMSG_REC] = 5; /* the second record again, changed, then the rest */
    cr_assert_eq(enc_tclient_det_put(c[1], 2, ENC_DETMSG_REC, recs + ENC_DETMSG_REC,
                                     big - ENC_DETMSG_REC), 0);
    cr_assert_eq(enc_tclient_det_wait_ack(c[1], 2, enc_deadline_ms(WAIT_MS)), 0);
    cr_assert_eq(enc_tclient_det_acked(c[1]), 2);
    cr_assert_eq(enc_tclient_det_wait_ack(c[1], 3, enc_deadline_ms(200)), ENC_ERR_TIMEOUT,
                 "a version never shipped is never acked: the wait is bounded");
    again = join(1, 2, 1);
    expect_lost(c[1]);
    cr_assert_eq(enc_tclient_det_fetch(again, enc_deadline_ms(WAIT_MS), &back, &n), 0);
    cr_assert_eq(n, big);
    cr_assert_eq(memcmp(back, recs, big), 0);
    free(back);
    cr_assert_eq(enc_tclient_det_fetch(c[0], enc_deadline_ms(WAIT_MS), &back, &n), 0);
    cr_assert_eq(n, 0, "a rank that never shipped has an empty copy");
    cr_assert_null(back);
    free(recs);
    enc_tclient_close(again);
    enc_tclient_close(c[0]);
    enc_tclient_close(c[1]);
    stop();
}
