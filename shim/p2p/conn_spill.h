/*
 * conn_spill.h - the payload log's spill file on a job of several hosts
 * (conn_spill.c).  Every call with the point-to-point lock held; the
 * writing ones release it while the disk works.
 */
#ifndef ENC_P2P_CONN_SPILL_H
#define ENC_P2P_CONN_SPILL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "p2p/p2p_int.h"

/* True when some rank of the world runs on another host than this one. */
bool enc_p2p_log_spans_hosts(void);
/* Queues the spill of the frames to peer on channel key below floor (a
 * trim); false when that log has no frame of the channel. */
bool enc_p2p_spill_queue(int peer, uint64_t key, uint64_t floor);
/* Writes one batch of the queued spills (enc_p2p_spill_step), or all of
 * them (enc_p2p_spill_run), unless a thread writes one already.  A
 * waiting thread with nothing to read writes a short one
 * (enc_p2p_spill_idle_step: true when it did); a send writes one only
 * when early spills fell behind (enc_p2p_spill_send_step). */
void enc_p2p_spill_step(void);
void enc_p2p_spill_run(void);
bool enc_p2p_spill_idle_step(void);
void enc_p2p_spill_send_step(void);
/* Payloads of this many bytes to peer go to the spill file once written
 * (peer on another host, recovery on): a receiver does not count them as
 * held for it in its sender's memory. */
bool enc_p2p_spills_early(int peer, size_t payload);
/* The log's frame f to peer was written on the socket: counted towards
 * an early spill of peer's written payloads, queued when enough are. */
void enc_p2p_spill_written(int peer, const struct p2p_frame *f);
/* Frame f leaves o's log (NULL: the log is written again from its head,
 * frames read back): the spill's walks no longer start at it. */
void enc_p2p_spill_forget(struct p2p_out *o, const struct p2p_frame *f);
/* Until no batch is being written: frames may then leave the logs. */
void enc_p2p_spill_idle(void);
/* In a snapshot's image the frames a batch was writing stay whole. */
void enc_p2p_spill_fork_child(void);
/* The cursor's frame is spilled (a lost host's rank re-executes from the
 * start, or a restored receiver needs it again): its payload is read back
 * into memory.  ENC_OK, or the job ends with one line naming the message
 * that was lost. */
enc_status_t enc_p2p_unspill_cursor(struct p2p_out *o);

#endif
