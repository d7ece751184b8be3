/* pool.c - reusable memory for point-to-point payloads (pool.h). */
#include "enc.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "core/tunables.h"
#include "p2p/pool.h"

#define POOL_MIN_BYTES ((size_t)64 << 10)
#define POOL_MAX_BYTES ((size_t)256 << 20)
#define MIN_SHIFT 16
#define CLASSES ((64 - MIN_SHIFT) * 4)
#define MAPPED ((size_t)1 << 63) /* in a block's header: its own mapping */

/* Each block starts with its header (16 bytes, so the payload stays
 * 16-byte aligned): its capacity with the MAPPED bit, and the next kept
 * block of its class while it is kept. */
struct blk {
    size_t cap;
    struct blk *next;
};

/* Kept blocks by size class: 2^k, 1.25 * 2^k, 1.5 * 2^k, 1.75 * 2^k from
 * 64 KiB on (at most a quarter wasted, a log frame of 64 KiB and its
 * header fits 80 KiB). */
static struct {
    pthread_mutex_t mu;
    struct blk *kept_class[CLASSES];
    size_t kept, budget;
} pl = {.mu = PTHREAD_MUTEX_INITIALIZER};

static size_t budget(void)
{
    if (pl.budget == 0)
        pl.budget = ENC_MAX(ENC_MIN((size_t)enc_tunable_uint(ENC_TUNE_LOG_MEM_MAX) / 4,
                                    POOL_MAX_BYTES), POOL_MIN_BYTES);
    return pl.budget;
}

/* The class of a block of at least len bytes (len >= POOL_MIN_BYTES), and its capacity. */
static int class_of(size_t len, size_t *cap)
{
    int k = 63 - __builtin_clzll((unsigned long long)len);
    size_t quarter = (size_t)1 << (k - 2);
    size_t q = (len - ((size_t)1 << k) + quarter - 1) / quarter;

    if (q == 4) {
        k++;
        q = 0;
        quarter <<= 1;
    }
    *cap = ((size_t)1 << k) + q * quarter;
    return (k - MIN_SHIFT) * 4 + (int)q;
}

void *enc_p2p_pool_get(size_t len)
{
    size_t cap;
    struct blk *b;
    int c;

    if (len + sizeof(*b) < POOL_MIN_BYTES) {
        if ((b = malloc(len + sizeof(*b))) == NULL)
            return NULL;
        b->cap = len + sizeof(*b);
        return b + 1;
    }
    c = class_of(len + sizeof(*b), &cap);
    pthread_mutex_lock(&pl.mu);
    if ((b = pl.kept_class[c]) != NULL) {
        pl.kept_class[c] = b->next;
        pl.kept -= cap;
    }
    pthread_mutex_unlock(&pl.mu);
    if (b != NULL) {
        madvise(b, cap, MADV_DOFORK); /* in use: the image holds it */
        return b + 1;
    }
    b = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (b == MAP_FAILED)
        return NULL;
    b->cap = cap | MAPPED;
    return b + 1;
}

void enc_p2p_pool_put(void *p)
{
    struct blk *b = p != NULL ? (struct blk *)p - 1 : NULL;
    size_t cap, same;
    int c;

    if (b == NULL)
        return;
    if (!(b->cap & MAPPED)) {
        free(b);
        return;
    }
    cap = b->cap & ~MAPPED;
    c = class_of(cap, &same);
    pthread_mutex_lock(&pl.mu);
    if (same == cap && pl.kept + cap <= budget()) {
        madvise(b, cap, MADV_DONTFORK);
        b->next = pl.kept_class[c];
        pl.kept_class[c] = b;
        pl.kept += cap;
        pthread_mutex_unlock(&pl.mu);
        return;
    }
    pthread_mutex_unlock(&pl.mu);
    munmap(b, cap);
}

void enc_p2p_pool_fork_child(void)
{
    pl.mu = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
    for (int i = 0; i < CLASSES; i++)
        pl.kept_class[i] = NULL;
    pl.kept = 0;
}
