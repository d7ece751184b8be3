/*
 * tunables.h - the declarative table of every environment variable encore
 * reads (core/tunables.def): its class, type, default, allowed values and
 * help.  Values come from the environment, else the default.
 *
 * Programs call enc_tunables_check() once at start; after that the typed
 * accessors cannot meet a malformed value.  Called without a check (unit
 * tests), an accessor logs a warning and uses the default.
 */
#ifndef ENC_CORE_TUNABLES_H
#define ENC_CORE_TUNABLES_H

#include <stdint.h>
#include <stdio.h>

#include "core/status.h"

enum enc_tunable_id {
#define X(id, cls, type, name, def, allowed, help) ENC_TUNE_##id,
#include "core/tunables.def"
#undef X
    ENC_TUNE_COUNT
};

enum enc_tunable_class {
    ENC_TCLASS_USER = 1,          /* a tunable the user sets */
    ENC_TCLASS_JOB = 2,           /* set by the launcher for each rank */
    ENC_TCLASS_ALL = 3,
};

enum enc_tunable_type {
    ENC_TTYPE_BOOL, ENC_TTYPE_UINT, ENC_TTYPE_SIZE, ENC_TTYPE_MS, ENC_TTYPE_ENUM,
    ENC_TTYPE_STR, ENC_TTYPE_HOST, ENC_TTYPE_HOSTPORT, ENC_TTYPE_HEX, ENC_TTYPE_FILE,
    ENC_TTYPE_DIR, ENC_TTYPE_INJECT, ENC_TTYPE_CPULIST, ENC_TTYPE_SECONDS,
};

struct enc_tunable {
    enum enc_tunable_class cls;
    enum enc_tunable_type type;
    const char *name;             /* the environment variable */
    const char *def;              /* "" with no value: unset */
    const char *allowed;          /* "min..max", "a|b|c", "auto|0..9" or "" */
    const char *help;
};

extern const struct enc_tunable enc_tunables[ENC_TUNE_COUNT];

/* 1 when the variable is set to a non-empty value. */
int enc_tunable_isset(enum enc_tunable_id id);
/* The value as a string (environment, else default); never NULL. */
const char *enc_tunable_str(enum enc_tunable_id id);
/* UINT, SIZE (in bytes) and MS tunables; 0 for an unset one without a
 * default; a word of "allowed" (auto) gives UINT64_MAX. */
uint64_t enc_tunable_uint(enum enc_tunable_id id);
/* SECONDS tunables; -1 for a word of "allowed" (auto), 0 for an unset one
 * without a default. */
double enc_tunable_seconds(enum enc_tunable_id id);
/* BOOL tunables: 0 or 1. */
int enc_tunable_bool(enum enc_tunable_id id);
/* ENUM tunables: the index of the value among "allowed"'s words. */
int enc_tunable_enum(enum enc_tunable_id id);
/* Older name of enc_tunable_uint (as a signed number). */
long long enc_tunable_ll(enum enc_tunable_id id);

/* Checks every set variable of the classes (a mask) against its type and
 * range, then the relations between them (heartbeat timeout > interval;
 * with ENCORE_TRACKER: rank < size, a secret).  The first problem goes
 * into msg as one line naming the variable, its value and what is allowed
 * ("ENCORE_REPLICAS='abc': expected an integer in 1..256").  ENC_OK or
 * ENC_ERR_INVAL. */
enc_status_t enc_tunables_check(int classes, char *msg, size_t cap);
/* Writes "<prefix>: warning: ..." to out for each ENCORE_* variable of the
 * environment that is not in the table; returns how many. */
int enc_tunables_warn_unknown(const char *prefix, FILE *out);
/* Prints the table for --info: user tunables, then job variables. */
void enc_tunables_print(FILE *out);

#endif
