/*
 * turns.h - the engine's waits hand the engine to other collectives of
 * this process (private to shim/engine; the MPI layer registers how turns
 * pass with enc_engine_set_turns, engine.h).
 *
 * The engine has one user at a time.  Collectives of different
 * communicators may nevertheless be in progress at once: ranks may start
 * nonblocking ones in different orders, or one rank may block in a
 * collective of one communicator that its peer reaches only after a
 * nonblocking one on another.  Each runs on its own thread of the MPI
 * layer; when a wait finds nothing for its collective and another one
 * wants the engine, it hands the engine on and waits for its next turn.
 *
 * A wait that finds nothing hands the engine on at once, without sleeping,
 * to a waiting collective that would find something: a shared-memory wait
 * leaves a probe saying what it waits for (enc_turn_hand_on_probe), and
 * one without a probe (a TCP transfer, a thread starting its collective)
 * looks once after each sleep of the engine (enc_turn_hand_on).  When
 * nobody would, the holder sleeps, woken by whatever arrives for any of
 * them (a peer's post wakes the rank's eventfd, shm/flags.c) or by another
 * thread queueing for the engine (turn_queue.c wakes it), and at most
 * ENC_TURN_POLL_MS (a message for another collective on a TCP link does
 * not wake it).  So collectives of several communicators progress
 * together, the engine going round only to those whose data arrived, and
 * an idle process sleeps instead of passing the engine round.  (Before,
 * each waiter slept up to ENC_TURN_POLL_MS before handing on: MPICH's
 * nonblocking3 timed out at 4 ranks.)
 */
#ifndef ENC_ENGINE_TURNS_H
#define ENC_ENGINE_TURNS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/status.h"

/* What a wait waits for, for the holder to look at while the waiter waits
 * for its turn: ready() says whether the waiter would find something (or
 * has not looked for ENC_TURN_STALE_MS, or the world regrouped), so the
 * holder hands the engine on only when someone would.  A wait without one
 * (a TCP transfer, a thread starting its collective) always gets its turn
 * once per sleep of the engine. */
struct enc_turn_probe {
    bool (*ready)(const struct enc_turn_probe *p);
    uint64_t looked_ns; /* enc_now_ns() when its waiter last looked */
    uint32_t epoch;     /* the waiter's attempt's */
};
#define ENC_TURN_STALE_MS 50

/* Longest a wait sleeps while another collective wants the engine. */
#define ENC_TURN_POLL_MS 1

/* Another collective waits for the engine (never while regrouping: the
 * regroup runs to its end in one turn). */
bool enc_turn_wanted(void);
/* Another collective may ask for the engine at any moment: sleep at most
 * ENC_TURN_POLL_MS at a time. */
bool enc_turn_shared(void);
/* Hands the engine on and returns on this collective's next turn:
 * ENC_ERR_EPOCH when the world regrouped meanwhile (the caller's attempt,
 * begun in epoch, must be run again in the new one), else ENC_OK. */
enc_status_t enc_turn_pass(uint32_t epoch);
/* The caller's wait found nothing for its collective.  While another
 * collective that has not looked since the engine last slept waits for the
 * engine: hands it on, returns true with *rv as enc_turn_pass's.  Else
 * false: the caller sleeps (ENC_TURN_POLL_MS at most while
 * enc_turn_shared()), then calls enc_turn_slept. */
bool enc_turn_hand_on(uint32_t epoch, enc_status_t *rv);
/* The same, for a wait that can say what it waits for (probe, on its
 * stack until this returns): while every waiting collective has a probe,
 * the engine goes on only when one of them is ready. */
bool enc_turn_hand_on_probe(uint32_t epoch, enc_status_t *rv, struct enc_turn_probe *probe);
/* Whether the waiter of p should look (the holder calls it). */
bool enc_turn_probe_due(const struct enc_turn_probe *p);
/* A wait's sleep ended (woken or timed out): whatever arrived meanwhile
 * may be for any collective, so each looks again before the next sleep. */
void enc_turn_slept(void);

#endif
