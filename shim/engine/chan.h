/*
 * chan.h - a communicator's channel in the host's shared-memory segment
 * (shm/shm.h), as this rank uses it: which one, and what this rank staged
 * there last.  The world's is channel 0 (engine state); every derived
 * communicator with ranks sharing this host has its own (engine/group.h).
 */
#ifndef ENC_ENGINE_CHAN_H
#define ENC_ENGINE_CHAN_H

#include <stdint.h>

struct enc_chan {
    int index;              /* in the host's segment; 0: the world's, -1: none */
    uint64_t done;          /* ticket peers reach once done with this rank's slot */
    uint64_t small_done[2]; /* the same for the small inputs, by seq parity */
};

#endif
