/*
 * inject.c - fault injection for tests and demos.  Deterministic faults
 * (--inject kill|stop:rank=R:op=K[:incarnation=I]) travel to the rank as
 * ENCORE_INJECT=kill:K, executed by its engine at its K-th collective;
 * random ones (--inject random:every=T[:seed=S]) are SIGKILLs sent by the
 * launcher, chosen by a seeded generator so a run can be repeated.
 */
#include "enc.h"
#include "launcher/run.h"

#include <stdlib.h>
#include <string.h>

/* Every value is converted to an integer type or used as seconds; keeping
 * it within [0, 1e9] makes each conversion defined (fuzz_inject found
 * "incarnation=3e45" and "rank=nan": out-of-range float-to-int casts). */
#define FIELD_MAX 1e9

/* Reads "key=value" into *v, a number in [0, FIELD_MAX]; 0 on success. */
static int field(const char *tok, const char *key, double *v)
{
    size_t n = strlen(key);
    char *end;

    if (strncmp(tok, key, n) != 0 || tok[n] != '=')
        return -1;
    *v = strtod(tok + n + 1, &end);
    return end == tok + n + 1 || *end != '\0' || !(*v >= 0 && *v <= FIELD_MAX) ? -1 : 0;
}

static int parse_random(struct enc_run_opts *o, char *rest)
{
    double v;

    o->random_seed = 1;
    for (char *tok = strtok(rest, ":"); tok != NULL; tok = strtok(NULL, ":")) {
        if (field(tok, "every", &v) == 0 && v > 0)
            o->random_every_s = v;
        else if (field(tok, "seed", &v) == 0)
            o->random_seed = (uint64_t)v;
        else
            return ENC_ERR_INVAL;
    }
    return o->random_every_s > 0 ? ENC_OK : ENC_ERR_INVAL;
}

static int parse_fault(struct enc_run_opts *o, int kind, char *rest)
{
    struct enc_run_inject in = {.kind = kind, .rank = -1, .op = -1};
    double v;

    if (o->ninj == ENC_RUN_MAX_INJECT)
        return ENC_ERR_INVAL;
    for (char *tok = strtok(rest, ":"); tok != NULL; tok = strtok(NULL, ":")) {
        if (field(tok, "rank", &v) == 0)
            in.rank = (int)v;
        else if (field(tok, "op", &v) == 0 && v >= 1)
            in.op = (long)v;
        else if (field(tok, "incarnation", &v) == 0)
            in.incarnation = (uint32_t)v;
        else
            return ENC_ERR_INVAL;
    }
    if (in.rank < 0 || in.op < 1)
        return ENC_ERR_INVAL;
    o->inj[o->ninj++] = in;
    return ENC_OK;
}

int enc_run_parse_inject(struct enc_run_opts *o, const char *spec)
{
    char buf[256];
    char *colon;

    snprintf(buf, sizeof(buf), "%s", spec);
    if ((colon = strchr(buf, ':')) == NULL)
        return ENC_ERR_INVAL;
    *colon++ = '\0';
    if (strcmp(buf, "kill") == 0)
        return parse_fault(o, ENC_INJ_KILL, colon);
    if (strcmp(buf, "stop") == 0)
        return parse_fault(o, ENC_INJ_STOP, colon);
    if (strcmp(buf, "random") == 0)
        return parse_random(o, colon);
    return ENC_ERR_INVAL;
}

void enc_run_inject_value(const struct enc_run_opts *o, int rank, uint32_t inc, char *out,
                          size_t cap)
{
    out[0] = '\0';
    for (int i = 0; i < o->ninj; i++) {
        const struct enc_run_inject *in = &o->inj[i];

        if (in->rank == rank && in->incarnation == inc) {
            snprintf(out, cap, "%s:%ld", in->kind == ENC_INJ_KILL ? "kill" : "stop", in->op);
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
