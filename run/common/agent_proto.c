/*
 * agent_proto.c - encoding and decoding of the encore-run <-> encore-agent
 * messages (agent_proto.h); every decode is bounds-checked.
 */
#include "enc.h"
#include "common/agent_proto.h"
#include "proto/frame.h"
#include "proto/wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEND_TIMEOUT_MS 2000
#define STR_MAX 65535u

enc_status_t enc_agent_note_encode(const struct enc_agent_note *m, uint8_t **out, size_t *len)
{
    size_t cap = 16 + strlen(m->text);
    struct enc_wbuf w;

    if ((*out = malloc(cap)) == NULL)
        return ENC_ERR_NOMEM;
    enc_w_init(&w, *out, cap);
    enc_w_u32(&w, m->rank);
    enc_w_u32(&w, m->inc);
    enc_w_u32(&w, m->value);
    enc_w_str(&w, m->text);
    if (w.err) {
        free(*out);
        return ENC_ERR_INVAL;
    }
    *len = w.len;
    return ENC_OK;
}

enc_status_t enc_agent_note_decode(struct enc_agent_note *m, const void *p, size_t len)
{
    struct enc_rbuf r;

    enc_r_init(&r, p, len);
    enc_r_u32(&r, &m->rank);
    enc_r_u32(&r, &m->inc);
    enc_r_u32(&r, &m->value);
    enc_r_str(&r, m->text, sizeof(m->text));
    return enc_r_done(&r);
}

static bool skipped(const char *kv, const char *const *skip)
{
    for (; skip != NULL && *skip != NULL; skip++)
        if (strncmp(kv, *skip, strlen(*skip)) == 0)
            return true;
    return false;
}

/* Count and size of the strings of a vector that will be sent. */
static size_t vec_size(char *const *v, const char *const *skip, uint32_t *n)
{
    size_t sz = 0;

    *n = 0;
    for (; v != NULL && *v != NULL; v++)
        if (!skipped(*v, skip) && strlen(*v) <= STR_MAX) {
            sz += 2 + strlen(*v);
            (*n)++;
        }
    return sz;
}

static void put_vec(struct enc_wbuf *w, char *const *v, const char *const *skip, uint32_t n)
{
    enc_w_u32(w, n);
    for (; v != NULL && *v != NULL; v++)
        if (!skipped(*v, skip) && strlen(*v) <= STR_MAX)
            enc_w_str(w, *v);
}

enc_status_t enc_agent_spawn_encode(const struct enc_agent_spawn *m, const char *const *skip,
                                    uint8_t **out, size_t *len)
{
    uint32_t na, ne;
    size_t cap = 64 + strlen(m->bind_to) + strlen(m->cwd) + strlen(m->path) +
                 vec_size(m->argv, NULL, &na) + vec_size(m->env, skip, &ne);
    struct enc_wbuf w;

    if (cap > ENC_CTRL_MAX_PAYLOAD || strlen(m->cwd) > STR_MAX || strlen(m->path) > STR_MAX)
        return ENC_ERR_INVAL;
    if ((*out = malloc(cap)) == NULL)
        return ENC_ERR_NOMEM;
    enc_w_init(&w, *out, cap);
    enc_w_u32(&w, m->rank);
    enc_w_u32(&w, m->inc);
    enc_w_u32(&w, m->bind_index);
    enc_w_u8(&w, m->tag_output);
    enc_w_str(&w, m->bind_to);
    enc_w_str(&w, m->cwd);
    enc_w_str(&w, m->path);
    put_vec(&w, m->argv, NULL, na);
    put_vec(&w, m->env, skip, ne);
    if (w.err) {
        free(*out);
        return ENC_ERR_INVAL;
    }
    *len = w.len;
    return ENC_OK;
}

/* Strings are copied into one block: each NUL-terminated, in order. */
static char *get_str(struct enc_rbuf *r, char **pool, const char *end)
{
    uint16_t n = 0;
    char *s = *pool;

    enc_r_u16(r, &n);
    if (r->err || s + n + 1 > end) {
        r->err = 1;
        return NULL;
    }
    enc_r_bytes(r, s, n);
    s[n] = '\0';
    if (memchr(s, '\0', n) != NULL) { /* a string cut short would change meaning */
        r->err = 1;
        return NULL;
    }
    *pool += n + 1;
    return s;
}

static char **get_vec(struct enc_rbuf *r, char **pool, const char *end)
{
    uint32_t n = 0;
    char **v;

    enc_r_u32(r, &n);
    if (r->err || n > r->len || (v = calloc((size_t)n + 1, sizeof(*v))) == NULL) {
        r->err = 1;
        return NULL;
    }
    for (uint32_t i = 0; i < n && !r->err; i++)
        v[i] = get_str(r, pool, end);
    return v;
}

enc_status_t enc_agent_spawn_decode(struct enc_agent_spawn *m, const void *p, size_t len)
{
    struct enc_rbuf r;
    uint8_t tag = 0;
    char *pool = malloc(len + 1), *end = pool + len + 1, bind[16];

    memset(m, 0, sizeof(*m));
    if (pool == NULL)
        return ENC_ERR_NOMEM;
    m->cwd = pool; /* the block's start, for enc_agent_spawn_free */
    enc_r_init(&r, p, len);
    enc_r_u32(&r, &m->rank);
    enc_r_u32(&r, &m->inc);
    enc_r_u32(&r, &m->bind_index);
    enc_r_u8(&r, &tag);
    enc_r_str(&r, bind, sizeof(bind));
    m->tag_output = tag != 0;
    memcpy(m->bind_to, bind, sizeof(bind));
    get_str(&r, &pool, end);
    m->path = get_str(&r, &pool, end);
    m->argv = get_vec(&r, &pool, end);
    m->env = get_vec(&r, &pool, end);
    if (enc_r_done(&r) != ENC_OK || m->argv == NULL || m->argv[0] == NULL) {
        enc_agent_spawn_free(m);
        return ENC_ERR_PROTO;
    }
    return ENC_OK;
}

void enc_agent_spawn_free(struct enc_agent_spawn *m)
{
    free(m->cwd);
    free(m->argv);
    free(m->env);
    memset(m, 0, sizeof(*m));
}

void enc_agent_mem_format(const struct enc_agent_mem *m, char *out, size_t cap)
{
    snprintf(out, cap, "%ld %ld %ld", m->private_kb, m->shm_used_kb, m->shm_alloc_kb);
}

void enc_agent_mem_parse(const char *s, struct enc_agent_mem *m)
{
    long v[3] = {-1, -1, -1};
    char *end;

    for (int i = 0; i < 3; i++, s = end) {
        v[i] = strtol(s, &end, 10);
        if (end == s || v[i] < -1 || v[i] > (1L << 40)) {
            v[i] = -1;
            break;
        }
    }
    *m = (struct enc_agent_mem){.private_kb = v[0], .shm_used_kb = v[1], .shm_alloc_kb = v[2]};
}

enc_status_t enc_agent_send(int fd, uint8_t type, const void *p, size_t len)
{
    struct enc_frame_hdr h = {.type = type, .src = ENC_SRC_TRACKER, .len = len};

    return enc_frame_send(fd, &h, p, enc_deadline_ms(SEND_TIMEOUT_MS));
}

/* Sends what an encoder made (rv: its status), and frees it. */
static enc_status_t send_encoded(int fd, uint8_t type, enc_status_t rv, uint8_t *buf, size_t len)
{
    if (rv != ENC_OK)
        return rv;
    rv = enc_agent_send(fd, type, buf, len);
    free(buf);
    return rv;
}

enc_status_t enc_agent_send_note(int fd, uint8_t type, const struct enc_agent_note *m)
{
    uint8_t *buf = NULL;
    size_t len = 0;
    enc_status_t rv = enc_agent_note_encode(m, &buf, &len);

    return send_encoded(fd, type, rv, buf, len);
}

bool enc_agent_shm_format(char *out, size_t cap, int np, const int *host_of, int host)
{
    size_t len = (size_t)snprintf(out, cap, "%d:", np);
    int n = 0;

    for (int i = 0; i < np && len < cap; i++)
        if (host_of[i] == host)
            len += (size_t)snprintf(out + len, cap - len, "%s%d", n++ ? "," : "", i);
    return n >= 2 && len < cap;
}

/* A decimal number in [0, max] ending at one of the characters of ends. */
static bool number(const char **s, const char *ends, int max, int *v)
{
    long x = 0;
    const char *p = *s;

    if (*p < '0' || *p > '9')
        return false;
    for (; *p >= '0' && *p <= '9'; p++)
        if ((x = x * 10 + (*p - '0')) > max)
            return false;
    if (strchr(ends, *p) == NULL)
        return false;
    *v = (int)x;
    *s = *p ? p + 1 : p;
    return true;
}

enc_status_t enc_agent_shm_parse(const char *s, int max_np, int *np, int *ranks, int cap,
                                 int *n)
{
    int prev = -1, r;

    *n = 0;
    if (!number(&s, ":", max_np, np) || *np < 2)
        return ENC_ERR_INVAL;
    while (*s != '\0') {
        if (*n == cap || !number(&s, ",", *np - 1, &r) || r <= prev ||
            (s[-1] == ',' && *s == '\0')) /* no trailing comma */
            return ENC_ERR_INVAL;
        ranks[(*n)++] = prev = r;
    }
    return *n > 0 ? ENC_OK : ENC_ERR_INVAL;
}

enc_status_t enc_agent_image_encode(const struct enc_agent_image *m, uint8_t **out, size_t *len)
{
    size_t cap = 32 + (size_t)m->ncomms * 20;
    struct enc_wbuf w;

    if (m->ncomms > ENC_SNAP_COMMS_MAX)
        return ENC_ERR_INVAL;
    if ((*out = malloc(cap)) == NULL)
        return ENC_ERR_NOMEM;
    enc_w_init(&w, *out, cap);
    enc_w_u32(&w, m->rank);
    enc_w_u32(&w, m->inc);
    enc_w_u32(&w, m->pid);
    enc_w_u64(&w, m->seq);
    enc_w_u32(&w, m->ncomms);
    for (uint32_t i = 0; i < m->ncomms; i++) {
        enc_w_u64(&w, m->comms[i].cid);
        enc_w_u64(&w, m->comms[i].next);
        enc_w_u32(&w, m->comms[i].members);
    }
    if (w.err) {
        free(*out);
        return ENC_ERR_INVAL;
    }
    *len = w.len;
    return ENC_OK;
}

enc_status_t enc_agent_send_image(int fd, uint8_t type, const struct enc_agent_image *m)
{
    uint8_t *buf = NULL;
    size_t len = 0;
    enc_status_t rv = enc_agent_image_encode(m, &buf, &len);

    return send_encoded(fd, type, rv, buf, len);
}

enc_status_t enc_agent_image_decode(struct enc_agent_image *m, const void *p, size_t len)
{
    struct enc_rbuf r;

    memset(m, 0, sizeof(*m));
    enc_r_init(&r, p, len);
    enc_r_u32(&r, &m->rank);
    enc_r_u32(&r, &m->inc);
    enc_r_u32(&r, &m->pid);
    enc_r_u64(&r, &m->seq);
    enc_r_u32(&r, &m->ncomms);
    if (r.err || m->ncomms > ENC_SNAP_COMMS_MAX)
        return ENC_ERR_PROTO;
    if (m->ncomms > 0 && (m->comms = calloc(m->ncomms, sizeof(*m->comms))) == NULL)
        return ENC_ERR_NOMEM;
    for (uint32_t i = 0; i < m->ncomms; i++) {
        enc_r_u64(&r, &m->comms[i].cid);
        enc_r_u64(&r, &m->comms[i].next);
        enc_r_u32(&r, &m->comms[i].members);
    }
    if (enc_r_done(&r) == ENC_OK)
        return ENC_OK;
    free(m->comms);
    m->comms = NULL;
    return ENC_ERR_PROTO;
}
