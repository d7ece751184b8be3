/*
 * rank_env.c - the environment of a rank process.  Inherited mpirun variables
 * are removed so a rank never believes it runs under mpirun; the encore
 * contract (ENCORE_TRACKER, ENCORE_SECRET, ENCORE_RANK, ENCORE_SIZE,
 * ENCORE_INCARNATION, ENCORE_INJECT) and LD_PRELOAD are added; -x applies
 * mpirun semantics (VAR: forward ours, VAR=val: set).
 */
#include "config.h"
#include "enc.h"

#include "core/vec.h"
#include "launcher/launcher.h"

#include <stdlib.h>
#include <string.h>

extern char **environ;

static const char *const dropped_prefixes[] = {
    "OMPI_COMM_WORLD_", "PMIX_", "OMPI_MCA_orte_", "OMPI_MCA_ess_singleton_isolated=",
    "ENCORE_TRACKER=", "ENCORE_SECRET=", "ENCORE_SECRET_FILE=", "ENCORE_RANK=",
    "ENCORE_SIZE=", "ENCORE_INCARNATION=", "ENCORE_INJECT=", "ENCORE_RANK_TMPDIR=",
    "ENCORE_SNAPSHOT_SOCK=", "ENCORE_SHM_FD=", "ENCORE_SHM_EVENTFDS=",
};

static bool dropped(const char *kv)
{
    for (size_t i = 0; i < ENC_ARRAY_SIZE(dropped_prefixes); i++)
        if (strncmp(kv, dropped_prefixes[i], strlen(dropped_prefixes[i])) == 0)
            return true;
    return false;
}

struct envb {
    char **v;
    int n;
    size_t cap;
};

static enc_status_t env_set(struct envb *e, const char *name, const char *val)
{
    size_t nl = strlen(name);
    char *kv = malloc(nl + strlen(val) + 2);

    if (kv == NULL)
        return ENC_ERR_NOMEM;
    sprintf(kv, "%s=%s", name, val);
    for (int i = 0; i < e->n; i++) {
        if (strncmp(e->v[i], name, nl) == 0 && e->v[i][nl] == '=') {
            free(e->v[i]);
            e->v[i] = kv;
            return ENC_OK;
        }
    }
    if (ENC_VEC_RESERVE(e->v, e->cap, (size_t)e->n + 2) != ENC_OK) { /* and the NULL */
        free(kv);
        return ENC_ERR_NOMEM;
    }
    e->v[e->n++] = kv;
    e->v[e->n] = NULL;
    return ENC_OK;
}

/* Adds "NAME=VALUE" given as one string. */
static enc_status_t env_put(struct envb *e, const char *kv)
{
    const char *eq = strchr(kv, '=');
    char name[256];

    if (eq == NULL || eq == kv || (size_t)(eq - kv) >= sizeof(name))
        return ENC_ERR_INVAL;
    snprintf(name, sizeof(name), "%.*s", (int)(eq - kv), kv);
    return env_set(e, name, eq + 1);
}

static enc_status_t apply_x(struct envb *e, const struct enc_run_opts *o)
{
    enc_status_t rv = ENC_OK;

    for (int i = 0; i < o->nx && rv == ENC_OK; i++) {
        const char *v;

        if (strchr(o->xvars[i], '=') != NULL)
            rv = env_put(e, o->xvars[i]);
        else if ((v = getenv(o->xvars[i])) != NULL)
            rv = env_set(e, o->xvars[i], v);
    }
    return rv;
}

/* configure --enable-sanitizers: an instrumented libencore.so preloaded
 * into a program that is not instrumented (python3, a Fortran program)
 * needs the sanitizer runtime loaded before everything else. */
#ifdef ENC_SANITIZER_RUNTIME
#define SAN_FIRST ENC_SANITIZER_RUNTIME ":"
#else
#define SAN_FIRST ""
#endif

static enc_status_t add_preload(struct envb *e, const char *preload)
{
    const char *old = getenv("LD_PRELOAD");
    char *v;
    enc_status_t rv;

    if (old != NULL && strstr(old, "libencore.so") != NULL)
        return env_set(e, "LD_PRELOAD", old);
    if (old == NULL)
        old = "";
    if ((v = malloc(strlen(SAN_FIRST) + strlen(preload) + strlen(old) + 2)) == NULL)
        return ENC_ERR_NOMEM;
    sprintf(v, "%s%s%s%s", SAN_FIRST, preload, *old ? ":" : "", old);
    rv = env_set(e, "LD_PRELOAD", v);
    free(v);
    return rv;
}

/* Sets name to the search list "first:second", either alone when the
 * other is NULL or empty. */
static enc_status_t env_set_list(struct envb *e, const char *name, const char *first,
                                 const char *second)
{
    char *v;
    enc_status_t rv;

    if (first == NULL || *first == '\0' || second == NULL || *second == '\0')
        return env_set(e, name, first != NULL && *first != '\0' ? first : second);
    if ((v = malloc(strlen(first) + strlen(second) + 2)) == NULL)
        return ENC_ERR_NOMEM;
    sprintf(v, "%s:%s", first, second);
    rv = env_set(e, name, v);
    free(v);
    return rv;
}

/* --openmp llvm: LLVM's OpenMP runtime, after everything else preloaded
 * (libencore, whether preloaded or linked, defines no OpenMP symbol). */
static enc_status_t add_openmp(struct envb *e, const struct enc_run_opts *o)
{
    const char *old = NULL;

    if (!o->openmp_llvm)
        return ENC_OK;
    for (int i = 0; i < e->n && old == NULL; i++)
        if (strncmp(e->v[i], "LD_PRELOAD=", 11) == 0)
            old = e->v[i] + 11;
    return env_set_list(e, "LD_PRELOAD", old, ENC_RUN_LLVM_OPENMP);
}

/* Open MPI leaks at exit by design, so LeakSanitizer would fail every rank
 * of an ASan build: ranks get detect_leaks=0 unless ASAN_OPTIONS is set
 * (make check sets it, also with detect_leaks=0). */
static enc_status_t add_san_options(struct envb *e)
{
#ifdef ENC_SANITIZER_RUNTIME
    if (strstr(ENC_SANITIZER_RUNTIME, "asan") != NULL && getenv("ASAN_OPTIONS") == NULL)
        return env_set(e, "ASAN_OPTIONS", "detect_leaks=0:abort_on_error=1");
#endif
    (void)e;
    return ENC_OK;
}

/* encore's sitecustomize (mpi4py set-up) goes first on PYTHONPATH. */
static enc_status_t add_pythonpath(struct envb *e)
{
    char dir[4096];

    if (enc_run_find_python_dir(dir, sizeof(dir)) == NULL)
        return ENC_OK;
    return env_set_list(e, "PYTHONPATH", dir, getenv("PYTHONPATH"));
}

enc_status_t enc_run_env_base(const struct enc_run_opts *o, const char *tracker,
                              const char *secret_hex, const char *preload, char ***out)
{
    struct envb e = {0};
    char size[16];
    enc_status_t rv = ENC_OK;

    for (char **p = environ; *p != NULL && rv == ENC_OK; p++)
        if (!dropped(*p))
            rv = env_put(&e, *p);
    snprintf(size, sizeof(size), "%d", o->np);
    if (rv == ENC_OK)
        rv = apply_x(&e, o);
    if (rv == ENC_OK && preload != NULL)
        rv = add_preload(&e, preload);
    if (rv == ENC_OK)
        rv = add_openmp(&e, o);
    if (rv == ENC_OK)
        rv = add_pythonpath(&e);
    if (rv == 0)
        rv = add_san_options(&e);
    if (rv == 0 && (rv = env_set(&e, "OMPI_MCA_ess_singleton_isolated", "1")) == 0 &&
        (rv = env_set(&e, "ENCORE_TRACKER", tracker)) == 0 &&
        (rv = env_set(&e, "ENCORE_SECRET", secret_hex)) == 0)
        rv = env_set(&e, "ENCORE_SIZE", size);
    if (rv != ENC_OK) {
        enc_run_env_free(e.v);
        return rv;
    }
    *out = e.v;
    return ENC_OK;
}

enc_status_t enc_run_env_for_rank(char **base, const struct enc_run_opts *o, int rank,
                                  uint32_t inc, char ***out)
{
    struct envb e = {0};
    char num[16], num2[16], inj[64];
    enc_status_t rv = ENC_OK;

    for (char **p = base; *p != NULL && rv == ENC_OK; p++)
        rv = env_put(&e, *p);
    snprintf(num, sizeof(num), "%d", rank);
    snprintf(num2, sizeof(num2), "%u", inc);
    enc_run_inject_value(o, rank, inc, inj, sizeof(inj));
    if (rv == ENC_OK && (rv = env_set(&e, "ENCORE_RANK", num)) == ENC_OK &&
        (rv = env_set(&e, "ENCORE_INCARNATION", num2)) == ENC_OK && inj[0] != '\0')
        rv = env_set(&e, "ENCORE_INJECT", inj);
    if (rv != ENC_OK) {
        enc_run_env_free(e.v);
        return rv;
    }
    *out = e.v;
    return ENC_OK;
}

enc_status_t enc_run_env_add(char ***env, const char *name, const char *val)
{
    struct envb e = {.v = *env};
    enc_status_t rv;

    while (e.v[e.n] != NULL)
        e.n++;
    e.cap = e.n + 1;
    rv = env_set(&e, name, val);
    *env = e.v;
    return rv;
}

enc_status_t enc_run_env_rankdir(char ***env, const char *dir)
{
    enc_status_t rv;

    if ((rv = enc_run_env_add(env, "OMPI_MCA_orte_tmpdir_base", dir)) == ENC_OK)
        rv = enc_run_env_add(env, "ENCORE_RANK_TMPDIR", dir);
    return rv;
}

void enc_run_env_free(char **env)
{
    for (char **p = env; p != NULL && *p != NULL; p++)
        free(*p);
    free(env);
}
