/*
 * checkpoint.c - the public checkpoint API (include/encore.h).
 */
#include "enc.h"

#include "engine/state.h"

static int version;

int encore_version(void) { return version; }

int encore_is_replaying(void)
{
    return enc_eng.active && enc_eng.seq < enc_eng.replay_until;
}

int encore_checkpoint(const void *global, size_t global_len, const void *local, size_t local_len)
{
    (void)global; (void)global_len; (void)local; (void)local_len;
    return ENC_ERR_UNSUPPORTED;
}

int encore_load_checkpoint(void *global, size_t *global_len, void *local, size_t *local_len)
{
    (void)global; (void)global_len; (void)local; (void)local_len;
    return 0;
}
