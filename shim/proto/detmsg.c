/* detmsg.c - DET_PUT/DET_DATA/DET_ACK payloads (detmsg.h). */
#include "enc.h"
#include "proto/detmsg.h"
#include "proto/wire.h"

static bool valid(const struct enc_msg_det *m)
{
    return m->off % ENC_DETMSG_REC == 0 && m->n % ENC_DETMSG_REC == 0 &&
           m->n <= ENC_DETMSG_CHUNK && m->off <= ENC_DETMSG_MAX_BYTES - m->n;
}

int enc_msg_det_encode(const struct enc_msg_det *m, void *buf, size_t cap)
{
    struct enc_wbuf w;

    if (!valid(m))
        return ENC_ERR_INVAL;
    enc_w_init(&w, buf, cap);
    enc_w_u64(&w, m->word);
    enc_w_u64(&w, m->off);
    enc_w_u32(&w, m->n);
    enc_w_bytes(&w, m->bytes, m->n);
    return w.err ? ENC_ERR_INVAL : (int)w.len;
}

enc_status_t enc_msg_det_decode(struct enc_msg_det *m, const void *buf, size_t len)
{
    struct enc_rbuf r;

    enc_r_init(&r, buf, len);
    enc_r_u64(&r, &m->word);
    enc_r_u64(&r, &m->off);
    enc_r_u32(&r, &m->n);
    if (r.err || len - r.off != m->n || !valid(m))
        return ENC_ERR_PROTO;
    m->bytes = (const uint8_t *)buf + r.off;
    return ENC_OK;
}

int enc_msg_det_ack_encode(uint64_t version, void *buf, size_t cap)
{
    struct enc_wbuf w;

    enc_w_init(&w, buf, cap);
    enc_w_u64(&w, version);
    return w.err ? ENC_ERR_INVAL : (int)w.len;
}

enc_status_t enc_msg_det_ack_decode(uint64_t *version, const void *buf, size_t len)
{
    struct enc_rbuf r;

    enc_r_init(&r, buf, len);
    enc_r_u64(&r, version);
    return enc_r_done(&r);
}
