/*
 * fuzz_frame.c - frames from a socket (proto/frame*.c): the header
 * decoder, the incremental reader of the tracker and tracker client, and
 * the blocking receive of handshakes and log requests.
 * Oracle: a header that decodes re-encodes to the same 32 bytes.
 */
#include "enc.h"
#include "fuzz.h"

#include <string.h>

static void header_round_trip(const uint8_t *data, size_t size)
{
    struct enc_frame_hdr h;
    uint8_t again[ENC_FRAME_HDR_SIZE];

    if (size < ENC_FRAME_HDR_SIZE || enc_frame_decode(data, &h) != ENC_OK)
        return;
    FUZZ_CHECK(h.len <= enc_frame_max_payload(h.type));
    enc_frame_encode(&h, again);
    FUZZ_CHECK(memcmp(again, data, ENC_FRAME_HDR_SIZE) == 0);
}

/* Every frame the stream holds, as a poll loop would take them. */
static void read_stream(const uint8_t *data, size_t size, uint64_t max_payload)
{
    struct enc_frame_reader r;
    int peer, fd = fuzz_feed(data, size, &peer), rv;

    if (fd < 0)
        return;
    enc_frame_reader_init(&r, max_payload);
    while ((rv = enc_frame_reader_progress(&r, fd)) == ENC_OK) {
        FUZZ_CHECK(r.hdr.len <= max_payload && (r.hdr.len == 0 || r.payload != NULL));
        enc_frame_reader_reset(&r);
    }
    enc_frame_reader_fini(&r);
    fuzz_close_pair(fd, peer);
}

static void recv_stream(const uint8_t *data, size_t size)
{
    struct enc_frame_hdr h;
    uint8_t payload[256];
    int peer, fd = fuzz_feed(data, size, &peer);

    if (fd < 0)
        return;
    while (enc_frame_recv(fd, &h, payload, sizeof(payload), enc_deadline_ms(1000)) == ENC_OK)
        FUZZ_CHECK(h.len <= sizeof(payload));
    fuzz_close_pair(fd, peer);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    header_round_trip(data, size);
    read_stream(data, size, ENC_CTRL_MAX_PAYLOAD);
    read_stream(data, size, 64);
    recv_stream(data, size);
    return 0;
}

static void seed(fuzz_emit_fn emit, const char *name, uint8_t type, uint16_t src,
                 const void *payload, size_t len)
{
    struct enc_frame_hdr h = {.type = type, .src = src, .epoch = 3, .seq = 41, .len = len};
    uint8_t buf[ENC_FRAME_HDR_SIZE + 64];

    enc_frame_encode(&h, buf);
    memcpy(buf + ENC_FRAME_HDR_SIZE, payload, len);
    emit(name, buf, ENC_FRAME_HDR_SIZE + len);
}

void fuzz_seeds(fuzz_emit_fn emit)
{
    static const uint8_t nonce[ENC_NONCE_LEN] = {1, 2, 3};
    uint8_t hb[8];

    seed(emit, "challenge", ENC_MSG_CHALLENGE, ENC_SRC_TRACKER, nonce, sizeof(nonce));
    seed(emit, "finalize-empty", ENC_MSG_FINALIZE, 2, NULL, 0);
    enc_msg_heartbeat_encode(&(struct enc_msg_heartbeat){.completed = 7}, hb, sizeof(hb));
    seed(emit, "heartbeat", ENC_MSG_HEARTBEAT, 1, hb, sizeof(hb));
    seed(emit, "data", ENC_MSG_DATA, 0, "0123456789abcdef", 16);
}
