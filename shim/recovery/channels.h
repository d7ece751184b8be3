/*
 * channels.h - the point-to-point layer's part in trims and snapshots.
 *
 * Senders keep the payloads of their messages (p2p/conn.c) until the
 * receiver's parked image has them: encore-run's TRIM floors name a
 * channel key, and an image lists the channels it received on.  A
 * checkpoint counts the messages in flight (it is refused unless there
 * are none) and, committed, releases every payload logged before it.  The
 * point-to-point layer sits above recovery/, so recovery/ does not call
 * into it: the layer registers these two calls when it starts listening,
 * and recovery/ goes through them (none registered: no channels).
 */
#ifndef ENC_RECOVERY_CHANNELS_H
#define ENC_RECOVERY_CHANNELS_H

#include <stdbool.h>
#include <stdint.h>

#define ENC_CHANNEL_COUNTS 4

struct enc_channel_ops {
    /* Releases the messages below floor on the channel of key; false when
     * this rank sends on no channel of that key (then key is a cid). */
    bool (*trim)(uint64_t key, uint64_t floor);
    /* fn(arg, key, next position needed) for every channel received on;
     * no allocation, no lock (called in a snapshot image). */
    void (*each_received)(void (*fn)(void *arg, uint64_t key, uint64_t pos), void *arg);
    /* At a checkpoint's exchange: c[0] messages this rank sent, c[1]
     * messages that arrived (both by channel number, so a re-execution
     * counts the same), c[2] of those not matched yet, c[3] receives
     * posted and unmatched and synchronous sends unacknowledged; and marks
     * the end of every payload log (checkpointed releases up to it). */
    void (*counts)(uint64_t c[ENC_CHANNEL_COUNTS]);
    /* The checkpoint committed with every message sent received and
     * matched (c summed over the world: c[0] == c[1], c[2] == c[3] == 0): no
     * incarnation of a receiver needs the payloads logged up to the marks. */
    void (*checkpointed)(void);
};

/* Registers ops (static storage; once, before the first trim or snapshot
 * could name a channel). */
void enc_channels_register(const struct enc_channel_ops *ops);
bool enc_channels_trim(uint64_t key, uint64_t floor);
void enc_channels_each_received(void (*fn)(void *arg, uint64_t key, uint64_t pos), void *arg);
/* Zeros when none is registered. */
void enc_channels_counts(uint64_t c[ENC_CHANNEL_COUNTS]);
void enc_channels_checkpointed(void);

#endif
