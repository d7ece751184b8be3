/*
 * vec.h - growable arrays: one helper for every array that grows by
 * doubling (a pointer, its capacity in elements, and a count the caller
 * keeps).
 *
 *     struct entry *e = NULL;
 *     size_t n = 0, cap = 0;
 *
 *     if ((rv = ENC_VEC_RESERVE(e, cap, n + 1)) != ENC_OK)
 *         return rv;
 *     e[n++] = x;
 */
#ifndef ENC_CORE_VEC_H
#define ENC_CORE_VEC_H

#include <stddef.h>

#include "core/status.h"

#define ENC_VEC_MIN 16 /* elements of a first allocation */

/* Makes room for at least need elements of elem_size bytes in the array
 * whose pointer is at items (a `T **`, passed as void *) and whose capacity
 * is *cap: the capacity doubles (from ENC_VEC_MIN) until need fits, and the
 * new elements are zeroed.  ENC_OK, or ENC_ERR_NOMEM (also when the size
 * would overflow) with the array and *cap unchanged. */
enc_status_t enc_vec_reserve(void *items, size_t *cap, size_t need, size_t elem_size);

/* The same for an array pointer p and a size_t capacity cap (lvalues). */
#define ENC_VEC_RESERVE(p, cap, need) enc_vec_reserve(&(p), &(cap), (need), sizeof(*(p)))

#endif
