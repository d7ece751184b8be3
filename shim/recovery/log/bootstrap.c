/*
 * bootstrap.c - occurrence numbers of bootstrap collectives (bootstrap.h).
 *
 * Collectives made before the first encore_load_checkpoint (the seed
 * design's "bootstrap" operations: reading a column count, broadcasting a
 * sampler seed, ...) are kept for the job's lifetime and can be answered by
 * (call site, occurrence) as well as by sequence number, so a restarted
 * rank that makes them in another order is still answered correctly.
 */
#include "enc.h"

#include <stdlib.h>
#include <string.h>

#include "recovery/log/bootstrap.h"

struct site_count {
    uint64_t off;
    char mod[40];
    uint32_t count;
    int used;
};

static struct site_count *table;
static size_t table_cap;
static bool ended;

bool enc_bootstrap_active(void) { return !ended; }
void enc_bootstrap_end(void) { ended = true; }

static size_t hash(const char *mod, uint64_t off)
{
    uint64_t h = off * 0x9e3779b97f4a7c15ull;

    for (; *mod; mod++)
        h = (h ^ (uint8_t)*mod) * 1099511628211ull;
    return (size_t)(h ^ (h >> 29));
}

static struct site_count *lookup(const char *mod, uint64_t off)
{
    size_t i = hash(mod, off) & (table_cap - 1);

    while (table[i].used && (table[i].off != off || strcmp(table[i].mod, mod) != 0))
        i = (i + 1) & (table_cap - 1);
    return &table[i];
}

static enc_status_t grow(void)
{
    struct site_count *old = table;
    size_t old_cap = table_cap;

    table_cap = table_cap ? 2 * table_cap : 64;
    if ((table = calloc(table_cap, sizeof(*table))) == NULL)
        return ENC_ERR_NOMEM;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].used)
            *lookup(old[i].mod, old[i].off) = old[i];
    free(old);
    return ENC_OK;
}

uint32_t enc_bootstrap_occurrence(const char *mod, uint64_t off)
{
    static size_t used;
    struct site_count *s;

    if ((used + 1) * 2 > table_cap && grow() != ENC_OK)
        return 0;
    s = lookup(mod, off);
    if (!s->used) {
        s->used = 1;
        s->off = off;
        strncpy(s->mod, mod, sizeof(s->mod) - 1);
        used++;
    }
    return s->count++;
}
