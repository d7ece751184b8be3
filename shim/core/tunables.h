/*
 * tunables.h - the declarative table of tunables (core/tunables.def).
 * Values come from the environment, else the default.
 */
#ifndef ENC_CORE_TUNABLES_H
#define ENC_CORE_TUNABLES_H

#include <stdio.h>

enum enc_tunable_id {
#define X(id, env, def, help) ENC_TUNE_##id,
#include "core/tunables.def"
#undef X
    ENC_TUNE_COUNT
};

struct enc_tunable {
    const char *env;
    const char *def;
    const char *help;
};

extern const struct enc_tunable enc_tunables[ENC_TUNE_COUNT];

/* The value as a string (environment, else default); never NULL. */
const char *enc_tunable_str(enum enc_tunable_id id);
/* Parsed as an integer; a malformed value logs a warning and gives the default. */
long long enc_tunable_ll(enum enc_tunable_id id);
/* Prints the table (name, default, current value, help) for --info. */
void enc_tunables_print(FILE *out);

#endif
