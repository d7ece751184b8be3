/*
 * turn_queue.h - the engine's one user at a time among the threads that
 * run collectives: the application thread inside a blocking call and the
 * workers of nonblocking ones (icoll.c).  Waiting threads queue in FIFO
 * order; the engine's waits hand the engine on (engine/turns.h) while
 * their own collective has nothing to do.
 */
#ifndef ENC_MPI_TURN_QUEUE_H
#define ENC_MPI_TURN_QUEUE_H

#include <stdbool.h>

/* Waits until this thread holds the engine. */
void enc_mpi_turn_take(void);
/* Hands it to the next waiting thread, if any. */
void enc_mpi_turn_give(void);
/* Registers the engine's hand-over (enc_engine_set_turns); shared says
 * whether another thread may ask for the engine at any moment. */
void enc_mpi_turn_register(bool (*shared)(void));
/* In a forked child: only this thread exists, and it holds the engine. */
void enc_mpi_turn_fork_child(void);

#endif
