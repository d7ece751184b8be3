/*
 * test_p2p_spin_adapt.c - shim/p2p/spin_adapt.h: a wait's spin starts at
 * the configured length, doubles (up to it) after a spin that saw its
 * message, halves after one that did not or that was preempted, stops
 * below ENC_SPIN_MIN_NS, and once stopped spins the whole configured
 * length again every ENC_SPIN_PROBE_EVERY-th wait; a wait that did not
 * spin teaches nothing.
 */
#include "enc.h"

#include <criterion/criterion.h>

#include "p2p/spin_adapt.h"

#define SPIN 50000u

Test(p2p_spin_adapt, starts_at_the_configured_spin)
{
    struct enc_spin_adapt s = {0};

    cr_assert_eq(enc_spin_adapt_budget(&s, SPIN), SPIN);
}

Test(p2p_spin_adapt, halves_after_a_miss_and_a_preemption_doubles_after_a_hit)
{
    struct enc_spin_adapt s = {0};

    (void)enc_spin_adapt_budget(&s, SPIN);
    enc_spin_adapt_learn(&s, SPIN, true, false, false);
    cr_assert_eq(enc_spin_adapt_budget(&s, SPIN), SPIN / 2);
    enc_spin_adapt_learn(&s, SPIN, true, true, true); /* saw it, but was preempted */
    cr_assert_eq(enc_spin_adapt_budget(&s, SPIN), SPIN / 4);
    enc_spin_adapt_learn(&s, SPIN, true, true, false);
    cr_assert_eq(enc_spin_adapt_budget(&s, SPIN), SPIN / 2);
    enc_spin_adapt_learn(&s, SPIN, true, true, false);
    enc_spin_adapt_learn(&s, SPIN, true, true, false);
    cr_assert_eq(enc_spin_adapt_budget(&s, SPIN), SPIN, "never above the configured spin");
    enc_spin_adapt_learn(&s, SPIN, false, false, false);
    cr_assert_eq(enc_spin_adapt_budget(&s, SPIN), SPIN, "a wait that did not spin teaches nothing");
}

Test(p2p_spin_adapt, stops_below_the_minimum_and_probes_every_so_often)
{
    struct enc_spin_adapt s = {0};
    unsigned spun = 0;

    (void)enc_spin_adapt_budget(&s, SPIN);
    for (int i = 0; i < 20; i++)
        enc_spin_adapt_learn(&s, SPIN, true, false, false);
    for (unsigned i = 0; i < 4 * ENC_SPIN_PROBE_EVERY; i++) {
        uint64_t b = enc_spin_adapt_budget(&s, SPIN);

        cr_assert(b == 0 || b == SPIN);
        spun += b == SPIN;
    }
    cr_assert_eq(spun, 4);
    /* a probe that saw its message starts the spin again */
    while (enc_spin_adapt_budget(&s, SPIN) == 0)
        ;
    enc_spin_adapt_learn(&s, SPIN, true, true, false);
    cr_assert_eq(enc_spin_adapt_budget(&s, SPIN), ENC_SPIN_MIN_NS);
}
