/*
 * slurm.c - encore-run inside a Slurm allocation: the hosts and slots come
 * from SLURM_JOB_NODELIST (compressed, "node[1-3,5],gpu07") and
 * SLURM_TASKS_PER_NODE ("2(x3),1"), and agents are started as one-task
 * srun steps (--overlap beside the ranks' own, --no-kill so a lost node
 * does not take the other steps down).
 */
#include "enc.h"
#include "launcher/placement.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 1..9 decimal digits at s (no sign, no space); *end after them. */
static bool digits(const char *s, char **end, long *v)
{
    size_t n = strspn(s, "0123456789");

    if (n == 0 || n > 9)
        return false;
    *v = strtol(s, end, 10);
    return true;
}

/* Expands one range list "1-3,05" after prefix, numbers keeping their
 * zero padding, adding each name with slots 0 (filled in later). */
static enc_status_t expand(const char *prefix, const char *list, size_t len, const char *suffix,
                           char (*names)[ENC_RUN_HOST_NAME_MAX], int *n, int max)
{
    char buf[128];

    if (len >= sizeof(buf))
        return ENC_ERR_INVAL;
    memcpy(buf, list, len);
    buf[len] = '\0';
    for (char *save = NULL, *r = strtok_r(buf, ",", &save); r; r = strtok_r(NULL, ",", &save)) {
        char *dash = strchr(r, '-'), *end;
        long lo, hi;
        int width = (int)(dash ? (size_t)(dash - r) : strlen(r));

        if (!digits(r, &end, &lo) || (dash && (end != dash || !digits(dash + 1, &end, &hi))))
            return ENC_ERR_INVAL;
        if (!dash)
            hi = lo;
        if (*end != '\0' || hi < lo || hi - lo > 100000)
            return ENC_ERR_INVAL;
        for (long v = lo; v <= hi; v++) {
            char full[2 * ENC_RUN_HOST_NAME_MAX];
            int l = snprintf(full, sizeof(full), "%s%0*ld%s", prefix, width, v, suffix);

            if (*n == max || l < 0 || l >= ENC_RUN_HOST_NAME_MAX)
                return ENC_ERR_INVAL;
            memcpy(names[(*n)++], full, (size_t)l + 1);
        }
    }
    return ENC_OK;
}

enc_status_t enc_run_slurm_nodelist(const char *s, char (*names)[ENC_RUN_HOST_NAME_MAX], int *n,
                                    int max)
{
    *n = 0;
    while (*s != '\0') {
        size_t plen = strcspn(s, ",[");
        char prefix[ENC_RUN_HOST_NAME_MAX];
        const char *close;

        if (plen == 0 || plen >= sizeof(prefix))
            return ENC_ERR_INVAL;
        memcpy(prefix, s, plen);
        prefix[plen] = '\0';
        s += plen;
        if (*s == '[') {
            if ((close = strchr(s, ']')) == NULL ||
                expand(prefix, s + 1, (size_t)(close - s - 1), "", names, n, max) != ENC_OK)
                return ENC_ERR_INVAL;
            s = close + 1;
        } else {
            if (*n == max)
                return ENC_ERR_INVAL;
            snprintf(names[(*n)++], ENC_RUN_HOST_NAME_MAX, "%s", prefix);
        }
        if (*s == ',')
            s++;
        else if (*s != '\0')
            return ENC_ERR_INVAL;
    }
    return *n > 0 ? ENC_OK : ENC_ERR_INVAL;
}

enc_status_t enc_run_slurm_tasks(const char *s, int *slots, int n)
{
    int k = 0;

    while (*s != '\0') {
        char *end;
        long v = strtol(s, &end, 10), rep = 1;

        if (end == s || v < 0 || v > ENC_RUN_MAX_SLOTS)
            return ENC_ERR_INVAL;
        s = end;
        if (strncmp(s, "(x", 2) == 0) {
            rep = strtol(s + 2, &end, 10);
            if (end == s + 2 || *end != ')' || rep < 1)
                return ENC_ERR_INVAL;
            s = end + 1;
        }
        for (long i = 0; i < rep; i++) {
            if (k == n)
                return ENC_ERR_INVAL;
            slots[k++] = (int)v;
        }
        if (*s == ',')
            s++;
        else if (*s != '\0')
            return ENC_ERR_INVAL;
    }
    return k == n ? ENC_OK : ENC_ERR_INVAL;
}

enc_status_t enc_run_slurm_hosts(struct enc_run_hostlist *hl, char *msg, size_t cap)
{
    static char names[ENC_RUN_MAX_HOSTS][ENC_RUN_HOST_NAME_MAX];
    const char *id = getenv("SLURM_JOB_ID"), *nl = getenv("SLURM_JOB_NODELIST");
    const char *tpn = getenv("SLURM_TASKS_PER_NODE");
    int slots[ENC_RUN_MAX_HOSTS], n = 0;

    if (id == NULL || nl == NULL || tpn == NULL)
        return ENC_ERR_NOT_FOUND;
    if (enc_run_slurm_nodelist(nl, names, &n, ENC_RUN_MAX_HOSTS) != ENC_OK ||
        enc_run_slurm_tasks(tpn, slots, n) != ENC_OK) {
        snprintf(msg, cap, "cannot read the Slurm allocation (SLURM_JOB_NODELIST='%.200s', "
                 "SLURM_TASKS_PER_NODE='%.200s')", nl, tpn);
        return ENC_ERR_INVAL;
    }
    for (int i = 0; i < n; i++)
        if (slots[i] > 0 && enc_run_hosts_add(hl, names[i], slots[i], msg, cap) != ENC_OK)
            return ENC_ERR_INVAL;
    return ENC_OK;
}
