/*
 * shm.h - the shared-memory data plane of the ranks of one host.
 *
 * One segment per host, made by the process that outlives every rank there
 * (the host's agent, else encore-run) with memfd_create: it has no name, so
 * nothing is ever left in /dev/shm; the kernel frees it when the last
 * process holding it (owner, ranks, parked snapshot images) is gone, even
 * after SIGKILL.  Ranks inherit the descriptor and one eventfd per rank
 * (ENCORE_SHM_FD, ENCORE_SHM_EVENTFDS) and map it with MAP_POPULATE; the
 * owner allocated each local rank's pages before the rank started, so no
 * collective page-faults fresh memory.
 *
 * Layout (page-aligned): a header, one cache line of flags per rank, the
 * channel table, then per rank a slot of two input buffers and one output
 * buffer of `chunk` bytes each (the second input buffer holds small inputs,
 * in two halves), the circular result buffer, and the channels.  Slot i
 * belongs to world rank i (slots of ranks on other hosts are never
 * touched, so never allocated).
 *
 * Channels: the flags and slots above are channel 0, the world's.  Every
 * other communicator with two or more ranks on this host takes a channel
 * of its own while it exists (channels.c): a flag line and a slot per rank
 * again, so collectives of different communicators never share a ticket
 * or a buffer, and may be in flight at once (nonblocking collectives,
 * threads).  A channel's pages are touched only by the ranks that use it.
 *
 * Synchronisation: each rank publishes its progress as a 64-bit ticket
 * (epoch, collective seq, step) stored with release order after the data it
 * covers.  A peer's data is used only when its ticket has this rank's epoch
 * and has reached the expected step: a dead peer's ticket keeps its old
 * epoch, so data it left behind is never read after a regroup.
 * Waiters spin (bounded), then announce that they sleep and wait on their
 * eventfd, which a poster writes only for sleeping peers.
 */
#ifndef ENC_SHM_SHM_H
#define ENC_SHM_SHM_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/status.h"

#define ENC_SHM_MAGIC 0x31474553434e45ull /* "ENCSEG1" */
#define ENC_SHM_MAX_SLOTS 256             /* larger hosts use TCP */
#define ENC_SHM_CHUNK_MIN (64u * 1024)

struct enc_shm_header {
    uint64_t magic;
    uint32_t nslots;
    uint32_t nchan;       /* channels besides the world's */
    uint64_t chunk;       /* bytes of each of a slot's three buffers */
    uint64_t flags_off;   /* offset of the flag lines */
    uint64_t data_off;    /* offset of slot 0 */
    uint64_t slot_stride; /* bytes from one slot to the next */
    uint64_t resbuf_off;  /* offset of the circular result buffer */
    uint64_t resbuf_bytes; /* its size (0: none) */
    uint64_t table_off;   /* offset of the channel table */
    uint64_t chan_off;    /* offset of channel 1 */
    uint64_t chan_lines;  /* bytes of a channel's flag lines (page-rounded) */
    uint64_t chan_stride; /* bytes from one channel to the next */
    uint64_t total;       /* bytes of the segment */
    /* Point-to-point rings (shim/p2p/shm_ring.h), after the channels: one
     * line per rank, then one ring per ordered pair of slots. */
    uint64_t p2p_off;     /* offset of the rank lines (0: no rings) */
    uint64_t p2p_ring;    /* data bytes of each ring (a power of two; 0: none) */
};

/* One cache line per rank and channel: written by its rank, read by every
 * peer.  sleeping and pid are used in channel 0's lines only. */
struct enc_shm_flags {
    _Atomic uint64_t ticket;   /* progress, see enc_shm_ticket() */
    _Atomic uint32_t sleeping; /* while the rank waits on its eventfd: ENC_SHM_SLEEP_ANY,
                                * or ENC_SHM_SLEEP_FOR(r) to be woken by rank r only */
    _Atomic int32_t pid;       /* the rank process (cross-memory attach) */
    _Atomic uint64_t src;      /* its input buffer in the collective at hand (cma) */
    /* Published with the first step of a collective that uses the result buffer,
     * in the half of its seq's parity: a rank that finished collective s
     * early (a broadcast's root) publishes for s + 1 while a peer may
     * still read what it published for s. */
    _Atomic uint64_t resbuf_next[2]; /* the entry's place (by the rank that took it) */
    _Atomic uint64_t resbuf_keep[2]; /* oldest result-buffer position its log still uses */
    uint8_t pad[8];
};
_Static_assert(sizeof(struct enc_shm_flags) == 64, "one cache line per rank");

/* The host-wide line after the ranks' flags. */
struct enc_shm_common {
    /* Result-buffer positions below this may have been overwritten: a snapshot
     * image's references below it are stale. */
    _Atomic uint64_t resbuf_low;
    /* The next free position: every communicator's entries are taken from
     * it (coll_shm.c), so entries of collectives in flight at once never
     * overlap. */
    _Atomic uint64_t resbuf_head;
    uint8_t pad[48];
};

/* One entry of the channel table per channel 1..nchan. */
struct enc_shm_chan_entry {
    _Atomic uint64_t cid;     /* communicator id holding it; 0: free */
    _Atomic uint64_t mask[4]; /* slots of the ranks that attached it */
    uint8_t pad[24];
};
_Static_assert(sizeof(struct enc_shm_chan_entry) == 64, "one cache line per channel");
_Static_assert(4 * 64 >= 256, "the mask covers ENC_SHM_MAX_SLOTS");

/* Offsets of the layout for nslots slots of chunk bytes per buffer, a
 * circular result buffer of resbuf bytes, nchan channels besides the
 * world's and point-to-point rings of p2p_ring bytes (0: none). */
void enc_shm_layout(struct enc_shm_header *h, int nslots, size_t chunk, size_t resbuf,
                    int nchan, size_t p2p_ring);
/* Bytes of the point-to-point region for nslots slots and rings of
 * p2p_ring bytes: a line per rank, then per ordered pair a ring of a
 * 256-byte header and p2p_ring data bytes. */
size_t enc_shm_p2p_bytes(int nslots, size_t p2p_ring);

/* ---- owner side (encore-run for a local job, the agent on its host) ---- */

struct enc_shm_host {
    int memfd;            /* -1: no segment (ENCORE_SHM=0 or unavailable) */
    int *evfd;            /* per world rank; -1 for ranks of other hosts */
    int nslots;
    struct enc_shm_header h;
};

/* Makes the segment for a job of nslots ranks with ENCORE_SHM_CHUNK_BYTES
 * buffers.  A host that cannot (no memfd, too many ranks) gets memfd -1
 * with a warning, and its ranks use TCP: never an error. */
void enc_shm_host_create(struct enc_shm_host *hs, int nslots);
/* Rank `rank` will run on this host: allocate its slot's pages and its
 * eventfd (before spawning it; idempotent). */
enc_status_t enc_shm_host_add_rank(struct enc_shm_host *hs, int rank);
/* "ENCORE_SHM_FD" and "ENCORE_SHM_EVENTFDS" values for a rank's
 * environment (false when there is no segment). */
bool enc_shm_host_env(const struct enc_shm_host *hs, char *fd_val, size_t fd_cap,
                      char **evfds_val);
/* The host's memory the segment holds, counted once however many ranks
 * map it: *allocated, every page of it (tmpfs), the result buffer's
 * reservation included; *used, the pages ranks or the owner wrote.
 * ENC_ERR_NOT_FOUND when there is no segment. */
enc_status_t enc_shm_host_usage(const struct enc_shm_host *hs, uint64_t *used,
                                uint64_t *allocated);
void enc_shm_host_close(struct enc_shm_host *hs);

/* ---- rank side ---- */

struct enc_shm {
    uint8_t *base;
    size_t len;
    int nslots;
    int me;
    size_t chunk;
    int *evfd;                    /* per world rank, -1: not on this host */
    struct enc_shm_flags *flags;  /* channel 0's lines */
    struct enc_shm_common *common;
    int nchan;                    /* channels besides the world's */
    struct enc_shm_chan_entry *table; /* channel k's entry: table[k - 1] */
    uint8_t *resbuf;              /* circular result buffer, NULL: none */
    uint64_t resbuf_bytes;
    int fd;                       /* the segment (pwrite/pread of the result buffer) */
    bool cma;                     /* peers' memory can be read directly */
};

/* Maps the segment offered in the environment; ENC_ERR_NOT_FOUND when
 * none is offered (ENCORE_SHM=0, another launcher), another error when the
 * offer is malformed (then TCP is used, with a warning). */
enc_status_t enc_shm_attach(struct enc_shm *s, int me, int size);
void enc_shm_detach(struct enc_shm *s);
/* True when rank shares this segment. */
static inline bool enc_shm_has(const struct enc_shm *s, int rank)
{
    return s->base != NULL && rank >= 0 && rank < s->nslots && s->evfd[rank] >= 0;
}

/* Channel ch's flag lines (0: the world's), indexed by world rank. */
static inline struct enc_shm_flags *enc_shm_lines(const struct enc_shm *s, int ch)
{
    const struct enc_shm_header *h = (const void *)s->base;

    if (ch == 0)
        return s->flags;
    return (struct enc_shm_flags *)(s->base + h->chan_off + (size_t)(ch - 1) * h->chan_stride);
}

/* Input buffer `parity` of rank's slot in channel ch. */
static inline uint8_t *enc_shm_in(const struct enc_shm *s, int ch, int rank, unsigned parity)
{
    const struct enc_shm_header *h = (const void *)s->base;
    size_t slot = (size_t)rank * h->slot_stride + (parity & 1u) * s->chunk;

    if (ch == 0)
        return s->base + h->data_off + slot;
    return s->base + h->chan_off + (size_t)(ch - 1) * h->chan_stride + h->chan_lines + slot;
}

static inline uint8_t *enc_shm_out(const struct enc_shm *s, int ch, int rank)
{
    return enc_shm_in(s, ch, rank, 0) + 2 * s->chunk;
}

/* channels.c.  The host's leader of a new communicator claims a free
 * channel for it (its index, or -1 when none is free) with its lines
 * cleared; the communicator's other ranks of the host attach the index it
 * told them (false when the channel no longer belongs to cid); each rank
 * releases it when it frees the communicator, the last one frees it.  A
 * new incarnation of rank drops what a dead one held. */
int enc_shm_chan_claim(struct enc_shm *s, uint64_t cid);
bool enc_shm_chan_attach(struct enc_shm *s, int ch, uint64_t cid);
void enc_shm_chan_release(struct enc_shm *s, int ch, uint64_t cid);
void enc_shm_chan_drop_rank(struct enc_shm *s, int rank);
/* Channels held now (the job summary's figure). */
int enc_shm_chan_used(const struct enc_shm *s);

/*
 * The circular result buffer: results of collectives that went through
 * shared memory stay there and are the result log's entries (one copy per host, written
 * by the collective itself).  Positions are virtual (monotonic, 64-bit);
 * position v lives at byte v mod resbuf_bytes, and no entry wraps.
 */
static inline uint8_t *enc_shm_resbuf_at(const struct enc_shm *s, uint64_t v)
{
    return s->resbuf + v % s->resbuf_bytes;
}

/* resbuf.c: len bytes at position v, in or out through the segment's
 * file (pwrite/pread), never through the mapping: on this machine class a
 * process's first writes through a mapping cost a fault per 4 KiB page
 * (bench/README.md). */
void enc_shm_resbuf_write(const struct enc_shm *s, uint64_t v, const void *src, size_t len);
void enc_shm_resbuf_read(const struct enc_shm *s, uint64_t v, void *dst, size_t len);

/* 16 bits of epoch, 32 of collective seq, 16 of step (1..65535). */
static inline uint64_t enc_shm_ticket(uint32_t epoch, uint64_t seq, unsigned step)
{
    return (uint64_t)(epoch & 0xffffu) << 48 | (seq & 0xffffffffull) << 16 | (step & 0xffffu);
}
/* Its parts: the low 16 bits of the epoch, the low 32 of the seq, the step. */
static inline unsigned enc_shm_ticket_epoch(uint64_t t) { return (unsigned)(t >> 48); }
static inline uint32_t enc_shm_ticket_seq(uint64_t t) { return (uint32_t)(t >> 16); }
static inline unsigned enc_shm_ticket_step(uint64_t t) { return (unsigned)(t & 0xffffu); }

/* Publishes this rank's ticket in channel ch (after the data it covers)
 * and wakes the peers that sleep. */
void enc_shm_post(struct enc_shm *s, int ch, uint64_t ticket);
/* Before sleeping on this rank's eventfd: announce it (then re-check the
 * condition); after waking: drain the eventfd and clear the flag.
 * enc_shm_sleep_begin is woken by every peer's post, enc_shm_sleep_for by
 * slot r's only (a wait that looks at one rank at a time: the posts of the
 * others would only wake it to sleep again, a system call and two context
 * switches each). */
#define ENC_SHM_SLEEP_ANY 1u
#define ENC_SHM_SLEEP_FOR(r) (2u + (uint32_t)(r))
void enc_shm_sleep_begin(struct enc_shm *s);
void enc_shm_sleep_for(struct enc_shm *s, int r);
void enc_shm_sleep_end(struct enc_shm *s);

/* Cross-memory attach (cma.c).  True when this job's ranks can read each
 * other's memory (the same answer on every rank of a host); prepares this
 * process to be read.  _setup: for collectives, also ENCORE_SHM_CMA on. */
bool enc_shm_cma_setup(void);
bool enc_shm_cma_usable(void);
/* bytes of pid's memory at remote into local; ENC_ERR_PEER_RESET when pid
 * is gone. */
enc_status_t enc_shm_cma_read(pid_t pid, uint64_t remote, void *local, size_t bytes);
/* The same into two places: first_len bytes into first, the next then_len
 * into then (a frame's header and its payload). */
enc_status_t enc_shm_cma_read2(pid_t pid, uint64_t remote, void *first, size_t first_len,
                               void *then, size_t then_len);
/* Two places of pid's memory into two of ours in one system call when it
 * can (a frame's header from the sender's log, its payload from the
 * sender's lent buffer): first_len bytes at remote_first into first, then
 * then_len at remote_then into then. */
enc_status_t enc_shm_cma_read_pair(pid_t pid, uint64_t remote_first, void *first,
                                   size_t first_len, uint64_t remote_then, void *then,
                                   size_t then_len);

#endif
