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
 */
#ifndef ENC_ENGINE_TURNS_H
#define ENC_ENGINE_TURNS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/status.h"

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

#endif
