/*
 * encore_tracker.c - encore-tracker: the tracker alone, for ranks started by another
 * launcher (a batch system, a script).  Those ranks export ENCORE_TRACKER,
 * ENCORE_SECRET[_FILE], ENCORE_RANK and ENCORE_SIZE; a rank that dies may be
 * re-registered with incarnation + 1 within ENCORE_REGISTER_TIMEOUT_MS.
 */
#include "enc.h"
#include "core/limits.h"
#include "core/parse.h"
#include "proto/auth.h"
#include "proto/msgs.h"
#include "tracker/tracker.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct opts {
    int size;
    const char *bind;
    uint16_t port;
    const char *secret_file;
};

struct job {
    int size;
    int finalized;                  /* ranks that passed MPI_Finalize */
    bool done;
    int status;                     /* exit status */
    char line[512];
};

static void usage(FILE *out)
{
    fprintf(out, "usage: encore-tracker -n N [--bind ADDR] [--port P] [--secret-file F]\n"
                 "Runs the encore tracker for N ranks started elsewhere; prints\n"
                 "ENCORE_TRACKER=host:port.  The job secret comes from ENCORE_SECRET or\n"
                 "ENCORE_SECRET_FILE, else it is generated and written to F (mode 0600).\n");
}

static enc_status_t uint_opt(const char *name, const char *arg, uint64_t min, uint64_t max, uint64_t *v)
{
    if (enc_parse_uint(arg, min, max, v) == ENC_OK)
        return ENC_OK;
    return enc_usage_error("encore-tracker", "%s '%s': expected an integer in %llu..%llu", name, arg,
               (unsigned long long)min, (unsigned long long)max);
}

static enc_status_t opt(struct opts *o, int ch, const char *arg)
{
    uint64_t v;

    switch (ch) {
    case 'n': if (uint_opt("-n", arg, 1, ENC_MAX_RANKS, &v) != ENC_OK) return ENC_ERR_INVAL;
        o->size = (int)v; return ENC_OK;
    case 'p': if (uint_opt("--port", arg, 0, 65535, &v) != ENC_OK) return ENC_ERR_INVAL;
        o->port = (uint16_t)v; return ENC_OK;
    case 'b': o->bind = arg; return *arg ? ENC_OK : enc_usage_error("encore-tracker", "--bind '': expected an address");
    case 's': o->secret_file = arg;
        return *arg ? ENC_OK : enc_usage_error("encore-tracker", "--secret-file '': expected a file name");
    case ':': return enc_usage_error("encore-tracker", "%s needs a value", arg);
    default: return enc_usage_error("encore-tracker", "unknown option '%s' (see encore-tracker --help)", arg);
    }
}

static enc_status_t parse(int argc, char **argv, struct opts *o)
{
    static const struct option lo[] = {{"np", 1, NULL, 'n'}, {"bind", 1, NULL, 'b'},
                                       {"port", 1, NULL, 'p'}, {"secret-file", 1, NULL, 's'},
                                       {"help", 0, NULL, 'h'}, {NULL, 0, NULL, 0}};
    char msg[512];
    int ch;

    opterr = 0;
    while ((ch = getopt_long(argc, argv, ":n:h", lo, NULL)) != -1) {
        if (ch == 'h') {
            usage(stdout);
            exit(0);
        }
        if (opt(o, ch, ch == ':' || ch == '?' ? argv[optind - 1] : optarg) != ENC_OK)
            return ENC_ERR_INVAL;
    }
    if (o->size == 0)
        return enc_usage_error("encore-tracker", "-n N is required (the number of ranks, 1..%d)", ENC_MAX_RANKS);
    if (optind != argc)
        return enc_usage_error("encore-tracker", "unexpected argument '%s' (encore-tracker takes options only)", argv[optind]);
    if (enc_tunables_check(ENC_TCLASS_USER, msg, sizeof(msg)) != ENC_OK ||
        enc_limits_nofile(2 * (uint64_t)o->size + 64, msg, sizeof(msg)) != ENC_OK)
        return enc_usage_error("encore-tracker", "%s", msg);
    enc_tunables_warn_unknown("encore-tracker", stderr);
    return ENC_OK;
}

static enc_status_t write_secret(const struct enc_secret *s, const char *path)
{
    char hex[2 * ENC_SECRET_LEN + 2];
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

    if (fd < 0) {
        ENC_ERROR("tracker", "cannot write the secret to %s: %m", path);
        return ENC_ERR_SYS;
    }
    enc_secret_to_hex(s, hex);
    strcat(hex, "\n");
    if (fchmod(fd, 0600) != 0 || write(fd, hex, strlen(hex)) != (ssize_t)strlen(hex)) {
        ENC_ERROR("tracker", "cannot write the secret to %s: %m", path);
        close(fd);
        return ENC_ERR_SYS;
    }
    return close(fd) == 0 ? ENC_OK : ENC_ERR_SYS;
}

static enc_status_t get_secret(struct enc_secret *s, const char *path)
{
    enc_status_t rv;

    if (enc_tunable_isset(ENC_TUNE_SECRET) || enc_tunable_isset(ENC_TUNE_SECRET_FILE))
        return enc_secret_from_env(s);
    if (path == NULL) {
        ENC_ERROR("tracker", "no ENCORE_SECRET in the environment: give --secret-file F");
        return ENC_ERR_INVAL;
    }
    if ((rv = enc_secret_generate(s)) != ENC_OK)
        return rv;
    return write_secret(s, path);
}

static void on_finalized(void *arg, int rank)
{
    struct job *j = arg;

    if (++j->finalized == j->size)
        j->done = true;
}

static void on_aborted(void *arg, int rank, int32_t code, const char *reason)
{
    struct job *j = arg;

    j->done = true;
    j->status = code >= 1 && code <= 255 ? code : 1;
    snprintf(j->line, sizeof(j->line), "encore-tracker: rank %d called MPI_Abort (errorcode %d): %s",
             rank, code, reason);
}

static void on_failed(void *arg, const char *why)
{
    struct job *j = arg;

    j->done = true;
    j->status = 1;
    snprintf(j->line, sizeof(j->line), "encore-tracker: %s", why);
}

static void on_dropped(void *arg, int rank, uint64_t first, uint64_t last)
{
    (void)arg;
    enc_tracker_print_dropped("encore-tracker", rank, first, last, stderr);
}

static void print_address(const struct opts *o, uint16_t port)
{
    char host[256] = "localhost";

    if (o->bind != NULL && strcmp(o->bind, "0.0.0.0") != 0 && strcmp(o->bind, "::") != 0)
        snprintf(host, sizeof(host), "%s", o->bind);
    else if (gethostname(host, sizeof(host)) != 0)
        snprintf(host, sizeof(host), "localhost");
    printf("ENCORE_TRACKER=%s:%u\n", host, port);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    struct opts o = {0};
    struct job j = {0};
    struct enc_secret s;
    struct enc_tracker *t = NULL;
    struct enc_tracker_config cfg = {0};
    const struct enc_tracker_recovery *rec;
    enc_status_t rv;

    enc_log_set_tag("tracker");
    if (parse(argc, argv, &o) != ENC_OK || get_secret(&s, o.secret_file) != ENC_OK)
        return 2;
    j.size = o.size;
    cfg = (struct enc_tracker_config){.size = o.size, .bind_host = o.bind, .port = o.port,
                                      .secret = &s};
    cfg.hooks = (struct enc_tracker_hooks){.arg = &j, .finalized = on_finalized,
                                           .aborted = on_aborted, .failed = on_failed,
                                           .dropped = on_dropped};
    if ((rv = enc_tracker_create(&t, &cfg)) != ENC_OK) {
        fprintf(stderr, "encore-tracker: cannot listen: %s\n", encore_strerror(rv));
        return 1;
    }
    print_address(&o, enc_tracker_port(t));
    while (!j.done && enc_tracker_poll(t, -1, NULL, 0) == ENC_OK)
        ;
    if (j.status != 0) { /* let the ranks read EVENT ABORT before the sockets close */
        uint64_t grace = enc_deadline_ms(1000);
        while (enc_ms_left(grace) > 0 &&
               enc_tracker_poll(t, enc_ms_left(grace), NULL, 0) == ENC_OK)
            ;
        fprintf(stderr, "%s\n", j.line);
    }
    if (j.status != 0 || enc_tracker_recoveries(t, &rec) > 0 || enc_log_level() >= ENC_LOG_INFO)
        enc_tracker_print_summary(t, NULL, NULL, stderr);
    enc_tracker_destroy(t);
    return j.status;
}
