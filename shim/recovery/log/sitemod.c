/* sitemod.c - interned module names of call sites (sitemod.h).
 *
 * Names live in blocks that are allocated once and never move or go, so
 * a name read by its index needs no lock; adding one takes the mutex.  A
 * process has a handful of modules (the program and its libraries) and
 * looks names up only when its call-site cache misses and when it
 * decodes a peer's signature, so the linear search is enough. */
#include "enc.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "recovery/log/sitemod.h"

#define BLOCK 256 /* names per block */
_Static_assert(ENC_SITEMOD_MAX % BLOCK == 0 && ENC_SITEMOD_MAX < ENC_SITEMOD_NONE,
               "indexes fit, NONE is none of them");

static char (*blocks[ENC_SITEMOD_MAX / BLOCK])[ENC_SITEMOD_BYTES];
static uint32_t count = 1; /* index 0: the empty name, in no block */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static char *slot(uint32_t id) { return blocks[id / BLOCK][id % BLOCK]; }

const char *enc_sitemod_name(uint16_t id)
{
    if (id == 0 || id >= __atomic_load_n(&count, __ATOMIC_ACQUIRE))
        return "";
    return slot(id);
}

uint16_t enc_sitemod_intern(const char *name)
{
    char key[ENC_SITEMOD_BYTES] = {0};
    uint32_t id;

    strncpy(key, name, sizeof(key) - 1);
    if (key[0] == '\0')
        return 0;
    pthread_mutex_lock(&lock);
    for (id = 1; id < count; id++)
        if (strcmp(slot(id), key) == 0)
            goto out;
    if (count == ENC_SITEMOD_MAX ||
        (blocks[count / BLOCK] == NULL &&
         (blocks[count / BLOCK] = calloc(BLOCK, ENC_SITEMOD_BYTES)) == NULL)) {
        id = ENC_SITEMOD_NONE;
        goto out;
    }
    memcpy(slot(count), key, sizeof(key));
    __atomic_store_n(&count, count + 1, __ATOMIC_RELEASE); /* the name first */
out:
    pthread_mutex_unlock(&lock);
    return (uint16_t)id;
}
