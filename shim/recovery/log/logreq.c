/* logreq.c - wire form of log-service requests (logreq.h). */
#include "enc.h"

#include <string.h>

#include "recovery/log/logreq.h"
#include "recovery/log/wio.h"

/* The wire form, field by field (wio.h). */
static void walk(struct enc_wio *io, void *rec)
{
    struct enc_logreq *q = rec;

    enc_wio_u8(io, &q->what);
    enc_wio_u64(io, &q->seq);
    enc_wio_u64(io, &q->site_off);
    enc_wio_name(io, q->site_mod, sizeof(q->site_mod));
    enc_wio_u32(io, &q->occ);
    enc_wio_u32(io, &q->version);
    enc_wio_u32(io, &q->rank);
    enc_wio_args(io, &q->kind, &q->root, &q->count, &q->dtype, &q->op);
    enc_wio_u64(io, &q->cid);
    enc_wio_pad(io, ENC_LOGREQ_WIRE);
}

void enc_logreq_encode(const struct enc_logreq *q, uint8_t out[ENC_LOGREQ_WIRE])
{
    struct enc_logreq copy = *q; /* the walk takes the fields by pointer */

    enc_wio_encode(walk, &copy, out, ENC_LOGREQ_WIRE);
}

enc_status_t enc_logreq_decode(struct enc_logreq *q, const uint8_t *in, size_t len)
{
    if (len != ENC_LOGREQ_WIRE || !enc_wio_decode(walk, q, in, len) ||
        q->what < ENC_LOGREQ_SEQ || q->what >= ENC_LOGREQ_KINDS)
        return ENC_ERR_PROTO;
    return ENC_OK;
}
