/*
 * wire.h - bounds-checked big-endian encoding of message payloads.
 *
 * A writer or reader that runs past its buffer sets err and turns every
 * later call into a no-op, so a decoder checks err once at the end:
 *     enc_r_u32(&r, &x); enc_r_str(&r, host, sizeof host);
 *     if (r.err || r.off != r.len) return ENC_ERR_PROTO;
 */
#ifndef ENC_PROTO_WIRE_H
#define ENC_PROTO_WIRE_H

#include <stddef.h>
#include <stdint.h>

struct enc_wbuf {
    uint8_t *p;
    size_t cap;
    size_t len;
    int err;
};

struct enc_rbuf {
    const uint8_t *p;
    size_t len;
    size_t off;
    int err;
};

void enc_w_init(struct enc_wbuf *w, void *buf, size_t cap);
void enc_w_u8(struct enc_wbuf *w, uint8_t v);
void enc_w_u16(struct enc_wbuf *w, uint16_t v);
void enc_w_u32(struct enc_wbuf *w, uint32_t v);
void enc_w_u64(struct enc_wbuf *w, uint64_t v);
void enc_w_bytes(struct enc_wbuf *w, const void *b, size_t n);
/* u16 length then bytes (no terminator). */
void enc_w_str(struct enc_wbuf *w, const char *s);

void enc_r_init(struct enc_rbuf *r, const void *buf, size_t len);
void enc_r_u8(struct enc_rbuf *r, uint8_t *v);
void enc_r_u16(struct enc_rbuf *r, uint16_t *v);
void enc_r_u32(struct enc_rbuf *r, uint32_t *v);
void enc_r_u64(struct enc_rbuf *r, uint64_t *v);
void enc_r_bytes(struct enc_rbuf *r, void *b, size_t n);
/* Reads a string written by enc_w_str into s (NUL-terminated); a string
 * that does not fit in cap, or contains NUL, sets err. */
void enc_r_str(struct enc_rbuf *r, char *s, size_t cap);
/* ENC_OK when no error and every byte was consumed, else ENC_ERR_PROTO. */
enc_status_t enc_r_done(const struct enc_rbuf *r);

#endif
