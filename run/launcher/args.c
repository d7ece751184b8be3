/*
 * args.c - encore-run's command line, mpirun style: options first, then the
 * program and its arguments untouched (parsing stops at the first
 * non-option, so "encore-run -n 2 ./a.out -n 5" gives -n 5 to a.out).
 */
#include "enc.h"
#include "launcher/launcher.h"

#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OPT_TAG = 256, OPT_TIMEOUT, OPT_MAXR, OPT_POLICY, OPT_INJECT, OPT_BIND, OPT_INFO,
       OPT_HOST, OPT_HOSTFILE, OPT_MAPBY, OPT_OVERSUB, OPT_RSH };

static const struct option long_opts[] = {
    {"np", 1, NULL, 'n'},           {"host", 1, NULL, OPT_HOST},
    {"tag-output", 0, NULL, OPT_TAG}, {"timeout", 1, NULL, OPT_TIMEOUT},
    {"max-restarts", 1, NULL, OPT_MAXR}, {"policy", 1, NULL, OPT_POLICY},
    {"inject", 1, NULL, OPT_INJECT}, {"bind-to", 1, NULL, OPT_BIND},
    {"info", 0, NULL, OPT_INFO},    {"help", 0, NULL, 'h'},
    {"hostfile", 1, NULL, OPT_HOSTFILE}, {"machinefile", 1, NULL, OPT_HOSTFILE},
    {"map-by", 1, NULL, OPT_MAPBY}, {"oversubscribe", 0, NULL, OPT_OVERSUB},
    {"rsh", 1, NULL, OPT_RSH},
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
            "  --bind-to core|package|none                 bind ranks with hwloc\n"
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

static enc_status_t number(const char *s, double *v)
{
    char *end;

    *v = strtod(s, &end);
    return end == s || *end != '\0' || *v < 0 ? ENC_ERR_INVAL : ENC_OK;
}

static enc_status_t hosts(struct enc_run_opts *o)
{
    if (o->hosts == NULL && (o->hosts = calloc(1, sizeof(*o->hosts))) == NULL)
        return ENC_ERR_NOMEM;
    return ENC_OK;
}

static enc_status_t opt(struct enc_run_opts *o, int ch, const char *arg)
{
    double v = 0;

    switch (ch) {
    case 'n': return number(arg, &v) != ENC_OK || (o->np = (int)v) < 1 ? ENC_ERR_INVAL : ENC_OK;
    case 'x': o->xvars[o->nx++] = (char *)arg; return ENC_OK;
    case 'H': case OPT_HOST: return hosts(o) != ENC_OK ? ENC_ERR_NOMEM
                                  : enc_run_hosts_parse_list(o->hosts, arg);
    case OPT_HOSTFILE: return hosts(o) != ENC_OK ? ENC_ERR_NOMEM
                              : enc_run_hosts_parse_file(o->hosts, arg, enc_run_local_cores());
    case OPT_MAPBY: o->map_by_node = strcmp(arg, "node") == 0;
        return o->map_by_node || strcmp(arg, "slot") == 0 ? ENC_OK : ENC_ERR_INVAL;
    case OPT_OVERSUB: o->oversubscribe = true; return ENC_OK;
    case OPT_RSH: o->rsh = arg; return ENC_OK;
    case OPT_TAG: o->tag_output = true; return ENC_OK;
    case OPT_TIMEOUT: return number(arg, &o->timeout_s);
    case OPT_MAXR: if (number(arg, &v) != ENC_OK) return ENC_ERR_INVAL;
        o->max_restarts = (int)v; return ENC_OK;
    case OPT_POLICY: o->fail_all = strcmp(arg, "fail-all") == 0;
        return o->fail_all || strcmp(arg, "retry-one") == 0 ? ENC_OK : ENC_ERR_INVAL;
    case OPT_INJECT: return enc_run_parse_inject(o, arg);
    case OPT_BIND: o->bind_to = arg;
        return strcmp(arg, "core") && strcmp(arg, "package") && strcmp(arg, "none")
                   ? ENC_ERR_INVAL : ENC_OK;
    case OPT_INFO: o->info = true; return ENC_OK;
    default: return ENC_ERR_INVAL;
    }
}

/* Inside a Slurm allocation without -H/--hostfile: its nodes and slots,
 * agents started as srun steps unless --rsh says otherwise. */
static enc_status_t slurm_defaults(struct enc_run_opts *o, bool rsh_given)
{
    enc_status_t rv;

    if (o->hosts != NULL || getenv("SLURM_JOB_ID") == NULL)
        return ENC_OK;
    if (hosts(o) != ENC_OK)
        return ENC_ERR_NOMEM;
    if ((rv = enc_run_slurm_hosts(o->hosts)) != ENC_OK) {
        free(o->hosts);
        o->hosts = NULL;
        return rv == ENC_ERR_NOT_FOUND ? ENC_OK : rv;
    }
    if (!rsh_given)
        o->rsh = ENC_RUN_SLURM_RSH;
    return ENC_OK;
}

enc_status_t enc_run_parse_args(int argc, char **argv, struct enc_run_opts *o, bool *handled)
{
    bool rsh_given = false;

    int ch;

    *handled = false;
    *o = (struct enc_run_opts){.max_restarts = ENC_RUN_DEFAULT_RESTARTS, .rsh = "ssh"};
    if ((o->xvars = calloc((size_t)argc, sizeof(char *))) == NULL)
        return ENC_ERR_NOMEM;
    fix_single_dash(argc, argv);
    while ((ch = getopt_long(argc, argv, "+n:x:H:h", long_opts, NULL)) != -1) {
        if (ch == 'h') {
            usage(stdout);
            *handled = true;
            return ENC_OK;
        }
        rsh_given |= ch == OPT_RSH;
        if (opt(o, ch, optarg) != ENC_OK) {
            if (ch != '?')
                fprintf(stderr, "encore-run: invalid argument for %s: '%s'\n",
                        argv[optind - 1], optarg ? optarg : "");
            usage(stderr);
            return ENC_ERR_INVAL;
        }
    }
    if (o->info) {
        enc_run_print_info(o);
        *handled = true;
        return ENC_OK;
    }
    if (o->np < 1 || optind >= argc) {
        fprintf(stderr, "encore-run: %s\n", o->np < 1 ? "-n N is required" : "no program given");
        usage(stderr);
        return ENC_ERR_INVAL;
    }
    o->argv = argv + optind;
    return slurm_defaults(o, rsh_given);
}

void enc_run_print_info(const struct enc_run_opts *o)
{
    printf("encore %s\n\nTunables (environment variables):\n", PACKAGE_VERSION);
    enc_tunables_print(stdout);
    printf("\nencore-run defaults:\n"
           "  --max-restarts %d   --policy retry-one   --bind-to none   --timeout none\n"
           "  restart backoff %d ms doubling, capped at %d ms; MPI_Abort grace %d ms\n",
           ENC_RUN_DEFAULT_RESTARTS, ENC_RUN_BACKOFF_MIN_MS, ENC_RUN_BACKOFF_MAX_MS,
           ENC_RUN_ABORT_GRACE_MS);
}
