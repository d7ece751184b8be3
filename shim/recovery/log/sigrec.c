/*
 * sigrec.c - caller signatures as the log keeps them and the wire carries
 * them: arguments plus the call site as module + offset (stable across
 * ASLR, so a restarted process compares equal).
 */
#include "enc.h"

#include <stdio.h>
#include <string.h>

#include "engine/coll.h"
#include "engine/layer.h"
#include "proto/wire.h"
#include "recovery/checkpoint/ckpt.h"
#include "recovery/log/log.h"
#include "recovery/recovery.h"
#include "reduce/reduce.h"

/* dladdr() is not free; a small cache keyed by the return address keeps
 * the fault-free path cheap (and strncpy, not snprintf: this runs in every
 * collective). */
#define SITE_CACHE 64

static struct {
    const void *site;
    uint64_t off;
    char mod[40];
} site_cache[SITE_CACHE];

static void site_key(const void *site, uint64_t *off, char *mod, size_t cap)
{
    size_t h = ((uintptr_t)site >> 2) % SITE_CACHE;

    if (site_cache[h].site == site && site != NULL && cap >= sizeof(site_cache[h].mod)) {
        *off = site_cache[h].off;
        strncpy(mod, site_cache[h].mod, cap - 1); /* zero-padded: the wire carries it all */
        mod[cap - 1] = '\0';
        return;
    }
    enc_callsite_module(site, mod, cap, off, NULL);
    site_cache[h].site = site;
    site_cache[h].off = *off;
    snprintf(site_cache[h].mod, sizeof(site_cache[h].mod), "%s", mod);
}

void enc_sigrec_from_coll(struct enc_sigrec *s, const struct enc_coll *co,
                          const struct enc_sitekey *k, uint64_t len)
{
    memset(s, 0, sizeof(*s));
    s->kind = (uint8_t)enc_coll_what(co->sig);
    s->root = co->sig->root;
    s->count = co->sig->count;
    s->dtype = co->sig->dtype;
    s->op = co->sig->op;
    s->len = len;
    s->site_off = k->off;
    /* the rest stays zero (memset): the wire carries all of it */
    memcpy(s->site_mod, k->mod, strnlen(k->mod, sizeof(s->site_mod) - 1));
    s->occ = k->occ;
    s->bootstrap = (uint8_t)k->bootstrap;
}

void enc_sitekey_of(struct enc_sitekey *k, const struct enc_coll *co)
{
    site_key(co->sig->site, &k->off, k->mod, sizeof(k->mod));
    k->bootstrap = enc_bootstrap_active();
    k->occ = k->bootstrap ? enc_bootstrap_occurrence(k->mod, k->off) : 0;
}

void enc_sigrec_encode(const struct enc_sigrec *s, uint8_t out[ENC_SIGREC_WIRE])
{
    struct enc_wbuf w;

    enc_w_init(&w, out, ENC_SIGREC_WIRE);
    enc_w_u8(&w, s->kind);
    enc_w_u32(&w, (uint32_t)s->root);
    enc_w_u64(&w, s->count);
    enc_w_u32(&w, s->dtype);
    enc_w_u32(&w, s->op);
    enc_w_u64(&w, s->site_off);
    enc_w_u64(&w, s->len);
    enc_w_bytes(&w, s->site_mod, sizeof(s->site_mod));
    enc_w_u32(&w, s->occ);
    enc_w_u8(&w, s->bootstrap);
    while (w.len < ENC_SIGREC_WIRE && !w.err)
        enc_w_u8(&w, 0);
}

enc_status_t enc_sigrec_decode(struct enc_sigrec *s, const uint8_t in[ENC_SIGREC_WIRE])
{
    struct enc_rbuf r;
    uint32_t root;

    enc_r_init(&r, in, ENC_SIGREC_WIRE);
    enc_r_u8(&r, &s->kind);
    enc_r_u32(&r, &root);
    enc_r_u64(&r, &s->count);
    enc_r_u32(&r, &s->dtype);
    enc_r_u32(&r, &s->op);
    enc_r_u64(&r, &s->site_off);
    enc_r_u64(&r, &s->len);
    enc_r_bytes(&r, s->site_mod, sizeof(s->site_mod));
    enc_r_u32(&r, &s->occ);
    enc_r_u8(&r, &s->bootstrap);
    s->root = (int32_t)root;
    s->site_mod[sizeof(s->site_mod) - 1] = '\0';
    return r.err ? ENC_ERR_PROTO : ENC_OK;
}

static const char *dtype_name(uint32_t d, char *buf, size_t cap)
{
    if (d < ENC_T_COUNT)
        return enc_type_name((enum enc_type)d);
    if (d == ENC_SIG_DTYPE_BYTES)
        return "bytes";
    snprintf(buf, cap, "derived(%u B)", d - ENC_SIG_DTYPE_DERIVED);
    return buf;
}

static const char *op_name(uint32_t op, char *buf, size_t cap)
{
    if (op < ENC_OP_COUNT)
        return enc_op_name((enum enc_op)op);
    if (op == ENC_SIG_OP_NONE)
        return "none";
    snprintf(buf, cap, "user#%u", op - ENC_SIG_OP_USER);
    return buf;
}

void enc_sigrec_format(const struct enc_sigrec *s, char *out, size_t cap)
{
    char d[32], o[32];

    snprintf(out, cap, "%s count=%llu dtype=%s op=%s root=%d at %s+0x%llx",
             enc_coll_kind_name(s->kind), (unsigned long long)s->count,
             dtype_name(s->dtype, d, sizeof(d)), op_name(s->op, o, sizeof(o)), s->root,
             s->site_mod, (unsigned long long)s->site_off);
}

bool enc_sigrec_same_call(const struct enc_sigrec *a, const struct enc_sigrec *b)
{
    return a->kind == b->kind && a->count == b->count && a->dtype == b->dtype &&
           a->op == b->op && a->root == b->root && a->len == b->len;
}
