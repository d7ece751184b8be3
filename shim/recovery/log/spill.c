/*
 * spill.c - the result log's spill file (spill.h).
 *
 * One file per rank process, made with mkstemp and unlinked at once in
 * ENCORE_SPILL_DIR, else in the rank's private directory under TMPDIR
 * (ENCORE_RANK_TMPDIR, inside encore-run's job directory).  Unlinked, the
 * file has no name: its blocks live exactly as long as an open descriptor
 * refers to it (this rank and its parked snapshot images), and the kernel
 * frees them when the last of those processes ends, however it ends
 * (SIGKILL included).  Nothing is ever left on disk to clean up.
 *
 * Entries are appended, each at a block boundary, behind a 16-byte header
 * naming its (communicator, seq); an entry no longer needed is punched out of the file
 * (FALLOC_FL_PUNCH_HOLE), so the disk space in use is the live entries',
 * which stay within the budget ENCORE_SPILL_MAX.  Offsets are never
 * reused, because snapshot images (fork children) share the file:
 *   - an image knows the entries spilled before its fork, all below its
 *     copy of `end`.  The rank goes on appending above that, and may punch
 *     entries the image still lists (results below the trim floor, which
 *     no rank asks for again); such holes read as zeros, the header check
 *     fails, and the entry is reported missing, never as wrong data.
 *   - a restored image appends from its own `end`, over what the dead rank
 *     wrote after the fork: garbage to the image, which never reads an
 *     offset it did not write itself.  enc_spill_restored() punches that
 *     region so its space comes back.
 * Only one process of a rank's lineage writes at a time: the live rank
 * (images are parked until the rank is dead).
 */
#include "enc.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/uio.h>
#include <unistd.h>

#include "engine/layer.h"
#include "recovery/log/spill.h"

#define SPILL_MAGIC 0x4c4950534f434e45ull /* "ENCOSPIL" */

struct spill_hdr {
    uint64_t seq;
    uint64_t check;          /* len ^ cid ^ SPILL_MAGIC */
};

static struct {
    int fd;                  /* -1: no spill */
    off_t end;               /* next entry goes here */
    uint64_t blk;            /* entries start at multiples of it */
    uint64_t live, peak;     /* bytes of live entries (whole blocks) */
    uint64_t budget;         /* UINT64_MAX: auto, not computed yet */
    uint64_t free_at_open;   /* free bytes of the file system at start */
    bool punch_warned;
} sp = {.fd = -1};

static const char *spill_dir(bool *explicit)
{
    const char *d = enc_tunable_str(ENC_TUNE_SPILL_DIR), *tmp;

    if ((*explicit = *d != '\0'))
        return d;
    if (*(d = enc_tunable_str(ENC_TUNE_RANK_TMPDIR)) != '\0')
        return d;
    tmp = getenv("TMPDIR");
    return tmp != NULL && *tmp != '\0' ? tmp : "/tmp";
}

static void note_filesystem(void)
{
    struct statvfs vfs;
    struct stat st;

    sp.blk = fstat(sp.fd, &st) == 0 && st.st_blksize >= 512 ? (uint64_t)st.st_blksize : 4096;
    if (fstatvfs(sp.fd, &vfs) == 0)
        sp.free_at_open = (uint64_t)vfs.f_bavail * vfs.f_frsize;
}

enc_status_t enc_spill_open(void)
{
    bool explicit;
    const char *dir = spill_dir(&explicit);
    char path[4096];

    memset(&sp, 0, sizeof(sp));
    sp.fd = -1;
    if ((sp.budget = enc_tunable_uint(ENC_TUNE_SPILL_MAX)) == 0)
        return ENC_OK; /* ENCORE_SPILL_MAX=0: no spill */
    snprintf(path, sizeof(path), "%s/encore-log-XXXXXX", dir);
    if ((sp.fd = mkostemp(path, O_CLOEXEC)) < 0) {
        if (explicit) {
            ENC_ERROR("reclog", "cannot create a spill file in ENCORE_SPILL_DIR=%s: %m", dir);
            return ENC_ERR_SYS;
        }
        ENC_WARN("reclog", "cannot create a spill file in %s: %m; the result log will not "
                 "spill to disk (set ENCORE_SPILL_DIR)", dir);
        return ENC_OK;
    }
    unlink(path); /* see the head comment: gone when the last process holding it is */
    note_filesystem();
    return ENC_OK;
}

void enc_spill_close(void)
{
    if (sp.fd >= 0)
        close(sp.fd);
    sp.fd = -1;
}

static uint64_t whole_blocks(size_t len)
{
    uint64_t n = sizeof(struct spill_hdr) + (uint64_t)len;

    return (n + sp.blk - 1) / sp.blk * sp.blk;
}

/* auto: half the free space of the file system at start, shared by the
 * ranks of this host (they spill into the same TMPDIR). */
static uint64_t auto_budget(void)
{
    const char *mine = enc_engine_peer_host(enc_engine_rank());
    int here = 0;

    for (int r = 0; r < enc_engine_size(); r++)
        here += strcmp(enc_engine_peer_host(r), mine) == 0;
    return sp.free_at_open / 2 / (uint64_t)ENC_MAX(here, 1);
}

static uint64_t check_of(uint64_t cid, size_t len)
{
    return (uint64_t)len ^ cid ^ SPILL_MAGIC;
}

/* Point-to-point payloads spill from the thread that handles a trim (p2p/
 * conn_trim.c) while a nonblocking collective's worker may spill results:
 * the file's end and its byte counts are taken under this lock. */
static pthread_mutex_t sp_mu = PTHREAD_MUTEX_INITIALIZER;

static enc_status_t spill_put(uint64_t cid, uint64_t seq, const void *data, size_t len,
                              off_t *off);

enc_status_t enc_spill_put(uint64_t cid, uint64_t seq, const void *data, size_t len,
                           off_t *off)
{
    enc_status_t rv;

    pthread_mutex_lock(&sp_mu);
    rv = spill_put(cid, seq, data, len, off);
    pthread_mutex_unlock(&sp_mu);
    return rv;
}

static enc_status_t spill_put(uint64_t cid, uint64_t seq, const void *data, size_t len,
                              off_t *off)
{
    struct spill_hdr h = {.seq = seq, .check = check_of(cid, len)};
    struct iovec iov[2] = {{&h, sizeof(h)}, {(void *)data, len}};
    uint64_t need;

    if (sp.fd < 0)
        return ENC_ERR_STATE;
    if (sp.budget == UINT64_MAX) {
        sp.budget = auto_budget();
        ENC_INFO("reclog", "spill budget (ENCORE_SPILL_MAX=auto): %llu bytes",
                 (unsigned long long)sp.budget);
    }
    need = whole_blocks(len);
    if (sp.live + need > sp.budget)
        return ENC_ERR_NOMEM;
    errno = 0;
    if (pwritev(sp.fd, iov, 2, sp.end) != (ssize_t)(sizeof(h) + len)) {
        int err = errno ? errno : ENOSPC; /* a short write: the disk is full */

        fallocate(sp.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, sp.end, (off_t)need);
        errno = err; /* for the caller's %m */
        return ENC_ERR_SYS;
    }
    *off = sp.end;
    sp.end += (off_t)need;
    sp.live += need;
    sp.peak = ENC_MAX(sp.peak, sp.live);
    return ENC_OK;
}

enc_status_t enc_spill_get(uint64_t cid, uint64_t seq, void *buf, size_t len, off_t off)
{
    struct spill_hdr h;
    struct iovec iov[2] = {{&h, sizeof(h)}, {buf, len}};

    if (sp.fd < 0 || preadv(sp.fd, iov, 2, off) != (ssize_t)(sizeof(h) + len) ||
        h.seq != seq || h.check != check_of(cid, len))
        return ENC_ERR_NOT_FOUND;
    return ENC_OK;
}

void enc_spill_release(off_t off, size_t len)
{
    uint64_t n;

    if (sp.fd < 0)
        return;
    n = whole_blocks(len);
    if (fallocate(sp.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, (off_t)n) != 0) {
        if (!sp.punch_warned)
            ENC_WARN("reclog", "cannot give spilled results' disk space back (%m): it counts "
                     "against ENCORE_SPILL_MAX until the rank ends");
        sp.punch_warned = true;
        return;
    }
    pthread_mutex_lock(&sp_mu);
    sp.live -= ENC_MIN(sp.live, n);
    pthread_mutex_unlock(&sp_mu);
}

void enc_spill_restored(void)
{
    struct stat st;

    if (sp.fd >= 0 && fstat(sp.fd, &st) == 0 && st.st_size > sp.end)
        fallocate(sp.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, sp.end,
                  st.st_size - sp.end);
}

uint64_t enc_spill_budget(void) { return sp.budget; }
uint64_t enc_spill_peak(void) { return sp.peak; }
