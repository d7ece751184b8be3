/*
 * shm_ring.c - a point-to-point ring's byte stream (shm_ring.h).
 */
#include "p2p/shm_ring.h"

#include <string.h>

#include <immintrin.h>

/* Copies n bytes between the ring's data at position pos (wrapping) and
 * buf; the second copy only when it wraps (a small frame is one call). */
static void ring_copy(uint8_t *data, size_t cap, uint64_t pos, uint8_t *buf, size_t n, int in)
{
    size_t at = (size_t)(pos & (cap - 1)), first = cap - at < n ? cap - at : n;

    if (in) {
        memcpy(data + at, buf, first);
        if (n > first)
            memcpy(data, buf + first, n - first);
    } else {
        memcpy(buf, data + at, first);
        if (n > first)
            memcpy(buf + first, data, n - first);
    }
}

/* Room for n bytes, reading the reader's rpos only when the room known
 * from its last reading is short. */
static size_t room_for(struct enc_p2p_ring *r, size_t cap, uint64_t w, size_t n)
{
    size_t used = (size_t)(w - r->rpos_seen);

    if (used <= cap && cap - used >= n)
        return cap - used;
    r->rpos_seen = atomic_load_explicit(&r->rpos, memory_order_acquire);
    used = (size_t)(w - r->rpos_seen);
    return used > cap ? 0 : cap - used; /* a reader that broke the protocol: no room */
}

size_t enc_p2p_ring_put(struct enc_p2p_ring *r, size_t cap, const void *src, size_t n)
{
    uint64_t w = atomic_load_explicit(&r->wpos, memory_order_relaxed);
    size_t room = room_for(r, cap, w, n);

    if (n > room)
        n = room;
    if (n == 0)
        return 0;
    ring_copy(r->data, cap, w, (uint8_t *)src, n, 1);
    atomic_store_explicit(&r->wpos, w + n, memory_order_release);
    return n;
}

/* A frame of exactly one aligned cache line (an 8-byte message) is
 * written with one 64-byte store where the CPU has one: the reader polls
 * that line (enc_p2p_shm_unread), and a frame written in several stores
 * could lose the line to the reader's look between two of them. */
__attribute__((target("avx512f"))) static void line_store(uint8_t *dst, const uint8_t *src)
{
    _mm512_storeu_si512((void *)dst, _mm512_loadu_si512((const void *)src));
}

static bool line_store_ok(void)
{
    static int ok = -1; /* a benign race: every thread finds the same */

    if (ok < 0)
        ok = __builtin_cpu_supports("avx512f");
    return ok;
}

bool enc_p2p_ring_put_all2(struct enc_p2p_ring *r, size_t cap, const void *a, size_t na,
                           const void *b, size_t nb)
{
    uint64_t w = atomic_load_explicit(&r->wpos, memory_order_relaxed);

    if (na + nb == 0 || room_for(r, cap, w, na + nb) < na + nb)
        return false;
    if (na + nb == 64 && (w & 63) == 0 && line_store_ok()) {
        uint8_t line[64];

        memcpy(line, a, na);
        memcpy(line + na, b, nb);
        line_store(r->data + (w & (cap - 1)), line);
    } else {
        ring_copy(r->data, cap, w, (uint8_t *)a, na, 1);
        if (nb > 0)
            ring_copy(r->data, cap, w + na, (uint8_t *)b, nb, 1);
    }
    atomic_store_explicit(&r->wpos, w + na + nb, memory_order_release);
    return true;
}

size_t enc_p2p_ring_get(struct enc_p2p_ring *r, size_t cap, void *dst, size_t n)
{
    uint64_t rd = atomic_load_explicit(&r->rpos, memory_order_relaxed);
    uint64_t w = atomic_load_explicit(&r->wpos, memory_order_acquire);
    size_t used = (size_t)(w - rd);

    if (used > cap) /* a writer that broke the protocol: nothing is trusted */
        return 0;
    if (n > used)
        n = used;
    if (n == 0)
        return 0;
    ring_copy(r->data, cap, rd, dst, n, 0);
    atomic_store_explicit(&r->rpos, rd + n, memory_order_release);
    return n;
}

size_t enc_p2p_ring_used(struct enc_p2p_ring *r)
{
    return (size_t)(atomic_load_explicit(&r->wpos, memory_order_acquire) -
                    atomic_load_explicit(&r->rpos, memory_order_relaxed));
}

void enc_p2p_ring_reset(struct enc_p2p_ring *r)
{
    atomic_store_explicit(&r->wpos, 0, memory_order_relaxed);
    atomic_store_explicit(&r->rpos, 0, memory_order_relaxed);
    r->rpos_seen = 0;
    atomic_store_explicit(&r->room_wanted, 0, memory_order_relaxed);
    atomic_store_explicit(&r->lent, 0, memory_order_relaxed);
    atomic_fetch_add_explicit(&r->resets, 1, memory_order_release);
}
