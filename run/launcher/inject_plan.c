/*
 * inject_plan.c - fault injection for tests and demos.  Deterministic faults
 * (--inject kill|stop:rank=R:op=K[:incarnation=I]) travel to the rank as
 * ENCORE_INJECT=kill:K, executed by its engine at its K-th collective
 * (snapkill:rank=R:op=K: a SIGKILL right after the fork of its K-th
 * snapshot, while the image is still parking);
 * random ones (--inject random:every=T[:seed=S][:count=N]) are SIGKILLs sent
 * by the launcher, chosen by a seeded generator so a run can be repeated, at
 * most N of them (a fixed number of faults however long the run takes).
 */
#include "enc.h"
#include "core/parse.h"
#include "launcher/launcher.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INJECT_FORMS "kill:rank=R:op=K[:incarnation=I], stop:rank=R:op=K[:incarnation=I], " \
                     "snapkill:rank=R:op=K[:incarnation=I] or random:every=T[:seed=S][:count=N]"

/* One line on stderr naming the spec; always ENC_ERR_INVAL. */
static enc_status_t bad(const char *spec, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static enc_status_t bad(const char *spec, const char *fmt, ...)
{
    char what[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    return enc_usage_error("encore-run", "--inject '%s': %s", spec, what);
}

/* The value of tok when it is "key=...", else NULL. */
static const char *value_of(const char *tok, const char *key)
{
    size_t n = strlen(key);

    return strncmp(tok, key, n) == 0 && tok[n] == '=' ? tok + n + 1 : NULL;
}

static enc_status_t int_field(const char *spec, const char *key, const char *v, uint64_t min,
                     uint64_t max, uint64_t *out)
{
    if (enc_parse_uint(v, min, max, out) == ENC_OK)
        return ENC_OK;
    return bad(spec, "%s='%s': expected an integer in %llu..%llu", key, v,
               (unsigned long long)min, (unsigned long long)max);
}

static enc_status_t random_field(struct enc_run_opts *o, const char *spec, const char *tok)
{
    const char *v;
    uint64_t seed;

    if ((v = value_of(tok, "every")) != NULL)
        return enc_parse_positive(v, 1e6, &o->random_every_s) == ENC_OK
                   ? ENC_OK : bad(spec, "every='%s': expected seconds, a number > 0", v);
    if ((v = value_of(tok, "count")) != NULL)
        return int_field(spec, "count", v, 1, 1000000, &o->random_count);
    if ((v = value_of(tok, "seed")) != NULL) {
        if (int_field(spec, "seed", v, 0, UINT64_MAX, &seed) != ENC_OK)
            return ENC_ERR_INVAL;
        o->random_seed = seed;
        return ENC_OK;
    }
    return bad(spec, "unknown field '%s' (random takes every=T, seed=S and count=N)", tok);
}

static enc_status_t parse_random(struct enc_run_opts *o, const char *spec, char *rest)
{
    o->random_seed = 1;
    o->random_every_s = 0;
    o->random_count = 0;
    for (char *tok = strtok(rest, ":"); tok != NULL; tok = strtok(NULL, ":"))
        if (random_field(o, spec, tok) != ENC_OK)
            return ENC_ERR_INVAL;
    return o->random_every_s > 0 ? ENC_OK : bad(spec, "every=T is missing");
}

static enc_status_t fault_field(struct enc_run_inject *in, const char *spec, const char *tok)
{
    const char *v;
    uint64_t n;
    int rv;

    if ((v = value_of(tok, "rank")) != NULL) {
        if ((rv = int_field(spec, "rank", v, 0, ENC_MAX_RANKS - 1, &n)) == ENC_OK)
            in->rank = (int)n;
    } else if ((v = value_of(tok, "op")) != NULL) {
        if ((rv = int_field(spec, "op", v, 1, INT32_MAX, &n)) == ENC_OK)
            in->op = (long)n;
    } else if ((v = value_of(tok, "incarnation")) != NULL) {
        if ((rv = int_field(spec, "incarnation", v, 0, UINT32_MAX, &n)) == ENC_OK)
            in->incarnation = (uint32_t)n;
    } else {
        rv = bad(spec, "unknown field '%s' (kill, stop and snapkill take rank=R, op=K, incarnation=I)",
                 tok);
    }
    return rv;
}

static enc_status_t parse_fault(struct enc_run_opts *o, enum enc_run_inject_kind kind,
                                const char *spec, char *rest)
{
    struct enc_run_inject in = {.kind = kind, .rank = -1, .op = -1, .spec = spec};

    if (o->ninj == ENC_RUN_MAX_INJECT)
        return bad(spec, "at most %d kill/stop faults", ENC_RUN_MAX_INJECT);
    for (char *tok = strtok(rest, ":"); tok != NULL; tok = strtok(NULL, ":"))
        if (fault_field(&in, spec, tok) != ENC_OK)
            return ENC_ERR_INVAL;
    if (in.rank < 0 || in.op < 1)
        return bad(spec, "%s is missing", in.rank < 0 ? "rank=R" : "op=K");
    o->inj[o->ninj++] = in;
    return ENC_OK;
}

enc_status_t enc_run_parse_inject(struct enc_run_opts *o, const char *spec)
{
    char buf[256];
    char *colon;

    if (strlen(spec) >= sizeof(buf))
        return bad(spec, "longer than %zu characters", sizeof(buf) - 1);
    snprintf(buf, sizeof(buf), "%s", spec);
    if ((colon = strchr(buf, ':')) != NULL)
        *colon++ = '\0';
    if (colon != NULL && strcmp(buf, "kill") == 0)
        return parse_fault(o, ENC_RUN_INJ_KILL, spec, colon);
    if (colon != NULL && strcmp(buf, "stop") == 0)
        return parse_fault(o, ENC_RUN_INJ_STOP, spec, colon);
    if (colon != NULL && strcmp(buf, "snapkill") == 0)
        return parse_fault(o, ENC_RUN_INJ_SNAPKILL, spec, colon);
    if (colon != NULL && strcmp(buf, "random") == 0)
        return parse_random(o, spec, colon);
    return bad(spec, "expected " INJECT_FORMS);
}

void enc_run_inject_value(const struct enc_run_opts *o, int rank, uint32_t inc, char *out,
                          size_t cap)
{
    out[0] = '\0';
    for (int i = 0; i < o->ninj; i++) {
        const struct enc_run_inject *in = &o->inj[i];

        if (in->rank == rank && in->incarnation == inc) {
            static const char *const names[] = {[ENC_RUN_INJ_KILL] = "kill",
                [ENC_RUN_INJ_STOP] = "stop", [ENC_RUN_INJ_SNAPKILL] = "snapkill"};

            snprintf(out, cap, "%s:%ld", names[in->kind], in->op);
            return;
        }
    }
}

/* splitmix64: tiny, seedable, good enough to pick victims. */
uint64_t enc_run_rand(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
