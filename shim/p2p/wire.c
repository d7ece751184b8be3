/* wire.c - encoding and checking of point-to-point frame headers (wire.h). */
#include "enc.h"

#include <string.h>

#include "p2p/wire.h"

/* Big-endian fields at fixed offsets, stored and loaded whole: every
 * message encodes and decodes one header, and the byte-at-a-time writer
 * of proto/wire.h cost about 500 instructions a header.  The bytes are
 * the same (wire.h gives the layout). */
static void put16(uint8_t *p, uint16_t v)
{
    v = __builtin_bswap16(v);
    memcpy(p, &v, sizeof(v));
}

static void put32(uint8_t *p, uint32_t v)
{
    v = __builtin_bswap32(v);
    memcpy(p, &v, sizeof(v));
}

static void put64(uint8_t *p, uint64_t v)
{
    v = __builtin_bswap64(v);
    memcpy(p, &v, sizeof(v));
}

static uint16_t get16(const uint8_t *p)
{
    uint16_t v;

    memcpy(&v, p, sizeof(v));
    return __builtin_bswap16(v);
}

static uint32_t get32(const uint8_t *p)
{
    uint32_t v;

    memcpy(&v, p, sizeof(v));
    return __builtin_bswap32(v);
}

static uint64_t get64(const uint8_t *p)
{
    uint64_t v;

    memcpy(&v, p, sizeof(v));
    return __builtin_bswap64(v);
}

_Static_assert(ENC_P2P_HDR_BYTES == 56, "the header's layout below");

void enc_p2p_hdr_encode(const struct enc_p2p_hdr *h, uint8_t out[ENC_P2P_HDR_BYTES])
{
    put32(out, ENC_P2P_MAGIC);
    out[4] = (uint8_t)h->kind;
    out[5] = (uint8_t)h->mode;
    put16(out + 6, h->flags);
    put64(out + 8, h->cid);
    put32(out + 16, (uint32_t)h->src);
    put32(out + 20, (uint32_t)h->tag);
    put64(out + 24, h->seq);
    put64(out + 32, h->bytes);
    put64(out + 40, h->ack);
    put64(out + 48, h->chain);
}

enum enc_p2p_mode enc_p2p_hdr_mode(const uint8_t in[ENC_P2P_HDR_BYTES])
{
    return (enum enc_p2p_mode)in[5];
}

static bool hdr_valid(const struct enc_p2p_hdr *h, uint32_t magic)
{
    if (magic != ENC_P2P_MAGIC || h->kind < ENC_P2P_DATA || h->kind > ENC_P2P_BELL)
        return false;
    if ((h->flags & ~ENC_P2P_REMOTE) != 0 ||
        (h->flags != 0 && (h->kind != ENC_P2P_DATA || h->bytes == 0)))
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
    if (len != ENC_P2P_HDR_BYTES)
        return ENC_ERR_PROTO;
    h->kind = (enum enc_p2p_kind)in[4];
    h->mode = (enum enc_p2p_mode)in[5];
    h->flags = get16(in + 6);
    h->cid = get64(in + 8);
    h->src = (int32_t)get32(in + 16);
    h->tag = (int32_t)get32(in + 20);
    h->seq = get64(in + 24);
    h->bytes = get64(in + 32);
    h->ack = get64(in + 40);
    h->chain = get64(in + 48);
    return hdr_valid(h, get32(in)) ? ENC_OK : ENC_ERR_PROTO;
}

void enc_p2p_loc_encode(const struct enc_p2p_loc *l, uint8_t out[ENC_P2P_LOC_BYTES])
{
    put64(out, l->addr);
    put32(out + 8, (uint32_t)l->pid);
    put32(out + 12, 0);
    put64(out + 16, l->lent);
    put64(out + 24, l->ticket);
}

enc_status_t enc_p2p_loc_decode(struct enc_p2p_loc *l, const uint8_t in[ENC_P2P_LOC_BYTES])
{
    l->addr = get64(in);
    l->pid = (int32_t)get32(in + 8);
    l->lent = get64(in + 16);
    l->ticket = get64(in + 24);
    return l->addr != 0 && l->pid > 0 && get32(in + 12) == 0 &&
                   (l->lent == 0) == (l->ticket == 0) && l->ticket <= ENC_P2P_LEND_TICKET_MAX
               ? ENC_OK
               : ENC_ERR_PROTO;
}
