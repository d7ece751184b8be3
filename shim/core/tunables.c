/* tunables.c - lookup and printing of the tunables table. */
#include "enc.h"

#include <errno.h>
#include <stdlib.h>

const struct enc_tunable enc_tunables[ENC_TUNE_COUNT] = {
#define X(id, env, def, help) [ENC_TUNE_##id] = {env, def, help},
#include "core/tunables.def"
#undef X
};

const char *enc_tunable_str(enum enc_tunable_id id)
{
    const char *v = getenv(enc_tunables[id].env);

    return v != NULL ? v : enc_tunables[id].def;
}

long long enc_tunable_ll(enum enc_tunable_id id)
{
    const char *s = enc_tunable_str(id);
    char *end;
    long long v;

    errno = 0;
    v = strtoll(s, &end, 0);
    if (errno != 0 || end == s || *end != '\0') {
        ENC_WARN("config", "%s='%s' is not an integer; using %s",
                 enc_tunables[id].env, s, enc_tunables[id].def);
        v = strtoll(enc_tunables[id].def, NULL, 0);
    }
    return v;
}

void enc_tunables_print(FILE *out)
{
    for (int i = 0; i < ENC_TUNE_COUNT; i++) {
        const struct enc_tunable *t = &enc_tunables[i];

        fprintf(out, "%-28s default %-12s %s\n", t->env,
                *t->def ? t->def : "\"\"", t->help);
    }
}
