/*
 * link_io.h - a data link's frames, shared by the collectives that take
 * turns on it (engine/turns.h).
 *
 * Collectives of different communicators may be in progress at once in
 * one process (each on its own thread of the MPI layer, one at a time in
 * the engine), and a link to a peer carries the frames of all of them in
 * one stream.  So a frame is written whole by one transfer before another
 * writes, is read whole by one transfer before another reads, and a frame
 * of another communicator's collective that arrives while this one reads
 * is held, in arrival order, until that collective asks for it.  The
 * frames of one collective from one peer stay in order: the held ones
 * came first.
 */
#ifndef ENC_ENGINE_LINK_IO_H
#define ENC_ENGINE_LINK_IO_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "proto/frame.h"

struct enc_held_frame {
    struct enc_held_frame *next;
    struct enc_frame_hdr h;
    size_t got;                        /* payload bytes read so far */
    uint8_t data[];
};

struct enc_link_io {
    const void *reader;                /* transfer in the middle of reading a frame */
    const void *writer;                /* transfer in the middle of writing a frame */
    struct enc_held_frame *held, *held_tail; /* complete frames, in arrival order */
    struct enc_held_frame *filling;    /* the held frame being read */
};

enc_status_t enc_link_io_alloc(int size);
/* The state of the link to world rank peer. */
struct enc_link_io *enc_link_io_of(int peer);
/* Links closed (a regroup): every held frame and claim goes with them. */
void enc_link_io_reset_all(void);
/* Drops the claims of transfer x (it ended early, on an error). */
void enc_link_io_forget(const void *x);

/* Removes and returns the oldest held frame of collective seq, or NULL. */
struct enc_held_frame *enc_link_io_take(struct enc_link_io *io, uint64_t seq);
/* Starts holding the frame whose header h was just read. */
enc_status_t enc_link_io_hold(struct enc_link_io *io, const struct enc_frame_hdr *h);
/* Reads more of the frame being held: ENC_OK when it is complete (now
 * held), ENC_INPROGRESS when the socket has no more yet, or an error. */
enc_status_t enc_link_io_fill(struct enc_link_io *io, int fd);

#endif
