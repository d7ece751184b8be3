/*
 * flags.c - publishing progress and waking sleeping peers.
 *
 * A poster stores its ticket, then (full fence) reads each peer's sleeping
 * flag; a sleeper sets its flag, then (full fence) re-reads the tickets it
 * waits for.  One of the two always sees the other, so no wake-up is lost
 * and a spinning peer costs the poster no system call.
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
        if (i == s->me || s->evfd[i] < 0 ||
            !atomic_load_explicit(&s->flags[i].sleeping, memory_order_relaxed))
            continue;
        (void)eventfd_write(s->evfd[i], 1);
    }
}

void enc_shm_sleep_begin(struct enc_shm *s)
{
    atomic_store_explicit(&s->flags[s->me].sleeping, 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_seq_cst);
}

void enc_shm_sleep_end(struct enc_shm *s)
{
    eventfd_t v;

    atomic_store_explicit(&s->flags[s->me].sleeping, 0, memory_order_relaxed);
    (void)eventfd_read(s->evfd[s->me], &v); /* non-blocking: drains a stale count */
}
