/* test_frame.c - frame header codec, whole-frame I/O and the incremental
 * reader (proto/frame.h). */
#include "enc.h"

#include <criterion/criterion.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proto/frame.h"
#include "net/sock.h"

static const struct enc_frame_hdr sample = {
    .type = ENC_MSG_DATA, .src = 0x0102, .epoch = 0x03040506,
    .check = 0x0708090a, .seq = 0x0b0c0d0e0f101112ull, .len = 5,
};

static int sp[2];

static void pair_setup(void)
{
    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sp), 0);
}

static void pair_teardown(void)
{
    enc_sock_close(&sp[0]);
    enc_sock_close(&sp[1]);
}

Test(frame, header_layout_is_exact)
{
    static const uint8_t want[ENC_FRAME_HDR_SIZE] = {
        'E', 'N', 'C', 'R', ENC_PROTO_VERSION, ENC_MSG_DATA, 0x01, 0x02,
        0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a,
        0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12,
        0, 0, 0, 0, 0, 0, 0, 5,
    };
    uint8_t raw[ENC_FRAME_HDR_SIZE];

    enc_frame_encode(&sample, raw);
    cr_assert_arr_eq(raw, want, sizeof(want));
}

Test(frame, encode_decode_round_trip)
{
    uint8_t raw[ENC_FRAME_HDR_SIZE];
    struct enc_frame_hdr h;

    enc_frame_encode(&sample, raw);
    cr_assert_eq(enc_frame_decode(raw, &h), ENC_OK);
    cr_assert_eq(h.type, sample.type);
    cr_assert_eq(h.src, sample.src);
    cr_assert_eq(h.epoch, sample.epoch);
    cr_assert_eq(h.check, sample.check);
    cr_assert_eq(h.seq, sample.seq);
    cr_assert_eq(h.len, sample.len);
}

/* Encodes hdr, applies one corruption, and returns the decode status. */
static int decode_with(struct enc_frame_hdr hdr, size_t at, uint8_t val)
{
    uint8_t raw[ENC_FRAME_HDR_SIZE];
    struct enc_frame_hdr h;

    enc_frame_encode(&hdr, raw);
    if (at < ENC_FRAME_HDR_SIZE)
        raw[at] = val;
    return enc_frame_decode(raw, &h);
}

Test(frame, bad_magic_rejected)
{
    cr_assert_eq(decode_with(sample, 0, 'X'), ENC_ERR_PROTO);
}

Test(frame, bad_version_rejected)
{
    cr_assert_eq(decode_with(sample, 4, ENC_PROTO_VERSION + 1), ENC_ERR_PROTO);
    cr_assert_eq(decode_with(sample, 4, 0), ENC_ERR_PROTO);
}

Test(frame, unknown_type_rejected)
{
    struct enc_frame_hdr h = {.type = 99, .len = 0};

    cr_assert_eq(enc_frame_max_payload(99), 0);
    cr_assert_eq(enc_frame_max_payload(0), 0);
    cr_assert_eq(decode_with(h, ENC_FRAME_HDR_SIZE, 0), ENC_ERR_PROTO);
    h.type = 0;
    cr_assert_eq(decode_with(h, ENC_FRAME_HDR_SIZE, 0), ENC_ERR_PROTO);
}

Test(frame, oversized_length_rejected_per_type)
{
    struct enc_frame_hdr h = {.type = ENC_MSG_AUTH, .len = 257};

    cr_assert_eq(decode_with(h, ENC_FRAME_HDR_SIZE, 0), ENC_ERR_PROTO);
    h.len = 256;
    cr_assert_eq(decode_with(h, ENC_FRAME_HDR_SIZE, 0), ENC_OK);
    h = (struct enc_frame_hdr){.type = ENC_MSG_WORLD, .len = ENC_CTRL_MAX_PAYLOAD + 1};
    cr_assert_eq(decode_with(h, ENC_FRAME_HDR_SIZE, 0), ENC_ERR_PROTO);
    h = (struct enc_frame_hdr){.type = ENC_MSG_DATA, .len = ENC_DATA_MAX_PAYLOAD + 1};
    cr_assert_eq(decode_with(h, ENC_FRAME_HDR_SIZE, 0), ENC_ERR_PROTO);
    h.len = UINT64_MAX;
    cr_assert_eq(decode_with(h, ENC_FRAME_HDR_SIZE, 0), ENC_ERR_PROTO);
}

Test(frame, max_payload_per_type)
{
    cr_assert_eq(enc_frame_max_payload(ENC_MSG_CHALLENGE), 256);
    cr_assert_eq(enc_frame_max_payload(ENC_MSG_AUTH_OK), 256);
    cr_assert_eq(enc_frame_max_payload(ENC_MSG_REGISTER), ENC_CTRL_MAX_PAYLOAD);
    cr_assert_eq(enc_frame_max_payload(ENC_MSG_STATS), ENC_CTRL_MAX_PAYLOAD);
    cr_assert_eq(enc_frame_max_payload(ENC_MSG_DATA), ENC_DATA_MAX_PAYLOAD);
    cr_assert_eq(enc_frame_max_payload(ENC_MSG_LOG_RESULT), ENC_DATA_MAX_PAYLOAD);
    cr_assert_eq(enc_frame_max_payload(ENC_MSG_LOG_REQ), 4096);
    cr_assert_eq(enc_frame_max_payload(ENC_MSG_LOG_MISSING), 4096);
}

Test(frame, send_recv_round_trip, .init = pair_setup, .fini = pair_teardown)
{
    struct enc_frame_hdr h;
    char payload[8] = {0};

    cr_assert_eq(enc_frame_send(sp[0], &sample, "hello", enc_deadline_ms(5000)), ENC_OK);
    cr_assert_eq(enc_frame_recv(sp[1], &h, payload, sizeof(payload), enc_deadline_ms(5000)),
                 ENC_OK);
    cr_assert_eq(h.seq, sample.seq);
    cr_assert_eq(h.len, 5);
    cr_assert_str_eq(payload, "hello");
}

Test(frame, large_payload_send_recv_round_trip, .init = pair_setup, .fini = pair_teardown)
{
    enum { N = 1 << 20 };
    struct enc_frame_hdr h = {.type = ENC_MSG_DATA, .len = N};
    static uint8_t out[N], in[N];
    struct enc_frame_reader r;
    enc_status_t rv = ENC_INPROGRESS;
    uint64_t deadline = enc_deadline_ms(10000);

    for (size_t i = 0; i < N; i++)
        out[i] = (uint8_t)(i * 31 + 7);
    /* The reader drains while the sender is blocked on a full socket. */
    enc_frame_reader_init(&r, 0);
    size_t sent = 0;
    uint8_t hdr[ENC_FRAME_HDR_SIZE];
    enc_frame_encode(&h, hdr);
    cr_assert_eq(enc_sock_write_all(sp[0], hdr, sizeof(hdr), deadline), ENC_OK);
    while (rv == ENC_INPROGRESS && enc_ms_left(deadline) > 0) {
        ssize_t n = enc_sock_write_some(sp[0], out + sent, N - sent);
        cr_assert_geq(n, 0);
        sent += (size_t)n;
        rv = enc_frame_reader_progress(&r, sp[1]);
    }
    cr_assert_eq(rv, ENC_OK);
    cr_assert_eq(r.hdr.len, N);
    memcpy(in, r.payload, N);
    cr_assert_arr_eq(in, out, N);
    enc_frame_reader_fini(&r);
}

Test(frame, recv_rejects_payload_larger_than_cap, .init = pair_setup, .fini = pair_teardown)
{
    struct enc_frame_hdr h;
    char payload[4];

    cr_assert_eq(enc_frame_send(sp[0], &sample, "hello", enc_deadline_ms(5000)), ENC_OK);
    cr_assert_eq(enc_frame_recv(sp[1], &h, payload, sizeof(payload), enc_deadline_ms(5000)),
                 ENC_ERR_PROTO);
}

Test(frame, recv_times_out_when_nothing_arrives, .init = pair_setup, .fini = pair_teardown)
{
    struct enc_frame_hdr h;
    uint64_t t0 = enc_now_ns();

    cr_assert_eq(enc_frame_recv(sp[1], &h, NULL, 0, enc_deadline_ms(50)), ENC_ERR_TIMEOUT);
    cr_assert_geq(enc_now_ns() - t0, 49000000ull);
    cr_assert_lt(enc_now_ns() - t0, 5000000000ull);
}

Test(frame, send_rejects_oversized_payload, .init = pair_setup, .fini = pair_teardown)
{
    struct enc_frame_hdr h = {.type = ENC_MSG_CHALLENGE, .len = 300};
    uint8_t big[300] = {0};

    cr_assert_eq(enc_frame_send(sp[0], &h, big, enc_deadline_ms(1000)), ENC_ERR_INVAL);
}

/* Header and payload bytes of sample with payload "hello". */
static size_t sample_bytes(uint8_t *out)
{
    enc_frame_encode(&sample, out);
    memcpy(out + ENC_FRAME_HDR_SIZE, "hello", 5);
    return ENC_FRAME_HDR_SIZE + 5;
}

Test(frame, reader_assembles_frame_fed_byte_by_byte, .init = pair_setup,
     .fini = pair_teardown)
{
    uint8_t bytes[ENC_FRAME_HDR_SIZE + 5];
    size_t n = sample_bytes(bytes);
    struct enc_frame_reader r;

    enc_frame_reader_init(&r, 1024);
    cr_assert_eq(enc_frame_reader_progress(&r, sp[1]), ENC_INPROGRESS, "nothing sent yet");
    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(write(sp[0], bytes + i, 1), 1);
        cr_assert_eq(enc_frame_reader_progress(&r, sp[1]), i + 1 == n ? ENC_OK : ENC_INPROGRESS,
                     "byte %zu", i);
    }
    cr_assert_eq(r.hdr.type, ENC_MSG_DATA);
    cr_assert_eq(r.hdr.seq, sample.seq);
    cr_assert_eq(r.hdr.len, 5);
    cr_assert_arr_eq(r.payload, "hello", 5);
    enc_frame_reader_fini(&r);
}

Test(frame, reader_stops_at_frame_boundary, .init = pair_setup, .fini = pair_teardown)
{
    uint8_t bytes[2 * (ENC_FRAME_HDR_SIZE + 5)];
    size_t n = sample_bytes(bytes);
    struct enc_frame_hdr empty = {.type = ENC_MSG_FINALIZE, .seq = 9};
    struct enc_frame_reader r;

    enc_frame_encode(&empty, bytes + n);
    cr_assert_eq(write(sp[0], bytes, n + ENC_FRAME_HDR_SIZE), (ssize_t)(n + ENC_FRAME_HDR_SIZE));
    enc_frame_reader_init(&r, 0);
    cr_assert_eq(enc_frame_reader_progress(&r, sp[1]), ENC_OK);
    cr_assert_eq(r.hdr.type, ENC_MSG_DATA);
    cr_assert_eq(enc_frame_reader_progress(&r, sp[1]), ENC_OK, "complete until reset");
    enc_frame_reader_reset(&r);
    cr_assert_eq(enc_frame_reader_progress(&r, sp[1]), ENC_OK);
    cr_assert_eq(r.hdr.type, ENC_MSG_FINALIZE);
    cr_assert_eq(r.hdr.seq, 9);
    cr_assert_eq(r.hdr.len, 0);
    enc_frame_reader_reset(&r);
    cr_assert_eq(enc_frame_reader_progress(&r, sp[1]), ENC_INPROGRESS);
    enc_frame_reader_fini(&r);
}

/* Sends the first n bytes of a frame, closes, and reads what is there. */
static enc_status_t truncated_then_eof(size_t n)
{
    uint8_t bytes[ENC_FRAME_HDR_SIZE + 5];
    struct enc_frame_reader r;
    enc_status_t first, rv;

    sample_bytes(bytes);
    cr_assert_eq(write(sp[0], bytes, n), (ssize_t)n);
    enc_frame_reader_init(&r, 0);
    first = enc_frame_reader_progress(&r, sp[1]);
    enc_sock_close(&sp[0]);
    rv = enc_frame_reader_progress(&r, sp[1]);
    enc_frame_reader_fini(&r);
    cr_assert_eq(first, ENC_INPROGRESS, "incomplete frame after %zu bytes", n);
    return rv;
}

Test(frame, reader_truncated_frame_then_eof_is_peer_closed, .init = pair_setup,
     .fini = pair_teardown)
{
    cr_assert_eq(truncated_then_eof(ENC_FRAME_HDR_SIZE + 2), ENC_ERR_PEER_CLOSED);
}

Test(frame, reader_truncated_header_then_eof_is_peer_closed, .init = pair_setup,
     .fini = pair_teardown)
{
    cr_assert_eq(truncated_then_eof(7), ENC_ERR_PEER_CLOSED);
}

Test(frame, reader_rejects_frame_over_its_limit, .init = pair_setup, .fini = pair_teardown)
{
    uint8_t bytes[ENC_FRAME_HDR_SIZE + 5];
    struct enc_frame_reader r;

    sample_bytes(bytes);
    cr_assert_eq(write(sp[0], bytes, sizeof(bytes)), (ssize_t)sizeof(bytes));
    enc_frame_reader_init(&r, 4);
    cr_assert_eq(enc_frame_reader_progress(&r, sp[1]), ENC_ERR_PROTO);
    cr_assert_null(r.payload, "nothing allocated for a rejected frame");
    enc_frame_reader_fini(&r);
}

Test(frame, reader_rejects_junk, .init = pair_setup, .fini = pair_teardown)
{
    static const char junk[] = "GET / HTTP/1.1\r\nHost: example\r\n\r\n";
    struct enc_frame_reader r;

    cr_assert_eq(write(sp[0], junk, sizeof(junk) - 1), (ssize_t)sizeof(junk) - 1);
    enc_frame_reader_init(&r, 0);
    cr_assert_eq(enc_frame_reader_progress(&r, sp[1]), ENC_ERR_PROTO);
    enc_frame_reader_fini(&r);
}
