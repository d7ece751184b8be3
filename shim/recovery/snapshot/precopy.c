/*
 * precopy.c - the program's MPI buffers copied into a snapshot at its fork
 * (precopy.h).
 *
 * Two memory files take turns: the image of one snapshot maps the file it
 * was copied into (MAP_PRIVATE: what it writes once restored is its own),
 * so a file is written again only once the image that maps it has ended
 * (encore-run ends an image when the next one parks; a restored image is
 * the rank, and the rank that wrote its file is gone).  If that image
 * still lives, the turn gets a fresh file.  A file is written with pwrite,
 * never mapped here: the kernel fills its pages without a page-table
 * fault each.
 *
 * Only memory the image can be given back as it was is copied: private,
 * readable and writable, not the stack, not memory someone else keeps out
 * of forks (MADV_DONTFORK: a driver's registered buffers, encore's own
 * kept payload chunks), locked, wiped on fork or of huge-page files.  The
 * fork then leaves a hole there, which the image fills from the file
 * before anything runs in it; activated, it makes that memory anonymous
 * again (enc_precopy_activated).
 */
#include "enc.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/fullio.h"
#include "core/tunables.h"
#include "core/vec.h"
#include "recovery/snapshot/precopy.h"

#define NOTE_MIN ((size_t)64 << 10)
#define NOTES 32
/* A smaller buffer stands for the blocks malloc mapped around it, at most
 * WHOLE_MAX (a stencil sends rows of the arrays it rewrites whole at every
 * step: mapped_run); noted by granule of GRANULE_SHIFT. */
#define WHOLE_MAX ((uintptr_t)64 << 20)
#define GRANULE_SHIFT 21
#define GNOTES 16
#define PIECES_MAX 256
#define PAGE ((uintptr_t)4096)

/* A buffer noted, and the snapshot it was last noted before. */
struct note {
    uintptr_t lo, hi;
    uint64_t epoch;
};

/* A page-aligned part of a noted buffer, copied at offset off. */
struct piece {
    uintptr_t lo, hi;
    off_t off;
};

/* A memory file and the image mapping it (-1: none). */
struct turn {
    int fd;
    int pidfd;
};

/* Memory a copy may come from: [lo, hi); anon: no file or kernel name
 * (malloc's mapped blocks in it may be copied whole, see mapped_run). */
struct area {
    uintptr_t lo, hi;
    bool anon;
};

static struct {
    pthread_mutex_t mu;
    struct note notes[NOTES];
    struct note gnotes[GNOTES]; /* granules of smaller buffers (lo only) */
    uintptr_t last_granule;     /* of the last smaller buffer: no lock when the same */
    uint64_t epoch;          /* snapshots prepared so far */
    struct piece pieces[PIECES_MAX];
    size_t npieces;
    struct turn turns[2];
    int turn;                /* the turn of the next snapshot */
    uint64_t last_bytes;
} pc = {.mu = PTHREAD_MUTEX_INITIALIZER,
        .turns = {{.fd = -1, .pidfd = -1}, {.fd = -1, .pidfd = -1}}};

/* Whether note n stands for [lo, hi): the same granule (a smaller
 * buffer's), or the same buffer or a neighbouring part of it (a window of
 * receives into consecutive slices is one buffer). */
static bool covers(const struct note *n, uintptr_t lo, uintptr_t hi, bool granule)
{
    if (n->hi == 0)
        return false;
    return granule ? n->lo >> GRANULE_SHIFT == lo >> GRANULE_SHIFT
                   : lo <= n->hi && hi >= n->lo;
}

/* Notes [lo, hi) in tab (pc.mu held): extends the note that covers it,
 * else takes the place of the oldest. */
static void remember(struct note *tab, int cap, uintptr_t lo, uintptr_t hi, bool granule)
{
    struct note *oldest = &tab[0];

    for (int i = 0; i < cap; i++) {
        struct note *n = &tab[i];

        if (covers(n, lo, hi, granule)) {
            n->lo = granule ? lo : ENC_MIN(n->lo, lo);
            n->hi = granule ? lo + 1 : ENC_MAX(n->hi, hi);
            n->epoch = pc.epoch;
            return;
        }
        if (n->hi == 0 || (oldest->hi != 0 && n->epoch < oldest->epoch))
            oldest = n;
    }
    *oldest = (struct note){.lo = lo, .hi = hi, .epoch = pc.epoch};
}

void enc_precopy_note(const void *p, size_t len)
{
    uintptr_t lo = (uintptr_t)p;
    bool small = len < NOTE_MIN;

    if (p == NULL || len == 0 || lo + len < lo)
        return;
    /* the usual smaller buffer: the same arrays message after message */
    if (small && __atomic_load_n(&pc.last_granule, __ATOMIC_RELAXED) == lo >> GRANULE_SHIFT)
        return;
    pthread_mutex_lock(&pc.mu);
    if (small) {
        __atomic_store_n(&pc.last_granule, lo >> GRANULE_SHIFT, __ATOMIC_RELAXED);
        remember(pc.gnotes, GNOTES, lo, lo + 1, true);
    } else {
        remember(pc.notes, NOTES, lo, lo + len, false);
    }
    pthread_mutex_unlock(&pc.mu);
}

/* Whether a mapping's VmFlags (smaps) let it be copied and given back. */
static bool flags_ok(const char *flags)
{
    static const char *const refused[] = {" dc", " lo", " wf", " io", " pf", " ht", " um",
                                          " uw"};
    char padded[1040]; /* a smaps line and a space */

    snprintf(padded, sizeof(padded), " %s", flags);
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        const char *at = strstr(padded, refused[i]);

        if (at != NULL && (at[3] == ' ' || at[3] == '\n' || at[3] == '\0'))
            return false;
    }
    return true;
}

/* The mappings a copy may come from, in address order (smaps lists them
 * so); *n of them, malloc'd, NULL when none or unreadable. */
static struct area *read_areas(size_t *n)
{
    uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
    FILE *f = fopen("/proc/self/smaps", "re");
    struct area *a = NULL, cur = {0, 0, false};
    size_t cap = 0;
    char line[1024];
    bool ok = false;

    *n = 0;
    if (f == NULL)
        return NULL;
    while (fgets(line, sizeof(line), f) != NULL) {
        unsigned long lo, hi;
        char perms[8], path[512] = "";

        if (strncmp(line, "VmFlags:", 8) == 0) {
            if (ok && flags_ok(line + 8) && ENC_VEC_RESERVE(a, cap, *n + 1) == ENC_OK)
                a[(*n)++] = cur;
            ok = false;
            continue;
        }
        if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %511s", &lo, &hi, perms, path) < 3 ||
            strchr(line, ':') < strchr(line, ' '))
            continue; /* a "Key: value" line */
        cur = (struct area){lo, hi, path[0] == '\0'};
        /* the stack this thread runs on (the main thread's, or another's
         * mapping: the copy returns from fork on it), and the kernel's
         * pages, are not */
        ok = strcmp(perms, "rw-p") == 0 && strncmp(path, "[stack", 6) != 0 &&
             strncmp(path, "[v", 2) != 0 && !(sp >= lo && sp < hi);
    }
    fclose(f);
    return a;
}

/* The size of the block glibc's malloc mapped for the program whose
 * header is at p, ending at most at hi; 0 when p holds no such header (a
 * previous size of 0, the size with only IS_MMAPPED set, whole pages). */
static uintptr_t mapped_block_at(uintptr_t p, uintptr_t hi)
{
    const size_t *hdr = (const size_t *)p;
    uintptr_t size = hdr[1] & ~(size_t)7;

    if (hdr[0] != 0 || (hdr[1] & 7) != 2 || size < PAGE || size % PAGE != 0 || size > hi - p)
        return 0;
    return size;
}

/* The run of malloc's mapped blocks around address at in mapping a (the
 * arrays a stencil sends small rows of): [*lo, *hi), at most WHOLE_MAX;
 * false when at is in no such block.  Only such a run is copied whole for
 * a small buffer, leaving a hole in the fork until the image maps the copy
 * back, because nothing fork itself touches in the child lives there: a
 * thread's malloc arena (its state at the start of its mapping: copying
 * that mapping whole made every image die in fork's malloc reset,
 * SIGSEGV), another thread's stack (its descriptor), a library's data.
 * Blocks start on pages; the kernel merges neighbouring anonymous
 * mappings, so the run is found from at, page by page downwards. */
static bool mapped_run(const struct area *a, uintptr_t at, uintptr_t *lo, uintptr_t *hi)
{
    uintptr_t p = at & ~(PAGE - 1), size = 0, budget = WHOLE_MAX / PAGE;

    if (!a->anon)
        return false;
    for (;; p -= PAGE) {
        if ((size = mapped_block_at(p, a->hi)) != 0 && p + size > at)
            break;
        if (p <= a->lo || --budget == 0)
            return false;
    }
    *lo = p;
    *hi = p + size;
    /* the blocks right before it, then right after it */
    for (uintptr_t q = *lo; q > a->lo && budget > 0 && *hi - q < WHOLE_MAX; budget--) {
        q -= PAGE;
        if ((size = mapped_block_at(q, a->hi)) != 0 && q + size == *lo)
            *lo = q;
    }
    while (*hi < a->hi && (size = mapped_block_at(*hi, a->hi)) != 0 &&
           *hi + size - *lo <= WHOLE_MAX)
        *hi += size;
    return true;
}

static int cmp_piece(const void *x, const void *y)
{
    const struct piece *a = x, *b = y;

    return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* The pieces of the buffers noted since the last snapshot, clipped to
 * copyable memory, page-aligned inward, sorted, merged and capped. */
static void plan(size_t max)
{
    size_t na, total = 0, n = 0;
    struct area *a = read_areas(&na);

    pthread_mutex_lock(&pc.mu);
    for (int i = 0; i < GNOTES && a != NULL; i++) {
        const struct note *g = &pc.gnotes[i];

        if (g->hi == 0 || g->epoch != pc.epoch)
            continue;
        for (size_t k = 0; k < na && n < PIECES_MAX; k++) {
            uintptr_t lo, hi;

            if (g->lo >= a[k].lo && g->lo < a[k].hi && mapped_run(&a[k], g->lo, &lo, &hi))
                pc.pieces[n++] = (struct piece){lo, hi, 0};
        }
    }
    pc.last_granule = 0; /* the next epoch notes them again */
    for (int i = 0; i < NOTES && a != NULL; i++) {
        const struct note *nt = &pc.notes[i];

        if (nt->hi == 0 || nt->epoch != pc.epoch)
            continue;
        for (size_t k = 0; k < na && n < PIECES_MAX; k++) {
            uintptr_t lo = (ENC_MAX(nt->lo, a[k].lo) + PAGE - 1) & ~(PAGE - 1);
            uintptr_t hi = ENC_MIN(nt->hi, a[k].hi) & ~(PAGE - 1);

            if (hi > lo)
                pc.pieces[n++] = (struct piece){lo, hi, 0};
        }
    }
    pc.epoch++;
    pthread_mutex_unlock(&pc.mu);
    free(a);
    qsort(pc.pieces, n, sizeof(pc.pieces[0]), cmp_piece);
    pc.npieces = 0;
    for (size_t i = 0; i < n; i++) {
        struct piece *last = pc.npieces > 0 ? &pc.pieces[pc.npieces - 1] : NULL;
        struct piece p = pc.pieces[i];

        if (last != NULL && p.lo <= last->hi) { /* overlapping buffers */
            if (p.hi > last->hi) {
                total += p.hi - last->hi;
                last->hi = p.hi;
            }
        } else {
            p.off = (off_t)total;
            pc.pieces[pc.npieces++] = p;
            total += p.hi - p.lo;
        }
        if (total > max) { /* the last piece, shortened to the cap */
            struct piece *l = &pc.pieces[pc.npieces - 1];

            l->hi -= (total - max + PAGE - 1) & ~(PAGE - 1);
            if (l->hi <= l->lo)
                pc.npieces--;
            break;
        }
    }
}

static bool image_alive(int pidfd)
{
    struct pollfd p = {.fd = pidfd, .events = POLLIN};

    return pidfd >= 0 && poll(&p, 1, 0) == 0;
}

/* This turn's file, free to write: a fresh one when its image lives on. */
static int turn_file(struct turn *t)
{
    if (image_alive(t->pidfd) && t->fd >= 0) {
        ENC_DEBUG("snapshot", "the image before the last still maps its buffers' copy: a "
                  "new file for this one");
        close(t->fd);
        t->fd = -1;
    }
    if (t->pidfd >= 0)
        close(t->pidfd);
    t->pidfd = -1;
    if (t->fd < 0)
        t->fd = (int)syscall(SYS_memfd_create, "encore-snapshot-copy", MFD_CLOEXEC);
    return t->fd;
}

static bool copy_all(int fd)
{
    for (size_t i = 0; i < pc.npieces; i++) {
        const struct piece *p = &pc.pieces[i];

        if (enc_write_full(fd, (const void *)p->lo, p->hi - p->lo, p->off) != p->hi - p->lo)
            return false;
    }
    return true;
}

static void fork_again(size_t upto)
{
    for (size_t i = 0; i < upto; i++)
        (void)madvise((void *)pc.pieces[i].lo, pc.pieces[i].hi - pc.pieces[i].lo, MADV_DOFORK);
}

void enc_precopy_prepare(void)
{
    size_t max = (size_t)enc_tunable_uint(ENC_TUNE_SNAPSHOT_COPY_MAX);
    int fd;

    pc.npieces = 0;
    pc.last_bytes = 0;
    if (max == 0) {
        pc.epoch++;
        return;
    }
    plan(max);
    if (pc.npieces == 0)
        return;
    if ((fd = turn_file(&pc.turns[pc.turn])) < 0 || !copy_all(fd)) {
        ENC_DEBUG("snapshot", "buffers shared copy-on-write this time: their copy failed: %m");
        pc.npieces = 0;
        return;
    }
    for (size_t i = 0; i < pc.npieces; i++)
        if (madvise((void *)pc.pieces[i].lo, pc.pieces[i].hi - pc.pieces[i].lo,
                    MADV_DONTFORK) != 0) {
            fork_again(i);
            pc.npieces = 0;
            return;
        }
    for (size_t i = 0; i < pc.npieces; i++)
        pc.last_bytes += pc.pieces[i].hi - pc.pieces[i].lo;
}

bool enc_precopy_child(void)
{
    int fd = pc.turns[pc.turn].fd;

    pc.mu = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
    for (size_t i = 0; i < pc.npieces; i++) {
        const struct piece *p = &pc.pieces[i];

        if (mmap((void *)p->lo, p->hi - p->lo, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED,
                 fd, p->off) == MAP_FAILED)
            return false;
    }
    /* the files are the rank's: this image, restored, starts its own */
    for (int t = 0; t < 2; t++) {
        if (pc.turns[t].fd >= 0)
            close(pc.turns[t].fd);
        if (pc.turns[t].pidfd >= 0)
            close(pc.turns[t].pidfd);
        pc.turns[t] = (struct turn){.fd = -1, .pidfd = -1};
    }
    return true; /* pc.pieces stay: enc_precopy_activated makes them anonymous */
}

/* A page of a file mapping that the program drops (MADV_DONTNEED, as an
 * allocator returning memory does) reads back as the file's, where
 * anonymous memory reads back zeros, which allocators count on (glibc's
 * calloc from a shrunk heap, jemalloc's purged extents).  So the rank,
 * restored, gets anonymous memory with the same bytes in its place
 * (mremap moves the copy over the mapping in one step). */
bool enc_precopy_activated(void)
{
    bool ok = true;

    for (size_t i = 0; i < pc.npieces; i++) {
        const struct piece *p = &pc.pieces[i];
        size_t len = p->hi - p->lo;
        void *tmp = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

        if (tmp == MAP_FAILED) {
            ok = false;
            break;
        }
        memcpy(tmp, (const void *)p->lo, len);
        if (mremap(tmp, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)p->lo) == MAP_FAILED) {
            munmap(tmp, len);
            ok = false;
            break;
        }
    }
    pc.npieces = 0;
    return ok;
}

void enc_precopy_parent(pid_t img)
{
    struct turn *t = &pc.turns[pc.turn];

    if (pc.npieces == 0)
        return;
    fork_again(pc.npieces);
    pc.npieces = 0;
    if (img <= 0)
        return;
    t->pidfd = (int)syscall(SYS_pidfd_open, img, 0);
    if (t->pidfd < 0) { /* without it the file cannot be known free: not written again */
        close(t->fd);
        t->fd = -1;
    }
    pc.turn ^= 1;
}

uint64_t enc_precopy_last_bytes(void) { return pc.last_bytes; }

bool enc_precopy_owns_fd(int fd)
{
    return fd >= 0 && (fd == pc.turns[0].fd || fd == pc.turns[1].fd);
}
