/*
 * frame_io.c - sending and receiving one whole frame within a deadline.
 *
 * Small frames go out in one write so that, with TCP_NODELAY, header and
 * payload share a segment; large payloads are written straight from the
 * caller's buffer.
 */
#include "enc.h"

#include <string.h>

#include "proto/frame.h"
#include "net/sock.h"

#define ENC_COALESCE_MAX 4096

enc_status_t enc_frame_send(int fd, const struct enc_frame_hdr *h, const void *payload,
                            uint64_t deadline)
{
    uint8_t buf[ENC_FRAME_HDR_SIZE + ENC_COALESCE_MAX];
    int rv;

    if (h->len > enc_frame_max_payload(h->type) || (h->len > 0 && payload == NULL))
        return ENC_ERR_INVAL;
    enc_frame_encode(h, buf);
    if (h->len <= ENC_COALESCE_MAX) {
        if (h->len > 0)
            memcpy(buf + ENC_FRAME_HDR_SIZE, payload, (size_t)h->len);
        return enc_sock_write_all(fd, buf, ENC_FRAME_HDR_SIZE + (size_t)h->len, deadline);
    }
    if ((rv = enc_sock_write_all(fd, buf, ENC_FRAME_HDR_SIZE, deadline)) != 0)
        return rv;
    return enc_sock_write_all(fd, payload, (size_t)h->len, deadline);
}

enc_status_t enc_frame_recv(int fd, struct enc_frame_hdr *h, void *payload, size_t cap,
                            uint64_t deadline)
{
    uint8_t raw[ENC_FRAME_HDR_SIZE];
    int rv;

    if ((rv = enc_sock_read_all(fd, raw, sizeof(raw), deadline)) != 0)
        return rv;
    if ((rv = enc_frame_decode(raw, h)) != 0)
        return rv;
    if (h->len > cap) {
        ENC_DEBUG("proto", "frame type %u: %llu payload bytes, room for %zu", h->type,
                  (unsigned long long)h->len, cap);
        return ENC_ERR_PROTO;
    }
    return enc_sock_read_all(fd, payload, (size_t)h->len, deadline);
}
