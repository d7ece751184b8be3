/*
 * placement.c - the host list and rank mapping, as mpirun does them:
 * "-H a:2,b", hostfile lines "a slots=2 max_slots=4", fill by slot in host
 * order, --map-by node round robin, --oversubscribe; and the choice of a
 * new host for the ranks of a lost one.
 */
#include "enc.h"
#include "launcher/placement.h"

#include <ctype.h>
#include <errno.h>
#include <hwloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One line into msg; ENC_ERR_INVAL. */
static enc_status_t bad(char *msg, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static enc_status_t bad(char *msg, size_t cap, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, cap, fmt, ap);
    va_end(ap);
    return ENC_ERR_INVAL;
}

static bool printable(const char *s)
{
    for (; *s != '\0'; s++)
        if (!isgraph((unsigned char)*s))
            return false;
    return true;
}

enc_status_t enc_run_hosts_add(struct enc_run_hostlist *hl, const char *name, int slots,
                               char *msg, size_t cap)
{
    size_t len = strlen(name);

    if (len == 0 || len >= ENC_RUN_HOST_NAME_MAX || !printable(name))
        return bad(msg, cap, "host name '%.200s': expected 1..%d printable characters, no spaces",
                   name, ENC_RUN_HOST_NAME_MAX - 1);
    if (slots < 1 || slots > ENC_RUN_MAX_SLOTS)
        return bad(msg, cap, "host %s: %d slots, expected 1..%d", name, slots, ENC_RUN_MAX_SLOTS);
    for (int i = 0; i < hl->n; i++) {
        if (strcmp(hl->h[i].name, name) == 0) {
            if (hl->h[i].slots > ENC_RUN_MAX_SLOTS - slots)
                return bad(msg, cap, "host %s: more than %d slots in all", name,
                           ENC_RUN_MAX_SLOTS);
            hl->h[i].slots += slots;
            return ENC_OK;
        }
    }
    if (hl->n == ENC_RUN_MAX_HOSTS)
        return bad(msg, cap, "host %s: more than %d hosts", name, ENC_RUN_MAX_HOSTS);
    hl->h[hl->n] = (struct enc_run_host){.slots = slots};
    memcpy(hl->h[hl->n].name, name, len + 1);
    hl->n++;
    return ENC_OK;
}

static enc_status_t positive(const char *s, size_t len, int *out)
{
    char buf[16], *end;
    long v;

    if (len == 0 || len >= sizeof(buf))
        return ENC_ERR_INVAL;
    memcpy(buf, s, len);
    buf[len] = '\0';
    v = strtol(buf, &end, 10);
    if (!isdigit((unsigned char)buf[0]) || *end != '\0' || v < 1 || v > ENC_RUN_MAX_SLOTS)
        return ENC_ERR_INVAL;
    *out = (int)v;
    return ENC_OK;
}

/* One "-H" entry: "name" or "name:N". */
static enc_status_t list_entry(struct enc_run_hostlist *hl, const char *s, size_t len,
                               char *msg, size_t cap)
{
    const char *colon = memchr(s, ':', len);
    char name[ENC_RUN_HOST_NAME_MAX];
    size_t nl = colon ? (size_t)(colon - s) : len;
    int slots = 1;

    if (nl == 0 || nl >= sizeof(name) ||
        (colon && positive(colon + 1, len - nl - 1, &slots) != ENC_OK))
        return bad(msg, cap, "entry '%.*s': expected name or name:N (a name of 1..%d "
                   "characters, N in 1..%d)", (int)ENC_MIN(len, 200), s,
                   ENC_RUN_HOST_NAME_MAX - 1, ENC_RUN_MAX_SLOTS);
    memcpy(name, s, nl);
    name[nl] = '\0';
    return enc_run_hosts_add(hl, name, slots, msg, cap);
}

enc_status_t enc_run_hosts_parse_list(struct enc_run_hostlist *hl, const char *list,
                                      char *msg, size_t cap)
{
    const char *s = list;
    enc_status_t rv;

    for (;;) {
        size_t len = strcspn(s, ",");

        if ((rv = list_entry(hl, s, len, msg, cap)) != ENC_OK)
            return rv;
        if (s[len] == '\0')
            return ENC_OK;
        s += len + 1;
    }
}

/* "slots=N" / "max_slots=N" / "count=N" words after the host name. */
static enc_status_t line_word(const char *w, size_t len, int *slots)
{
    static const char *const keys[] = {"slots=", "max_slots=", "max-slots=", "count=", "cpu="};
    int v;

    for (size_t i = 0; i < ENC_ARRAY_SIZE(keys); i++) {
        size_t kl = strlen(keys[i]);

        if (len <= kl || strncmp(w, keys[i], kl) != 0)
            continue;
        if (positive(w + kl, len - kl, &v) != ENC_OK)
            return ENC_ERR_INVAL;
        if (strncmp(keys[i], "max", 3) != 0)
            *slots = v;          /* max_slots bounds oversubscription only */
        return ENC_OK;
    }
    return ENC_ERR_INVAL;
}

enc_status_t enc_run_hosts_parse_line(struct enc_run_hostlist *hl, const char *line,
                                      int default_slots, char *msg, size_t cap)
{
    size_t end = strcspn(line, "#\r\n"), pos = 0, len;
    char name[ENC_RUN_HOST_NAME_MAX];
    int slots = default_slots;
    bool have_name = false;

    while (pos < end) {
        while (pos < end && isspace((unsigned char)line[pos]))
            pos++;
        for (len = 0; pos + len < end && !isspace((unsigned char)line[pos + len]); len++)
            ;
        if (len == 0)
            break;
        if (!have_name) {
            if (len >= sizeof(name))
                goto bad;
            memcpy(name, line + pos, len);
            name[len] = '\0';
            have_name = true;
        } else if (line_word(line + pos, len, &slots) != ENC_OK) {
            goto bad;
        }
        pos += len;
    }
    return have_name ? enc_run_hosts_add(hl, name, slots, msg, cap) : ENC_OK;
bad:
    return bad(msg, cap, "'%.*s': expected host [slots=N] [max_slots=M] (a name of 1..%d "
               "characters, N in 1..%d)", (int)ENC_MIN(end, 200), line,
               ENC_RUN_HOST_NAME_MAX - 1, ENC_RUN_MAX_SLOTS);
}

enc_status_t enc_run_hosts_parse_file(struct enc_run_hostlist *hl, const char *path,
                                      int default_slots, char *msg, size_t cap)
{
    char line[1024], why[400];
    enc_status_t rv = ENC_OK;
    FILE *f = fopen(path, "r");
    int no = 0;

    if (f == NULL)
        return bad(msg, cap, "cannot read it: %s", strerror(errno));
    while (rv == ENC_OK && fgets(line, sizeof(line), f) != NULL) {
        no++;
        if (strchr(line, '\n') == NULL && !feof(f))
            rv = bad(msg, cap, "line %d: longer than %zu characters", no, sizeof(line) - 2);
        else if ((rv = enc_run_hosts_parse_line(hl, line, default_slots, why, sizeof(why))) != ENC_OK)
            snprintf(msg, cap, "line %d %s", no, why);
    }
    fclose(f);
    if (rv == ENC_OK && hl->n == 0)
        rv = bad(msg, cap, "names no host");
    return rv;
}

void enc_run_hosts_mark_local(struct enc_run_hostlist *hl)
{
    char me[256] = "";

    if (gethostname(me, sizeof(me) - 1) != 0)
        me[0] = '\0';
    for (int i = 0; i < hl->n; i++) {
        const char *n = hl->h[i].name;

        hl->h[i].local = strcmp(n, "localhost") == 0 || strcmp(n, "127.0.0.1") == 0 ||
                         (me[0] != '\0' && strcmp(n, me) == 0);
    }
}

int enc_run_local_cores(void)
{
    hwloc_topology_t topo;
    int n = 1;

    if (hwloc_topology_init(&topo) != 0)
        return 1;
    if (hwloc_topology_load(topo) == 0)
        n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    hwloc_topology_destroy(topo);
    return n > 0 ? n : 1;
}

int enc_run_hosts_slots(const struct enc_run_hostlist *hl)
{
    int s = 0;

    for (int i = 0; i < hl->n; i++)
        s += hl->h[i].slots;
    return s;
}

/* Fill by slot; past the slots (oversubscribe) wrap around in the same
 * pattern, as mpirun does. */
static void map_by_slot(const struct enc_run_hostlist *hl, int np, int *host_of)
{
    int r = 0;

    while (r < np)
        for (int h = 0; h < hl->n && r < np; h++)
            for (int k = 0; k < hl->h[h].slots && r < np; k++)
                host_of[r++] = h;
}

/* Round robin over hosts, skipping full ones until every host is full. */
static void map_by_node(const struct enc_run_hostlist *hl, int np, int *host_of)
{
    int used[ENC_RUN_MAX_HOSTS] = {0}, r = 0;
    bool all_full = false;

    while (r < np) {
        bool placed = false;

        for (int h = 0; h < hl->n && r < np; h++) {
            if (!all_full && used[h] >= hl->h[h].slots)
                continue;
            used[h]++;
            host_of[r++] = h;
            placed = true;
        }
        all_full = all_full || !placed;
    }
}

enc_status_t enc_run_map(const struct enc_run_hostlist *hl, int np, bool by_node,
                         bool oversubscribe, int *host_of)
{
    if (hl->n == 0 || (np > enc_run_hosts_slots(hl) && !oversubscribe))
        return ENC_ERR_INVAL;
    if (by_node)
        map_by_node(hl, np, host_of);
    else
        map_by_slot(hl, np, host_of);
    return ENC_OK;
}

enc_status_t enc_run_free_host(const struct enc_run_hostlist *hl, const int *host_of, int np,
                               int *host)
{
    for (int h = 0; h < hl->n; h++) {
        int used = 0;

        if (hl->h[h].lost)
            continue;
        for (int r = 0; r < np; r++)
            used += host_of[r] == h;
        if (used < hl->h[h].slots) {
            *host = h;
            return ENC_OK;
        }
    }
    return ENC_ERR_NOT_FOUND;
}
