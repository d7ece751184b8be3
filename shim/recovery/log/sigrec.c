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
#include "recovery/log/bootstrap.h"
#include "recovery/log/sigrec.h"
#include "recovery/log/wio.h"
#include "reduce/reduce.h"

/* dladdr() is not free; a small cache keyed by the return address keeps
 * the fault-free path cheap (and strncpy, not snprintf: this runs in every
 * collective). */
#define SITE_CACHE 64

static struct {
    const void *site;
    uint64_t off;
    uint16_t mod;
} site_cache[SITE_CACHE];

static void site_key(const void *site, struct enc_sitekey *k)
{
    size_t h = ((uintptr_t)site >> 2) % SITE_CACHE;

    if (site_cache[h].site == site && site != NULL) {
        k->off = site_cache[h].off;
        k->mod_id = site_cache[h].mod;
        strncpy(k->mod, enc_sitemod_name(k->mod_id), sizeof(k->mod) - 1);
        k->mod[sizeof(k->mod) - 1] = '\0';
        return;
    }
    enc_callsite_module(site, k->mod, sizeof(k->mod), &k->off, NULL);
    k->mod_id = enc_sitemod_intern(k->mod);
    if (k->mod_id == ENC_SITEMOD_NONE)
        return; /* not cached: its name must be looked for again */
    site_cache[h].site = site;
    site_cache[h].off = k->off;
    site_cache[h].mod = k->mod_id;
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
    s->site_mod = k->mod_id;
    s->occ = k->occ;
    s->bootstrap = (uint8_t)k->bootstrap;
}

void enc_sitekey_of(struct enc_sitekey *k, const struct enc_coll *co)
{
    site_key(co->sig->site, k);
    k->bootstrap = enc_bootstrap_active();
    k->occ = k->bootstrap ? enc_bootstrap_occurrence(k->mod, k->off) : 0;
}

/* The wire form, field by field (wio.h): the module by its name, which
 * an index of this process would not be in another. */
struct wire_sigrec {
    struct enc_sigrec s;
    char mod[ENC_SITEMOD_BYTES]; /* zero-padded: the wire carries it all */
};

static void walk(struct enc_wio *io, void *rec)
{
    struct wire_sigrec *w = rec;
    struct enc_sigrec *s = &w->s;

    enc_wio_args(io, &s->kind, &s->root, &s->count, &s->dtype, &s->op);
    enc_wio_u64(io, &s->site_off);
    enc_wio_u64(io, &s->len);
    enc_wio_name(io, w->mod, sizeof(w->mod));
    enc_wio_u32(io, &s->occ);
    enc_wio_u8(io, &s->bootstrap);
    enc_wio_pad(io, ENC_SIGREC_WIRE);
}

void enc_sigrec_encode(const struct enc_sigrec *s, uint8_t out[ENC_SIGREC_WIRE])
{
    struct wire_sigrec w = {.s = *s}; /* the walk takes the fields by pointer */

    strncpy(w.mod, enc_sitemod_name(s->site_mod), sizeof(w.mod) - 1);
    enc_wio_encode(walk, &w, out, ENC_SIGREC_WIRE);
}

enc_status_t enc_sigrec_decode(struct enc_sigrec *s, const uint8_t in[ENC_SIGREC_WIRE])
{
    struct wire_sigrec w;

    memset(&w, 0, sizeof(w));
    if (!enc_wio_decode(walk, &w, in, ENC_SIGREC_WIRE))
        return ENC_ERR_PROTO;
    if ((w.s.site_mod = enc_sitemod_intern(w.mod)) == ENC_SITEMOD_NONE)
        return ENC_ERR_PROTO; /* more distinct names than any process has modules */
    *s = w.s;
    return ENC_OK;
}

/* A datatype (op false) or an op (op true) as the report names it. */
static const char *arg_name(uint32_t v, bool op, char *buf, size_t cap)
{
    if (v < (op ? (uint32_t)ENC_OP_COUNT : (uint32_t)ENC_T_COUNT))
        return op ? enc_op_name((enum enc_op)v) : enc_type_name((enum enc_type)v);
    if (v == (op ? ENC_SIG_OP_NONE : ENC_SIG_DTYPE_BYTES))
        return op ? "none" : "bytes";
    if (op)
        snprintf(buf, cap, "user#%u", v - ENC_SIG_OP_USER);
    else
        snprintf(buf, cap, "derived(%u B)", v - ENC_SIG_DTYPE_DERIVED);
    return buf;
}

void enc_sigrec_format(const struct enc_sigrec *s, char *out, size_t cap)
{
    char d[32], o[32];

    snprintf(out, cap, "%s count=%llu dtype=%s op=%s root=%d at %s+0x%llx",
             enc_coll_kind_name(s->kind), (unsigned long long)s->count,
             arg_name(s->dtype, false, d, sizeof(d)), arg_name(s->op, true, o, sizeof(o)), s->root,
             enc_sitemod_name(s->site_mod), (unsigned long long)s->site_off);
}

bool enc_sigrec_same_call(const struct enc_sigrec *a, const struct enc_sigrec *b)
{
    return a->kind == b->kind && a->count == b->count && a->dtype == b->dtype &&
           a->op == b->op && a->root == b->root && a->len == b->len;
}
