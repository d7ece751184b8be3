/*
 * fuzz_tracker.c - the tracker's handling of what an authenticated rank
 * sends on its control connection (tracker/conn.c, rendezvous.c,
 * det_copy.c): REGISTER, then heartbeats, STATUS, STATS, DROPPED, DET_PUT,
 * DET_GET, ABORT, FINALIZE, in any order and shape.
 *
 * A fresh two-rank tracker per input, driven by its own poll loop.  The
 * handshake is skipped (fuzz_auth_server covers it): the harness adds two
 * already-authenticated connections over socketpairs.  The other rank
 * registers properly and stays, so a WORLD can form; bit 0 of the first
 * byte says which rank the input speaks for, the rest is its byte stream.
 */
#include "enc.h"
#include "tracker/tracker_int.h"
#include "fuzz.h"
#include "proto/detmsg.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RANKS 2

static const struct enc_secret secret = {.key = "fuzzing-secret-32-bytes-long...."};

/* REGISTER of rank as one frame into out; its length. */
static size_t register_frame(int rank, uint8_t *out, size_t cap)
{
    struct enc_msg_register m = {.rank = (uint32_t)rank, .size = RANKS, .pid = 100 + rank,
                                 .data_port = 5000, .addr = "127.0.0.1",
                                 .loc = {.host = "fuzzhost", .package = -1, .numa = -1,
                                         .core = -1}};
    int n = enc_msg_register_encode(&m, out + ENC_FRAME_HDR_SIZE, cap - ENC_FRAME_HDR_SIZE);
    struct enc_frame_hdr h = {.type = ENC_MSG_REGISTER, .src = (uint16_t)rank, .len = (uint64_t)n};

    FUZZ_CHECK(n > 0);
    enc_frame_encode(&h, out);
    return ENC_FRAME_HDR_SIZE + (size_t)n;
}

/* An authenticated control connection of rank, as enc_trk_accept and the
 * handshake would leave it. */
static void add_conn(struct enc_tracker *t, int fd, int rank)
{
    struct trk_conn *c = calloc(1, sizeof(*c));
    struct trk_conn **p = realloc(t->conns, (size_t)(t->nconns + 1) * sizeof(*p));

    if (c == NULL || p == NULL)
        fuzz_fail("out of memory");
    t->conns = p;
    t->capconns = t->nconns + 1;
    c->fd = fd;
    c->rank = -1;
    c->state = TRK_WAIT_REGISTER;
    c->id = (struct enc_auth_id){.role = ENC_ROLE_CONTROL, .rank = (uint32_t)rank};
    c->deadline = enc_deadline_ms(60000);
    snprintf(c->peer, sizeof(c->peer), "fuzz rank %d", rank);
    enc_frame_reader_init(&c->rd, ENC_CTRL_MAX_PAYLOAD);
    t->conns[t->nconns++] = c;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct enc_tracker_config cfg = {.size = RANKS, .bind_host = "127.0.0.1", .secret = &secret,
                                     .connect_timeout_ms = 60000, .register_timeout_ms = 60000,
                                     .heartbeat_timeout_ms = 60000};
    struct enc_tracker *t;
    int me, fd[RANKS], peer[RANKS];
    uint8_t reg[256];

    if (size < 1 || enc_tracker_create(&t, &cfg) != ENC_OK)
        return 0;
    me = data[0] & 1;
    for (int r = 0; r < RANKS; r++) {
        if ((fd[r] = fuzz_pair(&peer[r])) < 0)
            fuzz_fail("socketpair");
        add_conn(t, fd[r], r);
    }
    /* the other rank stays connected: its end is never shut */
    if (write(peer[!me], reg, register_frame(!me, reg, sizeof(reg))) < 0)
        fuzz_fail("write");
    fuzz_send(peer[me], data + 1, size - 1);
    for (int i = 0; i < 16 && enc_tracker_rank_state(t, me) != ENC_TRK_FINALIZED; i++)
        enc_tracker_poll(t, 0, NULL, 0);
    enc_tracker_destroy(t); /* closes fd[] */
    close(peer[0]);
    close(peer[1]);
    return 0;
}

/* One frame from rank 0 with payload p of n bytes (n < 0: encoding failed). */
static size_t frame(uint8_t *out, uint8_t type, const uint8_t *p, int n)
{
    struct enc_frame_hdr h = {.type = type, .src = 0, .len = (uint64_t)n};

    FUZZ_CHECK(n >= 0);
    enc_frame_encode(&h, out);
    memcpy(out + ENC_FRAME_HDR_SIZE, p, (size_t)n);
    return ENC_FRAME_HDR_SIZE + (size_t)n;
}

void fuzz_seeds(fuzz_emit_fn emit)
{
    uint8_t buf[2048] = {0}, p[600];
    size_t n = 1 + register_frame(0, buf + 1, sizeof(buf) - 1);
    struct enc_msg_stats st = {.completed = 5, .replayed = 1, .recovery_s = 0.5};
    struct enc_msg_abort ab = {.code = 3, .reason = "MPI_Abort"};

    emit("register", buf, n);
    n += frame(buf + n, ENC_MSG_HEARTBEAT, p,
               enc_msg_heartbeat_encode(&(struct enc_msg_heartbeat){.completed = 3}, p, sizeof(p)));
    n += frame(buf + n, ENC_MSG_STATUS, p,
               enc_msg_status_encode(&(struct enc_msg_status){.epoch = 0, .completed = 4}, p,
                                     sizeof(p)));
    n += frame(buf + n, ENC_MSG_STATS, p, enc_msg_stats_encode(&st, p, sizeof(p)));
    n += frame(buf + n, ENC_MSG_DROPPED, p,
               enc_msg_dropped_encode(&(struct enc_msg_dropped){.first = 7, .last = 9}, p,
                                      sizeof(p)));
    emit("register-heartbeat-status-stats-dropped", buf, n);
    {
        static const uint8_t recs[80] = {1, 0, 0, 0, 0, 0, 0, 0, [15] = 1, [40] = 2, [47] = 2};
        size_t k = n;

        k += frame(buf + k, ENC_MSG_DET_PUT, p, enc_msg_det_encode(
            &(struct enc_msg_det){.word = 1, .off = 0, .bytes = recs, .n = 80}, p, sizeof(p)));
        k += frame(buf + k, ENC_MSG_DET_PUT, p, enc_msg_det_encode(
            &(struct enc_msg_det){.word = 2, .off = 40, .bytes = recs + 40, .n = 40}, p,
            sizeof(p)));
        emit("register-det-put-get", buf, k + frame(buf + k, ENC_MSG_DET_GET, p, 0));
    }
    emit("register-to-finalize", buf,
         n + frame(buf + n, ENC_MSG_FINALIZE, p, enc_msg_stats_encode(&st, p, sizeof(p))));
    emit("register-abort", buf,
         n + frame(buf + n, ENC_MSG_ABORT, p, enc_msg_abort_encode(&ab, p, sizeof(p))));
}
