/*
 * shm_wait.h - what coll_shm.c lends coll_hier.c, which is built on it:
 * the waits on the slots' tickets (shm/shm.h) and the host's circular
 * result buffer.  Private to those two files.
 */
#ifndef ENC_ENGINE_SHM_WAIT_H
#define ENC_ENGINE_SHM_WAIT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/status.h"
#include "engine/coll.h"

/* The step a rank posts once it has read all it will read of its peers'
 * slots for a collective: the last step a ticket can hold. */
#define ENC_SHM_STEP_DONE 0xffffu

/* Sets are world ranks; ch is the channel (co->chan->index).
 * Waits until every rank of set[0..n) but this one posted ticket t or more
 * (see past() in coll_shm.c); waits until the ranks of set finished
 * reading what this rank staged last; records that what this rank stages
 * now is read once every peer posted step done_step of co. */
enc_status_t enc_coll_shm_wait(int ch, const int *set, int n, uint64_t t, bool later_epoch_ok);
enc_status_t enc_coll_shm_slot_free(const struct enc_coll *co, const int *set, int n);
void enc_coll_shm_staged(const struct enc_coll *co, unsigned done_step);

/* The host's result buffer, over set[0..n), this host's ranks of co's
 * communicator: whether co's result goes there (the same answer on each of
 * them); before their first post of co, each publishes the oldest entry it
 * keeps and set[0] the entry's place, taken from the host's counter; and
 * once every rank of set published, the place of co's result
 * (co->in_resbuf, co->resbuf_at), the same on each of them.  True when this
 * rank had to copy entries out of the way: so did every rank of set, and
 * they must all have done so before anyone writes the entry. */
bool enc_coll_shm_resbuf_wanted(const struct enc_coll *co, const int *set, int n);
void enc_coll_shm_resbuf_publish(const struct enc_coll *co, const int *set, int n);
bool enc_coll_shm_resbuf_place(struct enc_coll *co, const int *set, int n);
/* len bytes in and out of co's placed entry at byte off, by pwrite and
 * pread (shm/resbuf.c). */
void enc_coll_shm_resbuf_put(const struct enc_coll *co, size_t off, const void *src, size_t len);
void enc_coll_shm_resbuf_get(const struct enc_coll *co, size_t off, void *dst, size_t len);

#endif
