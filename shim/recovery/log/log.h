/*
 * reclog.h - the result log: logged results keyed by sequence number, with
 * the caller signature that produced them (private to shim/recovery).
 */
#ifndef ENC_RECOVERY_RECLOG_H
#define ENC_RECOVERY_RECLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"

/* A caller signature as logged and sent on the wire. */
struct enc_sigrec {
    uint8_t kind;
    int32_t root;
    uint64_t count;
    uint32_t dtype;
    uint32_t op;
    uint64_t site_off;       /* call site offset in its module */
    char site_mod[40];       /* module basename */
    uint64_t len;            /* result bytes */
    uint32_t occ;            /* occurrence of this site (bootstrap phase) */
    uint8_t bootstrap;       /* made before the first encore_load_checkpoint */
};

#define ENC_SIGREC_WIRE 104

struct enc_coll;
struct enc_sitekey;
/* The signature of co made at call site k, with len result bytes. */
void enc_sigrec_from_coll(struct enc_sigrec *s, const struct enc_coll *co,
                          const struct enc_sitekey *k, uint64_t len);
/* Same collective with the same arguments (call site aside). */
bool enc_sigrec_same_call(const struct enc_sigrec *a, const struct enc_sigrec *b);
void enc_sigrec_encode(const struct enc_sigrec *s, uint8_t out[ENC_SIGREC_WIRE]);
enc_status_t enc_sigrec_decode(struct enc_sigrec *s, const uint8_t in[ENC_SIGREC_WIRE]);
/* "allreduce count=8 dtype=float64 op=sum root=-1 at kmeans+0x1234" */
void enc_sigrec_format(const struct enc_sigrec *s, char *out, size_t cap);

/* Looks up entry seq: ENC_OK with *sig / *data / *len filled (data stays
 * owned by the log), or ENC_ERR_NOT_FOUND when this rank does not have it. */
enc_status_t enc_reclog_find(uint64_t seq, struct enc_sigrec *sig, const void **data,
                             size_t *len);
/* The bootstrap entry made at (site, occurrence), wherever its seq. */
enc_status_t enc_reclog_find_bootstrap(const char *mod, uint64_t off, uint32_t occ,
                                       struct enc_sigrec *sig, const void **data, size_t *len);
#define ENC_HOLDER_RUN 64

/* Is this rank a holder of seq (for a collective rooted at root or -1)? */
bool enc_reclog_is_holder(uint64_t seq, int root, int rank);

#endif
