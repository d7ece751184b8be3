/* bufpool.c - reusable memory for result-log entries (bufpool.h).
 *
 * Buffers of 64 KiB and more are mappings of their own, pooled for reuse.
 * Smaller ones are carved from 2 MiB chunks on a huge page each (the
 * arena below), not from malloc: a short job logs every result into
 * memory it never touched, and on the VMs measured each fresh 4 KiB page
 * cost about 2 us of faulting, zeroing and charging, more than the
 * collective itself from 4 KiB up (bench/README.md, issue 20); a chunk
 * costs one fault.  A chunk is reused once every buffer carved from it was
 * given back (entries are freed roughly in the order they were logged),
 * so a long job logs into warm memory; a buffer kept long (a bootstrap
 * entry) keeps its chunk, at most 2 MiB each. */
#include "enc.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "recovery/log/bufpool.h"

#define HUGE_PAGE ((size_t)2 << 20)
#define POOL_SLOTS 64
#define POOL_MIN_BYTES ((size_t)64 << 10) /* smaller ones: the arena */
#define POOL_MAX_BYTES ((size_t)512 << 20)
#define ARENA_CHUNK HUGE_PAGE
/* As malloc aligns: any type may be read in place.  A cache line each made
 * an 8-byte result take 64 bytes, more than its table slot's share of the
 * log's growth (bench/README.md, session 21); only the thread that records
 * writes here, so sharing a line costs nothing. */
#define ARENA_ALIGN ((size_t)16)
#define ARENA_HEAD ARENA_ALIGN          /* struct chunk_head, at a chunk's start */
#define ARENA_MAX_BYTES (POOL_MIN_BYTES - ARENA_ALIGN) /* caps below POOL_MIN_BYTES */
#define ARENA_SPARES 4                  /* empty chunks kept for reuse */

static struct {
    void *p;
    size_t cap;
} slots[POOL_SLOTS];
static size_t pooled_bytes;
static bool wipe_on_fork;

/* Pooled sizes are mappings of their own (they may be wiped in a snapshot
 * image); smaller ones come from the arena, whose chunks never are.  At most
 * ENCORE_LOG_MEM_MAX / POOL_MIN_BYTES of them live at once (16384 for
 * 1 GiB), well under the kernel's default 65530 mappings. */
static bool mapped(size_t cap) { return cap >= POOL_MIN_BYTES; }

void enc_bufpool_set_wipe(bool on) { wipe_on_fork = on; }
bool enc_bufpool_wiped(size_t cap) { return wipe_on_fork && mapped(cap); }

void enc_bufpool_keep_on_fork(void *p, size_t cap, bool keep)
{
    if (p != NULL && enc_bufpool_wiped(cap))
        madvise(p, cap, keep ? MADV_KEEPONFORK : MADV_WIPEONFORK);
}

static void *map_pages(size_t cap)
{
    void *p = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    return p == MAP_FAILED ? NULL : p;
}

/* cap bytes on a huge-page boundary: map one huge page more, cut the ends. */
static void *map_aligned(size_t cap)
{
    uint8_t *raw = mmap(NULL, cap + HUGE_PAGE, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    uint8_t *p;
    size_t head;

    if (raw == MAP_FAILED)
        return NULL;
    p = (uint8_t *)(((uintptr_t)raw + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
    head = (size_t)(p - raw);
    if (head > 0)
        munmap(raw, head);
    if (HUGE_PAGE - head > 0)
        munmap(p + cap, HUGE_PAGE - head);
    madvise(p, cap, MADV_HUGEPAGE);
    return p;
}

/* ---- the arena of small buffers ---- */

struct chunk_head {
    size_t used;  /* bytes carved, the head included */
    size_t live;  /* bytes carved and not given back */
};
_Static_assert(sizeof(struct chunk_head) <= ARENA_HEAD, "the head fits its line");

static struct {
    uint8_t *cur;                 /* the chunk being carved */
    uint8_t *spare[ARENA_SPARES]; /* empty chunks */
    int nspare;
} arena;

static struct chunk_head *head_of(uint8_t *chunk) { return (struct chunk_head *)chunk; }

/* An empty chunk: a spare, else a new one on a huge page, populated at
 * once (one system call instead of a fault per page where huge pages are
 * off). */
static uint8_t *chunk_take(void)
{
    uint8_t *c;

    if (arena.nspare > 0) {
        c = arena.spare[--arena.nspare];
    } else {
        if ((c = map_aligned(ARENA_CHUNK)) == NULL)
            return NULL;
#ifdef MADV_POPULATE_WRITE
        (void)madvise(c, ARENA_CHUNK, MADV_POPULATE_WRITE); /* best effort */
#endif
    }
    *head_of(c) = (struct chunk_head){.used = ARENA_HEAD, .live = 0};
    return c;
}

/* Every buffer of chunk c came back: kept as a spare, or unmapped. */
static void chunk_give(uint8_t *c)
{
    if (arena.nspare < ARENA_SPARES)
        arena.spare[arena.nspare++] = c;
    else
        munmap(c, ARENA_CHUNK);
}

static void *arena_get(size_t len, size_t *cap)
{
    struct chunk_head *h;
    uint8_t *p;

    *cap = (ENC_MAX(len, (size_t)1) + ARENA_ALIGN - 1) & ~(ARENA_ALIGN - 1);
    if (arena.cur == NULL || head_of(arena.cur)->used + *cap > ARENA_CHUNK) {
        uint8_t *full = arena.cur;

        if ((arena.cur = chunk_take()) == NULL) {
            arena.cur = full;
            return NULL;
        }
        if (full != NULL && head_of(full)->live == 0)
            chunk_give(full);
    }
    h = head_of(arena.cur);
    p = arena.cur + h->used;
    h->used += *cap;
    h->live += *cap;
    return p;
}

static void arena_put(void *p, size_t cap)
{
    uint8_t *c = (uint8_t *)((uintptr_t)p & ~(uintptr_t)(ARENA_CHUNK - 1));
    struct chunk_head *h = head_of(c);

    h->live -= cap;
    if (h->live == 0 && c != arena.cur)
        chunk_give(c);
}

static void arena_drain(void)
{
    if (arena.cur != NULL && head_of(arena.cur)->live == 0) {
        munmap(arena.cur, ARENA_CHUNK);
        arena.cur = NULL;
    }
    while (arena.nspare > 0)
        munmap(arena.spare[--arena.nspare], ARENA_CHUNK);
}

static void release(void *p, size_t cap)
{
    if (p == NULL)
        return;
    if (mapped(cap))
        munmap(p, cap);
    else
        arena_put(p, cap);
}

static void *fresh(size_t len, size_t *cap)
{
    size_t page;

    if (len <= ARENA_MAX_BYTES)
        return arena_get(len, cap);
    page = (size_t)sysconf(_SC_PAGESIZE);
    if (len < HUGE_PAGE) { /* at least POOL_MIN_BYTES once rounded to pages */
        *cap = (len + page - 1) & ~(page - 1);
        return map_pages(*cap);
    }
    *cap = (len + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    return map_aligned(*cap);
}

/* The smallest pooled buffer that fits, if it wastes at most half.  A
 * pooled buffer is POOL_MIN_BYTES or more, so one of less than half that
 * never fits: small results (every 8-byte allreduce) skip the scan of the
 * slots, which took 430 of an 8-byte allreduce's 4,300 instructions. */
void *enc_bufpool_get(size_t len, size_t *cap)
{
    int best = -1;
    void *p;

    for (int i = 0; len >= POOL_MIN_BYTES / 2 && i < POOL_SLOTS; i++)
        if (slots[i].p && slots[i].cap >= len && slots[i].cap / 2 <= len &&
            (best < 0 || slots[i].cap < slots[best].cap))
            best = i;
    if (best < 0) {
        p = fresh(len, cap);
    } else {
        p = slots[best].p;
        *cap = slots[best].cap;
        slots[best].p = NULL;
        pooled_bytes -= *cap;
    }
    /* again on reuse: the buffer may have been kept for an image */
    enc_bufpool_keep_on_fork(p, *cap, false);
    return p;
}

void enc_bufpool_put(void *p, size_t cap)
{
    if (p == NULL)
        return;
    if (cap >= POOL_MIN_BYTES && pooled_bytes + cap <= POOL_MAX_BYTES) {
        for (int i = 0; i < POOL_SLOTS; i++) {
            if (slots[i].p == NULL) {
                slots[i].p = p;
                slots[i].cap = cap;
                pooled_bytes += cap;
                return;
            }
        }
    }
    release(p, cap);
}

void enc_bufpool_drain(void)
{
    for (int i = 0; i < POOL_SLOTS; i++) {
        release(slots[i].p, slots[i].cap);
        slots[i].p = NULL;
    }
    pooled_bytes = 0;
    arena_drain();
}

/* ---- growing tables ---- */

#define TABLE_MAPPED HUGE_PAGE /* from here a table is a huge-page mapping */

static size_t table_bytes(size_t cap, size_t elem)
{
    return (cap * elem + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
}

void *enc_bufpool_table_new(size_t cap, size_t elem)
{
    if (elem != 0 && cap > SIZE_MAX / 2 / elem)
        return NULL;
    if (cap * elem < TABLE_MAPPED)
        return calloc(cap, elem);
    return map_aligned(table_bytes(cap, elem)); /* fresh pages read as zeros */
}

void enc_bufpool_table_release(void *p, size_t cap, size_t elem, size_t below)
{
    size_t bytes = (below * elem) & ~(HUGE_PAGE - 1);

    /* MADV_DONTNEED: the pages read as zeros again if ever touched; in an
     * image forked earlier they stay as they were. */
    if (p != NULL && cap * elem >= TABLE_MAPPED && bytes > 0)
        (void)madvise(p, bytes, MADV_DONTNEED);
}

void enc_bufpool_table_free(void *p, size_t cap, size_t elem)
{
    if (p == NULL)
        return;
    if (cap * elem < TABLE_MAPPED)
        free(p);
    else
        munmap(p, table_bytes(cap, elem));
}
