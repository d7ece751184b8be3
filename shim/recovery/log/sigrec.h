/*
 * sigrec.h - caller signatures: what the log keeps with each entry and the
 * wire carries with each answer (sigrec.c), so that a replayed call is
 * checked against the logged one.
 */
#ifndef ENC_RECOVERY_LOG_SIGREC_H
#define ENC_RECOVERY_LOG_SIGREC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "recovery/log/sitemod.h"

/* A collective's call site as module + offset (stable across ASLR), and its
 * occurrence number while the bootstrap phase lasts (log/bootstrap.h). */
struct enc_sitekey {
    uint64_t off;
    char mod[ENC_SITEMOD_BYTES];
    uint16_t mod_id;         /* mod interned (sitemod.h) */
    uint32_t occ;
    bool bootstrap;
};

/* A caller signature as logged and sent on the wire (where the module
 * travels as its name). */
struct enc_sigrec {
    uint8_t kind;
    uint8_t bootstrap;       /* made before the first encore_load_checkpoint */
    uint16_t site_mod;       /* module basename, interned: enc_sitemod_name */
    int32_t root;
    uint64_t count;
    uint32_t dtype;
    uint32_t op;
    uint64_t site_off;       /* call site offset in its module */
    uint64_t len;            /* result bytes */
    uint32_t occ;            /* occurrence of this site (bootstrap phase) */
};

#define ENC_SIGREC_WIRE 104

struct enc_coll;
/* The key of the call site of co (occurrence counted). */
void enc_sitekey_of(struct enc_sitekey *k, const struct enc_coll *co);
/* The signature of co made at call site k, with len result bytes. */
void enc_sigrec_from_coll(struct enc_sigrec *s, const struct enc_coll *co,
                          const struct enc_sitekey *k, uint64_t len);
/* Same collective with the same arguments (call site aside). */
bool enc_sigrec_same_call(const struct enc_sigrec *a, const struct enc_sigrec *b);
void enc_sigrec_encode(const struct enc_sigrec *s, uint8_t out[ENC_SIGREC_WIRE]);
enc_status_t enc_sigrec_decode(struct enc_sigrec *s, const uint8_t in[ENC_SIGREC_WIRE]);
/* "allreduce count=8 dtype=float64 op=sum root=-1 at kmeans+0x1234" */
void enc_sigrec_format(const struct enc_sigrec *s, char *out, size_t cap);

#endif
