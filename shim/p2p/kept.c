/* kept.c - a thread's freed blocks, kept for reuse (kept.h). */
#include "enc.h"

#include <pthread.h>
#include <stdlib.h>

#include "p2p/kept.h"

#define LISTS 4 /* kinds of kept blocks a thread may have */

/* The thread's lists that hold blocks, freed by the key's destructor
 * when the thread ends (the key's value only makes the destructor run). */
static __thread struct enc_p2p_kept *lists[LISTS];
static __thread int nlists;
static pthread_key_t key;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static bool key_ok;

static void release(void *arg)
{
    (void)arg;
    for (int i = 0; i < nlists; i++) {
        struct enc_p2p_kept *k = lists[i];

        while (k->n > 0)
            free(k->p[--k->n]);
        k->registered = false;
    }
    nlists = 0;
}

static void make_key(void) { key_ok = pthread_key_create(&key, release) == 0; }

void enc_p2p_kept_put(struct enc_p2p_kept *k, void *p)
{
    if (!k->registered) {
        (void)pthread_once(&once, make_key);
        if (!key_ok || nlists == LISTS || pthread_setspecific(key, lists) != 0) {
            free(p); /* nothing is kept that the thread's end could not free */
            return;
        }
        lists[nlists++] = k;
        k->registered = true;
    }
    if (k->n < ENC_P2P_KEPT_MAX)
        k->p[k->n++] = p;
    else
        free(p);
}
