/*
 * resbuf.c - moving bytes in and out of the host's circular result buffer
 * without touching pages this process never mapped (shm.h).
 *
 * On the paravirtualised VMs encore is measured on, the first touch of a
 * page through a mapping costs 2.5-5 us (a fault per 4 KiB page, whether
 * it comes from a write, MAP_POPULATE or MADV_POPULATE_WRITE), and the
 * result buffer is 1 GiB: a job of a few seconds never wraps it, so every
 * large result would fault in every rank.  Two cheaper ways in
 * (bench/README.md, "the result buffer's first pass"):
 *   * pwrite/pread on the segment's file copy through the kernel's own
 *     mapping: about a memcpy and a half, no fault;
 *   * a read fault on pages already written maps sixteen of them at once
 *     (fault-around), writable: 0.6 us a page, then they are warm.
 * So an entry on never-written pages is written with pwrite (and read by
 * its ranks from wherever the algorithm keeps its own copy, or with
 * pread); an entry on pages written before is mapped block by block with
 * MADV_POPULATE_READ and then used in place like any memory.  Either way
 * the bytes are the same: the kernel keeps one page cache for the file
 * and the mappings.
 */
#define _GNU_SOURCE
#include "enc.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "shm/shm.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

#define WARM_BLOCK ((uint64_t)2 << 20) /* bytes of the mapped bitmap's blocks */

static uint64_t file_off(const struct enc_shm *s, uint64_t v)
{
    return (uint64_t)(s->resbuf - s->base) + v % s->resbuf_bytes;
}

bool enc_shm_resbuf_cold(struct enc_shm *s, uint64_t v, uint64_t len)
{
    _Atomic uint64_t *w = &s->common->resbuf_written;
    uint64_t end = v % s->resbuf_bytes + len, cur = atomic_load(w);

    if (end <= cur)
        return false;
    while (cur < end && !atomic_compare_exchange_weak(w, &cur, end))
        ;
    return true;
}

/* len bytes between buf and position v, through the file.  A failed
 * pwrite/pread (the descriptor closed under us: never in a normal run)
 * falls back to the mapping: slower, the same bytes. */
static void through_file(const struct enc_shm *s, uint64_t v, uint8_t *buf, size_t len,
                         bool write)
{
    uint64_t off = file_off(s, v), done = 0;

    while (done < len) {
        ssize_t k = write ? pwrite(s->fd, buf + done, len - done, (off_t)(off + done))
                          : pread(s->fd, buf + done, len - done, (off_t)(off + done));

        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        done += (uint64_t)k;
    }
    if (done < len && write)
        memcpy(enc_shm_resbuf_at(s, v) + done, buf + done, len - done);
    else if (done < len)
        memcpy(buf + done, enc_shm_resbuf_at(s, v) + done, len - done);
}

void enc_shm_resbuf_write(const struct enc_shm *s, uint64_t v, const void *src, size_t len)
{
    through_file(s, v, (uint8_t *)src, len, true);
}

void enc_shm_resbuf_read(const struct enc_shm *s, uint64_t v, void *dst, size_t len)
{
    through_file(s, v, dst, len, false);
}

/* Only written pages are populated: a never-written one would be zeroed
 * and mapped alone, the slow way this file avoids. */
void enc_shm_resbuf_warm(struct enc_shm *s, uint64_t v, uint64_t len)
{
    uint64_t a = v % s->resbuf_bytes, end = a + len;
    uint64_t written = atomic_load(&s->common->resbuf_written);

    if (s->resbuf_mapped == NULL)
        return;
    for (uint64_t b = a / WARM_BLOCK; b * WARM_BLOCK < end; b++) {
        uint64_t lo = b * WARM_BLOCK, hi = ENC_MIN(lo + WARM_BLOCK, s->resbuf_bytes);
        uint64_t bit = 1ull << (b % 64);

        if (s->resbuf_mapped[b / 64] & bit)
            continue;
        if (madvise(s->resbuf + lo, (size_t)(ENC_MIN(hi, written) - lo), MADV_POPULATE_READ) !=
            0)
            return; /* an older kernel: the pages fault in as they are used */
        if (hi <= written)
            s->resbuf_mapped[b / 64] |= bit;
    }
}
