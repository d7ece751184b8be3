/*
 * reclog.c - storage of the result log.
 *
 * Entry s lives on its holders, ENCORE_REPLICAS ranks on distinct hosts
 * (when the job has that many) walking from (s / ENC_HOLDER_RUN) mod n (at the root for broadcasts, so a root that
 * finished early still holds what it sent); holders keep it for the job's
 * lifetime (until a checkpoint truncates the log).  Every rank also keeps
 * each recent entry until all ranks are known to have completed it, so the
 * result of a collective interrupted by a failure is never lost.  Above
 * ENCORE_LOG_MEM_MAX bytes, the oldest held entries go to the spill file
 * (recovery/log/spill.c); only when its budget is full (or writing fails) are
 * they dropped: one warning here, one line from encore-run (the range is
 * reported to the tracker), and a later replay needing them ends with a
 * clear "lost" error naming the range.
 *
 * Cutting the log below a sequence number (a checkpoint, or every rank
 * having a snapshot past it) frees those entries and moves the window
 * [base, end) up, so the slot array stays the size of what is kept.
 * Bootstrap entries a checkpoint-restarted rank will ask for by call site
 * move to a small side array instead.
 */
#include "enc.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/vec.h"
#include "engine/coll.h"
#include "engine/layer.h"
#include "recovery/log/bufpool.h"
#include "recovery/checkpoint/ckpt.h"
#include "recovery/log/log.h"
#include "recovery/recovery.h"
#include "recovery/log/spill.h"

struct entry {
    uint64_t seq;
    struct enc_sigrec sig;
    void *data;              /* NULL when spilled or dropped */
    size_t cap;              /* bytes allocated at data */
    off_t spill_off;         /* >= 0 when spilled */
    bool holder;
    bool present;
    bool refill;             /* wiped in this snapshot image: fetch it again */
    bool in_resbuf;          /* data is the host's result-buffer entry at resbuf_at */
    uint64_t resbuf_at;
};

struct enc_reclog {
    struct entry *e;         /* e[seq - base] */
    uint64_t base, end;      /* entries [base, end) */
    size_t cap;
    uint64_t all_done;       /* every rank completed every seq below */
    uint64_t mem_oldest;     /* no held in-memory entry below this */
    size_t mem, mem_max, mem_peak;
    size_t resbuf_mem;       /* bytes of the host's result buffer the log uses */
    uint64_t recorded;       /* bytes ever copied into this rank's memory */
    uint64_t resbuf_recorded; /* bytes ever kept by reference in the result buffer */
    struct entry *boot;      /* bootstrap entries below base */
    size_t nboot, capboot;
    int replicas;
    bool dropped;            /* results in [drop_lo, drop_hi] were dropped */
    uint64_t drop_lo, drop_hi;
    uint64_t drop_sent_hi;   /* drop_hi as last reported to the tracker */
    double drop_sent_at;
    uint64_t resbuf_first;   /* no entry below this seq is in the result buffer */
};

static struct enc_reclog reclog;

static bool host_taken(const int *picked, int np, int rank)
{
    for (int i = 0; i < np; i++)
        if (strcmp(enc_engine_peer_host(picked[i]), enc_engine_peer_host(rank)) == 0)
            return true;
    return false;
}

/* Holders: walking from the first, one rank per host until there are
 * enough; if the job has fewer hosts than replicas, the walk goes round
 * again taking the ranks it skipped.  On one host this is simply the
 * replicas consecutive ranks from the first. */
bool enc_reclog_is_holder(uint64_t seq, int root, int rank)
{
    int n = enc_engine_size(), want = ENC_MIN(reclog.replicas, n), np = 0;
    /* runs of ENC_HOLDER_RUN consecutive results share their holders, so a
     * replaying rank can fetch a run with one request */
    int first = root >= 0 ? root : (int)((seq / ENC_HOLDER_RUN) % (uint64_t)n);
    int picked[want > 0 ? want : 1];

    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < n && np < want; i++) {
            int r = (first + i) % n;
            bool taken = false;

            for (int k = 0; k < np && !taken; k++)
                taken = picked[k] == r;
            if (taken || (pass == 0 && host_taken(picked, np, r)))
                continue;
            if (r == rank)
                return true;
            picked[np++] = r;
        }
    }
    return false;
}

enc_status_t enc_reclog_init(void)
{
    memset(&reclog, 0, sizeof(reclog));
    reclog.replicas = (int)ENC_MAX(1, enc_tunable_ll(ENC_TUNE_REPLICAS));
    reclog.mem_max = (size_t)enc_tunable_ll(ENC_TUNE_LOG_MEM_MAX);
    /* with a single replica an image's copy is the only other one */
    enc_bufpool_set_wipe(reclog.replicas >= 2);
    return enc_spill_open();
}

/* Peak log size: own memory plus the result-buffer entries it uses. */
static void note_peak(void)
{
    reclog.mem_peak = ENC_MAX(reclog.mem_peak, reclog.mem + reclog.resbuf_mem);
}

static void entry_clear(struct entry *x)
{
    if (x->present && x->in_resbuf)
        reclog.resbuf_mem -= x->sig.len;
    if (x->data) {
        reclog.mem -= x->sig.len;
        enc_bufpool_put(x->data, x->cap);
    } else if (x->present && x->spill_off >= 0 && x->sig.len > 0) {
        enc_spill_release(x->spill_off, x->sig.len);
    }
    memset(x, 0, sizeof(*x));
}

void enc_reclog_fini(void)
{
    enc_spill_close(); /* first: nothing to give back one entry at a time */
    for (uint64_t s = reclog.base; s < reclog.end; s++)
        entry_clear(&reclog.e[s - reclog.base]);
    for (size_t i = 0; i < reclog.nboot; i++)
        entry_clear(&reclog.boot[i]);
    free(reclog.boot);
    free(reclog.e);
    enc_bufpool_drain();
    memset(&reclog, 0, sizeof(reclog));
}

static struct entry *slot(uint64_t seq)
{
    if (seq < reclog.base)
        return NULL;
    if (ENC_VEC_RESERVE(reclog.e, reclog.cap, seq - reclog.base + 1) != ENC_OK)
        return NULL;
    if (seq >= reclog.end)
        reclog.end = seq + 1;
    return &reclog.e[seq - reclog.base];
}

/* Why entries are dropped, for the one warning. */
static void warn_drop(uint64_t seq, enc_status_t why)
{
    char spill[160];

    if (why == ENC_ERR_NOMEM)
        snprintf(spill, sizeof(spill), "its spill budget ENCORE_SPILL_MAX (%llu bytes) is full",
                 (unsigned long long)enc_spill_budget());
    else if (why == ENC_ERR_SYS)
        snprintf(spill, sizeof(spill), "writing the spill file failed (%m)");
    else
        snprintf(spill, sizeof(spill), "it has no spill file (ENCORE_SPILL_MAX=0, or none "
                 "could be made)");
    ENC_WARN("reclog", "result log above ENCORE_LOG_MEM_MAX (%zu bytes) and %s: dropping "
             "results from seq %llu on; a rank lost now may not be recoverable (call "
             "encore_checkpoint, raise ENCORE_SPILL_MAX, or set ENCORE_SPILL_DIR to a larger "
             "disk)", reclog.mem_max, spill, (unsigned long long)seq);
}

static void note_drop(uint64_t seq, enc_status_t why)
{
    if (!reclog.dropped)
        warn_drop(seq, why);
    if (!reclog.dropped || seq < reclog.drop_lo)
        reclog.drop_lo = seq;
    reclog.drop_hi = reclog.dropped ? ENC_MAX(reclog.drop_hi, seq) : seq;
    reclog.dropped = true;
}

/* Tells the tracker what was dropped: at once the first time, then at most
 * four times a second while the range grows, and at MPI_Finalize (force). */
void enc_reclog_report_drops(bool force)
{
    double now = enc_now_s();

    if (!reclog.dropped || reclog.drop_sent_hi == reclog.drop_hi + 1 ||
        (!force && reclog.drop_sent_hi != 0 && now - reclog.drop_sent_at < 0.25))
        return;
    reclog.drop_sent_hi = reclog.drop_hi + 1;
    reclog.drop_sent_at = now;
    enc_engine_report_dropped(reclog.drop_lo, reclog.drop_hi);
}

/* Spills or drops the oldest held in-memory entries until under the cap. */
static void enforce_cap(void)
{
    uint64_t s = ENC_MAX(reclog.mem_oldest, reclog.base);
    enc_status_t rv;

    for (; reclog.mem > reclog.mem_max && s < reclog.all_done; s++) {
        struct entry *x = &reclog.e[s - reclog.base];

        if (!x->present || x->data == NULL)
            continue;
        if ((rv = enc_spill_put(s, x->data, x->sig.len, &x->spill_off)) != ENC_OK)
            note_drop(s, rv);
        reclog.mem -= x->sig.len;
        enc_bufpool_put(x->data, x->cap);
        x->data = NULL;
    }
    reclog.mem_oldest = s;
    enc_reclog_report_drops(false);
}

enc_status_t enc_reclog_record(const struct enc_coll *co)
{
    struct enc_sigrec sig;
    struct entry *x;
    uint64_t len = co->bytes;

    enc_sigrec_from_coll(&sig, co, &enc_rec.cur, len);
    if ((x = slot(co->ctx.seq)) == NULL)
        return ENC_ERR_NOMEM;
    entry_clear(x);
    x->seq = co->ctx.seq;
    x->sig = sig;
    x->spill_off = -1;
    x->holder = enc_reclog_is_holder(co->ctx.seq,
                                     co->sig->kind == ENC_COLL_BCAST ? co->sig->root : -1,
                                     enc_engine_rank());
    if (co->in_resbuf) { /* the collective left it in the host's result buffer: no copy */
        reclog.resbuf_recorded += len;
        x->in_resbuf = true;
        x->resbuf_at = co->resbuf_at;
        x->present = true;
        reclog.resbuf_mem += len;
        note_peak();
        return ENC_OK;
    }
    if (len > 0 && (x->data = enc_bufpool_get(len, &x->cap)) == NULL)
        return ENC_ERR_NOMEM;
    /* len 0 (allgather of count 0): no buffer, and memcpy to NULL is
     * undefined even for 0 bytes (UBSan, coll_matrix -n 1 under ASan). */
    if (co->sig->kind == ENC_COLL_ALLGATHERV && len > 0) {
        enc_coll_result_pack(co, x->data);
    } else if (len > 0) {
        memcpy(x->data, co->result, len);
    }
    x->present = true;
    reclog.recorded += len;
    reclog.mem += len;
    note_peak();
    if (reclog.mem > reclog.mem_max)
        enforce_cap();
    return ENC_OK;
}

void enc_reclog_all_done_below(uint64_t seq)
{
    for (uint64_t s = ENC_MAX(reclog.all_done, reclog.base); s < seq && s < reclog.end; s++) {
        struct entry *x = &reclog.e[s - reclog.base];

        if (x->present && !x->holder)
            entry_clear(x);
    }
    if (seq > reclog.all_done)
        reclog.all_done = seq;
}

/* A result-buffer entry becomes the log's own copy (the buffer will be overwritten
 * there); false when out of memory. */
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
    reclog.resbuf_mem -= len;
    reclog.recorded += len;
    reclog.mem += len;
    note_peak();
    return true;
}

/* Moves x to the side array (false when out of memory). */
static bool keep_aside(struct entry *x)
{
    if (!to_private(x))
        return false;
    if (ENC_VEC_RESERVE(reclog.boot, reclog.capboot, reclog.nboot + 1) != ENC_OK)
        return false;
    reclog.boot[reclog.nboot++] = *x;
    enc_bufpool_keep_on_fork(x->data, x->cap, true); /* asked for by call site */
    memset(x, 0, sizeof(*x));
    return true;
}

/* Frees entries below seq (bootstrap ones kept aside when keep_boot) and
 * moves the window's base up to seq. */
static void cut_below(uint64_t seq, bool keep_boot)
{
    uint64_t cut = ENC_MIN(seq, reclog.end), gone;

    if (cut <= reclog.base)
        return;
    gone = cut - reclog.base;
    for (uint64_t i = 0; i < gone; i++) {
        struct entry *x = &reclog.e[i];

        if (!(x->present && keep_boot && x->sig.bootstrap && keep_aside(x)))
            entry_clear(x);
    }
    memmove(reclog.e, reclog.e + gone, (size_t)(reclog.end - cut) * sizeof(*reclog.e));
    memset(reclog.e + (reclog.end - cut), 0, (size_t)gone * sizeof(*reclog.e));
    reclog.base = cut;
}

void enc_reclog_truncate_below(uint64_t seq)
{
    cut_below(seq, true);
}

void enc_reclog_trim_below(uint64_t seq, bool keep_boot)
{
    if (seq > reclog.base)
        ENC_DEBUG("reclog", "every rank can restore past seq %llu: results below it released",
                  (unsigned long long)seq);
    cut_below(seq, keep_boot);
}

/* Entries not yet completed everywhere are the only copy a survivor
 * interrupted by a failure can get: the image keeps them as they are. */
static void keep_recent(bool keep)
{
    for (uint64_t s = ENC_MAX(reclog.all_done, reclog.base); s < reclog.end; s++) {
        struct entry *x = &reclog.e[s - reclog.base];

        if (x->present)
            enc_bufpool_keep_on_fork(x->data, x->cap, keep);
    }
}

void enc_reclog_fork_prepare(void) { keep_recent(true); }
void enc_reclog_fork_parent(void) { keep_recent(false); }

uint64_t enc_reclog_resbuf_keep(void)
{
    uint64_t s = ENC_MAX(reclog.resbuf_first, reclog.base);

    for (; s < reclog.end; s++) {
        struct entry *x = &reclog.e[s - reclog.base];

        if (x->present && x->in_resbuf)
            break;
    }
    reclog.resbuf_first = s; /* entries are recorded in result-buffer order */
    return s < reclog.end ? reclog.e[s - reclog.base].resbuf_at : UINT64_MAX;
}

void enc_reclog_resbuf_evict(uint64_t below)
{
    bool copied = false;

    for (uint64_t s = ENC_MAX(reclog.resbuf_first, reclog.base); s < reclog.end; s++) {
        struct entry *x = &reclog.e[s - reclog.base];

        if (!x->present || !x->in_resbuf)
            continue;
        if (x->resbuf_at >= below)
            break;
        if (!to_private(x)) { /* out of memory: the entry is gone */
            note_drop(s, ENC_ERR_NOMEM);
            entry_clear(x);
        }
        copied = true;
    }
    if (copied && reclog.mem > reclog.mem_max)
        enforce_cap();
}

/* In a restored image: result-buffer entries overwritten while it was parked. */
static size_t forget_stale_resbuf(void)
{
    uint64_t low = enc_engine_resbuf_low();
    size_t n = 0;

    for (uint64_t s = reclog.base; s < reclog.end; s++) {
        struct entry *x = &reclog.e[s - reclog.base];

        if (x->present && x->in_resbuf && x->resbuf_at < low) {
            reclog.resbuf_mem -= x->sig.len;
            x->present = x->in_resbuf = false;
            x->refill = x->holder || s >= reclog.all_done;
            n++;
        }
    }
    return n;
}

size_t enc_reclog_forget_wiped(void)
{
    uint64_t top = ENC_MIN(ENC_MAX(reclog.all_done, reclog.base), reclog.end);
    size_t n = forget_stale_resbuf();

    for (uint64_t s = reclog.base; s < top; s++) {
        struct entry *x = &reclog.e[s - reclog.base];

        if (x->present && x->data != NULL && enc_bufpool_wiped(x->cap)) {
            reclog.mem -= x->sig.len;
            enc_bufpool_put(x->data, x->cap);
            x->data = NULL;
            x->present = false;
            x->refill = x->holder;
            n++;
        }
    }
    return n;
}

bool enc_reclog_forgotten(uint64_t from, uint64_t *seq, struct enc_sigrec *sig)
{
    for (uint64_t s = ENC_MAX(from, reclog.base); s < reclog.end; s++) {
        struct entry *x = &reclog.e[s - reclog.base];

        if (x->refill && !x->present) {
            *seq = s;
            *sig = x->sig;
            return true;
        }
    }
    return false;
}

void *enc_reclog_refill_buf(uint64_t seq, size_t *cap)
{
    struct entry *x = seq >= reclog.base && seq < reclog.end ? &reclog.e[seq - reclog.base] : NULL;

    return x != NULL && x->refill ? enc_bufpool_get(x->sig.len, cap) : NULL;
}

void enc_reclog_refilled(uint64_t seq, void *buf, size_t cap, bool ok)
{
    struct entry *x = seq >= reclog.base && seq < reclog.end ? &reclog.e[seq - reclog.base] : NULL;

    if (x == NULL || !x->refill || !ok) {
        enc_bufpool_put(buf, cap);
        if (x != NULL)
            x->refill = false;
        return;
    }
    x->data = buf;
    x->cap = cap;
    x->present = true;
    x->refill = false;
    reclog.mem += x->sig.len;
    note_peak();
}

size_t enc_reclog_peak_bytes(void) { return reclog.mem_peak; }
uint64_t enc_reclog_spill_peak(void) { return enc_spill_peak(); }

bool enc_reclog_dropped(uint64_t seq, uint64_t *lo, uint64_t *hi)
{
    *lo = reclog.drop_lo;
    *hi = reclog.drop_hi;
    return reclog.dropped && seq >= reclog.drop_lo && seq <= reclog.drop_hi;
}
uint64_t enc_reclog_recorded(void) { return reclog.recorded; }
uint64_t enc_reclog_resbuf_recorded(void) { return reclog.resbuf_recorded; }

static struct entry *aside(uint64_t seq)
{
    for (size_t i = 0; i < reclog.nboot; i++)
        if (reclog.boot[i].seq == seq)
            return &reclog.boot[i];
    return NULL;
}

static enc_status_t entry_data(struct entry *x, struct enc_sigrec *sig, const void **data,
                               size_t *len);

enc_status_t enc_reclog_find_bootstrap(const char *mod, uint64_t off, uint32_t occ,
                                       struct enc_sigrec *sig, const void **data, size_t *len)
{
    for (uint64_t i = 0; i < reclog.nboot + (reclog.end - reclog.base); i++) {
        struct entry *x = i < reclog.nboot ? &reclog.boot[i] : &reclog.e[i - reclog.nboot];

        if (x->present && x->sig.bootstrap && x->sig.occ == occ && x->sig.site_off == off &&
            strcmp(x->sig.site_mod, mod) == 0)
            return entry_data(x, sig, data, len);
    }
    return ENC_ERR_NOT_FOUND;
}

enc_status_t enc_reclog_find(uint64_t seq, struct enc_sigrec *sig, const void **data,
                             size_t *len)
{
    struct entry *x = seq < reclog.base ? aside(seq) : NULL;

    if (x != NULL)
        return entry_data(x, sig, data, len);
    if (seq < reclog.base || seq >= reclog.end)
        return ENC_ERR_NOT_FOUND;
    return entry_data(&reclog.e[seq - reclog.base], sig, data, len);
}

static enc_status_t entry_data(struct entry *x, struct enc_sigrec *sig, const void **data,
                               size_t *len)
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
            enc_spill_get(x->seq, spill_buf, x->sig.len, x->spill_off) != ENC_OK)
            return ENC_ERR_NOT_FOUND;
        *data = spill_buf;
    }
    return ENC_OK;
}
