/*
 * kept.h - a thread's few freed blocks of one kind, kept for its next
 * allocations of that kind (a small message's, a receive request's): each
 * small message allocated and freed one of each, and malloc, calloc and
 * free were a third of the instructions of its own path.  The blocks a
 * thread keeps are freed when it ends.
 */
#ifndef ENC_P2P_KEPT_H
#define ENC_P2P_KEPT_H

#include <stdbool.h>

#define ENC_P2P_KEPT_MAX 64 /* a window of nonblocking receives */

/* Zero-initialised, in thread-local storage (static __thread). */
struct enc_p2p_kept {
    void *p[ENC_P2P_KEPT_MAX];
    int n;
    bool registered; /* its blocks are freed when the thread ends */
};

/* A kept block, NULL when none (then malloc one of the kind's size). */
static inline void *enc_p2p_kept_get(struct enc_p2p_kept *k)
{
    return k->n > 0 ? k->p[--k->n] : NULL;
}

/* Keeps p (from malloc, of the kind's size), or frees it when full. */
void enc_p2p_kept_put(struct enc_p2p_kept *k, void *p);

#endif
