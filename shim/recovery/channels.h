/*
 * channels.h - the point-to-point layer's part in trims and snapshots.
 *
 * Senders keep the payloads of their messages (p2p/conn.c) until the
 * receiver's parked image has them: encore-run's TRIM floors name a
 * channel key, and an image lists the channels it received on.  The
 * point-to-point layer sits above recovery/, so recovery/ does not call
 * into it: the layer registers these two calls when it starts listening,
 * and recovery/ goes through them (none registered: no channels).
 */
#ifndef ENC_RECOVERY_CHANNELS_H
#define ENC_RECOVERY_CHANNELS_H

#include <stdbool.h>
#include <stdint.h>

struct enc_channel_ops {
    /* Releases the messages below floor on the channel of key; false when
     * this rank sends on no channel of that key (then key is a cid). */
    bool (*trim)(uint64_t key, uint64_t floor);
    /* fn(arg, key, next position needed) for every channel received on;
     * no allocation, no lock (called in a snapshot image). */
    void (*each_received)(void (*fn)(void *arg, uint64_t key, uint64_t pos), void *arg);
};

/* Registers ops (static storage; once, before the first trim or snapshot
 * could name a channel). */
void enc_channels_register(const struct enc_channel_ops *ops);
bool enc_channels_trim(uint64_t key, uint64_t floor);
void enc_channels_each_received(void (*fn)(void *arg, uint64_t key, uint64_t pos), void *arg);

#endif
