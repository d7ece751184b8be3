/*
 * scratch.c - reusable scratch buffers, one per purpose.
 *
 * Collectives run back to back with the same sizes; reusing buffers avoids
 * a malloc/mmap and fresh page faults on every large call.  The buffers are
 * per thread: collectives on different communicators run on different
 * threads of the MPI layer and take turns inside the engine's waits
 * (engine/turns.h), so each needs its own.
 */
#include "enc.h"

#include <stdlib.h>

#include "engine/state.h"
#include "engine/scratch.h"

static __thread struct {
    void *p;
    size_t cap;
} slots[ENC_SCRATCH_COUNT];

void *enc_scratch_get(enum enc_scratch_slot slot, size_t bytes)
{
    if (slots[slot].p != NULL && bytes <= slots[slot].cap)
        return slots[slot].p;
    free(slots[slot].p);
    slots[slot].cap = 0;
    slots[slot].p = malloc(bytes ? bytes : 1);
    if (slots[slot].p == NULL) {
        ENC_ERROR("engine", "cannot allocate %zu bytes of scratch space", bytes);
        return NULL;
    }
    slots[slot].cap = bytes;
    return slots[slot].p;
}

void enc_scratch_release_all(void)
{
    for (int i = 0; i < ENC_SCRATCH_COUNT; i++) {
        free(slots[i].p);
        slots[i].p = NULL;
        slots[i].cap = 0;
    }
}
