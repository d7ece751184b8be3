/* scratch.h - reusable scratch buffers (private to the engine). */
#ifndef ENC_ENGINE_SCRATCH_H
#define ENC_ENGINE_SCRATCH_H

#include <stddef.h>

enum enc_scratch_slot {
    ENC_SCRATCH_ALGO,    /* algorithm temporaries (incoming blocks) */
    ENC_SCRATCH_SAVE,    /* in-place input, kept for a re-run after a failure */
    ENC_SCRATCH_RESULT,  /* results the caller has no buffer for (reduce non-root) */
    ENC_SCRATCH_ROWS,    /* an alltoall's every row, where its algorithm gathers them */
    ENC_SCRATCH_COUNT
};

/* NULL (logged) when out of memory. */
void *enc_scratch_get(enum enc_scratch_slot slot, size_t bytes);
void enc_scratch_release_all(void);

#endif
