/*
 * segment.c - the segment's layout, and a rank mapping the segment its
 * host's owner (agent or encore-run) offered in the environment.
 */
#include "enc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/tunables.h"
#include "shm/shm.h"

static size_t page_round(size_t n)
{
    size_t pg = 4096;

    return (n + pg - 1) / pg * pg;
}

size_t enc_shm_p2p_bytes(int nslots, size_t p2p_ring)
{
    if (p2p_ring == 0)
        return 0;
    return page_round((size_t)nslots * 64) + (size_t)nslots * (size_t)nslots * (256 + p2p_ring);
}

void enc_shm_layout(struct enc_shm_header *h, int nslots, size_t chunk, size_t resbuf,
                    int nchan, size_t p2p_ring)
{
    size_t lines = (size_t)nslots * sizeof(struct enc_shm_flags);

    memset(h, 0, sizeof(*h));
    h->magic = ENC_SHM_MAGIC;
    h->nslots = (uint32_t)nslots;
    h->nchan = (uint32_t)nchan;
    h->chunk = page_round(chunk);
    h->flags_off = page_round(sizeof(*h));
    h->table_off = h->flags_off + lines + sizeof(struct enc_shm_common);
    h->data_off = h->flags_off + page_round(lines + sizeof(struct enc_shm_common) +
                                            (size_t)nchan * sizeof(struct enc_shm_chan_entry));
    h->slot_stride = 3 * h->chunk;
    h->resbuf_off = h->data_off + (uint64_t)nslots * h->slot_stride;
    h->resbuf_bytes = page_round(resbuf);
    h->chan_off = h->resbuf_off + h->resbuf_bytes;
    h->chan_lines = page_round(lines);
    h->chan_stride = h->chan_lines + (uint64_t)nslots * h->slot_stride;
    h->total = h->chan_off + (uint64_t)nchan * h->chan_stride;
    if (p2p_ring > 0) {
        h->p2p_off = h->total;
        h->p2p_ring = p2p_ring;
        h->total += page_round(enc_shm_p2p_bytes(nslots, p2p_ring));
    }
}

static bool fd_open(long fd)
{
    return fd >= 0 && fd <= INT32_MAX && fcntl((int)fd, F_GETFD) != -1;
}

/* "5,6,-,-": one eventfd per world rank, - for ranks of other hosts. */
static void set_cloexec(int fd)
{
    int fl = fcntl(fd, F_GETFD);

    if (fl >= 0)
        (void)fcntl(fd, F_SETFD, fl | FD_CLOEXEC);
}

static enc_status_t parse_evfds(const char *v, int size, int *out)
{
    const char *p = v;

    for (int i = 0; i < size; i++) {
        char *end;

        if (*p == '-') {
            out[i] = -1;
            end = (char *)p + 1;
        } else {
            long fd;

            errno = 0;
            fd = strtol(p, &end, 10);
            if (errno || end == p || !fd_open(fd))
                return ENC_ERR_INVAL;
            out[i] = (int)fd;
        }
        if (*end != (i + 1 < size ? ',' : '\0'))
            return ENC_ERR_INVAL;
        p = end + 1;
    }
    return ENC_OK;
}

/* The header must describe exactly the layout of a segment of this size
 * for this job: anything else is not ours to interpret. */
static bool header_valid(const struct enc_shm_header *h, size_t len, int size)
{
    struct enc_shm_header want;

    if (h->magic != ENC_SHM_MAGIC || (int)h->nslots != size || h->chunk < ENC_SHM_CHUNK_MIN ||
        (h->p2p_ring & (h->p2p_ring - 1)) != 0)
        return false;
    enc_shm_layout(&want, size, h->chunk, h->resbuf_bytes, (int)h->nchan, h->p2p_ring);
    return memcmp(&want, h, sizeof(want)) == 0 && h->total == len;
}

/*
 * The pages every collective uses (header, flags, slots) written once now,
 * so no collective pays for their first use in this process: on a
 * paravirtualised kernel the first write to a page of a new mapping is slow
 * even after MAP_POPULATE or MADV_POPULATE_WRITE (bench/README.md).  A
 * locked add of zero leaves every byte as it is, so peers already using the
 * segment (a restarted rank attaches while the others run) lose nothing.
 * The circular result buffer and the channels are left out: they are mapped
 * as they fill, so a job pays only for the part it uses, and the result
 * buffer's memory was reserved once by the segment's owner (fallocate,
 * host_segment.c), so a first write there never meets a full tmpfs.
 */
static void prefault(uint8_t *p, size_t len)
{
    (void)madvise(p, len, MADV_POPULATE_WRITE); /* one call for the page tables */
    for (size_t off = 0; off < len; off += 4096)
        __atomic_fetch_add((uint64_t *)(p + off), 0, __ATOMIC_RELAXED);
}

static enc_status_t map_segment(struct enc_shm *s, int fd, int size)
{
    struct stat st;
    void *p;

    if (fstat(fd, &st) != 0 || st.st_size < (off_t)sizeof(struct enc_shm_header))
        return ENC_ERR_INVAL;
    p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED)
        return ENC_ERR_SYS;
    s->base = p;
    s->len = (size_t)st.st_size;
    if (!header_valid(p, s->len, size)) {
        munmap(p, s->len);
        s->base = NULL;
        return ENC_ERR_INVAL;
    }
    prefault(p, (size_t)((const struct enc_shm_header *)p)->resbuf_off);
    return ENC_OK;
}

enc_status_t enc_shm_attach(struct enc_shm *s, int me, int size)
{
    const struct enc_shm_header *h;
    enc_status_t rv;
    long fd;

    memset(s, 0, sizeof(*s));
    if (!enc_tunable_bool(ENC_TUNE_SHM) || !enc_tunable_isset(ENC_TUNE_SHM_FD) ||
        !enc_tunable_isset(ENC_TUNE_SHM_EVENTFDS))
        return ENC_ERR_NOT_FOUND;
    fd = (long)enc_tunable_uint(ENC_TUNE_SHM_FD);
    if ((s->evfd = malloc((size_t)size * sizeof(int))) == NULL)
        return ENC_ERR_NOMEM;
    if (!fd_open(fd) ||
        (rv = parse_evfds(enc_tunable_str(ENC_TUNE_SHM_EVENTFDS), size, s->evfd)) != ENC_OK ||
        s->evfd[me] < 0 || (rv = map_segment(s, (int)fd, size)) != ENC_OK) {
        ENC_WARN("shm", "the shared-memory segment offered (ENCORE_SHM_FD, "
                 "ENCORE_SHM_EVENTFDS) is not usable; this rank uses TCP");
        free(s->evfd);
        memset(s, 0, sizeof(*s));
        return ENC_ERR_INVAL;
    }
    /* Inherited through exec from the owner, but nothing this rank execs
     * (a helper, a shell) may keep the segment alive after the job. */
    set_cloexec((int)fd);
    for (int i = 0; i < size; i++)
        if (s->evfd[i] >= 0)
            set_cloexec(s->evfd[i]);
    h = (const void *)s->base;
    s->nslots = (int)h->nslots;
    s->me = me;
    s->chunk = h->chunk;
    s->flags = (struct enc_shm_flags *)(s->base + h->flags_off);
    s->common = (struct enc_shm_common *)(s->flags + size);
    s->nchan = (int)h->nchan;
    s->table = (struct enc_shm_chan_entry *)(s->base + h->table_off);
    s->resbuf_bytes = h->resbuf_bytes;
    s->resbuf = h->resbuf_bytes ? s->base + h->resbuf_off : NULL;
    s->fd = (int)fd;
    s->cma = enc_shm_cma_setup();
    atomic_store(&s->flags[me].pid, (int32_t)getpid());
    atomic_store(&s->flags[me].sleeping, 0);
    enc_shm_chan_drop_rank(s, me); /* what an earlier incarnation held */
    return ENC_OK;
}

void enc_shm_detach(struct enc_shm *s)
{
    if (s->base != NULL)
        munmap(s->base, s->len);
    free(s->evfd);
    memset(s, 0, sizeof(*s));
}
