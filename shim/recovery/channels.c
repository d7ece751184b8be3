/* channels.c - the point-to-point layer's registered calls (channels.h). */
#include "enc.h"

#include <string.h>

#include "recovery/channels.h"

static const struct enc_channel_ops *registered;

void enc_channels_register(const struct enc_channel_ops *ops)
{
    __atomic_store_n(&registered, ops, __ATOMIC_RELEASE);
}

bool enc_channels_trim(uint64_t key, uint64_t floor)
{
    const struct enc_channel_ops *ops = __atomic_load_n(&registered, __ATOMIC_ACQUIRE);

    return ops != NULL && ops->trim(key, floor);
}

void enc_channels_each_received(void (*fn)(void *arg, uint64_t key, uint64_t pos), void *arg)
{
    const struct enc_channel_ops *ops = __atomic_load_n(&registered, __ATOMIC_ACQUIRE);

    if (ops != NULL)
        ops->each_received(fn, arg);
}

void enc_channels_counts(uint64_t c[ENC_CHANNEL_COUNTS])
{
    const struct enc_channel_ops *ops = __atomic_load_n(&registered, __ATOMIC_ACQUIRE);

    memset(c, 0, ENC_CHANNEL_COUNTS * sizeof(*c));
    if (ops != NULL)
        ops->counts(c);
}

void enc_channels_checkpointed(void)
{
    const struct enc_channel_ops *ops = __atomic_load_n(&registered, __ATOMIC_ACQUIRE);

    if (ops != NULL)
        ops->checkpointed();
}
