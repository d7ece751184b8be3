/*
 * tunables.c - the only reader of ENCORE_* environment variables: typed
 * accessors, the start-up check (type, range, relations) and --info.
 */
#include "enc.h"
#include "core/limits.h"
#include "core/parse.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

#define USER ENC_TCLASS_USER
#define JOB ENC_TCLASS_JOB
const struct enc_tunable enc_tunables[ENC_TUNE_COUNT] = {
#define X(id, cls, type, name, def, allowed, help) \
    [ENC_TUNE_##id] = {cls, ENC_TTYPE_##type, name, def, allowed, help},
#include "core/tunables.def"
#undef X
};
#undef USER
#undef JOB

static const char *const type_names[] = {
    [ENC_TTYPE_BOOL] = "bool", [ENC_TTYPE_UINT] = "uint", [ENC_TTYPE_SIZE] = "size",
    [ENC_TTYPE_MS] = "ms", [ENC_TTYPE_ENUM] = "enum", [ENC_TTYPE_STR] = "string",
    [ENC_TTYPE_HOST] = "host", [ENC_TTYPE_HOSTPORT] = "host:port", [ENC_TTYPE_HEX] = "hex",
    [ENC_TTYPE_FILE] = "file", [ENC_TTYPE_DIR] = "dir", [ENC_TTYPE_INJECT] = "inject",
    [ENC_TTYPE_CPULIST] = "cpulist", [ENC_TTYPE_SECONDS] = "seconds",
};

int enc_tunable_isset(enum enc_tunable_id id)
{
    const char *v = getenv(enc_tunables[id].name);

    return v != NULL && *v != '\0';
}

const char *enc_tunable_str(enum enc_tunable_id id)
{
    const char *v = getenv(enc_tunables[id].name);

    return v != NULL && *v != '\0' ? v : enc_tunables[id].def;
}

/* Index of v among the words (not ranges) of the '|'-separated list, or -1. */
static int word_index(const char *list, const char *v)
{
    size_t n = strlen(v);
    int i = 0;

    for (const char *p = list; *p != '\0'; i++) {
        size_t len = strcspn(p, "|");

        if (len == n && strncmp(p, v, n) == 0 && memmem(p, len, "..", 2) == NULL)
            return i;
        p += len + (p[len] == '|');
    }
    return -1;
}

/* The first "min..max" alternative of allowed (0..UINT64_MAX if none). */
static void range_of(const struct enc_tunable *t, uint64_t *min, uint64_t *max)
{
    const char *r = strstr(t->allowed, "..");
    const char *lo = r;
    char a[32] = "", b[32] = "";

    *min = 0;
    *max = UINT64_MAX;
    if (r == NULL)
        return;
    while (lo > t->allowed && lo[-1] != '|')
        lo--;
    snprintf(a, sizeof(a), "%.*s", (int)(r - lo), lo);
    snprintf(b, sizeof(b), "%.*s", (int)strcspn(r + 2, "|"), r + 2);
    enc_parse_size(a, 0, UINT64_MAX, min);
    enc_parse_size(b, 0, UINT64_MAX, max);
}

/* UINT, SIZE, MS: a word of allowed gives UINT64_MAX. */
static enc_status_t parse_number(const struct enc_tunable *t, const char *v, uint64_t *out)
{
    uint64_t min, max;

    if (word_index(t->allowed, v) >= 0) {
        *out = UINT64_MAX;
        return ENC_OK;
    }
    range_of(t, &min, &max);
    if (t->type == ENC_TTYPE_SIZE)
        return enc_parse_size(v, min, max, out);
    return enc_parse_uint(v, min, max, out);
}

/* SECONDS: a word of allowed gives -1. */
static enc_status_t parse_seconds(const struct enc_tunable *t, const char *v, double *out)
{
    uint64_t min, max;

    if (word_index(t->allowed, v) >= 0) {
        *out = -1;
        return ENC_OK;
    }
    range_of(t, &min, &max);
    return enc_parse_decimal(v, (double)min, (double)max, out);
}

static int all_in(const char *v, const char *set)
{
    return *v != '\0' && v[strspn(v, set)] == '\0';
}

static enc_status_t check_hostport(const char *v)
{
    const char *colon = strrchr(v, ':');
    uint64_t port;

    if (colon == NULL || colon == v || colon - v >= ENC_HOST_MAX || strchr(v, ' ') != NULL)
        return ENC_ERR_INVAL;
    return enc_parse_uint(colon + 1, 1, 65535, &port);
}

static enc_status_t check_inject(const char *v)
{
    uint64_t k;

    const char *colon = strchr(v, ':');

    if (colon == NULL || (strncmp(v, "kill:", 5) != 0 && strncmp(v, "stop:", 5) != 0 &&
                          strncmp(v, "snapkill:", 9) != 0))
        return ENC_ERR_INVAL;
    return enc_parse_uint(colon + 1, 1, UINT64_MAX, &k);
}

static enc_status_t check_path(const struct enc_tunable *t, const char *v)
{
    struct stat st;

    if (stat(v, &st) != 0)
        return ENC_ERR_INVAL;
    if (t->type == ENC_TTYPE_DIR)
        return S_ISDIR(st.st_mode) && access(v, W_OK | X_OK) == 0 ? ENC_OK : ENC_ERR_INVAL;
    return S_ISREG(st.st_mode) && access(v, R_OK) == 0 ? ENC_OK : ENC_ERR_INVAL;
}

static enc_status_t check_hex(const struct enc_tunable *t, const char *v)
{
    uint64_t min, max, n = strlen(v);

    range_of(t, &min, &max);
    return all_in(v, "0123456789abcdefABCDEF") && n >= min && n <= max ? ENC_OK : ENC_ERR_INVAL;
}

static enc_status_t check_value(const struct enc_tunable *t, const char *v)
{
    uint64_t n;
    double d;
    int b;

    switch (t->type) {
    case ENC_TTYPE_BOOL: return enc_parse_bool(v, &b);
    case ENC_TTYPE_UINT: case ENC_TTYPE_SIZE: case ENC_TTYPE_MS: return parse_number(t, v, &n);
    case ENC_TTYPE_ENUM: return word_index(t->allowed, v) >= 0 ? ENC_OK : ENC_ERR_INVAL;
    case ENC_TTYPE_HOST:
        return strlen(v) < ENC_HOST_MAX && strpbrk(v, " \t\n") == NULL ? ENC_OK : ENC_ERR_INVAL;
    case ENC_TTYPE_HOSTPORT: return check_hostport(v);
    case ENC_TTYPE_HEX: return check_hex(t, v);
    case ENC_TTYPE_FILE: case ENC_TTYPE_DIR: return check_path(t, v);
    case ENC_TTYPE_INJECT: return check_inject(v);
    case ENC_TTYPE_SECONDS: return parse_seconds(t, v, &d);
    case ENC_TTYPE_CPULIST: return isdigit((unsigned char)*v) && all_in(v, "0123456789,-")
                                       ? ENC_OK : ENC_ERR_INVAL;
    default: return ENC_OK;
    }
}

/* A malformed value met without a start-up check: warn, use the default.
 * The warning is written directly, not through log.c, because the log
 * level itself is a tunable (log.c calls down into this file). */
static const char *checked_str(enum enc_tunable_id id)
{
    const struct enc_tunable *t = &enc_tunables[id];
    const char *v = enc_tunable_str(id);

    if (*v == '\0' || check_value(t, v) == ENC_OK)
        return v;
    fprintf(stderr, "encore: config: warning: %s='%s' is malformed; using %s\n", t->name, v,
            *t->def ? t->def : "no value");
    return t->def;
}

uint64_t enc_tunable_uint(enum enc_tunable_id id)
{
    const char *v = checked_str(id);
    uint64_t n = 0;

    if (*v != '\0')
        parse_number(&enc_tunables[id], v, &n);
    return n;
}

double enc_tunable_seconds(enum enc_tunable_id id)
{
    const char *v = checked_str(id);
    double d;

    return *v != '\0' && parse_seconds(&enc_tunables[id], v, &d) == ENC_OK ? d : 0;
}

int enc_tunable_bool(enum enc_tunable_id id)
{
    int b = 0;

    enc_parse_bool(checked_str(id), &b);
    return b;
}

int enc_tunable_enum(enum enc_tunable_id id)
{
    int i = word_index(enc_tunables[id].allowed, checked_str(id));

    return i >= 0 ? i : 0;
}

long long enc_tunable_ll(enum enc_tunable_id id)
{
    return (long long)enc_tunable_uint(id);
}

/* What a type allows, as the end of "NAME='v': expected ...". */
static void expected(const struct enc_tunable *t, char *out, size_t cap)
{
    const char *r = strstr(t->allowed, "..") ? strrchr(t->allowed, '|') : NULL;
    const char *range = r ? r + 1 : t->allowed;
    char words[64] = "";

    if (r != NULL)
        snprintf(words, sizeof(words), "%.*s or ", (int)(r - t->allowed), t->allowed);
    switch (t->type) {
    case ENC_TTYPE_BOOL: snprintf(out, cap, "expected 1 or 0 (or yes/no, true/false, on/off)"); break;
    case ENC_TTYPE_UINT: snprintf(out, cap, "expected %san integer in %s", words, range); break;
    case ENC_TTYPE_MS: snprintf(out, cap, "expected milliseconds, an integer in %s", range); break;
    case ENC_TTYPE_SIZE:
        snprintf(out, cap, "expected %sa byte count in %s (suffixes K, M, G, T, P allowed)", words, range);
        break;
    case ENC_TTYPE_ENUM: snprintf(out, cap, "expected one of %s", t->allowed); break;
    case ENC_TTYPE_HOST: snprintf(out, cap, "expected a host name or address (< %d characters, "
                                            "no spaces)", ENC_HOST_MAX); break;
    case ENC_TTYPE_HOSTPORT: snprintf(out, cap, "expected host:port with a port in 1..65535"); break;
    case ENC_TTYPE_HEX: snprintf(out, cap, "expected %s hex digits", strstr(range, "..") + 2); break;
    case ENC_TTYPE_FILE: snprintf(out, cap, "expected a readable file"); break;
    case ENC_TTYPE_DIR: snprintf(out, cap, "expected a writable directory"); break;
    case ENC_TTYPE_INJECT: snprintf(out, cap, "expected kill:K, stop:K or snapkill:K with K >= 1"); break;
    case ENC_TTYPE_SECONDS:
        snprintf(out, cap, "expected %sseconds, a decimal number in %s", words, range);
        break;
    default: snprintf(out, cap, "expected a CPU list such as 0-3,8"); break;
    }
}

static enc_status_t check_one(const struct enc_tunable *t, char *msg, size_t cap)
{
    const char *v = getenv(t->name);
    char want[160];

    if (v == NULL || *v == '\0' || check_value(t, v) == ENC_OK)
        return ENC_OK;
    expected(t, want, sizeof(want));
    if (t->type == ENC_TTYPE_HEX) /* a secret: never echoed */
        snprintf(msg, cap, "%s (value not shown): %s", t->name, want);
    else
        snprintf(msg, cap, "%s='%s': %s", t->name, v, want);
    return ENC_ERR_INVAL;
}

static enc_status_t need(enum enc_tunable_id id, char *msg, size_t cap)
{
    if (enc_tunable_isset(id))
        return ENC_OK;
    snprintf(msg, cap, "%s is not set (a rank joining ENCORE_TRACKER=%s needs it)",
             enc_tunables[id].name, enc_tunable_str(ENC_TUNE_TRACKER));
    return ENC_ERR_INVAL;
}

/* A rank joining a tracker needs its rank, the size and a secret. */
static enc_status_t check_job(char *msg, size_t cap)
{
    enc_status_t rv;

    if (!enc_tunable_isset(ENC_TUNE_TRACKER))
        return ENC_OK;
    if ((rv = need(ENC_TUNE_RANK, msg, cap)) != ENC_OK ||
        (rv = need(ENC_TUNE_SIZE, msg, cap)) != ENC_OK)
        return rv;
    if (enc_tunable_uint(ENC_TUNE_RANK) >= enc_tunable_uint(ENC_TUNE_SIZE)) {
        snprintf(msg, cap, "ENCORE_RANK=%s must be less than ENCORE_SIZE=%s",
                 enc_tunable_str(ENC_TUNE_RANK), enc_tunable_str(ENC_TUNE_SIZE));
        return ENC_ERR_INVAL;
    }
    if (!enc_tunable_isset(ENC_TUNE_SECRET))
        return need(ENC_TUNE_SECRET_FILE, msg, cap);
    return ENC_OK;
}

static enc_status_t check_relations(int classes, char *msg, size_t cap)
{
    if ((classes & ENC_TCLASS_USER) &&
        enc_tunable_uint(ENC_TUNE_HEARTBEAT_TIMEOUT_MS) <= enc_tunable_uint(ENC_TUNE_HEARTBEAT_MS)) {
        snprintf(msg, cap, "ENCORE_HEARTBEAT_TIMEOUT_MS=%s must be greater than "
                 "ENCORE_HEARTBEAT_MS=%s", enc_tunable_str(ENC_TUNE_HEARTBEAT_TIMEOUT_MS),
                 enc_tunable_str(ENC_TUNE_HEARTBEAT_MS));
        return ENC_ERR_INVAL;
    }
    return classes & ENC_TCLASS_JOB ? check_job(msg, cap) : ENC_OK;
}

enc_status_t enc_tunables_check(int classes, char *msg, size_t cap)
{
    enc_status_t rv;

    for (int i = 0; i < ENC_TUNE_COUNT; i++)
        if ((enc_tunables[i].cls & classes) &&
            (rv = check_one(&enc_tunables[i], msg, cap)) != ENC_OK)
            return rv;
    return check_relations(classes, msg, cap);
}

static int lookup(const char *name, size_t len)
{
    for (int i = 0; i < ENC_TUNE_COUNT; i++)
        if (strlen(enc_tunables[i].name) == len && strncmp(enc_tunables[i].name, name, len) == 0)
            return i;
    return -1;
}

/* Edit distance of a[0..la) and b, capped: enough to suggest a name. */
static size_t distance(const char *a, size_t la, const char *b)
{
    size_t lb = strlen(b), row[64], prev, tmp;

    if (la >= ENC_ARRAY_SIZE(row) || lb >= ENC_ARRAY_SIZE(row))
        return SIZE_MAX;
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        prev = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            tmp = row[j];
            row[j] = ENC_MIN(ENC_MIN(row[j] + 1, row[j - 1] + 1),
                             prev + (a[i - 1] != b[j - 1]));
            prev = tmp;
        }
    }
    return row[lb];
}

static const char *closest(const char *name, size_t len)
{
    const char *best = NULL;
    size_t bd = 3; /* suggest only names within 2 edits */

    for (int i = 0; i < ENC_TUNE_COUNT; i++) {
        size_t d = distance(name, len, enc_tunables[i].name);

        if (d < bd) {
            bd = d;
            best = enc_tunables[i].name;
        }
    }
    return best;
}

int enc_tunables_warn_unknown(const char *prefix, FILE *out)
{
    int n = 0;

    for (char **e = environ; *e != NULL; e++) {
        size_t len = strcspn(*e, "=");
        const char *near;

        if (strncmp(*e, "ENCORE_", 7) != 0 || lookup(*e, len) >= 0)
            continue;
        near = closest(*e, len);
        fprintf(out, "%s: warning: %.*s is not an encore variable%s%s%s (see encore-run --info)\n",
                prefix, (int)len, *e, near ? "; did you mean " : "", near ? near : "",
                near ? "?" : "");
        n++;
    }
    return n;
}

static void print_class(FILE *out, enum enc_tunable_class cls)
{
    for (int i = 0; i < ENC_TUNE_COUNT; i++) {
        const struct enc_tunable *t = &enc_tunables[i];

        if (t->cls != cls)
            continue;
        fprintf(out, "  %-28s %-9s %-22s default %s\n      %s\n", t->name, type_names[t->type],
                t->allowed, *t->def ? t->def : "(unset)", t->help);
    }
}

void enc_tunables_print(FILE *out)
{
    fprintf(out, "User tunables (environment variables, also settable with -x):\n");
    print_class(out, ENC_TCLASS_USER);
    fprintf(out, "\nJob variables (set by the launcher for each rank):\n");
    print_class(out, ENC_TCLASS_JOB);
}
