/*
 * store.c - the result log's entries (log.h), every communicator's in one
 * store.
 *
 * Each communicator the rank logged on has a window of entries [base, end)
 * indexed by sequence number (the world is communicator 0, the first).
 * Entry s lives on its holders (holders.h), who keep it until a trim
 * floor or a checkpoint passes it; every member also keeps each recent
 * entry until all members are known to have completed it, so the result
 * of a collective interrupted by a failure is never lost.  Above
 * ENCORE_LOG_MEM_MAX bytes, whatever communicator they belong to, the
 * oldest held entries go to the spill file (spill.h); only when its budget
 * is full (or writing fails) are they dropped: one warning, the world's
 * range reported to the tracker (encore-run says it once), and a later
 * replay needing one ends with a clear "lost" error naming the range.
 *
 * Cutting a window below a sequence number (a floor, a checkpoint) frees
 * those entries and moves the window up, so each stays the size of what is
 * kept.  On a job of several hosts a floor spills instead of freeing (a
 * lost host's ranks re-execute from the start: spill_below).  Bootstrap entries a checkpoint-restarted rank will ask for by call
 * site move to a small side array instead.
 */
#include "enc.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/vec.h"
#include "engine/group.h"
#include "engine/layer.h"
#include "proto/snapmsg.h"
#include "recovery/log/bufpool.h"
#include "recovery/log/log.h"
#include "recovery/log/spill.h"

struct entry {
    uint64_t cid, seq;
    struct enc_sigrec sig;
    void *data;              /* NULL when spilled or dropped */
    size_t cap;              /* bytes allocated at data */
    off_t spill_off;         /* >= 0 when spilled */
    int root;                /* as enc_log_root, for the holder rule */
    bool holder;
    bool present;
    bool refill;             /* wiped in this snapshot image: fetch it again */
    bool in_resbuf;          /* data is the host's result-buffer entry at resbuf_at */
    uint64_t resbuf_at;
};

/* The entries of one communicator. */
struct comm {
    uint64_t cid;
    int n;                   /* members; the world's is the engine's size */
    int *members;            /* world ranks (NULL: the world) */
    struct entry *e;         /* e[seq - base], within table */
    uint64_t base, end;      /* entries [base, end) */
    size_t cap;              /* entries from e to the table's end */
    struct entry *table;     /* cut entries below e are stale; from end on, zeros */
    size_t table_cap;
    uint64_t all_done;       /* every member completed every entry below */
    uint64_t mem_oldest;     /* no held in-memory entry below this */
    uint64_t resbuf_first;   /* no entry below this is in the result buffer */
    uint64_t floor;          /* no member asks for an entry below (a trim floor) */
    bool dropped;            /* entries drop_lo..drop_hi were dropped */
    uint64_t drop_lo, drop_hi;
};

static struct {
    struct comm **c;         /* c[0] is the world */
    size_t nc, capc;
    struct comm *last;       /* the last one looked up */
    struct entry *boot;      /* bootstrap entries below their window */
    size_t nboot, capboot;
    size_t mem, mem_max, mem_peak;
    size_t resbuf_mem;       /* bytes of the host's result buffer the log uses */
    uint64_t recorded;       /* bytes ever copied into this rank's memory */
    uint64_t slots_recorded; /* entries ever recorded (each one table slot) */
    size_t table_mem;        /* bytes of the windows' slots (what a table has touched) */
    size_t payload;          /* point-to-point payloads held (atomic: enc_log_payload_bytes) */
    uint64_t payload_recorded; /* and ever logged (atomic) */
    uint64_t resbuf_recorded; /* bytes ever kept by reference in the result buffer */
    bool floors_raised;      /* since the last trim */
    uint64_t forgotten_done; /* collectives of the communicators forgotten */
    uint64_t drop_sent_hi;   /* the world's drop_hi as last reported to the tracker */
    double drop_sent_at;
} lg;

/* ---- communicators ---- */

static struct enc_log_comm comm_view(const struct comm *c)
{
    if (c->cid == 0)
        return enc_log_world();
    return (struct enc_log_comm){.cid = c->cid, .n = c->n, .members = c->members};
}

static struct comm *comm_find(uint64_t cid)
{
    if (lg.last != NULL && lg.last->cid == cid)
        return lg.last;
    for (size_t i = 0; i < lg.nc; i++)
        if (lg.c[i]->cid == cid)
            return lg.last = lg.c[i];
    return NULL;
}

static enc_status_t set_members(struct comm *c, const struct enc_log_comm *v)
{
    if (c->cid == 0 || c->members != NULL || v->members == NULL || v->n <= 0)
        return ENC_OK;
    if ((c->members = malloc(sizeof(int) * (size_t)v->n)) == NULL)
        return ENC_ERR_NOMEM;
    memcpy(c->members, v->members, sizeof(int) * (size_t)v->n);
    c->n = v->n;
    return ENC_OK;
}

/* v's entries, made when missing (NULL: out of memory). */
static struct comm *comm_get(const struct enc_log_comm *v)
{
    struct comm *c = comm_find(v->cid);

    if (c == NULL) {
        if (ENC_VEC_RESERVE(lg.c, lg.capc, lg.nc + 1) != ENC_OK ||
            (c = calloc(1, sizeof(*c))) == NULL)
            return NULL;
        c->cid = v->cid;
        lg.c[lg.nc++] = lg.last = c;
    }
    return set_members(c, v) == ENC_OK ? c : NULL;
}

static struct entry *at(struct comm *c, uint64_t seq)
{
    return seq >= c->base && seq < c->end ? &c->e[seq - c->base] : NULL;
}

/* Room in c's window up to seq.  cut_below only moves e up (and gives
 * the table's pages below it back); when the window reaches the table's
 * end it moves to a new table of twice what it holds now or more, on
 * fresh pages: after a snapshot's fork every page the image shares costs
 * a copy-on-write fault when written again, and moving the window down in
 * place rewrote all of its pages (a fault every 20-odd collectives at 2
 * ranks, IMB).  Sized by what it holds, not by the table it leaves: a
 * table that kept the largest window's size doubled on every move after
 * a long interval between snapshots (IMB's 25 million collectives: 1.35
 * GiB per rank for a log whose entries peaked at 30 MiB), and on the VMs
 * measured memory a process never used before costs 35 times a reused
 * page to write (bench/README.md, session 21).  Each entry is copied at
 * most once per move, and a move follows at least as many new entries as
 * it copied. */
static struct entry *slot(struct comm *c, uint64_t seq)
{
    size_t used = (size_t)(c->end - c->base), n = 16;
    struct entry *t;

    if (seq < c->base)
        return NULL;
    if (seq - c->base >= c->cap) {
        while (n < 2 * used || n <= seq - c->base) {
            if (n > SIZE_MAX / 4)
                return NULL;
            n *= 2;
        }
        if ((t = enc_bufpool_table_new(n, sizeof(*t))) == NULL)
            return NULL;
        if (used > 0)
            memcpy(t, c->e, used * sizeof(*t));
        enc_bufpool_table_free(c->table, c->table_cap, sizeof(*t));
        c->e = c->table = t;
        c->cap = c->table_cap = n;
    }
    if (seq >= c->end) {
        lg.table_mem += (size_t)(seq + 1 - c->end) * sizeof(*c->e);
        c->end = seq + 1;
    }
    return &c->e[seq - c->base];
}

enc_status_t enc_log_init(void)
{
    struct enc_log_comm world = {.cid = 0};

    memset(&lg, 0, sizeof(lg));
    lg.mem_max = (size_t)enc_tunable_ll(ENC_TUNE_LOG_MEM_MAX);
    /* with a single replica an image's copy is the only other one */
    enc_bufpool_set_wipe(enc_tunable_ll(ENC_TUNE_REPLICAS) >= 2);
    if (comm_get(&world) == NULL)
        return ENC_ERR_NOMEM;
    return enc_spill_open();
}

/* ---- memory ---- */

/* Peak log size: own memory plus the result-buffer entries it uses. */
static size_t payload_held(void) { return __atomic_load_n(&lg.payload, __ATOMIC_RELAXED); }

static void note_peak(void)
{
    size_t held = lg.mem + lg.resbuf_mem + lg.table_mem + payload_held();

    if (held > __atomic_load_n(&lg.mem_peak, __ATOMIC_RELAXED))
        __atomic_store_n(&lg.mem_peak, held, __ATOMIC_RELAXED);
}

/* What x holds, given back; x itself is left as it was (a cut entry's
 * slot is not written: after a snapshot's fork each write of a page the
 * image shares costs a copy-on-write fault). */
static void entry_release(const struct entry *x)
{
    if (x->present && x->in_resbuf)
        lg.resbuf_mem -= x->sig.len;
    if (x->data) {
        lg.mem -= x->sig.len;
        enc_bufpool_put(x->data, x->cap);
    } else if (x->present && x->spill_off >= 0 && x->sig.len > 0) {
        enc_spill_release(x->spill_off, x->sig.len);
    }
}

static void entry_clear(struct entry *x)
{
    entry_release(x);
    memset(x, 0, sizeof(*x));
}

static void comm_free(struct comm *c)
{
    for (uint64_t s = c->base; s < c->end; s++)
        entry_release(&c->e[s - c->base]);
    enc_bufpool_table_free(c->table, c->table_cap, sizeof(*c->e));
    lg.table_mem -= (size_t)(c->end - c->base) * sizeof(*c->e);
    free(c->members);
    free(c);
}

void enc_log_fini(void)
{
    enc_spill_close(); /* first: nothing to give back one entry at a time */
    for (size_t i = 0; i < lg.nc; i++)
        comm_free(lg.c[i]);
    for (size_t i = 0; i < lg.nboot; i++)
        entry_clear(&lg.boot[i]);
    free(lg.boot);
    free(lg.c);
    enc_bufpool_drain();
    memset(&lg, 0, sizeof(lg));
}

/* "seq 31" or "collective #31 of communicator 00ab..." */
static void name_entry(uint64_t cid, uint64_t seq, char *out, size_t cap)
{
    if (cid == 0)
        snprintf(out, cap, "seq %llu", (unsigned long long)seq);
    else
        snprintf(out, cap, "collective #%llu of communicator %016llx", (unsigned long long)seq,
                 (unsigned long long)cid);
}

/* Why entries are dropped, for the one warning per communicator. */
static void warn_drop(uint64_t cid, uint64_t seq, enc_status_t why)
{
    char spill[160], what[80];

    if (why == ENC_ERR_NOMEM)
        snprintf(spill, sizeof(spill), "its spill budget ENCORE_SPILL_MAX (%llu bytes) is full",
                 (unsigned long long)enc_spill_budget());
    else if (why == ENC_ERR_SYS)
        snprintf(spill, sizeof(spill), "writing the spill file failed (%m)");
    else
        snprintf(spill, sizeof(spill), "it has no spill file (ENCORE_SPILL_MAX=0, or none "
                 "could be made)");
    name_entry(cid, seq, what, sizeof(what));
    ENC_WARN("reclog", "result log above ENCORE_LOG_MEM_MAX (%zu bytes) and %s: dropping "
             "results from %s on; a rank lost now may not be recoverable (call "
             "encore_checkpoint, raise ENCORE_SPILL_MAX, or set ENCORE_SPILL_DIR to a larger "
             "disk)", lg.mem_max, spill, what);
}

static void note_drop(struct comm *c, uint64_t seq, enc_status_t why)
{
    if (!c->dropped)
        warn_drop(c->cid, seq, why);
    if (!c->dropped || seq < c->drop_lo)
        c->drop_lo = seq;
    c->drop_hi = c->dropped ? ENC_MAX(c->drop_hi, seq) : seq;
    c->dropped = true;
}

/* Tells the tracker what the world dropped: at once the first time, then
 * at most four times a second while the range grows, and at MPI_Finalize
 * (force).  Other communicators' drops are in each rank's warning. */
void enc_log_report_drops(bool force)
{
    const struct comm *w = lg.c[0];
    double now = enc_now_s();

    if (!w->dropped || lg.drop_sent_hi == w->drop_hi + 1 ||
        (!force && lg.drop_sent_hi != 0 && now - lg.drop_sent_at < 0.25))
        return;
    lg.drop_sent_hi = w->drop_hi + 1;
    lg.drop_sent_at = now;
    enc_engine_report_dropped(w->drop_lo, w->drop_hi);
}

/* Spills (or drops) c's oldest held in-memory entries while over the cap. */
static void spill_oldest(struct comm *c)
{
    uint64_t s = ENC_MAX(c->mem_oldest, c->base);
    enc_status_t rv;

    for (; lg.mem + payload_held() > lg.mem_max && s < ENC_MIN(c->all_done, c->end); s++) {
        struct entry *x = &c->e[s - c->base];

        if (!x->present || x->data == NULL)
            continue;
        if ((rv = enc_spill_put(c->cid, s, x->data, x->sig.len, &x->spill_off)) != ENC_OK)
            note_drop(c, s, rv);
        lg.mem -= x->sig.len;
        enc_bufpool_put(x->data, x->cap);
        x->data = NULL;
    }
    c->mem_oldest = s;
}

/* Over the cap: the world's oldest first, then each communicator's. */
static void enforce_cap(void)
{
    for (size_t i = 0; i < lg.nc && lg.mem + payload_held() > lg.mem_max; i++)
        spill_oldest(lg.c[i]);
    enc_log_report_drops(false);
}

/* ---- recording ---- */

/* Every member completed every entry of c below seq: non-holders release
 * those. */
static void all_done_below(struct comm *c, uint64_t seq)
{
    for (uint64_t s = ENC_MAX(c->all_done, c->base); s < seq && s < c->end; s++) {
        struct entry *x = &c->e[s - c->base];

        if (x->present && !x->holder)
            entry_clear(x);
    }
    c->all_done = ENC_MAX(c->all_done, seq);
}

static enc_status_t keep_bytes(struct entry *x, const struct enc_log_put *p)
{
    uint64_t len = x->sig.len;

    if (p->in_resbuf) { /* left in the host's result buffer: no copy */
        lg.resbuf_recorded += len;
        x->in_resbuf = true;
        x->resbuf_at = p->resbuf_at;
        x->present = true;
        lg.resbuf_mem += len;
        note_peak();
        return ENC_OK;
    }
    if (len > 0 && (x->data = enc_bufpool_get(len, &x->cap)) == NULL)
        return ENC_ERR_NOMEM;
    /* len 0 (allgather of count 0): no buffer, and memcpy to NULL is
     * undefined even for 0 bytes */
    if (p->pack != NULL && len > 0)
        p->pack(p->pack_arg, x->data);
    else if (len > 0)
        memcpy(x->data, p->data, len);
    x->present = true;
    lg.recorded += len;
    lg.slots_recorded++;
    lg.mem += len;
    note_peak();
    if (lg.mem + payload_held() > lg.mem_max)
        enforce_cap();
    return ENC_OK;
}

enc_status_t enc_log_record(const struct enc_log_comm *v, const struct enc_log_put *p)
{
    struct comm *c = comm_get(v);
    struct entry *x;

    if (c == NULL)
        return ENC_ERR_NOMEM;
    if (p->seq < c->base)
        return ENC_OK; /* below a floor or a checkpoint: nobody asks for it */
    if ((x = slot(c, p->seq)) == NULL)
        return ENC_ERR_NOMEM;
    entry_clear(x);
    x->cid = v->cid;
    x->seq = p->seq;
    x->sig = *p->sig;
    x->spill_off = -1;
    x->root = p->root;
    x->holder = enc_log_is_holder(v, p->seq, p->root, p->me);
    if (p->everyone_entered)
        all_done_below(c, p->seq);
    return keep_bytes(x, p);
}

/* ---- lookups ---- */

static enc_status_t entry_data(const struct entry *x, struct enc_sigrec *sig,
                               const void **data, size_t *len)
{
    static void *spill_buf;

    if (x->present && x->in_resbuf) {
        *sig = x->sig;
        *len = x->sig.len;
        *data = enc_engine_resbuf_data(x->resbuf_at);
        return ENC_OK;
    }
    if (!x->present || (x->data == NULL && x->spill_off < 0 && x->sig.len > 0))
        return ENC_ERR_NOT_FOUND;
    *sig = x->sig;
    *len = x->sig.len;
    *data = x->data;
    if (x->data == NULL && x->sig.len > 0) {
        free(spill_buf);
        if ((spill_buf = malloc(x->sig.len)) == NULL ||
            enc_spill_get(x->cid, x->seq, spill_buf, x->sig.len, x->spill_off) != ENC_OK)
            return ENC_ERR_NOT_FOUND;
        *data = spill_buf;
    }
    return ENC_OK;
}

static const struct entry *aside(uint64_t cid, uint64_t seq)
{
    for (size_t i = 0; i < lg.nboot; i++)
        if (lg.boot[i].cid == cid && lg.boot[i].seq == seq)
            return &lg.boot[i];
    return NULL;
}

enc_status_t enc_log_find(uint64_t cid, uint64_t seq, struct enc_sigrec *sig,
                          const void **data, size_t *len)
{
    struct comm *c = comm_find(cid);
    const struct entry *x;

    if (c == NULL)
        return ENC_ERR_NOT_FOUND;
    x = seq < c->base ? aside(cid, seq) : at(c, seq);
    return x != NULL ? entry_data(x, sig, data, len) : ENC_ERR_NOT_FOUND;
}

static bool boot_match(const struct entry *x, const char *mod, uint64_t off, uint32_t occ)
{
    return x->cid == 0 && x->present && x->sig.bootstrap && x->sig.occ == occ &&
           x->sig.site_off == off && strcmp(enc_sitemod_name(x->sig.site_mod), mod) == 0;
}

enc_status_t enc_log_find_bootstrap(const char *mod, uint64_t off, uint32_t occ,
                                    struct enc_sigrec *sig, const void **data, size_t *len)
{
    const struct comm *w = lg.c[0];

    for (size_t i = 0; i < lg.nboot; i++)
        if (boot_match(&lg.boot[i], mod, off, occ))
            return entry_data(&lg.boot[i], sig, data, len);
    for (uint64_t s = w->base; s < w->end; s++)
        if (boot_match(&w->e[s - w->base], mod, off, occ))
            return entry_data(&w->e[s - w->base], sig, data, len);
    return ENC_ERR_NOT_FOUND;
}

enum enc_log_absence enc_log_absence(uint64_t cid, uint64_t seq, uint64_t *first,
                                     uint64_t *last)
{
    const struct comm *c = comm_find(cid);

    if (c == NULL || seq >= c->end)
        return ENC_LOG_NOT_YET;
    if (c->dropped && seq >= c->drop_lo && seq <= c->drop_hi) {
        *first = c->drop_lo;
        *last = c->drop_hi;
        return ENC_LOG_DROPPED;
    }
    return ENC_LOG_RELEASED;
}

/* ---- trimming ---- */

/* A result-buffer entry becomes the log's own copy (the buffer will be
 * overwritten there); false when out of memory. */
static bool to_private(struct entry *x)
{
    size_t len = x->sig.len;

    if (!x->in_resbuf)
        return true;
    if (len > 0 && (x->data = enc_bufpool_get(len, &x->cap)) == NULL)
        return false;
    if (len > 0)
        memcpy(x->data, enc_engine_resbuf_data(x->resbuf_at), len);
    x->in_resbuf = false;
    lg.resbuf_mem -= len;
    lg.recorded += len;
    lg.mem += len;
    note_peak();
    return true;
}

/* Moves x to the side array (false when out of memory). */
static bool keep_aside(struct entry *x)
{
    if (!to_private(x))
        return false;
    if (ENC_VEC_RESERVE(lg.boot, lg.capboot, lg.nboot + 1) != ENC_OK)
        return false;
    lg.boot[lg.nboot++] = *x;
    enc_bufpool_keep_on_fork(x->data, x->cap, true); /* asked for by call site */
    memset(x, 0, sizeof(*x));
    return true;
}

/* Frees c's entries below seq (bootstrap ones kept aside when keep_boot)
 * and moves the window's base up to seq; returns how many were freed. */
static size_t cut_below(struct comm *c, uint64_t seq, bool keep_boot)
{
    uint64_t cut = ENC_MIN(seq, c->end), gone;
    size_t freed = 0;

    if (cut <= c->base)
        return 0;
    gone = cut - c->base;
    for (uint64_t i = 0; i < gone; i++) {
        struct entry *x = &c->e[i];

        if (x->present && keep_boot && x->sig.bootstrap && keep_aside(x))
            continue;
        freed += x->present;
        entry_release(x);
    }
    c->e += gone; /* the slots below stay stale until slot() moves the window */
    c->cap -= gone;
    lg.table_mem -= gone * sizeof(*c->e);
    enc_bufpool_table_release(c->table, c->table_cap, sizeof(*c->e), (size_t)(c->e - c->table));
    c->base = cut;
    c->all_done = ENC_MAX(c->all_done, cut);
    return freed;
}

void enc_log_set_floor(uint64_t cid, uint64_t seq)
{
    struct comm *c = comm_find(cid);

    if (c != NULL && seq > c->floor) {
        c->floor = seq;
        lg.floors_raised = true;
    }
}

uint64_t enc_log_floor(uint64_t cid)
{
    const struct comm *c = comm_find(cid);

    return c != NULL ? c->floor : 0;
}

static bool is_aside(uint64_t cid)
{
    for (size_t i = 0; i < lg.nboot; i++)
        if (lg.boot[i].cid == cid)
            return true;
    return false;
}

struct live_probe {
    uint64_t cid;
    bool live;
};

static void probe_live(void *arg, struct enc_group *g)
{
    struct live_probe *p = arg;

    p->live |= enc_group_cid(g) == p->cid;
}

/* A communicator the log can forget: not the world, nothing kept of it, and
 * freed by the program. */
static bool forgettable(const struct comm *c)
{
    struct live_probe p = {.cid = c->cid};

    for (uint64_t s = c->base; s < c->end; s++)
        if (c->e[s - c->base].present || c->e[s - c->base].refill)
            return false;
    if (c->cid == 0 || is_aside(c->cid))
        return false;
    enc_group_each(probe_live, &p);
    return !p.live;
}

static void forget_freed(void)
{
    size_t k = 0;

    for (size_t i = 0; i < lg.nc; i++) {
        if (forgettable(lg.c[i])) {
            lg.forgotten_done += lg.c[i]->end;
            comm_free(lg.c[i]);
        } else {
            lg.c[k++] = lg.c[i];
        }
    }
    lg.nc = k;
    lg.last = NULL;
}

/* True when some rank of the world runs on another host than this one. */
static bool world_spans_hosts(void)
{
    const char *mine = enc_engine_peer_host(enc_engine_rank());

    for (int r = 0; r < enc_engine_size(); r++)
        if (strcmp(enc_engine_peer_host(r), mine) != 0)
            return true;
    return false;
}

/* Moves c's held entries below seq out of memory into the spill file,
 * leaving them in the window: a floor says every rank can restore past
 * them from a snapshot image, but on a job of several hosts the images of
 * a lost host die with it, and its ranks re-execute from the start
 * (docs/snapshots.md).  Memory stays bounded by the floors; the disk keeps
 * the history within ENCORE_SPILL_MAX (beyond it, dropped as usual: one
 * warning, and a replay that needs them ends with "lost"). */
static void spill_below(struct comm *c, uint64_t seq)
{
    enc_status_t rv;

    for (uint64_t s = c->base; s < ENC_MIN(seq, c->end); s++) {
        struct entry *x = &c->e[s - c->base];
        const void *bytes = x->in_resbuf ? enc_engine_resbuf_data(x->resbuf_at) : x->data;

        if (!x->present || x->spill_off >= 0 || x->sig.len == 0 || bytes == NULL)
            continue;
        if ((rv = enc_spill_put(c->cid, s, bytes, x->sig.len, &x->spill_off)) != ENC_OK)
            note_drop(c, s, rv);
        if (x->in_resbuf) {
            x->in_resbuf = false;
            lg.resbuf_mem -= x->sig.len;
        } else {
            lg.mem -= x->sig.len;
            enc_bufpool_put(x->data, x->cap);
        }
        x->data = NULL;
    }
}

void enc_log_trim(bool keep_boot)
{
    bool history;

    if (!lg.floors_raised)
        return;
    lg.floors_raised = false;
    history = world_spans_hosts();
    for (size_t i = 0; i < lg.nc; i++) {
        struct comm *c = lg.c[i];

        if (c->floor > c->base && c->cid == 0)
            ENC_DEBUG("reclog", "every rank can restore past seq %llu: results below it "
                      "%s", (unsigned long long)c->floor,
                      history ? "spilled (kept for a lost host's re-execution)" : "released");
        if (history)
            spill_below(c, c->floor);
        else
            cut_below(c, c->floor, keep_boot);
    }
    enc_log_report_drops(false);
    forget_freed();
}

void enc_log_checkpoint(uint64_t world_below, struct enc_log_cut *cut)
{
    memset(cut, 0, sizeof(*cut));
    cut_below(lg.c[0], world_below, true);
    for (size_t i = 1; i < lg.nc; i++)
        cut->dropped += cut_below(lg.c[i], lg.c[i]->end, true);
    forget_freed();
    cut->comms = lg.nc - 1;
    for (size_t i = 0; i < lg.nboot; i++) {
        if (lg.boot[i].cid != 0) {
            cut->kept++;
            cut->kept_bytes += lg.boot[i].sig.len;
        }
    }
}

void enc_log_rebase(const struct enc_log_comm *v, uint64_t seq)
{
    struct comm *c = comm_get(v);

    if (c == NULL || seq <= c->base)
        return;
    cut_below(c, seq, true);
    if (seq > c->end) /* nothing of it kept: the window starts there */
        c->base = c->end = c->all_done = seq;
}

int enc_log_positions(struct enc_snap_comm *out, int cap)
{
    int n = 0;

    for (size_t i = 1; i < lg.nc && n < cap; i++)
        if (lg.c[i]->n > 0)
            out[n++] = (struct enc_snap_comm){.cid = lg.c[i]->cid, .next = lg.c[i]->end,
                                              .members = (uint32_t)lg.c[i]->n};
    return n;
}

uint64_t enc_log_comm_completed(void)
{
    uint64_t n = lg.forgotten_done;

    for (size_t i = 1; i < lg.nc; i++)
        n += lg.c[i]->end;
    return n;
}

/* ---- snapshots ---- */

/* Entries not yet completed by every member are the only copy a survivor
 * interrupted by a failure can get: the image keeps them as they are. */
static void keep_recent(bool keep)
{
    for (size_t i = 0; i < lg.nc; i++) {
        struct comm *c = lg.c[i];

        for (uint64_t s = ENC_MAX(c->all_done, c->base); s < c->end; s++) {
            struct entry *x = &c->e[s - c->base];

            if (x->present)
                enc_bufpool_keep_on_fork(x->data, x->cap, keep);
        }
    }
}

void enc_log_fork_prepare(void) { keep_recent(true); }
void enc_log_fork_parent(void) { keep_recent(false); }

/* In a restored image: result-buffer entries overwritten while it was parked. */
static size_t forget_stale_resbuf(struct comm *c)
{
    uint64_t low = enc_engine_resbuf_low();
    size_t n = 0;

    for (uint64_t s = c->base; s < c->end; s++) {
        struct entry *x = &c->e[s - c->base];

        if (x->present && x->in_resbuf && x->resbuf_at < low) {
            lg.resbuf_mem -= x->sig.len;
            x->present = x->in_resbuf = false;
            x->refill = x->holder || s >= c->all_done;
            n++;
        }
    }
    return n;
}

static size_t forget_comm(struct comm *c)
{
    uint64_t top = ENC_MIN(ENC_MAX(c->all_done, c->base), c->end);
    size_t n = forget_stale_resbuf(c);

    for (uint64_t s = c->base; s < top; s++) {
        struct entry *x = &c->e[s - c->base];

        if (x->present && x->data != NULL && enc_bufpool_wiped(x->cap)) {
            lg.mem -= x->sig.len;
            enc_bufpool_put(x->data, x->cap);
            x->data = NULL;
            x->present = false;
            x->refill = x->holder;
            n++;
        }
    }
    return n;
}

size_t enc_log_forget_wiped(void)
{
    size_t n = 0;

    for (size_t i = 0; i < lg.nc; i++)
        n += forget_comm(lg.c[i]);
    return n;
}

static int my_place(const struct enc_log_comm *v)
{
    for (int i = 0; i < v->n; i++)
        if (enc_log_member(v, i) == enc_engine_rank())
            return i;
    return -1;
}

bool enc_log_next_forgotten(struct enc_log_cursor *at, struct enc_log_forgotten *f)
{
    for (; at->comm < lg.nc; at->comm++, at->seq = 0) {
        struct comm *c = lg.c[at->comm];

        for (at->seq = ENC_MAX(ENC_MAX(at->seq, c->base), c->floor); at->seq < c->end;
             at->seq++) {
            const struct entry *x = &c->e[at->seq - c->base];

            if (!x->refill || x->present)
                continue;
            *f = (struct enc_log_forgotten){.cid = c->cid, .seq = at->seq, .sig = x->sig,
                                            .comm = comm_view(c), .root = x->root};
            f->me = my_place(&f->comm);
            at->seq++;
            return true;
        }
    }
    return false;
}

static struct entry *refill_entry(uint64_t cid, uint64_t seq)
{
    struct comm *c = comm_find(cid);
    struct entry *x = c != NULL ? at(c, seq) : NULL;

    return x != NULL && x->refill ? x : NULL;
}

void *enc_log_refill_buf(uint64_t cid, uint64_t seq, size_t *cap)
{
    struct entry *x = refill_entry(cid, seq);

    return x != NULL ? enc_bufpool_get(x->sig.len, cap) : NULL;
}

void enc_log_refilled(uint64_t cid, uint64_t seq, void *buf, size_t cap, bool ok)
{
    struct entry *x = refill_entry(cid, seq);

    if (x == NULL || !ok) {
        enc_bufpool_put(buf, cap);
        if (x != NULL)
            x->refill = false;
        return;
    }
    x->data = buf;
    x->cap = cap;
    x->present = true;
    x->refill = false;
    lg.mem += x->sig.len;
    note_peak();
}

/* ---- the host's result buffer ---- */

/* c's oldest entry still in the result buffer (UINT64_MAX: none); entries
 * are recorded in result-buffer order. */
static uint64_t resbuf_oldest(struct comm *c)
{
    uint64_t s = ENC_MAX(c->resbuf_first, c->base);

    for (; s < c->end; s++) {
        struct entry *x = &c->e[s - c->base];

        if (x->present && x->in_resbuf)
            break;
    }
    c->resbuf_first = s;
    return s < c->end ? c->e[s - c->base].resbuf_at : UINT64_MAX;
}

uint64_t enc_log_resbuf_keep(void)
{
    uint64_t keep = UINT64_MAX;

    for (size_t i = 0; i < lg.nc; i++)
        keep = ENC_MIN(keep, resbuf_oldest(lg.c[i]));
    return keep;
}

static bool evict_comm(struct comm *c, uint64_t below)
{
    bool copied = false;

    for (uint64_t s = ENC_MAX(c->resbuf_first, c->base); s < c->end; s++) {
        struct entry *x = &c->e[s - c->base];

        if (!x->present || !x->in_resbuf)
            continue;
        if (x->resbuf_at >= below)
            break;
        if (!to_private(x)) { /* out of memory: the entry is gone */
            note_drop(c, s, ENC_ERR_NOMEM);
            entry_clear(x);
        }
        copied = true;
    }
    return copied;
}

void enc_log_resbuf_evict(uint64_t below)
{
    bool copied = false;

    for (size_t i = 0; i < lg.nc; i++)
        copied |= evict_comm(lg.c[i], below);
    if (copied && lg.mem > lg.mem_max)
        enforce_cap();
}

/* ---- figures ---- */

/* Called by the sending thread with the point-to-point lock held, while
 * a nonblocking collective's worker may record results: atomics only, and
 * the spill is left to the next record (enforce_cap counts them). */
void enc_log_payload_bytes(int64_t delta, bool fresh)
{
    size_t now = __atomic_add_fetch(&lg.payload, (size_t)delta, __ATOMIC_RELAXED);
    size_t peak = __atomic_load_n(&lg.mem_peak, __ATOMIC_RELAXED);
    size_t held = lg.mem + lg.resbuf_mem + lg.table_mem + now;

    if (delta <= 0)
        return;
    if (fresh)
        __atomic_add_fetch(&lg.payload_recorded, (uint64_t)delta, __ATOMIC_RELAXED);
    while (held > peak && !__atomic_compare_exchange_n(&lg.mem_peak, &peak, held, true,
                                                       __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
}

void enc_log_payload_received(uint64_t bytes)
{
    __atomic_add_fetch(&lg.payload_recorded, bytes, __ATOMIC_RELAXED);
}

size_t enc_log_peak_bytes(void) { return lg.mem_peak; }
uint64_t enc_log_spill_peak(void) { return enc_spill_peak(); }
uint64_t enc_log_recorded(void)
{
    return lg.recorded + lg.slots_recorded * sizeof(struct entry) +
           __atomic_load_n(&lg.payload_recorded, __ATOMIC_RELAXED);
}
uint64_t enc_log_resbuf_recorded(void) { return lg.resbuf_recorded; }
