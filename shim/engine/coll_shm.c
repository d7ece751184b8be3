/*
 * coll_shm.c - collectives through the host's shared-memory segment
 * (shm/shm.h), used when every rank of a communicator is on this host (when
 * they span hosts, coll_hier.c uses the waits and slots of this file within
 * each host).  Every communicator uses its own channel of the segment
 * (co->chan: the world's is 0): its own tickets and slots, indexed by
 * world rank, so collectives of different communicators may be in flight
 * at once.
 *
 * Each rank stages data in its own slot and publishes a ticket; peers read
 * the slots whose tickets reached the step they need.  Allreduce is a
 * reduce-scatter plus allgather: after all inputs of a chunk are staged,
 * rank i combines slice i of every input (in rank order, so non-commutative
 * ops stay exact) into its output buffer, and every rank copies all the
 * slices out.  Messages larger than a slot go in chunks, two steps each.
 *
 * Small allreduces take one step, their inputs alternating between two
 * halves of the slot's second buffer by seq parity (see allreduce_small).
 *
 * A rank rewrites its slot only once every peer has finished reading it:
 * after its last reads a rank posts a "done" ticket, and the next
 * collective that writes the slot first waits for every peer's done (it is
 * normally there already, so this costs no latency).  Waits spin for
 * ENCORE_SPIN_US (auto: 2 ms when every rank of the job has a core of this
 * host, membership.c), yield the CPU for ENCORE_SHM_YIELD_US (with more ranks
 * than cores the awaited rank runs at once instead of after a wake-up),
 * then sleep on the rank's eventfd while the engine keeps
 * serving the tracker and the log service; a death notice interrupts them
 * (ENC_ERR_EPOCH) and the collective is re-run after the regroup, with
 * tickets of the new epoch, so a dead peer's half-written data is never
 * read.
 *
 * With a layer that keeps results (recovery), a large result is written
 * straight into the host's circular result buffer and copied out from
 * there: the buffer's entry is the log entry, so logging costs no copy.
 * Each rank copies out only what it wants: an alltoall's its column of
 * the rows (column_get), a reduce_scatter's its block (read by its caller,
 * enc_coll_result_read), a reduce's non-root ranks nothing.
 * Entries go in by pwrite and out by pread or from the slots, never
 * through this process's mapping of the buffer (shm/resbuf.c: on the VMs
 * encore is measured on, the first write through a mapping costs 1.2 ms
 * per MiB, and a 1 GiB buffer never stays warm).
 * Where the next entry goes is agreed at the first step (every rank
 * publishes where it would put it and the oldest entry its log still
 * uses); when the entry would overwrite one still in use, every rank first
 * copies its entries out (resbuf_evict) and they meet once more before
 * anyone writes.
 */
#include "enc.h"

#include <sched.h>
#include <string.h>

#include "engine/coll.h"
#include "engine/dispatch.h"
#include "engine/shm_wait.h"
#include "engine/state.h"
#include "engine/turns.h"
#include "shm/shm.h"

#define SMALL_BYTES 4096   /* below: one step, each rank combines it all */
_Static_assert(SMALL_BYTES <= ENC_SHM_CHUNK_MIN / 2, "small inputs fit half a buffer");
#define WAKE_CHECK_MS 1000 /* re-check tickets even without a wake-up */
/* Smaller results are copied into the log: cheap for a broadcast or a
 * gather, which would meet once more to place an entry.  The flat
 * allreduce places it in a meeting it has anyway, and the log's own copy
 * lands on fresh heap pages (a fault per 4 KiB here, shm/resbuf.c), so
 * every allreduce above one step keeps its result in the buffer. */
#define RESBUF_MIN_BYTES 65536
#define RESBUF_MIN_REDUCE_BYTES (SMALL_BYTES + 1)
#define RESBUF_ALIGN 64
#define CMA_MIN_BYTES (1u << 20) /* below: a system call per peer costs more than a copy */

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static uint64_t ticket(const struct enc_coll *co, unsigned step)
{
    return enc_shm_ticket(enc_eng.epoch, co->ctx.seq, step);
}

/* The communicator's ranks as world ranks (slots and flag lines). */
static const int *wset(const struct enc_coll *co)
{
    return co->ctx.peers ? co->ctx.peers : enc_eng.identity;
}

static int wrank(const struct enc_coll *co, int j)
{
    return co->ctx.peers ? co->ctx.peers[j] : j;
}

static void post(const struct enc_coll *co, unsigned step)
{
    enc_shm_post(&enc_eng.shm, co->chan->index, ticket(co, step));
}

/* Rank r is past ticket t.  With later_epoch_ok, a rank that already
 * posted in a later epoch counts too (it regrouped, so it no longer reads
 * what it read in t's epoch); a ticket of an earlier epoch never does: that
 * rank has not posted in this epoch yet and may be about to read. */
static bool past(const struct enc_shm_flags *lines, int r, uint64_t t, bool later_epoch_ok)
{
    uint64_t v = atomic_load_explicit(&lines[r].ticket, memory_order_acquire);

    if (enc_shm_ticket_epoch(v) != enc_shm_ticket_epoch(t))
        return later_epoch_ok &&
               (int16_t)(uint16_t)(enc_shm_ticket_epoch(v) - enc_shm_ticket_epoch(t)) > 0;
    return v >= t;
}

/* What a shared-memory wait waits for (engine/turns.h): the engine goes
 * to its thread when the rank it looks at, r, is past t (it looks at the
 * ranks of its set in order). */
struct shm_probe {
    struct enc_turn_probe base;
    const struct enc_shm_flags *lines;
    int r;
    uint64_t t;
    bool later_epoch_ok;
};

static bool shm_ready(const struct enc_turn_probe *base)
{
    const struct shm_probe *p = (const struct shm_probe *)base;

    return past(p->lines, p->r, p->t, p->later_epoch_ok) || enc_turn_probe_due(base);
}

/* One yield of the CPU, while yielding pays (until the wait's yield_until).
 * A yield pays when the rank we wait for runs next; when a process that
 * does not wait (a busy program beside the job, or a rank computing) takes
 * a whole time slice instead, yielding only keeps this rank runnable
 * against the one it waits for, far slower than sleeping at once
 * (bench/README.md): then this rank sleeps in its waits for a while
 * before it tries again.  That is when slow yields took a quarter of the
 * last YIELD_WINDOW_NS or more: beside two busy loops on 2 cores they
 * took 85 % of a 4-rank job's time; among other programs that sleep at
 * times (compilers, tests: a load of 2 to 9 on 2 cores) about 12 %, and
 * there going quiet on the first slow yield made 4-rank barriers 2-4x
 * slower than yielding on (issue 20).  Once quiet, a slow yield within
 * YIELD_REARM_NS of its end makes it quiet again at once (ranks of the job
 * copying large data take whole slices too, and a waiter they wake by
 * their post runs sooner than one that yields: re-learning the quarter
 * every time cost 4-rank allreduces of 0.5-2 MiB a fifth more).  The
 * occasional yield of a spin (stalls_ok false: ranks with a core each)
 * goes quiet at the first slow one, as there every yield to another
 * program gives it this rank's core for a slice (2-rank IMB from 128 KiB
 * took 2-3x longer on a loaded host yielding on).  The while starts at 10 ms and doubles up to 1 s each time yielding is slow
 * again soon after it, as it is beside a busy program. */
#define YIELD_SLOW_NS 200000ull
#define YIELD_WINDOW_NS 100000000ull
#define YIELD_REARM_NS 1000000000ull
#define YIELD_BACKOFF_MIN_NS 10000000ull
#define YIELD_BACKOFF_MAX_NS 1000000000ull
static bool yield_now(uint64_t yield_until, bool stalls_ok)
{
    static uint64_t quiet_until;                    /* no yielding before then */
    static uint64_t backoff = YIELD_BACKOFF_MIN_NS; /* the last quiet while */
    static uint64_t window_start, slow_ns;          /* slow yields' time in the window */
    uint64_t t0 = enc_now_ns(), t1;

    if (t0 >= yield_until || t0 < quiet_until)
        return false;
    sched_yield();
    t1 = enc_now_ns();
    if (t1 - t0 <= YIELD_SLOW_NS)
        return true;
    if (!stalls_ok || (quiet_until != 0 && t1 < quiet_until + YIELD_REARM_NS)) {
        /* slow again within a second of going quiet: the same cause */
        backoff = t1 < quiet_until + 2 * backoff ? ENC_MIN(2 * backoff, YIELD_BACKOFF_MAX_NS)
                                                 : YIELD_BACKOFF_MIN_NS;
    } else {
        if (t1 - window_start > YIELD_WINDOW_NS) {
            window_start = t0;
            slow_ns = 0;
        }
        slow_ns += t1 - t0;
        if (slow_ns < YIELD_WINDOW_NS / 4)
            return true; /* a passing stall */
        backoff = YIELD_BACKOFF_MIN_NS;
        window_start = 0;
    }
    quiet_until = t1 + backoff;
    return false;
}

/* Waits until every rank of set[0..n) is past t: spin, then yield, then
 * sleep.  While spinning the clock is read once per SPIN_BATCH polls: a
 * clock read costs more than a poll of a flag here (about 115 ns on
 * kvm-clock), and would delay seeing it; and the CPU is yielded once per
 * batch (about a microsecond), which costs a system call when nothing
 * else wants the core and saves the whole spin when the awaited rank does.
 * While yielding, every poll yields: the rank we wait for may be the next
 * to run on this core, and pausing first would only delay it. */
#define SPIN_BATCH 16
enc_status_t enc_coll_shm_wait(int ch, const int *set, int n, uint64_t t, bool later_epoch_ok)
{
    struct enc_shm *s = &enc_eng.shm;
    const struct enc_shm_flags *lines = enc_shm_lines(s, ch);
    uint64_t spin_until = 0, yield_until = 0, deadline = 0;
    uint32_t epoch = enc_eng.epoch;
    unsigned polls = 0;
    int i = 0;

    for (;;) {
        int before = i;
        enc_status_t rv;

        while (i < n && (set[i] == s->me || past(lines, set[i], t, later_epoch_ok)))
            i++;
        if (i == n)
            return ENC_OK;
        if (i != before)
            deadline = 0; /* progress: the no-progress bound starts again */
        struct shm_probe probe = {.base.ready = shm_ready, .lines = lines, .r = set[i], .t = t,
                                  .later_epoch_ok = later_epoch_ok};

        if (enc_turn_hand_on_probe(epoch, &rv, &probe.base)) { /* another collective looks */
            if (rv != ENC_OK)
                return ENC_ERR_EPOCH;
            continue;
        }
        /* others wait and looked: sleep at once; while others may ask, no
         * yield either (with workers of nonblocking collectives the slice
         * of yields cost nonblocking3 at 8 ranks a third of its time) */
        bool others = enc_turn_wanted() || enc_turn_shared();

        if (yield_until == 0 && !others) { /* spinning */
            if (enc_eng.shm_spin_ns > 0 && ++polls % SPIN_BATCH != 0) {
                cpu_relax();
                continue;
            }
            uint64_t now = enc_now_ns();

            if (spin_until == 0)
                spin_until = now + enc_eng.shm_spin_ns;
            if (now < spin_until) {
                /* the rank we wait for may share this core (a loaded
                 * host; the scheduler wakes a rank beside its waker):
                 * let it run now, not when the spin ends */
                (void)yield_now(spin_until, false);
                continue;
            }
            yield_until = now + enc_eng.yield_ns;
        }
        if (enc_eng.yield_ns > 0 && !others && yield_now(yield_until, true))
            continue;
        if (deadline == 0)
            deadline = enc_deadline_ms(enc_eng.coll_timeout_ms);
        bool shared = enc_turn_shared();

        /* alone, only set[i]'s post can end this sleep; with other
         * collectives of this process waiting, any peer's may */
        if (shared || enc_turn_wanted())
            enc_shm_sleep_begin(s);
        else
            enc_shm_sleep_for(s, set[i]);
        if (past(lines, set[i], t, later_epoch_ok)) {
            enc_shm_sleep_end(s);
            continue;
        }
        rv = enc_engine_wait_readable(s->evfd[s->me],
                                      ENC_MIN(deadline, enc_deadline_ms(shared ? ENC_TURN_POLL_MS
                                                                               : WAKE_CHECK_MS)));
        enc_shm_sleep_end(s);
        enc_turn_slept(); /* the next look hands the engine on */
        if (rv == ENC_ERR_TIMEOUT && enc_ms_left(deadline) > 0)
            continue;
        if (rv == ENC_ERR_TIMEOUT)
            ENC_ERROR("shm", "rank %d made no progress in %d ms (seq %llu)", set[i],
                      enc_eng.coll_timeout_ms, (unsigned long long)enc_shm_ticket_seq(t));
        if (rv != ENC_OK)
            return rv;
    }
}

/* Waits until co's rank `only` (or every peer, only < 0) posted step. */
static enc_status_t wait_for(const struct enc_coll *co, int only, unsigned step)
{
    int w;

    if (only >= 0) {
        w = wrank(co, only);
        return enc_coll_shm_wait(co->chan->index, &w, 1, ticket(co, step), false);
    }
    return enc_coll_shm_wait(co->chan->index, wset(co), co->n, ticket(co, step), false);
}

static enc_status_t wait_all(const struct enc_coll *co, unsigned step)
{
    return wait_for(co, -1, step);
}

/* Every rank of set is past done, the ticket after which they no longer
 * read what this rank staged (nothing to wait for when it is of an
 * earlier epoch: the regroup that ended it ended their reads too). */
static enc_status_t wait_done(int ch, uint64_t done, const int *set, int n)
{
    if (done == 0 || enc_shm_ticket_epoch(done) != (enc_eng.epoch & 0xffffu))
        return ENC_OK; /* nothing staged in this epoch */
    return enc_coll_shm_wait(ch, set, n, done, true);
}

enc_status_t enc_coll_shm_slot_free(const struct enc_coll *co, const int *set, int n)
{
    return wait_done(co->chan->index, co->chan->done, set, n);
}

/* Before this rank rewrites its slot: every peer finished reading what it
 * staged last (see the head of the file). */
static enc_status_t slot_free(const struct enc_coll *co)
{
    return enc_coll_shm_slot_free(co, wset(co), co->n);
}

void enc_coll_shm_staged(const struct enc_coll *co, unsigned done_step)
{
    co->chan->done = ticket(co, done_step);
}


/* Whether set[0..n) is every rank of this host's segment. */
static bool whole_host(const int *set, int n)
{
    const struct enc_shm *s = &enc_eng.shm;
    int here = 0;

    for (int r = 0; r < s->nslots; r++)
        here += enc_shm_has(s, r);
    return here == n;
}

static size_t resbuf_min(const struct enc_coll *co)
{
    bool reduce = co->sig->kind == ENC_COLL_ALLREDUCE || co->sig->kind == ENC_COLL_REDUCE;

    return reduce && co->hier == NULL ? RESBUF_MIN_REDUCE_BYTES : RESBUF_MIN_BYTES;
}

/* Same answer on every rank of set (this host's ranks of co's
 * communicator): it depends only on the call, the job, the host's segment
 * and set.  Entries are placed by the ranks that use them together and
 * copied out of each other's way by all the ranks that keep any, so only a
 * communicator with every rank of the host keeps its results there (the
 * world's always; a dup's or a split's when it spans the host). */
bool enc_coll_shm_resbuf_wanted(const struct enc_coll *co, const int *set, int n)
{
    const struct enc_engine_ops *ops = enc_eng.ops;

    return enc_eng.shm.resbuf != NULL && ops != NULL && ops->resbuf_keep != NULL &&
           ops->resbuf_evict != NULL && co->bytes >= resbuf_min(co) &&
           co->bytes <= enc_eng.shm.resbuf_bytes / 4 &&
           (co->chan->index == 0 || whole_host(set, n));
}

static uint64_t entry_len(const struct enc_coll *co)
{
    return (co->bytes + RESBUF_ALIGN - 1) / RESBUF_ALIGN * RESBUF_ALIGN;
}

/* The host's next free position for an entry of len bytes, taken: one
 * counter for every communicator's entries, so two collectives in flight
 * at once never get the same place.  Positions are multiples of
 * RESBUF_ALIGN. */
static uint64_t resbuf_take(uint64_t len)
{
    struct enc_shm *s = &enc_eng.shm;
    _Atomic uint64_t *head = &s->common->resbuf_head;
    uint64_t v = atomic_load(head), at;

    do {
        at = v;
        if (at % s->resbuf_bytes + len > s->resbuf_bytes) /* no entry wraps */
            at += s->resbuf_bytes - at % s->resbuf_bytes;
    } while (!atomic_compare_exchange_weak(head, &v, at + len));
    return at;
}

/* Before the first post of a collective that may use the result buffer:
 * every rank of set publishes the oldest entry its log keeps, and set[0]
 * the entry's place, which it takes now. */
void enc_coll_shm_resbuf_publish(const struct enc_coll *co, const int *set, int n)
{
    struct enc_shm *s = &enc_eng.shm;
    struct enc_shm_flags *f = &enc_shm_lines(s, co->chan->index)[s->me];
    unsigned h = (unsigned)(co->ctx.seq & 1);

    if (!enc_coll_shm_resbuf_wanted(co, set, n))
        return;
    if (set[0] == s->me)
        atomic_store_explicit(&f->resbuf_next[h], resbuf_take(entry_len(co)),
                              memory_order_relaxed);
    atomic_store_explicit(&f->resbuf_keep[h], enc_eng.ops->resbuf_keep(enc_eng.ops_arg),
                          memory_order_relaxed);
}

static void resbuf_raise_low(uint64_t low)
{
    _Atomic uint64_t *p = &enc_eng.shm.common->resbuf_low;
    uint64_t cur = atomic_load(p);

    while (cur < low && !atomic_compare_exchange_weak(p, &cur, low))
        ;
}

bool enc_coll_shm_resbuf_place(struct enc_coll *co, const int *set, int n)
{
    struct enc_shm *s = &enc_eng.shm;
    const struct enc_shm_flags *lines = enc_shm_lines(s, co->chan->index);
    uint64_t v, keep = UINT64_MAX, len = entry_len(co), low;
    unsigned h = (unsigned)(co->ctx.seq & 1);

    v = atomic_load_explicit(&lines[set[0]].resbuf_next[h], memory_order_relaxed);
    for (int i = 0; i < n; i++)
        keep = ENC_MIN(keep, atomic_load_explicit(&lines[set[i]].resbuf_keep[h],
                                                  memory_order_relaxed));
    low = v + len > s->resbuf_bytes ? v + len - s->resbuf_bytes : 0;
    if (low > keep)
        enc_eng.ops->resbuf_evict(enc_eng.ops_arg, low);
    resbuf_raise_low(low);
    co->in_resbuf = true;
    co->resbuf_at = v;
    return low > keep;
}

void enc_coll_shm_resbuf_put(const struct enc_coll *co, size_t off, const void *src, size_t len)
{
    enc_shm_resbuf_write(&enc_eng.shm, co->resbuf_at + off, src, len);
}

void enc_coll_shm_resbuf_get(const struct enc_coll *co, size_t off, void *dst, size_t len)
{
    enc_shm_resbuf_read(&enc_eng.shm, co->resbuf_at + off, dst, len);
}

/* After every rank's first post (wait_all(1) returned): place the result
 * in the result buffer, the same place on every rank; when entries had to be copied
 * out first, everyone meets once more before anyone writes. */
static enc_status_t resbuf_place(struct enc_coll *co, unsigned *step)
{
    if (!enc_coll_shm_resbuf_wanted(co, wset(co), co->n) ||
        !enc_coll_shm_resbuf_place(co, wset(co), co->n))
        return ENC_OK;
    post(co, ++*step);
    return wait_all(co, *step);
}

const void *enc_engine_resbuf_data(uint64_t at)
{
    return enc_eng.shm.resbuf ? enc_shm_resbuf_at(&enc_eng.shm, at) : NULL;
}

uint64_t enc_engine_resbuf_low(void)
{
    return enc_eng.shm.resbuf ? atomic_load(&enc_eng.shm.common->resbuf_low) : UINT64_MAX;
}

uint64_t enc_engine_resbuf_bytes(void)
{
    return enc_eng.shm.resbuf ? enc_eng.shm.resbuf_bytes : 0;
}

/* Slice i of c elements among n ranks (sizes differ by at most one). */
static size_t slice_off(size_t c, int n, int i)
{
    size_t q = c / (size_t)n, rem = c % (size_t)n;

    return (size_t)i * q + ENC_MIN((size_t)i, rem);
}

/* Rank j's input staged for collective seq: small inputs alternate between
 * the two halves of the slot's second buffer by seq parity, larger ones
 * use the first buffer. */
static uint8_t *small_in(const struct enc_coll *co, int j)
{
    const struct enc_shm *s = &enc_eng.shm;

    return enc_shm_in(s, co->chan->index, wrank(co, j), 1) + (co->ctx.seq & 1) * (s->chunk / 2);
}

static uint8_t *staged_in(const struct enc_coll *co, int j)
{
    if (co->bytes <= SMALL_BYTES)
        return small_in(co, j);
    return enc_shm_in(&enc_eng.shm, co->chan->index, wrank(co, j), 0);
}

/* dst = x_0 op x_1 op ... op x_{n-1} over elements [lo, lo + len) of the
 * staged inputs (apply: inout = in op inout, in being the lower rank's). */
static void combine(const struct enc_coll *co, uint8_t *dst, size_t lo, size_t len)
{
    size_t esz = co->r->elem_size;

    memcpy(dst, staged_in(co, co->n - 1) + lo * esz, len * esz);
    for (int j = co->n - 2; j >= 0; j--)
        co->r->apply(co->r, staged_in(co, j) + lo * esz, dst, len);
}

/* One step: stage, wait for every input, combine all of it.  The half
 * written now was last read in collective seq - 2, and a peer that posted
 * the step this rank waited for in seq - 1 is past that, so the rewrite
 * normally waits for nothing: one meeting of the ranks per collective,
 * not two (on an oversubscribed host each meeting costs context switches). */
static enc_status_t allreduce_small(struct enc_coll *co, const uint8_t *src)
{
    uint64_t *done = &co->chan->small_done[co->ctx.seq & 1];
    enc_status_t rv;

    if ((rv = wait_done(co->chan->index, *done, wset(co), co->n)) != ENC_OK)
        return rv;
    memcpy(staged_in(co, co->me), src, co->bytes);
    post(co, 1);
    if ((rv = wait_all(co, 1)) != ENC_OK)
        return rv;
    combine(co, co->recvbuf, 0, co->count);
    post(co, 2);
    *done = ticket(co, 2);
    return ENC_OK;
}

/* Where slice [a, ...) of the chunk is combined: in rank j's output
 * buffer (an entry in the result buffer gets a copy of each slice by
 * pwrite). */
static uint8_t *combined(const struct enc_coll *co, int j, size_t a)
{
    return enc_shm_out(&enc_eng.shm, co->chan->index, wrank(co, j)) + a * co->r->elem_size;
}

/* Same answer on every rank: it depends only on the call and the job. */
static bool cma_wanted(const struct enc_coll *co)
{
    return enc_eng.shm.cma && co->bytes >= CMA_MIN_BYTES;
}

/* combine() with the inputs read straight from the peers' buffers
 * (published in their flags with their first step) instead of from their
 * slots: element offset `at` of the collective, len elements.  This rank's
 * own slot buffer is the scratch for one peer's slice at a time. */
static enc_status_t combine_cma(const struct enc_coll *co, uint8_t *dst, const uint8_t *src,
                                size_t at, size_t len)
{
    const struct enc_shm *s = &enc_eng.shm;
    const struct enc_shm_flags *lines = enc_shm_lines(s, co->chan->index);
    size_t esz = co->r->elem_size, bytes = len * esz;
    uint8_t *scratch = enc_shm_in(s, co->chan->index, s->me, 0);
    enc_status_t rv;

    for (int j = co->n - 1; j >= 0; j--) {
        const uint8_t *x = src + at * esz;
        uint8_t *to = j == co->n - 1 ? dst : scratch;
        int w = wrank(co, j);

        if (j != co->me) {
            rv = enc_shm_cma_read(atomic_load_explicit(&s->flags[w].pid, memory_order_relaxed),
                                  atomic_load_explicit(&lines[w].src, memory_order_relaxed) +
                                      at * esz,
                                  to, bytes);
            if (rv != ENC_OK)
                return rv;
            x = to;
        }
        if (j == co->n - 1) {
            if (x != dst)
                memcpy(dst, x, bytes);
        } else {
            co->r->apply(co->r, x, dst, len);
        }
    }
    return ENC_OK;
}

/* A reduce's result kept in the result buffer is the log's entry: only
 * its root copies it out (the others' receive buffer is scratch); a
 * reduce_scatter's rank reads its part from there itself. */
static bool result_wanted(const struct enc_coll *co)
{
    return !(co->in_resbuf &&
             ((co->sig->kind == ENC_COLL_REDUCE && co->me != co->root) || co->part));
}

void enc_coll_result_read(const struct enc_coll *co, size_t off, void *dst, size_t len)
{
    if (co->in_resbuf)
        enc_coll_shm_resbuf_get(co, off, dst, len);
    else
        memmove(dst, (const uint8_t *)co->result + off, len);
}

static enc_status_t allreduce_chunks(struct enc_coll *co, const uint8_t *src)
{
    struct enc_shm *s = &enc_eng.shm;
    size_t esz = co->r->elem_size, per = s->chunk / esz;
    uint8_t *dst = co->recvbuf;
    bool cma = cma_wanted(co);
    unsigned step = 0;
    enc_status_t rv;

    if ((rv = slot_free(co)) != ENC_OK)
        return rv;
    enc_coll_shm_resbuf_publish(co, wset(co), co->n);
    if (cma) /* read by peers once they see this rank's first step */
        atomic_store_explicit(&enc_shm_lines(s, co->chan->index)[s->me].src,
                              (uint64_t)(uintptr_t)src, memory_order_relaxed);
    for (size_t off = 0; off < co->count; off += per) {
        size_t c = ENC_MIN(per, co->count - off);
        size_t lo = slice_off(c, co->n, co->me), hi = slice_off(c, co->n, co->me + 1);

        /* With cma the input stays where it is; the step says it is ready
         * and the next says every peer is done reading it. */
        if (!cma)
            memcpy(enc_shm_in(s, co->chan->index, s->me, 0), src + off * esz, c * esz);
        post(co, ++step);
        if ((rv = wait_all(co, step)) != ENC_OK ||
            (off == 0 && (rv = resbuf_place(co, &step)) != ENC_OK))
            return rv;
        if (!cma)
            combine(co, combined(co, co->me, lo), lo, hi - lo);
        else if ((rv = combine_cma(co, combined(co, co->me, lo), src, off + lo,
                                   hi - lo)) != ENC_OK)
            return rv;
        if (co->in_resbuf)
            enc_coll_shm_resbuf_put(co, (off + lo) * esz, combined(co, co->me, lo),
                                    (hi - lo) * esz);
        post(co, ++step);
        if ((rv = wait_all(co, step)) != ENC_OK)
            return rv;
        if (co->in_resbuf && (src == dst || !result_wanted(co)))
            continue; /* in place: once, at the end (enc_coll_shm_keeps_input) */
        for (int j = 0; j < co->n; j++) {
            size_t a = slice_off(c, co->n, j), b = slice_off(c, co->n, j + 1);

            memcpy(dst + (off + a) * esz, combined(co, j, a), (b - a) * esz);
        }
    }
    if (co->in_resbuf && src == dst)
        enc_coll_shm_resbuf_get(co, 0, dst, co->bytes);
    post(co, ENC_SHM_STEP_DONE);
    enc_coll_shm_staged(co, ENC_SHM_STEP_DONE);
    return ENC_OK;
}

static enc_status_t shm_allreduce(struct enc_coll *co)
{
    const uint8_t *src = co->sendbuf ? co->sendbuf : co->recvbuf;

    if (co->bytes <= SMALL_BYTES)
        return allreduce_small(co, src);
    return allreduce_chunks(co, src);
}

/* Everyone's first step, then the entry placed: *step is the last step
 * posted. */
static enc_status_t resbuf_meet(struct enc_coll *co, unsigned *step)
{
    enc_status_t rv;

    enc_coll_shm_resbuf_publish(co, wset(co), co->n);
    post(co, 1);
    *step = 1;
    if ((rv = wait_all(co, 1)) != ENC_OK)
        return rv;
    return resbuf_place(co, step);
}

/* Through the result buffer: everyone meets once to place it, then the root writes
 * piece after piece and the others copy each as soon as it is posted.  The
 * entry holds the whole result, so pieces need not be the slots' chunk:
 * smaller ones let the others' copies run beside the root's (a chunk of
 * 1 MiB at 2 ranks made a 1 MiB broadcast two copies one after the
 * other).  Pieces grow beyond BCAST_PIECE only where a ticket's 16 bits of
 * steps would not count them (entries of more than 2 GiB). */
#define BCAST_PIECE ((size_t)64 << 10)
static size_t bcast_piece(const struct enc_coll *co)
{
    size_t most = (ENC_SHM_STEP_DONE - 4) / 2; /* steps of a ticket, with room */

    return ENC_MAX(BCAST_PIECE, (co->bytes + most - 1) / most);
}

static enc_status_t bcast_resbuf(struct enc_coll *co)
{
    size_t piece = bcast_piece(co);
    unsigned step, base;
    enc_status_t rv;

    if ((rv = resbuf_meet(co, &step)) != ENC_OK)
        return rv;
    base = step;
    for (size_t off = 0, k = 1; off < co->bytes; off += piece, k++) {
        size_t c = ENC_MIN(piece, co->bytes - off);

        if (co->me == co->root) {
            enc_coll_shm_resbuf_put(co, off, (uint8_t *)co->recvbuf + off, c);
            post(co, base + (unsigned)k);
        } else {
            if ((rv = wait_for(co, co->root, base + (unsigned)k)) != ENC_OK)
                return rv;
            enc_coll_shm_resbuf_get(co, off, (uint8_t *)co->recvbuf + off, c);
        }
    }
    return ENC_OK;
}

static enc_status_t shm_bcast(struct enc_coll *co)
{
    struct enc_shm *s = &enc_eng.shm;
    uint8_t *buf = co->recvbuf;
    unsigned step = 0;
    enc_status_t rv;

    if (enc_coll_shm_resbuf_wanted(co, wset(co), co->n))
        return bcast_resbuf(co);
    if (co->me == co->root && (rv = slot_free(co)) != ENC_OK)
        return rv;
    for (size_t off = 0; off < co->bytes; off += s->chunk) {
        size_t c = ENC_MIN(s->chunk, co->bytes - off);

        if (co->me == co->root) {
            if (step > 0 && (rv = wait_all(co, step)) != ENC_OK) /* chunk before read */
                return rv;
            memcpy(enc_shm_in(s, co->chan->index, s->me, 0), buf + off, c);
            post(co, ++step);
            step++;
        } else {
            if ((rv = wait_for(co, co->root, ++step)) != ENC_OK)
                return rv;
            memcpy(buf + off, enc_shm_in(s, co->chan->index, wrank(co, co->root), 0), c);
            post(co, ++step);
        }
    }
    if (co->me == co->root)
        enc_coll_shm_staged(co, step); /* every peer's ack of the last chunk */
    /* On a derived communicator nobody may finish before everyone entered
     * (group_coll.c): the root waits for every ack of the last chunk, the
     * others for every other non-root's (the root's data says it entered;
     * at 2 ranks nothing more to wait for: one hop, not three). */
    if (co->sig->grp != NULL) {
        const int *set = wset(co);

        if (co->me == co->root)
            return wait_all(co, step);
        if ((rv = enc_coll_shm_wait(co->chan->index, set, co->root, ticket(co, step), false)) !=
            ENC_OK)
            return rv;
        return enc_coll_shm_wait(co->chan->index, set + co->root + 1, co->n - co->root - 1,
                                 ticket(co, step), false);
    }
    return ENC_OK;
}

static enc_status_t shm_barrier(struct enc_coll *co)
{
    post(co, 1);
    return wait_all(co, 1);
}

/* An alltoall's column out of the entry's rows: block me of every row
 * (this rank's own from its input; in place, column is sendbuf, and each
 * block j < me written over was put already). */
static void column_get(const struct enc_coll *co)
{
    size_t row = (size_t)co->n * co->block, mine = (size_t)co->me * co->block;

    for (int j = 0; j < co->n; j++) {
        uint8_t *to = (uint8_t *)co->column + (size_t)j * co->block;

        if (j != co->me)
            enc_coll_shm_resbuf_get(co, (size_t)j * row + mine, to, co->block);
        else if (to != (const uint8_t *)co->sendbuf + mine)
            memcpy(to, (const uint8_t *)co->sendbuf + mine, co->block);
    }
}

/* Through the result buffer: every block goes to its place in the entry (packed in
 * rank order, as the log keeps it), and everyone copies the others' (an
 * alltoall's rank its column only).  An alltoall's rows go in without
 * their diagonal block, which only its own rank wants: it takes it from
 * its input, live (column_get) and in a replay (enc_coll_column_take);
 * at 2 ranks that halves what each rank writes. */
static enc_status_t allgatherv_resbuf(struct enc_coll *co)
{
    const uint8_t *mine = co->column != NULL ? co->sendbuf
                                             : (uint8_t *)co->recvbuf + co->displs[co->me];
    size_t at = 0;
    unsigned step;
    enc_status_t rv;

    if ((rv = resbuf_meet(co, &step)) != ENC_OK)
        return rv;
    for (int j = 0; j < co->me; j++)
        at += co->recvbytes[j];
    if (co->column != NULL) { /* the row but its diagonal block: nobody reads it */
        size_t diag = (size_t)co->me * co->block, next = diag + co->block;

        enc_coll_shm_resbuf_put(co, at, mine, diag);
        enc_coll_shm_resbuf_put(co, at + next, mine + next, co->recvbytes[co->me] - next);
    } else {
        enc_coll_shm_resbuf_put(co, at, mine, co->recvbytes[co->me]);
    }
    post(co, ++step);
    if ((rv = wait_all(co, step)) != ENC_OK)
        return rv;
    if (co->column != NULL) {
        column_get(co);
        return ENC_OK;
    }
    at = 0;
    for (int j = 0; j < co->n; j++) {
        if (j != co->me)
            enc_coll_shm_resbuf_get(co, at, (uint8_t *)co->recvbuf + co->displs[j],
                                    co->recvbytes[j]);
        at += co->recvbytes[j];
    }
    return ENC_OK;
}

/* Blocks of SMALL_BYTES or less take one step, staged in the half of the
 * slot's second buffer of the collective's parity as allreduce_small does
 * (and sharing its record of who still reads which half): one meeting of
 * the ranks, not two. */
static enc_status_t allgatherv_small(struct enc_coll *co)
{
    uint64_t *done = &co->chan->small_done[co->ctx.seq & 1];
    enc_status_t rv;

    if ((rv = wait_done(co->chan->index, *done, wset(co), co->n)) != ENC_OK)
        return rv;
    memcpy(small_in(co, co->me), (const uint8_t *)co->recvbuf + co->displs[co->me],
           co->recvbytes[co->me]);
    post(co, 1);
    if ((rv = wait_all(co, 1)) != ENC_OK)
        return rv;
    for (int j = 0; j < co->n; j++)
        if (j != co->me)
            memcpy((uint8_t *)co->recvbuf + co->displs[j], small_in(co, j), co->recvbytes[j]);
    post(co, 2);
    *done = ticket(co, 2);
    return ENC_OK;
}

/* Chunk k carries bytes [k chunk, (k + 1) chunk) of every rank's block. */
static enc_status_t shm_allgatherv(struct enc_coll *co)
{
    struct enc_shm *s = &enc_eng.shm;
    size_t longest = 0;
    unsigned step = 0;
    enc_status_t rv;

    if (enc_coll_shm_resbuf_wanted(co, wset(co), co->n))
        return allgatherv_resbuf(co);
    for (int j = 0; j < co->n; j++)
        longest = ENC_MAX(longest, co->recvbytes[j]);
    if (longest <= SMALL_BYTES)
        return allgatherv_small(co);
    if ((rv = slot_free(co)) != ENC_OK)
        return rv;
    for (size_t off = 0; off < longest; off += s->chunk) {
        const uint8_t *mine = (const uint8_t *)co->recvbuf + co->displs[co->me];

        if (step > 0 && (rv = wait_all(co, step)) != ENC_OK)
            return rv;
        if (off < co->recvbytes[co->me])
            memcpy(enc_shm_in(s, co->chan->index, s->me, 0), mine + off,
                   ENC_MIN(s->chunk, co->recvbytes[co->me] - off));
        post(co, ++step);
        if ((rv = wait_all(co, step)) != ENC_OK)
            return rv;
        for (int j = 0; j < co->n; j++)
            if (j != co->me && off < co->recvbytes[j])
                memcpy((uint8_t *)co->recvbuf + co->displs[j] + off,
                       enc_shm_in(s, co->chan->index, wrank(co, j), 0),
                       ENC_MIN(s->chunk, co->recvbytes[j] - off));
        post(co, ++step);
    }
    enc_coll_shm_staged(co, step);
    return ENC_OK;
}

/* True when fn (chosen by enc_coll_shm_algo) writes an in-place result
 * over the input only after the ranks' last meeting, when no failure can
 * interrupt it any more: a re-run then finds the input intact, so it need
 * not be saved first (the copy that would make in place cost more than out
 * of place).  One step, or one chunk, or kept in the result buffer (copied
 * out once at the end). */
bool enc_coll_shm_keeps_input(const struct enc_coll *co, enc_algo_fn fn)
{
    return fn == shm_allreduce && (co->bytes <= enc_eng.shm.chunk ||
                                    enc_coll_shm_resbuf_wanted(co, wset(co), co->n));
}

bool enc_coll_shm_reads_column(const struct enc_coll *co, enc_algo_fn fn)
{
    return fn == shm_allgatherv && enc_coll_shm_resbuf_wanted(co, wset(co), co->n);
}

enc_algo_fn enc_coll_shm_algo(const struct enc_coll *co)
{
    const struct enc_shm *s = &enc_eng.shm;
    size_t longest = co->bytes;

    if (co->sig->kind == ENC_COLL_ALLGATHERV) {
        longest = 0;
        for (int j = 0; j < co->n; j++)
            longest = ENC_MAX(longest, co->recvbytes[j]);
    }
    /* two steps per chunk must fit in a ticket's 16 bits */
    if (longest / s->chunk >= (ENC_SHM_STEP_DONE - 2) / 2)
        return NULL;
    switch (co->sig->kind) {
    case ENC_COLL_ALLREDUCE:
    case ENC_COLL_REDUCE:
        return co->r->elem_size <= s->chunk ? shm_allreduce : NULL;
    case ENC_COLL_BCAST:
        return shm_bcast;
    case ENC_COLL_BARRIER:
        return shm_barrier;
    case ENC_COLL_ALLGATHERV:
        return shm_allgatherv;
    default:
        return NULL; /* finalize stays on the links it closes */
    }
}
