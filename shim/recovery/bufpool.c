/* bufpool.c - reusable memory for result-log entries (bufpool.h). */
#include "enc.h"

#include <stdlib.h>
#include <sys/mman.h>

#include "recovery/bufpool.h"

#define HUGE_PAGE ((size_t)2 << 20)
#define POOL_SLOTS 64
#define POOL_MIN_BYTES ((size_t)64 << 10) /* smaller ones: malloc is cheap */
#define POOL_MAX_BYTES ((size_t)512 << 20)

static struct {
    void *p;
    size_t cap;
} slots[POOL_SLOTS];
static size_t pooled_bytes;

static void *fresh(size_t len, size_t *cap)
{
    void *p;

    *cap = len;
    if (len < HUGE_PAGE)
        return malloc(len ? len : 1);
    *cap = (len + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    if (posix_memalign(&p, HUGE_PAGE, *cap) != 0)
        return NULL;
    madvise(p, *cap, MADV_HUGEPAGE);
    return p;
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
    if (best < 0)
        return fresh(len, cap);
    p = slots[best].p;
    *cap = slots[best].cap;
    slots[best].p = NULL;
    pooled_bytes -= *cap;
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
    free(p);
}

void enc_bufpool_drain(void)
{
    for (int i = 0; i < POOL_SLOTS; i++) {
        free(slots[i].p);
        slots[i].p = NULL;
    }
    pooled_bytes = 0;
}
