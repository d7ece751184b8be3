/*
 * host_segment.c - the owner's side of a host's segment: made by the
 * process that outlives the host's ranks (encore-run for a local job, the
 * agent on each host of a multi-host job), inherited by every rank it
 * spawns (restarted ones too), and freed by the kernel with the last
 * process holding it.
 */
#define _GNU_SOURCE
#include "enc.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/tunables.h"
#include "shm/shm.h"

static void no_segment(struct enc_shm_host *hs, const char *why)
{
    if (why != NULL)
        ENC_WARN("shm", "no shared-memory segment (%s): ranks on this host use TCP", why);
    if (hs->memfd >= 0)
        close(hs->memfd);
    free(hs->evfd);
    hs->memfd = -1;
    hs->evfd = NULL;
}

/* Physical memory of this host (a large value when unknown). */
static size_t phys_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), pg = sysconf(_SC_PAGESIZE);

    return pages > 0 && pg > 0 ? (size_t)pages * (size_t)pg : SIZE_MAX;
}

/* A tunable size, or the auto value: total / nslots within [lo, hi]. */
static size_t sized(enum enc_tunable_id id, int nslots, size_t total, size_t lo, size_t hi)
{
    if (strcmp(enc_tunable_str(id), "auto") != 0)
        return (size_t)enc_tunable_uint(id);
    return ENC_MAX(lo, ENC_MIN(hi, total / (size_t)nslots));
}

/* Bytes of each point-to-point ring (0: no rings, point-to-point uses
 * TCP): auto, 16 MiB over the nslots^2 ordered pairs, within [16 KiB, 1
 * MiB], a power of two; none above 64 ranks (the pairs' rings would grow
 * as the square of the ranks). */
static size_t p2p_ring_bytes(int nslots)
{
    size_t want, ring = 16u << 10;

    if (!enc_tunable_bool(ENC_TUNE_P2P_SHM) || nslots > 64)
        return 0;
    if (strcmp(enc_tunable_str(ENC_TUNE_P2P_SHM_RING_BYTES), "auto") != 0)
        want = (size_t)enc_tunable_uint(ENC_TUNE_P2P_SHM_RING_BYTES);
    else
        want = ENC_MIN((size_t)1 << 20, ((size_t)16 << 20) / ((size_t)nslots * (size_t)nslots));
    while (ring * 2 <= want)
        ring *= 2;
    return ring;
}

void enc_shm_host_create(struct enc_shm_host *hs, int nslots)
{
    /* Every rank maps the whole segment, so its auto sizes shrink as ranks
     * are added. */
    size_t chunk = sized(ENC_TUNE_SHM_CHUNK_BYTES, ENC_MAX(nslots, 1), (size_t)16 << 20,
                         ENC_SHM_CHUNK_MIN, (size_t)1 << 20);
    /* The result buffer holds results up to a quarter of its size: 1 GiB keeps
     * 256 MiB results by reference up to 4 ranks (far faster than copying
     * them into the logs, bench/README.md).  Its memory is reserved at
     * start (fallocate below) and each rank maps its pages as the buffer
     * fills; from 5 ranks it shrinks to keep a host's total at 4 GiB of
     * mappings, and
     * it never takes more than a sixteenth of the host's memory. */
    size_t resbuf = enc_tunable_bool(ENC_TUNE_RECOVERY)
                      ? sized(ENC_TUNE_SHM_LOG_BYTES, ENC_MAX(nslots, 1), (size_t)4 << 30,
                              (size_t)16 << 20, ENC_MIN((size_t)1 << 30, phys_bytes() / 16))
                      : 0;
    size_t ring = p2p_ring_bytes(nslots);
    void *p;

    memset(hs, 0, sizeof(*hs));
    hs->memfd = -1;
    if (!enc_tunable_bool(ENC_TUNE_SHM) || nslots < 2)
        return;
    if (nslots > ENC_SHM_MAX_SLOTS)
        return no_segment(hs, "more than 256 ranks");
    enc_shm_layout(&hs->h, nslots, chunk, resbuf, (int)enc_tunable_uint(ENC_TUNE_SHM_CHANNELS),
                   ring);
    hs->nslots = nslots;
    if ((hs->evfd = malloc((size_t)nslots * sizeof(int))) == NULL)
        return no_segment(hs, "out of memory");
    for (int i = 0; i < nslots; i++)
        hs->evfd[i] = -1;
    /* inherited by the ranks through exec: no close-on-exec */
    if ((hs->memfd = memfd_create("encore-shm", MFD_ALLOW_SEALING)) < 0)
        return no_segment(hs, "memfd_create failed");
    if (ftruncate(hs->memfd, (off_t)hs->h.total) != 0)
        return no_segment(hs, "cannot size it");
    /* the size never changes again: a rank cannot shrink it under a peer */
    (void)fcntl(hs->memfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
    /* the circular result buffer: allocated once (a full tmpfs is told here, and the
     * host uses TCP, never a SIGBUS in a collective), reused for the job */
    if (hs->h.resbuf_bytes &&
        fallocate(hs->memfd, 0, (off_t)hs->h.resbuf_off, (off_t)hs->h.resbuf_bytes) != 0)
        return no_segment(hs, "cannot allocate its result buffer (ENCORE_SHM_LOG_BYTES)");
    p = mmap(NULL, (size_t)hs->h.flags_off, PROT_READ | PROT_WRITE, MAP_SHARED, hs->memfd, 0);
    if (p == MAP_FAILED)
        return no_segment(hs, "cannot map it");
    memcpy(p, &hs->h, sizeof(hs->h));
    munmap(p, (size_t)hs->h.flags_off);
}

enc_status_t enc_shm_host_add_rank(struct enc_shm_host *hs, int rank)
{
    off_t off;

    if (hs->memfd < 0 || rank < 0 || rank >= hs->nslots)
        return ENC_ERR_INVAL;
    if (hs->evfd[rank] >= 0)
        return ENC_OK;
    off = (off_t)(hs->h.data_off + (uint64_t)rank * hs->h.slot_stride);
    /* allocate the slot's pages now, not in a rank's first collective */
    if (fallocate(hs->memfd, 0, off, (off_t)hs->h.slot_stride) != 0) {
        ENC_WARN("shm", "cannot allocate the shared-memory slot of rank %d: %m", rank);
        no_segment(hs, "out of shared memory");
        return ENC_ERR_SYS;
    }
    if ((hs->evfd[rank] = eventfd(0, EFD_NONBLOCK)) < 0) {
        no_segment(hs, "eventfd failed");
        return ENC_ERR_SYS;
    }
    return ENC_OK;
}

bool enc_shm_host_env(const struct enc_shm_host *hs, char *fd_val, size_t fd_cap,
                      char **evfds_val)
{
    char *v, *p;

    *evfds_val = NULL;
    if (hs->memfd < 0)
        return false;
    if ((p = v = malloc((size_t)hs->nslots * 12 + 1)) == NULL)
        return false;
    for (int i = 0; i < hs->nslots; i++)
        p += hs->evfd[i] >= 0 ? sprintf(p, "%s%d", i ? "," : "", hs->evfd[i])
                               : sprintf(p, "%s-", i ? "," : "");
    snprintf(fd_val, fd_cap, "%d", hs->memfd);
    *evfds_val = v;
    return true;
}

/* Written pages are data to SEEK_DATA; pages only reserved by fallocate
 * read as holes (tmpfs keeps them not up to date until first written). */
static uint64_t written_bytes(int fd, off_t size)
{
    off_t at = 0, data, hole;
    uint64_t sum = 0;

    while (at < size && (data = lseek(fd, at, SEEK_DATA)) >= 0) {
        if ((hole = lseek(fd, data, SEEK_HOLE)) < 0)
            break;
        sum += (uint64_t)(hole - data);
        at = hole;
    }
    return sum;
}

enc_status_t enc_shm_host_usage(const struct enc_shm_host *hs, uint64_t *used,
                                uint64_t *allocated)
{
    struct stat st;

    if (hs->memfd < 0 || fstat(hs->memfd, &st) != 0)
        return ENC_ERR_NOT_FOUND;
    *allocated = (uint64_t)st.st_blocks * 512;
    *used = written_bytes(hs->memfd, st.st_size);
    return ENC_OK;
}

void enc_shm_host_close(struct enc_shm_host *hs)
{
    for (int i = 0; hs->evfd != NULL && i < hs->nslots; i++)
        if (hs->evfd[i] >= 0)
            close(hs->evfd[i]);
    no_segment(hs, NULL);
}
