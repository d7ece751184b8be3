/* wire.c - encoding and checking of point-to-point frame headers (wire.h). */
#include "enc.h"

#include "p2p/wire.h"
#include "proto/wire.h"

void enc_p2p_hdr_encode(const struct enc_p2p_hdr *h, uint8_t out[ENC_P2P_HDR_BYTES])
{
    struct enc_wbuf w;

    enc_w_init(&w, out, ENC_P2P_HDR_BYTES);
    enc_w_u32(&w, ENC_P2P_MAGIC);
    enc_w_u8(&w, (uint8_t)h->kind);
    enc_w_u8(&w, (uint8_t)h->mode);
    enc_w_u16(&w, 0);
    enc_w_u64(&w, h->cid);
    enc_w_u32(&w, (uint32_t)h->src);
    enc_w_u32(&w, (uint32_t)h->tag);
    enc_w_u64(&w, h->seq);
    enc_w_u64(&w, h->bytes);
    enc_w_u64(&w, h->ack);
    enc_w_u64(&w, h->chain);
}

static bool hdr_valid(const struct enc_p2p_hdr *h, uint32_t magic, uint16_t zero)
{
    if (magic != ENC_P2P_MAGIC || zero != 0 || h->kind < ENC_P2P_DATA || h->kind > ENC_P2P_BELL)
        return false;
    if (h->kind != ENC_P2P_DATA && h->chain != 0)
        return false;
    if (h->mode != ENC_P2P_STANDARD && h->mode != ENC_P2P_SYNC)
        return false;
    if (h->kind == ENC_P2P_RESUME)
        return h->bytes > 0 && h->bytes <= ENC_P2P_MAX_ADDR && h->mode == ENC_P2P_STANDARD &&
               h->ack > 0 && h->ack <= UINT16_MAX;
    if (h->kind == ENC_P2P_POSITIONS)
        return h->bytes % ENC_P2P_POS_BYTES == 0 &&
               h->bytes <= (uint64_t)ENC_P2P_MAX_POS * ENC_P2P_POS_BYTES &&
               h->mode == ENC_P2P_STANDARD && h->ack == 0;
    if (h->kind != ENC_P2P_DATA)
        return h->bytes == 0 && h->mode == ENC_P2P_STANDARD;
    return h->src >= 0 && h->tag >= 0 && h->bytes <= ENC_P2P_MAX_BYTES;
}

enc_status_t enc_p2p_hdr_decode(struct enc_p2p_hdr *h, const uint8_t *in, size_t len)
{
    struct enc_rbuf r;
    uint32_t magic, src, tag;
    uint8_t kind, mode;
    uint16_t zero;

    enc_r_init(&r, in, len);
    enc_r_u32(&r, &magic);
    enc_r_u8(&r, &kind);
    enc_r_u8(&r, &mode);
    enc_r_u16(&r, &zero);
    enc_r_u64(&r, &h->cid);
    enc_r_u32(&r, &src);
    enc_r_u32(&r, &tag);
    enc_r_u64(&r, &h->seq);
    enc_r_u64(&r, &h->bytes);
    enc_r_u64(&r, &h->ack);
    enc_r_u64(&r, &h->chain);
    if (enc_r_done(&r) != ENC_OK)
        return ENC_ERR_PROTO;
    h->kind = (enum enc_p2p_kind)kind;
    h->mode = (enum enc_p2p_mode)mode;
    h->src = (int32_t)src;
    h->tag = (int32_t)tag;
    return hdr_valid(h, magic, zero) ? ENC_OK : ENC_ERR_PROTO;
}
