/*
 * resbuf.c - moving bytes in and out of the host's circular result buffer
 * through the segment's file, never through this process's mapping of it
 * (shm.h).
 *
 * On the paravirtualised VMs encore is measured on, the first write of a
 * page through a process's mapping costs about 5 us, whether the page was
 * written before or not and whether it was populated (MAP_POPULATE,
 * MADV_POPULATE_READ/WRITE) or not: 1.2 ms per MiB, against 0.1 ms for
 * pwrite, which copies through the kernel's own mapping.  Only after two
 * or three passes over the same pages does a mapping get as cheap as a
 * memcpy (0.05 ms per MiB), and a 1 GiB buffer that a job goes round
 * never stays that warm: with entries used in place once the buffer had
 * wrapped, a 16 MiB allreduce on 2 ranks took 26 ms instead of 5 ms, a
 * 1 MiB one 1.7 ms instead of 0.29 ms (bench/README.md, "the result
 * buffer through its file").  So every entry goes in by pwrite and out by
 * pread (or from the copies the algorithm keeps in its slots).
 */
#define _GNU_SOURCE
#include "enc.h"

#include <string.h>

#include "core/fullio.h"
#include "shm/shm.h"

static uint64_t file_off(const struct enc_shm *s, uint64_t v)
{
    return (uint64_t)(s->resbuf - s->base) + v % s->resbuf_bytes;
}

/* len bytes between buf and position v, through the file.  A failed
 * pwrite/pread (the descriptor closed under us: never in a normal run)
 * falls back to the mapping: slower, the same bytes. */
static void through_file(const struct enc_shm *s, uint64_t v, uint8_t *buf, size_t len,
                         bool write)
{
    off_t off = (off_t)file_off(s, v);
    size_t done = write ? enc_write_full(s->fd, buf, len, off) : enc_read_full(s->fd, buf, len, off);

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
