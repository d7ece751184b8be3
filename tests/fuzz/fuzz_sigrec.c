/*
 * fuzz_sigrec.c - caller signatures as a replaying rank receives them with
 * each logged result (recovery/log/sigrec.c): decode, then format them as a
 * replay-divergence report would.  The input is one 104-byte record (short
 * inputs are padded with zeros, as the fixed-size wire form is).
 * Oracle: the record re-encodes to itself, and the report is a bounded,
 * terminated line.
 */
#include "enc.h"
#include "recovery/log/sigrec.h"
#include "fuzz.h"

#include <string.h>

/* sigrec.c also finds call sites for live collectives (engine), which a
 * decoder never does: link stand-ins instead of the engine. */
int enc_callsite_module(const void *site, char *mod, size_t cap, uint64_t *off,
                        const char **sym)
{
    (void)site;
    snprintf(mod, cap, "fuzz");
    *off = 0;
    if (sym != NULL)
        *sym = NULL;
    return 0;
}

const char *enc_coll_kind_name(int kind) { return kind == 1 ? "allreduce" : "collective"; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t in[ENC_SIGREC_WIRE] = {0}, again[ENC_SIGREC_WIRE];
    struct enc_sigrec s, back;
    char line[160];

    memcpy(in, data, size < sizeof(in) ? size : sizeof(in));
    if (enc_sigrec_decode(&s, in) != ENC_OK)
        return 0;
    FUZZ_CHECK(strlen(enc_sitemod_name(s.site_mod)) < ENC_SITEMOD_BYTES);
    enc_sigrec_format(&s, line, sizeof(line));
    FUZZ_CHECK(memchr(line, '\0', sizeof(line)) != NULL);
    enc_sigrec_encode(&s, again);
    FUZZ_CHECK(enc_sigrec_decode(&back, again) == ENC_OK);
    FUZZ_CHECK(back.kind == s.kind && back.root == s.root && back.count == s.count &&
               back.dtype == s.dtype && back.op == s.op && back.len == s.len &&
               back.site_off == s.site_off && back.occ == s.occ &&
               back.bootstrap == s.bootstrap && back.site_mod == s.site_mod);
    return 0;
}

void fuzz_seeds(fuzz_emit_fn emit)
{
    const struct enc_sigrec recs[] = {
        {.kind = 1, .root = -1, .count = 8, .dtype = 3, .op = 0, .site_off = 0x1234,
         .site_mod = enc_sitemod_intern("kmeans"), .len = 64},
        {.kind = 3, .root = 2, .count = 1 << 20, .dtype = 0xffffffffu, .op = 0xfffffffeu,
         .site_mod = enc_sitemod_intern("python3.11"), .occ = 3, .bootstrap = 1, .len = 1 << 20},
    };
    uint8_t buf[ENC_SIGREC_WIRE];
    char name[16];

    for (size_t i = 0; i < sizeof(recs) / sizeof(recs[0]); i++) {
        enc_sigrec_encode(&recs[i], buf);
        snprintf(name, sizeof(name), "sig-%zu", i);
        emit(name, buf, sizeof(buf));
    }
}
