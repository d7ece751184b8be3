/*
 * flags.c - publishing progress and waking sleeping peers.
 *
 * A poster stores its ticket, then (full fence) reads each peer's sleeping
 * flag; a sleeper sets its flag, then (full fence) re-reads the tickets it
 * waits for.  One of the two always sees the other, so no wake-up is lost
 * and a spinning peer costs the poster no system call.  A sleeper that
 * names the one rank it waits for is woken by that rank's posts only.
 */
#include "enc.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include "shm/shm.h"

void enc_shm_post(struct enc_shm *s, int ch, uint64_t ticket)
{
    atomic_store_explicit(&enc_shm_lines(s, ch)[s->me].ticket, ticket, memory_order_release);
    atomic_thread_fence(memory_order_seq_cst);
    for (int i = 0; i < s->nslots; i++) {
        uint32_t v;

        if (i == s->me || s->evfd[i] < 0)
            continue;
        v = atomic_load_explicit(&s->flags[i].sleeping, memory_order_relaxed);
        if (v == ENC_SHM_SLEEP_ANY || v == ENC_SHM_SLEEP_FOR(s->me))
            (void)eventfd_write(s->evfd[i], 1);
    }
}

static void sleep_announce(struct enc_shm *s, uint32_t v)
{
    atomic_store_explicit(&s->flags[s->me].sleeping, v, memory_order_relaxed);
    atomic_thread_fence(memory_order_seq_cst);
}

void enc_shm_sleep_begin(struct enc_shm *s) { sleep_announce(s, ENC_SHM_SLEEP_ANY); }
void enc_shm_sleep_for(struct enc_shm *s, int r) { sleep_announce(s, ENC_SHM_SLEEP_FOR(r)); }

void enc_shm_sleep_end(struct enc_shm *s)
{
    eventfd_t v;

    atomic_store_explicit(&s->flags[s->me].sleeping, 0, memory_order_relaxed);
    (void)eventfd_read(s->evfd[s->me], &v); /* non-blocking: drains a stale count */
}
