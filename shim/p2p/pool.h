/*
 * pool.h - memory for point-to-point payloads: the sender's log frames,
 * control frames and the receiver's arrival buffers (private to
 * shim/p2p).
 *
 * A payload in fresh memory costs a page fault, a memory-cgroup charge
 * and the kernel's zeroing per 4 KiB page before the copy starts (about
 * 2.5 times the copy itself), and a log frame lives until the receiver's
 * snapshot covers it, so a stream of messages would land in fresh memory
 * all the time.  Blocks are therefore appended to chunks of at least
 * ENC_P2P_POOL_CHUNK bytes (2 MiB aligned, transparent huge pages asked
 * for: a fresh chunk is one fault, not 512), whatever their size; a block
 * larger than a chunk gets a chunk of its own size.  A chunk whose blocks
 * are all given back is kept for reuse, already faulted in, up to a byte
 * budget (ENCORE_LOG_MEM_MAX / 2, at most 512 MiB: a receiver's snapshot
 * is due after a share of ENCORE_LOG_MEM_MAX / 8 to / 2 received, grown
 * while snapshots would cost more than their budget, and its trim
 * arrives while the sender logs the next share, so the log swings over
 * about two shares).  A kept chunk is MADV_DONTFORK: a snapshot image never shares
 * it, so reusing it costs no copy-on-write fault; a chunk in use is in
 * the image, as the log must be.  A chunk that was in use when an image
 * was forked shares its pages with that image, and a block written there
 * would copy its page: after a fork new blocks start in another chunk,
 * and such a chunk, given back, is reused once a later fork replaced that
 * image (parking keeps one per rank), or has its pages dropped when it is
 * needed before (a fresh huge page costs less than copy-on-write faults).
 * Forks are seen through pthread_atfork; in the copy the kept chunks are
 * forgotten (they are not mapped there).  Thread-safe.
 */
#ifndef ENC_P2P_POOL_H
#define ENC_P2P_POOL_H

#include <stddef.h>

#define ENC_P2P_POOL_CHUNK ((size_t)2 << 20)

/* At least len bytes, 16-byte aligned (NULL: out of memory). */
void *enc_p2p_pool_get(size_t len);
/* Gives a block of enc_p2p_pool_get back (NULL: nothing). */
void enc_p2p_pool_put(void *p);
/* The same in lane peer, a world rank (its log frames share chunks);
 * enc_p2p_pool_put gives it back. */
void *enc_p2p_pool_log_get(int peer, size_t len);
/* The same for a block that lives long among short-lived ones (a
 * spilled frame's header): such blocks share chunks of their own. */
void *enc_p2p_pool_lasting_get(size_t len);

/* What the pool holds: chunks mapped and their bytes (in use or kept),
 * chunks kept free and their bytes; so far: fresh mappings made, kept
 * chunks whose pages were dropped (reused while an image shared them). */
struct enc_p2p_pool_stats {
    size_t chunks, bytes;
    size_t kept_chunks, kept_bytes;
    size_t mapped, dropped;
};
void enc_p2p_pool_stats(struct enc_p2p_pool_stats *s);

#endif
