/*
 * frame.c - encoding and validation of the 32-byte frame header.
 *
 * Decoding is pure: it reports what is wrong at DEBUG and returns
 * ENC_ERR_PROTO; the caller, which knows who the peer is, logs the failure
 * once and closes the connection.
 */
#include "enc.h"

#include "proto/wire.h"
#include "proto/frame.h"

/* Handshake frames carry a nonce and a MAC or two: a few dozen bytes. */
#define ENC_HS_MAX_PAYLOAD 256u
/* A log request or "missing" answer names one collective: a few fields. */
#define ENC_SMALL_MAX_PAYLOAD 4096u

uint64_t enc_frame_max_payload(uint8_t type)
{
    switch (type) {
    case ENC_MSG_CHALLENGE:
    case ENC_MSG_AUTH:
    case ENC_MSG_AUTH_OK:
        return ENC_HS_MAX_PAYLOAD;
    case ENC_MSG_REGISTER:
    case ENC_MSG_WORLD:
    case ENC_MSG_HEARTBEAT:
    case ENC_MSG_EVENT:
    case ENC_MSG_STATUS:
    case ENC_MSG_RESUME:
    case ENC_MSG_ABORT:
    case ENC_MSG_FINALIZE:
    case ENC_MSG_STATS:
    case ENC_MSG_DROPPED:
    case ENC_MSG_NONDET:
    case ENC_MSG_DET_PUT:
    case ENC_MSG_DET_ACK:
    case ENC_MSG_DET_GET:
    case ENC_MSG_DET_DATA:
    case ENC_MSG_AGENT_HELLO:
    case ENC_MSG_AGENT_SPAWN:
    case ENC_MSG_AGENT_KILL:
    case ENC_MSG_AGENT_STARTED:
    case ENC_MSG_AGENT_FAILED:
    case ENC_MSG_AGENT_EXITED:
    case ENC_MSG_AGENT_HEARTBEAT:
    case ENC_MSG_AGENT_PARKED:
    case ENC_MSG_AGENT_UNPARKED:
    case ENC_MSG_AGENT_ACTIVATE:
    case ENC_MSG_AGENT_RESTORED:
    case ENC_MSG_AGENT_NOIMAGE:
    case ENC_MSG_AGENT_FORGET:
        return ENC_CTRL_MAX_PAYLOAD;
    case ENC_MSG_DATA:
    case ENC_MSG_LOG_RESULT:
        return ENC_DATA_MAX_PAYLOAD;
    case ENC_MSG_LOG_REQ:
    case ENC_MSG_LOG_MISSING:
        return ENC_SMALL_MAX_PAYLOAD;
    default:
        return 0;
    }
}

void enc_frame_encode(const struct enc_frame_hdr *h, uint8_t out[ENC_FRAME_HDR_SIZE])
{
    struct enc_wbuf w;

    enc_w_init(&w, out, ENC_FRAME_HDR_SIZE);
    enc_w_u32(&w, ENC_MAGIC);
    enc_w_u8(&w, ENC_PROTO_VERSION);
    enc_w_u8(&w, h->type);
    enc_w_u16(&w, h->src);
    enc_w_u32(&w, h->epoch);
    enc_w_u32(&w, h->check);
    enc_w_u64(&w, h->seq);
    enc_w_u64(&w, h->len);
}

enc_status_t enc_frame_decode(const uint8_t in[ENC_FRAME_HDR_SIZE], struct enc_frame_hdr *h)
{
    struct enc_rbuf r;
    uint32_t magic;
    uint8_t version;

    enc_r_init(&r, in, ENC_FRAME_HDR_SIZE);
    enc_r_u32(&r, &magic);
    enc_r_u8(&r, &version);
    enc_r_u8(&r, &h->type);
    enc_r_u16(&r, &h->src);
    enc_r_u32(&r, &h->epoch);
    enc_r_u32(&r, &h->check);
    enc_r_u64(&r, &h->seq);
    enc_r_u64(&r, &h->len);
    if (magic != ENC_MAGIC) {
        ENC_DEBUG("proto", "bad frame magic 0x%08x", magic);
        return ENC_ERR_PROTO;
    }
    if (version != ENC_PROTO_VERSION) {
        ENC_DEBUG("proto", "protocol version %u, expected %u", version, ENC_PROTO_VERSION);
        return ENC_ERR_PROTO;
    }
    if (enc_frame_max_payload(h->type) == 0) {
        ENC_DEBUG("proto", "unknown frame type %u", h->type);
        return ENC_ERR_PROTO;
    }
    if (h->len > enc_frame_max_payload(h->type)) {
        ENC_DEBUG("proto", "frame type %u with %llu payload bytes rejected", h->type,
                  (unsigned long long)h->len);
        return ENC_ERR_PROTO;
    }
    return enc_r_done(&r);
}
