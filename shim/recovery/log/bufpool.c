/* bufpool.c - reusable memory for result-log entries (bufpool.h). */
#include "enc.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "recovery/log/bufpool.h"

#define HUGE_PAGE ((size_t)2 << 20)
#define POOL_SLOTS 64
#define POOL_MIN_BYTES ((size_t)64 << 10) /* smaller ones: malloc is cheap */
#define POOL_MAX_BYTES ((size_t)512 << 20)

static struct {
    void *p;
    size_t cap;
} slots[POOL_SLOTS];
static size_t pooled_bytes;
static bool wipe_on_fork;

/* Pooled sizes are mappings of their own (malloc's heap must never be
 * wiped in a snapshot image); smaller ones come from malloc.  At most
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

static void release(void *p, size_t cap)
{
    if (p == NULL)
        return;
    if (mapped(cap))
        munmap(p, cap);
    else
        free(p);
}

static void *fresh(size_t len, size_t *cap)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);

    *cap = len;
    if (len < POOL_MIN_BYTES)
        return malloc(len ? len : 1);
    if (len < HUGE_PAGE) {
        *cap = (len + page - 1) & ~(page - 1);
        return map_pages(*cap);
    }
    *cap = (len + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    return map_aligned(*cap);
}

/* The smallest pooled buffer that fits, if it wastes at most half. */
void *enc_bufpool_get(size_t len, size_t *cap)
{
    int best = -1;
    void *p;

    for (int i = 0; i < POOL_SLOTS; i++)
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
}
