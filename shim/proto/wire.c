/*
 * wire.c - bounds-checked big-endian encoding of message payloads.
 *
 * The first overrun sets err and every later call becomes a no-op, so
 * encoders and decoders check once at the end instead of after each field.
 */
#include "enc.h"

#include <string.h>

#include "proto/wire.h"

void enc_w_init(struct enc_wbuf *w, void *buf, size_t cap)
{
    w->p = buf;
    w->cap = cap;
    w->len = 0;
    w->err = 0;
}

/* Reserves n bytes; NULL (and err set) when they do not fit. */
static uint8_t *w_take(struct enc_wbuf *w, size_t n)
{
    uint8_t *at;

    if (w->err || n > w->cap - w->len) {
        w->err = 1;
        return NULL;
    }
    at = w->p + w->len;
    w->len += n;
    return at;
}

/* Big-endian store of the low n bytes of v. */
static void w_uint(struct enc_wbuf *w, uint64_t v, size_t n)
{
    uint8_t *at = w_take(w, n);

    if (at == NULL)
        return;
    for (size_t i = 0; i < n; i++)
        at[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

void enc_w_u8(struct enc_wbuf *w, uint8_t v) { w_uint(w, v, 1); }
void enc_w_u16(struct enc_wbuf *w, uint16_t v) { w_uint(w, v, 2); }
void enc_w_u32(struct enc_wbuf *w, uint32_t v) { w_uint(w, v, 4); }
void enc_w_u64(struct enc_wbuf *w, uint64_t v) { w_uint(w, v, 8); }

void enc_w_bytes(struct enc_wbuf *w, const void *b, size_t n)
{
    uint8_t *at = w_take(w, n);

    if (at != NULL && n > 0)
        memcpy(at, b, n);
}

void enc_w_str(struct enc_wbuf *w, const char *s)
{
    size_t n = strlen(s);

    if (n > UINT16_MAX) {
        w->err = 1;
        return;
    }
    enc_w_u16(w, (uint16_t)n);
    enc_w_bytes(w, s, n);
}

void enc_r_init(struct enc_rbuf *r, const void *buf, size_t len)
{
    r->p = buf;
    r->len = len;
    r->off = 0;
    r->err = 0;
}

/* Consumes n bytes; NULL (and err set) when the buffer is shorter. */
static const uint8_t *r_take(struct enc_rbuf *r, size_t n)
{
    const uint8_t *at;

    if (r->err || n > r->len - r->off) {
        r->err = 1;
        return NULL;
    }
    at = r->p + r->off;
    r->off += n;
    return at;
}

static uint64_t r_uint(struct enc_rbuf *r, size_t n)
{
    const uint8_t *at = r_take(r, n);
    uint64_t v = 0;

    if (at == NULL)
        return 0;
    for (size_t i = 0; i < n; i++)
        v = (v << 8) | at[i];
    return v;
}

/* On error the outputs are zeroed, so a caller never sees stale bytes. */
void enc_r_u8(struct enc_rbuf *r, uint8_t *v) { *v = (uint8_t)r_uint(r, 1); }
void enc_r_u16(struct enc_rbuf *r, uint16_t *v) { *v = (uint16_t)r_uint(r, 2); }
void enc_r_u32(struct enc_rbuf *r, uint32_t *v) { *v = (uint32_t)r_uint(r, 4); }
void enc_r_u64(struct enc_rbuf *r, uint64_t *v) { *v = r_uint(r, 8); }

void enc_r_bytes(struct enc_rbuf *r, void *b, size_t n)
{
    const uint8_t *at = r_take(r, n);

    if (at == NULL)
        memset(b, 0, n);
    else if (n > 0)
        memcpy(b, at, n);
}

void enc_r_str(struct enc_rbuf *r, char *s, size_t cap)
{
    uint16_t n = 0;
    const uint8_t *at;

    enc_r_u16(r, &n);
    if (cap > 0)
        s[0] = '\0';
    if (r->err || (size_t)n >= cap) {
        r->err = 1;
        return;
    }
    at = r_take(r, n);
    if (at == NULL || memchr(at, '\0', n) != NULL) {
        r->err = 1;
        return;
    }
    memcpy(s, at, n);
    s[n] = '\0';
}

enc_status_t enc_r_done(const struct enc_rbuf *r)
{
    return (r->err || r->off != r->len) ? ENC_ERR_PROTO : ENC_OK;
}
