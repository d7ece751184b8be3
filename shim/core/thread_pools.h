/*
 * thread_pools.h - the thread pools of libraries programs commonly load
 * (OpenBLAS, the OpenMP runtimes of GCC and LLVM) and what makes each safe
 * to leave out of a fork()ed copy of the process, which holds only the
 * forking thread.  Measured behaviour across fork: docs/snapshots.md.
 */
#ifndef ENC_CORE_THREAD_POOLS_H
#define ENC_CORE_THREAD_POOLS_H

#include <stdbool.h>

#include "core/threads.h"

struct enc_pool {
    const char *name;        /* for messages: "OpenBLAS", ... */
    const char *marker;      /* a function only its library defines */
    const char *unless;      /* ... which that library does not define (NULL: none) */
    /* Stops this process's threads of the pool (whose thread o is); 0 on
     * success.  The pool starts again when next used.  NULL: nothing to do. */
    int (*stop)(const struct enc_thread_origin *o);
    /* The calling thread is inside one of the pool's parallel regions: its
     * workers are busy with the caller's work.  NULL: never. */
    bool (*inside)(const struct enc_thread_origin *o);
    /* The pool's threads may stay: the library's own fork handler resets it
     * in the copy, which starts a new pool when next used. */
    bool stays;
    const char *remedy;      /* what the user can do when it cannot be made safe */
};

/* The pool whose thread o is (by the library its start routine lies in),
 * NULL when o is no known pool's. */
const struct enc_pool *enc_pool_of(const struct enc_thread_origin *o);
/* o is a thread of Python's threading module (or _thread). */
bool enc_thread_is_python(const struct enc_thread_origin *o);

#endif
