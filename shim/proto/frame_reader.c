/*
 * frame_reader.c - assembling frames from a non-blocking socket in a poll
 * loop, a few bytes at a time, without ever blocking.
 *
 * The reader never reads past the current frame, so bytes of the next one
 * stay in the socket and poll keeps reporting it readable.
 */
#include "enc.h"

#include <stdlib.h>
#include <string.h>

#include "proto/frame.h"
#include "net/sock.h"

void enc_frame_reader_init(struct enc_frame_reader *r, uint64_t max_payload)
{
    memset(r, 0, sizeof(*r));
    r->max_payload = max_payload;
}

void enc_frame_reader_reset(struct enc_frame_reader *r)
{
    r->have = 0;
    memset(&r->hdr, 0, sizeof(r->hdr));
}

void enc_frame_reader_fini(struct enc_frame_reader *r)
{
    free(r->payload);
    r->payload = NULL;
    r->cap = 0;
    r->have = 0;
}

/* Validates a complete header and makes room for its payload. */
static int take_header(struct enc_frame_reader *r)
{
    uint8_t *p;
    int rv;

    if ((rv = enc_frame_decode(r->raw, &r->hdr)) != 0)
        return rv;
    if (r->max_payload != 0 && r->hdr.len > r->max_payload) {
        ENC_DEBUG("proto", "frame type %u: %llu payload bytes, limit %llu", r->hdr.type,
                  (unsigned long long)r->hdr.len, (unsigned long long)r->max_payload);
        return ENC_ERR_PROTO;
    }
    if (r->hdr.len <= r->cap)
        return ENC_OK;
    if ((p = realloc(r->payload, (size_t)r->hdr.len)) == NULL) {
        ENC_ERROR("proto", "no memory for a %llu-byte frame", (unsigned long long)r->hdr.len);
        return ENC_ERR_NOMEM;
    }
    r->payload = p;
    r->cap = (size_t)r->hdr.len;
    return ENC_OK;
}

/* Reads toward the end of the header, then of the payload. */
static ssize_t read_step(struct enc_frame_reader *r, int fd)
{
    if (r->have < ENC_FRAME_HDR_SIZE)
        return enc_sock_read_some(fd, r->raw + r->have, ENC_FRAME_HDR_SIZE - r->have);
    size_t off = r->have - ENC_FRAME_HDR_SIZE;
    return enc_sock_read_some(fd, r->payload + off, (size_t)r->hdr.len - off);
}

enc_status_t enc_frame_reader_progress(struct enc_frame_reader *r, int fd)
{
    enc_status_t rv;
    ssize_t n;

    for (;;) {
        if (r->have >= ENC_FRAME_HDR_SIZE && r->have - ENC_FRAME_HDR_SIZE == r->hdr.len)
            return ENC_OK;
        if ((n = read_step(r, fd)) < 0)
            return (enc_status_t)n;
        if (n == 0)
            return ENC_INPROGRESS;
        r->have += (size_t)n;
        if (r->have == ENC_FRAME_HDR_SIZE && (rv = take_header(r)) != 0) {
            /* Never leave a length we did not make room for. */
            enc_frame_reader_reset(r);
            return rv;
        }
    }
}
