/*
 * pool.h - memory for point-to-point payloads: the sender's log frames
 * and the receiver's arrival buffers (private to shim/p2p).
 *
 * A large payload in fresh memory costs a page fault, a memory-cgroup
 * charge and the kernel's zeroing per page before the copy starts (a
 * 2 MiB message: 512 faults, as much time as the copy), and malloc maps
 * and unmaps large blocks afresh every time.  Blocks of POOL_MIN_BYTES
 * and more are therefore mappings of their own kept for reuse when
 * freed, in size classes a quarter apart, up to a byte budget
 * (ENCORE_LOG_MEM_MAX / 4, at most 256 MiB: a receiver's snapshot is due
 * after ENCORE_LOG_MEM_MAX / 8 received, and its trim arrives while the
 * sender logs the next share, so the log swings over about two shares).
 * A kept block is MADV_DONTFORK: a snapshot image never shares it, so
 * reusing it costs no copy-on-write fault (a block in use is in the
 * image, as the log must be).  Smaller blocks come from malloc.
 * Thread-safe.
 */
#ifndef ENC_P2P_POOL_H
#define ENC_P2P_POOL_H

#include <stddef.h>

/* At least len bytes (NULL: out of memory). */
void *enc_p2p_pool_get(size_t len);
/* Gives a block of enc_p2p_pool_get back (NULL: nothing). */
void enc_p2p_pool_put(void *p);
/* In a forked image: the kept blocks are not mapped there; forget them. */
void enc_p2p_pool_fork_child(void);

#endif
