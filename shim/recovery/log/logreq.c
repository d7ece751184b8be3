/* logreq.c - wire form of log-service requests (recovery/log/logreq.h). */
#include "enc.h"

#include <string.h>

#include "proto/wire.h"
#include "recovery/log/logreq.h"

void enc_logreq_encode(const struct enc_logreq *q, uint8_t out[ENC_LOGREQ_WIRE])
{
    struct enc_wbuf w;

    enc_w_init(&w, out, ENC_LOGREQ_WIRE);
    enc_w_u8(&w, q->what);
    enc_w_u64(&w, q->seq);
    enc_w_u64(&w, q->site_off);
    enc_w_bytes(&w, q->site_mod, sizeof(q->site_mod));
    enc_w_u32(&w, q->occ);
    enc_w_u32(&w, q->version);
    enc_w_u32(&w, q->rank);
    enc_w_u8(&w, q->kind);
    enc_w_u32(&w, (uint32_t)q->root);
    enc_w_u64(&w, q->count);
    enc_w_u32(&w, q->dtype);
    enc_w_u32(&w, q->op);
    while (w.len < ENC_LOGREQ_WIRE && !w.err)
        enc_w_u8(&w, 0);
}

enc_status_t enc_logreq_decode(struct enc_logreq *q, const uint8_t *in, size_t len)
{
    struct enc_rbuf r;
    uint32_t root;

    if (len != ENC_LOGREQ_WIRE)
        return ENC_ERR_PROTO;
    enc_r_init(&r, in, len);
    enc_r_u8(&r, &q->what);
    enc_r_u64(&r, &q->seq);
    enc_r_u64(&r, &q->site_off);
    enc_r_bytes(&r, q->site_mod, sizeof(q->site_mod));
    enc_r_u32(&r, &q->occ);
    enc_r_u32(&r, &q->version);
    enc_r_u32(&r, &q->rank);
    enc_r_u8(&r, &q->kind);
    enc_r_u32(&r, &root);
    enc_r_u64(&r, &q->count);
    enc_r_u32(&r, &q->dtype);
    enc_r_u32(&r, &q->op);
    q->root = (int32_t)root;
    q->site_mod[sizeof(q->site_mod) - 1] = '\0';
    if (r.err || q->what < ENC_LOGREQ_SEQ || q->what > ENC_LOGREQ_COMM_POS)
        return ENC_ERR_PROTO;
    return ENC_OK;
}
