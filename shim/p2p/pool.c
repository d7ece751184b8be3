/* pool.c - reusable memory for point-to-point payloads: an arena of chunks (pool.h). */
#include "enc.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "core/tunables.h"
#include "core/vec.h"
#include "p2p/pool.h"

#define PAGE ((size_t)4096)
#define FIRST_CHUNK ((size_t)64 << 10)
/* A full-size chunk: a huge page and a tail of small ones, so that a
 * message of 2 MiB (and its frame's header) fits one, as a smaller one
 * does: every chunk taken can serve every frame up to that size. */
#define FULL_CHUNK (ENC_P2P_POOL_CHUNK + ((size_t)64 << 10))
#define BUDGET_MIN ((size_t)64 << 10)
#define BUDGET_MAX ((size_t)512 << 20)
#define ALIGN_UP(x, a) (((x) + (a) - 1) & ~((a) - 1))
#define NO_LANE SIZE_MAX
#define LANE_MISC 0
#define LANE_LASTING 1
#define LANE_LOG 2

/* A mapping blocks are appended to.  Described outside it, so that its
 * pages can be dropped and only the blocks' own bytes are ever touched. */
struct chunk {
    uint8_t *base;
    size_t cap;             /* bytes mapped */
    size_t fill;            /* the next block's offset */
    size_t live;            /* blocks not given back */
    uint64_t gen;           /* pl.gen when it was taken: a fork since shares its pages */
    size_t lane;            /* the lane appending to it, NO_LANE: none */
    bool shared;            /* kept, its pages shared with the image of fork shared_gen */
    uint64_t shared_gen;
    struct chunk *next;     /* the next kept chunk */
};

/* Before each block (16 bytes, so the block stays 16-byte aligned). */
struct blk {
    struct chunk *c;
    size_t len;
};

/* A lane appends to one chunk at a time: LANE_MISC serves control frames
 * and arrival buffers, LANE_LASTING the headers of spilled frames (kept
 * until a checkpoint), LANE_LOG + r the log to world rank r, so that one
 * receiver's frames, released together by its snapshot, share chunks
 * (frames of a receiver that never snapshots do not pin the others', nor
 * a spilled frame's header a chunk of payloads).
 * A lane's chunks double from FIRST_CHUNK to ENC_P2P_POOL_CHUNK, so a
 * lane that carries little holds little. */
struct lane {
    struct chunk *cur;
    size_t next_cap;
};

static struct {
    pthread_mutex_t mu;
    struct lane *lanes;
    size_t nlanes, lanes_cap;
    struct chunk *kept;     /* free chunks, already faulted in (or dropped) */
    size_t kept_bytes, kept_chunks, budget;
    size_t chunks, bytes, mapped, dropped;
    uint64_t gen;           /* forks so far */
} pl = {.mu = PTHREAD_MUTEX_INITIALIZER};

static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

static uint64_t gen_now(void) { return __atomic_load_n(&pl.gen, __ATOMIC_ACQUIRE); }

static size_t budget(void)
{
    if (pl.budget == 0)
        pl.budget = ENC_MAX(ENC_MIN((size_t)enc_tunable_uint(ENC_TUNE_LOG_MEM_MAX) / 2,
                                    BUDGET_MAX), BUDGET_MIN);
    return pl.budget;
}

/* A fresh mapping of cap bytes; one of a huge-page chunk's size or more
 * is aligned to it and asks for huge pages (one fault per 2 MiB). */
static uint8_t *map_chunk(size_t cap)
{
    size_t span = cap >= ENC_P2P_POOL_CHUNK ? cap + ENC_P2P_POOL_CHUNK : cap;
    uint8_t *p = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    uint8_t *a;

    if (p == MAP_FAILED)
        return NULL;
    if (span == cap)
        return p;
    a = (uint8_t *)ALIGN_UP((uintptr_t)p, ENC_P2P_POOL_CHUNK);
    if (a > p)
        munmap(p, (size_t)(a - p));
    if (p + span > a + cap)
        munmap(a + cap, (size_t)(p + span - (a + cap)));
    (void)madvise(a, cap, MADV_HUGEPAGE); /* a hint: without it, 4 KiB pages */
    return a;
}

static void unmap_chunk(struct chunk *c)
{
    munmap(c->base, c->cap);
    pl.chunks--;
    pl.bytes -= c->cap;
    free(c);
}

/* A kept chunk whose pages no live image shares: the image of fork
 * shared_gen is replaced by the next one's (parking keeps one per rank),
 * and a kept chunk is in no later image (MADV_DONTFORK).  Reusing it then
 * costs one fault per huge page, which finds the page exclusive again. */
static bool clean(const struct chunk *c) { return !c->shared || gen_now() > c->shared_gen; }

/* The better of two kept chunks of at least want bytes: a clean one, then
 * the smaller. */
static bool better(const struct chunk *c, const struct chunk *best, size_t want)
{
    if (c->cap < want)
        return false;
    if (best == NULL || clean(c) != clean(best))
        return best == NULL || clean(c);
    return c->cap < best->cap;
}

/* The best kept chunk of at least want bytes, unlinked; NULL: none.  One
 * still shared has its pages dropped: writing them would copy each. */
static struct chunk *take_kept(size_t want)
{
    struct chunk **best = NULL, *c;

    for (struct chunk **p = &pl.kept; *p != NULL; p = &(*p)->next)
        if (better(*p, best != NULL ? *best : NULL, want))
            best = p;
    if (best == NULL)
        return NULL;
    c = *best;
    *best = c->next;
    pl.kept_bytes -= c->cap;
    pl.kept_chunks--;
    if (!clean(c)) {
        (void)madvise(c->base, c->cap, MADV_DONTNEED);
        pl.dropped++;
    }
    c->shared = false;
    (void)madvise(c->base, c->cap, MADV_DOFORK); /* in use: the image holds it */
    return c;
}

/* A chunk for a block of need bytes in lane l: a kept one when any is
 * large enough, else a fresh one. */
static struct chunk *take_chunk(struct lane *l, size_t need)
{
    size_t want = ENC_MAX(need, l->next_cap);
    struct chunk *c = take_kept(need);

    if (c == NULL) {
        size_t cap = want >= ENC_P2P_POOL_CHUNK ? ENC_MAX(ALIGN_UP(want, PAGE), FULL_CHUNK)
                                                : ALIGN_UP(want, PAGE);

        if ((c = calloc(1, sizeof(*c))) == NULL)
            return NULL;
        if ((c->base = map_chunk(cap)) == NULL) {
            free(c);
            return NULL;
        }
        c->cap = cap;
        pl.chunks++;
        pl.bytes += cap;
        pl.mapped++;
    }
    l->next_cap = ENC_MIN(l->next_cap * 2, ENC_P2P_POOL_CHUNK);
    c->fill = 0;
    c->live = 0;
    c->gen = gen_now();
    c->next = NULL;
    return c;
}

/* Every block of c was given back: keep it within the budget, else unmap. */
static void give_back(struct chunk *c)
{
    if (pl.kept_bytes + c->cap > budget()) {
        unmap_chunk(c);
        return;
    }
    c->shared = c->gen != gen_now(); /* in use at a fork: the newest image has its pages */
    c->shared_gen = gen_now();
    (void)madvise(c->base, c->cap, MADV_DONTFORK);
    c->next = pl.kept;
    pl.kept = c;
    pl.kept_bytes += c->cap;
    pl.kept_chunks++;
}

/* The lane's chunk takes no more blocks (given back once its last is). */
static void retire(struct lane *l)
{
    struct chunk *c = l->cur;

    l->cur = NULL;
    if (c == NULL)
        return;
    c->lane = NO_LANE;
    if (c->live == 0)
        give_back(c);
}

/* A fork (a snapshot image, or the program's own): every chunk in use
 * now shares its pages with the copy, so the lanes move on to others
 * (get_in) and these, given back, are kept as shared (take_kept).
 * Registered with pthread_atfork: a snapshot image is forked by a vfork
 * child, whose parent handler runs in this process's memory. */
static void at_fork_parent(void) { __atomic_add_fetch(&pl.gen, 1, __ATOMIC_RELEASE); }

/* In the copy: the kept chunks are MADV_DONTFORK, not mapped here. */
static void at_fork_child(void)
{
    pl.mu = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
    while (pl.kept != NULL) {
        struct chunk *c = pl.kept;

        pl.kept = c->next;
        pl.chunks--;
        pl.bytes -= c->cap;
        free(c);
    }
    pl.kept_bytes = 0;
    pl.kept_chunks = 0;
    at_fork_parent();
}

static void register_fork(void)
{
    if (pthread_atfork(NULL, at_fork_parent, at_fork_child) != 0)
        ENC_WARN("p2p", "pthread_atfork failed: payload memory is reused without regard to forks");
}

static struct lane *lane_at(size_t i)
{
    if (i >= pl.nlanes) {
        if (ENC_VEC_RESERVE(pl.lanes, pl.lanes_cap, i + 1) != ENC_OK)
            return NULL;
        for (size_t k = pl.nlanes; k <= i; k++)
            pl.lanes[k] = (struct lane){.next_cap = FIRST_CHUNK};
        pl.nlanes = i + 1;
    }
    return &pl.lanes[i];
}

static void *get_in(size_t lane, size_t len)
{
    size_t need = ALIGN_UP(sizeof(struct blk) + len, 16);
    struct lane *l;
    struct blk *b = NULL;

    if (len > SIZE_MAX / 2)
        return NULL;
    (void)pthread_once(&fork_once, register_fork);
    pthread_mutex_lock(&pl.mu);
    if ((l = lane_at(lane)) == NULL)
        goto out;
    if (l->cur != NULL && l->cur->gen != gen_now())
        retire(l); /* forked since it was taken: its free pages are shared too */
    if (l->cur == NULL || l->cur->fill + need > l->cur->cap) {
        retire(l);
        if ((l->cur = take_chunk(l, need)) == NULL)
            goto out;
        l->cur->lane = lane;
    }
    b = (struct blk *)(l->cur->base + l->cur->fill);
    l->cur->fill += need;
    l->cur->live++;
    b->c = l->cur;
    b->len = len;
out:
    pthread_mutex_unlock(&pl.mu);
    return b != NULL ? b + 1 : NULL;
}

void *enc_p2p_pool_get(size_t len) { return get_in(LANE_MISC, len); }

void *enc_p2p_pool_log_get(int peer, size_t len)
{
    return get_in(peer >= 0 ? LANE_LOG + (size_t)peer : LANE_MISC, len);
}

void *enc_p2p_pool_lasting_get(size_t len) { return get_in(LANE_LASTING, len); }

void enc_p2p_pool_put(void *p)
{
    struct chunk *c;

    if (p == NULL)
        return;
    c = ((struct blk *)p - 1)->c;
    pthread_mutex_lock(&pl.mu);
    if (--c->live == 0) {
        if (c->lane == NO_LANE)
            give_back(c);
        else if (c->gen == gen_now())
            c->fill = 0; /* empty and not shared: its lane starts it again */
        else
            retire(&pl.lanes[c->lane]);
    }
    pthread_mutex_unlock(&pl.mu);
}

void enc_p2p_pool_stats(struct enc_p2p_pool_stats *s)
{
    pthread_mutex_lock(&pl.mu);
    *s = (struct enc_p2p_pool_stats){.chunks = pl.chunks, .bytes = pl.bytes,
                                     .kept_chunks = pl.kept_chunks, .kept_bytes = pl.kept_bytes,
                                     .mapped = pl.mapped, .dropped = pl.dropped};
    pthread_mutex_unlock(&pl.mu);
}
