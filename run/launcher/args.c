/*
 * args.c - encore-run's command line, mpirun style: options first, then the
 * program and its arguments untouched (parsing stops at the first
 * non-option, so "encore-run -n 2 ./a.out -n 5" gives -n 5 to a.out).
 * Every bad option gets one line naming the option, the value and what is
 * allowed; so does every bad ENCORE_* variable (-x ones included).
 */
#include "enc.h"
#include "core/parse.h"
#include "launcher/launcher.h"

#include "config.h"

#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OPT_TAG = 256, OPT_TIMEOUT, OPT_MAXR, OPT_POLICY, OPT_INJECT, OPT_BIND, OPT_INFO,
       OPT_HOST, OPT_SUMMARY, OPT_HOSTFILE, OPT_MAPBY, OPT_OVERSUB, OPT_RSH, OPT_OPENMP };

static const struct option long_opts[] = {
    {"np", 1, NULL, 'n'},           {"host", 1, NULL, OPT_HOST},
    {"tag-output", 0, NULL, OPT_TAG}, {"timeout", 1, NULL, OPT_TIMEOUT},
    {"max-restarts", 1, NULL, OPT_MAXR}, {"policy", 1, NULL, OPT_POLICY},
    {"inject", 1, NULL, OPT_INJECT}, {"bind-to", 1, NULL, OPT_BIND},
    {"info", 0, NULL, OPT_INFO},    {"summary", 0, NULL, OPT_SUMMARY},
    {"hostfile", 1, NULL, OPT_HOSTFILE}, {"machinefile", 1, NULL, OPT_HOSTFILE},
    {"map-by", 1, NULL, OPT_MAPBY}, {"oversubscribe", 0, NULL, OPT_OVERSUB},
    {"rsh", 1, NULL, OPT_RSH},      {"openmp", 1, NULL, OPT_OPENMP},
    {"help", 0, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static void usage(FILE *out)
{
    fprintf(out,
            "usage: encore-run -n|-np N [options] prog [args...]\n"
            "  -x VAR[=val]          forward VAR from this environment, or set it (repeatable)\n"
            "  -H|--host LIST        hosts and slots: a:2,b:2 (a host without :N has one slot)\n"
            "  --hostfile F          hosts from F: lines 'host slots=N' (# comments)\n"
            "  --map-by slot|node    fill each host's slots in order (default), or round robin\n"
            "  --oversubscribe       allow more ranks than slots\n"
            "  --rsh CMD             start remote agents as 'CMD HOST COMMAND...' (default ssh)\n"
            "  --tag-output          prefix each output line with [1,rank]<stdout>: \n"
            "  --timeout S           kill the job after S seconds\n"
            "  --max-restarts R      restarts allowed per rank (default %d)\n"
            "  --policy P            retry-one (restart the dead rank) or fail-all\n"
            "  --inject kill:rank=R:op=K[:incarnation=I]   rank R kills itself at collective K\n"
            "  --inject stop:rank=R:op=K[:incarnation=I]   rank R stops itself at collective K\n"
            "  --inject random:every=T[:seed=S]            SIGKILL a random rank every T s\n"
            "  --bind-to core|package|none|auto            bind ranks with hwloc (auto: as mpirun)\n"
            "  --openmp gnu|llvm     OpenMP runtime: the program's own (default), or LLVM's\n"
            "                        libomp standing in for GCC's libgomp (its pool survives\n"
            "                        the fork of a snapshot without being stopped)\n"
            "  --summary             always print the job summary (restarts, peak memory)\n"
            "  --info                print every tunable and the defaults\n",
            ENC_RUN_DEFAULT_RESTARTS);
}

/* mpirun accepts "-np N" with one dash: rewrite it for getopt_long. */
static void fix_single_dash(int argc, char **argv)
{
    for (int i = 1; i < argc && argv[i][0] == '-'; i++)
        if (strcmp(argv[i], "-np") == 0)
            argv[i] = "--np";
}

static enc_status_t int_opt(const char *name, const char *arg, uint64_t min, uint64_t max, int *out)
{
    uint64_t v;

    if (enc_parse_uint(arg, min, max, &v) != ENC_OK)
        return enc_usage_error("encore-run", "%s '%s': expected an integer in %llu..%llu", name, arg,
                   (unsigned long long)min, (unsigned long long)max);
    *out = (int)v;
    return ENC_OK;
}

static enc_status_t choice(const char *name, const char *arg, const char *const *words, int *idx)
{
    char list[128] = "";
    size_t k = 0;
    int n = 0;

    for (int i = 0; words[i] != NULL; i++, n++) {
        if (strcmp(arg, words[i]) == 0) {
            *idx = i;
            return ENC_OK;
        }
    }
    for (int i = 0; i < n && k < sizeof(list); i++) /* "a, b or c" */
        k += (size_t)snprintf(list + k, sizeof(list) - k, "%s%s",
                              i == 0 ? "" : i == n - 1 ? " or " : ", ", words[i]);
    return enc_usage_error("encore-run", "%s '%s': expected %s", name, arg, list);
}

/* --openmp gnu|llvm: llvm must be installed where encore-run runs. */
static enc_status_t openmp_opt(struct enc_run_opts *o, const char *arg)
{
    static const char *const runtimes[] = {"gnu", "llvm", NULL};
    char msg[512];
    int idx;

    if (choice("--openmp", arg, runtimes, &idx) != ENC_OK)
        return ENC_ERR_INVAL;
    o->openmp_llvm = idx == 1;
    if (o->openmp_llvm && enc_run_find_library(ENC_RUN_LLVM_OPENMP, msg, sizeof(msg)) != ENC_OK)
        return enc_usage_error("encore-run", "--openmp llvm: LLVM's OpenMP runtime is not "
                               "installed (%s; Debian package libomp5)", msg);
    return ENC_OK;
}

/* -x VAR or -x VAR=value, VAR a variable name. */
static enc_status_t x_opt(struct enc_run_opts *o, const char *arg)
{
    size_t n = strcspn(arg, "=");

    if (n == 0 || isdigit((unsigned char)arg[0]) ||
        strspn(arg, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") != n)
        return enc_usage_error("encore-run", "-x '%s': expected VAR or VAR=value with VAR a variable name", arg);
    o->xvars[o->nx++] = (char *)arg;
    return ENC_OK;
}

static enc_status_t hosts(struct enc_run_opts *o)
{
    if (o->hosts == NULL && (o->hosts = calloc(1, sizeof(*o->hosts))) == NULL)
        return ENC_ERR_NOMEM;
    return ENC_OK;
}

/* -H/--host LIST and --hostfile F: the parser's line after the option's. */
static enc_status_t host_opt(struct enc_run_opts *o, int ch, const char *arg)
{
    char msg[512];
    enc_status_t rv;

    if ((rv = hosts(o)) != ENC_OK)
        return rv;
    if (ch == OPT_HOSTFILE)
        rv = enc_run_hosts_parse_file(o->hosts, arg, enc_run_local_cores(), msg, sizeof(msg));
    else
        rv = enc_run_hosts_parse_list(o->hosts, arg, msg, sizeof(msg));
    if (rv != ENC_OK)
        return enc_usage_error("encore-run", "%s '%s': %s",
                               ch == OPT_HOSTFILE ? "--hostfile" : "--host", arg, msg);
    return ENC_OK;
}

static enc_status_t opt(struct enc_run_opts *o, int ch, const char *arg)
{
    static const char *const policies[] = {"retry-one", "fail-all", NULL};
    static const char *const binds[] = {"core", "package", "none", "auto", NULL};
    static const char *const maps[] = {"slot", "node", NULL};
    int idx;

    switch (ch) {
    case 'n': return int_opt("-n", arg, 1, ENC_MAX_RANKS, &o->np);
    case 'x': return x_opt(o, arg);
    case 'H': case OPT_HOST: case OPT_HOSTFILE: return host_opt(o, ch, arg);
    case OPT_MAPBY:
        if (choice("--map-by", arg, maps, &idx) != ENC_OK)
            return ENC_ERR_INVAL;
        o->map_by_node = idx == 1;
        return ENC_OK;
    case OPT_OVERSUB: o->oversubscribe = true; return ENC_OK;
    case OPT_OPENMP: return openmp_opt(o, arg);
    case OPT_RSH: o->rsh = arg;
        return arg[strspn(arg, " \t")] != '\0' ? ENC_OK
               : enc_usage_error("encore-run", "--rsh '%s': expected a command", arg);
    case OPT_TAG: o->tag_output = true; return ENC_OK;
    case OPT_TIMEOUT:
        return enc_parse_positive(arg, 1e9, &o->timeout_s) == ENC_OK ? ENC_OK
               : enc_usage_error("encore-run", "--timeout '%s': expected seconds, a number > 0", arg);
    case OPT_MAXR: return int_opt("--max-restarts", arg, 0, ENC_RUN_MAX_RESTARTS, &o->max_restarts);
    case OPT_POLICY:
        if (choice("--policy", arg, policies, &idx) != ENC_OK)
            return ENC_ERR_INVAL;
        o->fail_all = idx == 1;
        return ENC_OK;
    case OPT_INJECT: return enc_run_parse_inject(o, arg);
    case OPT_BIND: o->bind_to = arg; return choice("--bind-to", arg, binds, &idx);
    case OPT_INFO: o->info = true; return ENC_OK;
    case OPT_SUMMARY: o->summary = true; return ENC_OK;
    default: return ENC_ERR_INVAL;
    }
}

/* Inside a Slurm allocation without -H/--hostfile: its nodes and slots,
 * agents started as srun steps unless --rsh says otherwise. */
static enc_status_t slurm_defaults(struct enc_run_opts *o, bool rsh_given)
{
    char msg[512];
    enc_status_t rv;

    if (o->hosts != NULL || getenv("SLURM_JOB_ID") == NULL)
        return ENC_OK;
    if (hosts(o) != ENC_OK)
        return ENC_ERR_NOMEM;
    if ((rv = enc_run_slurm_hosts(o->hosts, msg, sizeof(msg))) != ENC_OK) {
        free(o->hosts);
        o->hosts = NULL;
        return rv == ENC_ERR_NOT_FOUND ? ENC_OK : enc_usage_error("encore-run", "%s", msg);
    }
    if (!rsh_given)
        o->rsh = ENC_RUN_SLURM_RSH;
    return ENC_OK;
}

/* Hosts (given or Slurm's) against -n: more ranks than slots only with
 * --oversubscribe, as mpirun. */
static enc_status_t check_hosts(struct enc_run_opts *o, bool rsh_given)
{
    enc_status_t rv;
    int slots;

    if ((rv = slurm_defaults(o, rsh_given)) != ENC_OK || o->hosts == NULL)
        return rv;
    slots = enc_run_hosts_slots(o->hosts);
    if (o->np > slots && !o->oversubscribe)
        return enc_usage_error("encore-run", "-n %d: more ranks than the %d slot%s of the hosts "
                               "(add slots or use --oversubscribe)", o->np, slots,
                               slots == 1 ? "" : "s");
    return ENC_OK;
}

/* getopt's own complaints, as one line each. */
static enc_status_t getopt_error(int ch, char **argv)
{
    const char *arg = argv[optind - 1];

    if (ch == ':')
        return enc_usage_error("encore-run", "%s needs a value", arg);
    if (optopt != 0 && strncmp(arg, "--", 2) != 0)
        return enc_usage_error("encore-run", "unknown option '-%c' (see encore-run --help)", optopt);
    return enc_usage_error("encore-run", "unknown option '%s' (see encore-run --help)", arg);
}

/* -x ENCORE_*=value also configures encore-run (its tracker) and is
 * checked with the environment. */
static void export_x(const struct enc_run_opts *o)
{
    for (int i = 0; i < o->nx; i++) {
        char *eq = strchr(o->xvars[i], '=');

        if (eq != NULL && strncmp(o->xvars[i], "ENCORE_", 7) == 0) {
            *eq = '\0';
            setenv(o->xvars[i], eq + 1, 1);
            *eq = '=';
        }
    }
}

/* What depends on -n, and the environment. */
static enc_status_t check_job(struct enc_run_opts *o, int argc, char **argv, bool rsh_given)
{
    char msg[512];

    if (o->np < 1)
        return enc_usage_error("encore-run", "-n N is required (the number of ranks, 1..%d)", ENC_MAX_RANKS);
    if (optind >= argc)
        return enc_usage_error("encore-run", "no program given (usage: encore-run -n N [options] prog [args...])");
    for (int i = 0; i < o->ninj; i++)
        if (o->inj[i].rank >= o->np)
            return enc_usage_error("encore-run", "--inject '%s': rank %d out of range for -n %d (ranks 0..%d)",
                       o->inj[i].spec, o->inj[i].rank, o->np, o->np - 1);
    export_x(o);
    if (enc_tunables_check(ENC_TCLASS_USER, msg, sizeof(msg)) != ENC_OK)
        return enc_usage_error("encore-run", "%s", msg);
    enc_tunables_warn_unknown("encore-run", stderr);
    o->argv = argv + optind;
    return check_hosts(o, rsh_given);
}

enc_status_t enc_run_parse_args(int argc, char **argv, struct enc_run_opts *o, bool *handled)
{
    static const char optstring[] = "+:n:x:H:h";
    bool rsh_given = false;
    int ch;

    *handled = false;
    *o = (struct enc_run_opts){.max_restarts = ENC_RUN_DEFAULT_RESTARTS, .rsh = "ssh"};
    if ((o->xvars = calloc((size_t)argc, sizeof(char *))) == NULL)
        return ENC_ERR_NOMEM;
    fix_single_dash(argc, argv);
    opterr = 0;
    while ((ch = getopt_long(argc, argv, optstring, long_opts, NULL)) != -1) {
        if (ch == 'h') {
            usage(stdout);
            *handled = true;
            return ENC_OK;
        }
        if (ch == '?' || ch == ':')
            return getopt_error(ch, argv);
        rsh_given |= ch == OPT_RSH;
        if (opt(o, ch, optarg) != ENC_OK)
            return ENC_ERR_INVAL;
    }
    if (o->info) {
        enc_run_print_info(o);
        *handled = true;
        return ENC_OK;
    }
    return check_job(o, argc, argv, rsh_given);
}

void enc_run_print_info(const struct enc_run_opts *o)
{
    printf("encore %s\n\n", PACKAGE_VERSION);
    enc_tunables_print(stdout);
    printf("\nencore-run defaults:\n"
           "  --max-restarts %d   --policy retry-one   --bind-to auto   --timeout none\n"
           "  restart backoff %d ms doubling, capped at %d ms; MPI_Abort grace %d ms\n",
           ENC_RUN_DEFAULT_RESTARTS, ENC_RUN_BACKOFF_MIN_MS, ENC_RUN_BACKOFF_MAX_MS,
           ENC_RUN_ABORT_GRACE_MS);
}
