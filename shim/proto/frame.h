/*
 * frame.h - the one binary frame format of encore, on every connection.
 *
 * A frame is a 32-byte header followed by len payload bytes.  Header, in
 * network byte order:
 *     u32 magic "ENCR"   u8 version   u8 type   u16 src (sender rank,
 *     0xffff for the tracker)   u32 epoch   u32 check   u64 seq   u64 len
 * check is a digest of the collective's arguments on data frames (so ranks
 * that disagree on count/type/op/root fail cleanly) and 0 elsewhere.
 * Decoding validates magic, version, type and a per-type payload limit;
 * any violation is ENC_ERR_PROTO and the connection is closed.
 */
#ifndef ENC_PROTO_FRAME_H
#define ENC_PROTO_FRAME_H

#include <stddef.h>
#include <stdint.h>

#define ENC_MAGIC 0x454e4352u /* "ENCR" */
#define ENC_PROTO_VERSION 1
#define ENC_FRAME_HDR_SIZE 32
#define ENC_CTRL_MAX_PAYLOAD (1u << 20)        /* control messages */
#define ENC_DATA_MAX_PAYLOAD (1ull << 30)      /* one data frame; larger messages are split */
#define ENC_SRC_TRACKER 0xffffu

enum enc_msg_type {
    /* handshake, on every connection (proto/auth.h) */
    ENC_MSG_CHALLENGE = 1,
    ENC_MSG_AUTH = 2,
    ENC_MSG_AUTH_OK = 3,
    /* rank <-> tracker (proto/msgs.h) */
    ENC_MSG_REGISTER = 10,
    ENC_MSG_WORLD = 11,
    ENC_MSG_HEARTBEAT = 12,
    ENC_MSG_EVENT = 13,
    ENC_MSG_STATUS = 14,
    ENC_MSG_RESUME = 15,
    ENC_MSG_ABORT = 16,
    ENC_MSG_FINALIZE = 17,
    ENC_MSG_STATS = 18,
    ENC_MSG_DROPPED = 19,
    ENC_MSG_NONDET = 20,     /* no payload: the rank recorded its first determinant */
    ENC_MSG_DET_PUT = 21,    /* rank -> tracker: determinant records to keep (proto/detmsg.h) */
    ENC_MSG_DET_ACK = 22,    /* tracker -> rank: kept up to a version */
    ENC_MSG_DET_GET = 23,    /* rank -> tracker, no payload: send me my records */
    ENC_MSG_DET_DATA = 24,   /* tracker -> rank: a chunk of them */
    /* encore-run <-> encore-agent (run/common/agent_proto.h) */
    ENC_MSG_AGENT_HELLO = 60,
    ENC_MSG_AGENT_SPAWN = 61,
    ENC_MSG_AGENT_KILL = 62,
    ENC_MSG_AGENT_STARTED = 63,
    ENC_MSG_AGENT_FAILED = 64,
    ENC_MSG_AGENT_EXITED = 65,
    ENC_MSG_AGENT_HEARTBEAT = 66,
    ENC_MSG_AGENT_PARKED = 67,
    ENC_MSG_AGENT_UNPARKED = 68,
    ENC_MSG_AGENT_ACTIVATE = 69,
    ENC_MSG_AGENT_RESTORED = 70,
    ENC_MSG_AGENT_NOIMAGE = 71,
    ENC_MSG_AGENT_FORGET = 72,
    /* rank <-> rank */
    ENC_MSG_DATA = 40,
    ENC_MSG_LOG_REQ = 41,
    ENC_MSG_LOG_RESULT = 42,
    ENC_MSG_LOG_MISSING = 43,
};

struct enc_frame_hdr {
    uint8_t type;
    uint16_t src;
    uint32_t epoch;
    uint32_t check;
    uint64_t seq;
    uint64_t len;
};

/* Largest payload allowed for a frame type; 0 for unknown types. */
uint64_t enc_frame_max_payload(uint8_t type);
void enc_frame_encode(const struct enc_frame_hdr *h, uint8_t out[ENC_FRAME_HDR_SIZE]);
/* ENC_OK, or ENC_ERR_PROTO for bad magic/version/type/length. */
enc_status_t enc_frame_decode(const uint8_t in[ENC_FRAME_HDR_SIZE], struct enc_frame_hdr *h);

/* Blocking (poll-driven, bounded by deadline) send and receive of a whole
 * frame on a non-blocking socket.  enc_frame_recv fails with ENC_ERR_PROTO
 * when the payload is larger than cap. */
enc_status_t enc_frame_send(int fd, const struct enc_frame_hdr *h, const void *payload,
                            uint64_t deadline);
enc_status_t enc_frame_recv(int fd, struct enc_frame_hdr *h, void *payload, size_t cap,
                            uint64_t deadline);

/*
 * Incremental frame reader for poll loops (tracker, engine side channels).
 * enc_frame_reader_progress() reads what the socket has and returns ENC_OK
 * when a complete frame is in r->hdr / r->payload, ENC_INPROGRESS when it
 * needs more bytes (EAGAIN), or a negative status (peer closed, malformed,
 * too large for max_payload).  After ENC_OK, call enc_frame_reader_reset()
 * before reading on.
 */
struct enc_frame_reader {
    uint8_t raw[ENC_FRAME_HDR_SIZE];
    size_t have;            /* bytes of header + payload read so far */
    struct enc_frame_hdr hdr;
    uint8_t *payload;       /* malloc'd, grown as needed */
    size_t cap;
    uint64_t max_payload;   /* limit below the per-type one */
};

void enc_frame_reader_init(struct enc_frame_reader *r, uint64_t max_payload);
enc_status_t enc_frame_reader_progress(struct enc_frame_reader *r, int fd);
void enc_frame_reader_reset(struct enc_frame_reader *r);
void enc_frame_reader_fini(struct enc_frame_reader *r);

#endif
