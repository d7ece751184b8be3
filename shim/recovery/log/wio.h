/*
 * wio.h - one walk over a fixed-size wire record serves both directions:
 * a record's fields are listed once, in wire order, and the same function
 * encodes (writing) or decodes (reading) it (sigrec.c, logreq.c).
 */
#ifndef ENC_RECOVERY_LOG_WIO_H
#define ENC_RECOVERY_LOG_WIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/wire.h"

struct enc_wio {
    bool reading;
    struct enc_wbuf w;
    struct enc_rbuf r;
};

static inline void enc_wio_u8(struct enc_wio *io, uint8_t *v)
{
    if (io->reading)
        enc_r_u8(&io->r, v);
    else
        enc_w_u8(&io->w, *v);
}

static inline void enc_wio_u32(struct enc_wio *io, uint32_t *v)
{
    if (io->reading)
        enc_r_u32(&io->r, v);
    else
        enc_w_u32(&io->w, *v);
}

static inline void enc_wio_i32(struct enc_wio *io, int32_t *v)
{
    uint32_t u = (uint32_t)*v;

    enc_wio_u32(io, &u);
    *v = (int32_t)u;
}

static inline void enc_wio_u64(struct enc_wio *io, uint64_t *v)
{
    if (io->reading)
        enc_r_u64(&io->r, v);
    else
        enc_w_u64(&io->w, *v);
}

/* A fixed-size string field: always NUL-terminated once read. */
static inline void enc_wio_name(struct enc_wio *io, char *s, size_t cap)
{
    if (io->reading) {
        enc_r_bytes(&io->r, s, cap);
        s[cap - 1] = '\0';
    } else {
        enc_w_bytes(&io->w, s, cap);
    }
}

/* A collective's arguments, as both records carry them (logreq.h, sigrec.h). */
static inline void enc_wio_args(struct enc_wio *io, uint8_t *kind, int32_t *root,
                                uint64_t *count, uint32_t *dtype, uint32_t *op)
{
    enc_wio_u8(io, kind);
    enc_wio_i32(io, root);
    enc_wio_u64(io, count);
    enc_wio_u32(io, dtype);
    enc_wio_u32(io, op);
}

/* Writing: zeros up to the record's size; reading: the bytes are skipped. */
static inline void enc_wio_pad(struct enc_wio *io, size_t size)
{
    uint8_t z = 0;

    while (!io->reading && io->w.len < size && !io->w.err)
        enc_w_u8(&io->w, 0);
    while (io->reading && io->r.off < size && !io->r.err)
        enc_r_u8(&io->r, &z);
}

/* A record's walk: its fields in wire order. */
typedef void (*enc_wio_walk_fn)(struct enc_wio *io, void *rec);

/* rec (which the walk reads) as size bytes at out. */
static inline void enc_wio_encode(enc_wio_walk_fn walk, void *rec, void *out, size_t size)
{
    struct enc_wio io = {.reading = false};

    enc_w_init(&io.w, out, size);
    walk(&io, rec);
}

/* size bytes at in into rec; false when they do not decode. */
static inline bool enc_wio_decode(enc_wio_walk_fn walk, void *rec, const void *in, size_t size)
{
    struct enc_wio io = {.reading = true};

    enc_r_init(&io.r, in, size);
    walk(&io, rec);
    return !io.r.err;
}

#endif
