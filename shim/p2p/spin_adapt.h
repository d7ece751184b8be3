/*
 * spin_adapt.h - how long a point-to-point wait spins before it sleeps,
 * learned from the waits before it (shm_wait.c for the rings, tcp_wait.c
 * for the sockets; each keeps its own, under the layer's lock).
 *
 * Spinning pays only while the peer runs at the same time on another
 * core; on a loaded host a spinning rank burns the time slice its peer
 * needs.  So the spin doubles after a spin that saw its message, halves
 * after one that did not or that was preempted, and stops below
 * ENC_SPIN_MIN_NS; once stopped, every ENC_SPIN_PROBE_EVERY-th wait spins
 * the whole configured spin again to find out whether the host got quiet.
 */
#ifndef ENC_P2P_SPIN_ADAPT_H
#define ENC_P2P_SPIN_ADAPT_H

#include <stdbool.h>
#include <stdint.h>

#define ENC_SPIN_MIN_NS 1000u      /* below this, no spin at all */
#define ENC_SPIN_PREEMPTED_NS 20000u /* a gap this long between two looks: we did not run */
#define ENC_SPIN_PROBE_EVERY 256u

struct enc_spin_adapt {
    bool init;
    uint64_t budget;        /* ns the next wait spins */
    unsigned waits;
};

/* The spin of the next wait, spin (ns) being the configured one. */
static inline uint64_t enc_spin_adapt_budget(struct enc_spin_adapt *s, uint64_t spin)
{
    if (!s->init) {
        s->init = true;
        s->budget = spin;
    }
    if (s->budget == 0 && ++s->waits % ENC_SPIN_PROBE_EVERY == 0)
        return spin;
    return s->budget;
}

/* After a wait that spun (spun), whether the spin saw what it waited for
 * (moved) and whether it was preempted. */
static inline void enc_spin_adapt_learn(struct enc_spin_adapt *s, uint64_t spin, bool spun,
                                        bool moved, bool preempted)
{
    if (!spun)
        return;
    if (preempted || !moved)
        s->budget = s->budget / 2 < ENC_SPIN_MIN_NS ? 0 : s->budget / 2;
    else {
        uint64_t up = 2 * s->budget < ENC_SPIN_MIN_NS ? ENC_SPIN_MIN_NS : 2 * s->budget;

        s->budget = up < spin ? up : spin;
    }
}

#endif
