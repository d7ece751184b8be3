/* det_store.c - a rank's determinants in its host's job directory, mapped (det_store.h). */
#include "enc.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/vec.h"
#include "p2p/det_store.h"

#define FIRST_BYTES ((size_t)1 << 20) /* 26,214 records; doubled when full */
#define SEQ_AT 32                      /* the u64 seq's offset in a record (chanseq.c) */

static struct {
    pthread_mutex_t mu;
    int fd;
    uint8_t *map;            /* the file, cap bytes; records from 0, then zeros */
    size_t cap, used;        /* bytes mapped, bytes of records */
    uint32_t rank;
    uint64_t clock;          /* calls made so far */
    uint64_t made;           /* records this incarnation appended */
    size_t none_at;          /* offset + 1 of this incarnation's last NONE, 0: none */
    uint64_t none_end;       /* the clock just past that run */
    struct enc_det *old;     /* earlier incarnations' records, sorted by clock */
    size_t nold, capold;
    void (*on_first)(void);  /* enc_det_store_on_first_record */
    void (*on_record)(void); /* enc_det_store_on_record */
    uint64_t version;        /* bumped by every change of the records (a copy's tag) */
    uint64_t shipped_version; /* the version enc_det_store_unshipped last handed out */
    size_t dirty;            /* the first byte changed since then */
} ds = {.mu = PTHREAD_MUTEX_INITIALIZER, .fd = -1};

static void path_of(int rank, char *out, size_t cap)
{
    const char *dir = getenv("ENCORE_RANK_TMPDIR");
    char buf[4096];

    snprintf(buf, sizeof(buf), "%s", dir != NULL ? dir : "/tmp/encore-rank");
    snprintf(out, cap, "%s/p2p-determinants.%d", dirname(buf), rank);
}

static int by_clock(const void *a, const void *b)
{
    const struct enc_det *x = a, *y = b;

    if (x->clock != y->clock)
        return x->clock < y->clock ? -1 : 1;
    return 0;
}

/* Reads the records already there into ds.old (sorted by clock, stable
 * within one clock: a DONE set stays in its order) and finds the end. */
static void load(void)
{
    struct enc_det d;

    for (ds.used = 0; ds.used + ENC_DET_WIRE <= ds.cap && ds.map[ds.used] != 0;
         ds.used += ENC_DET_WIRE) {
        if (enc_det_decode(&d, ds.map + ds.used, ENC_DET_WIRE) != ENC_OK || d.clock == 0 ||
            ENC_VEC_RESERVE(ds.old, ds.capold, ds.nold + 1) != ENC_OK)
            break;
        ds.old[ds.nold++] = d;
    }
    /* Stable: records of one clock were written in order; insertion sort
     * keeps that, and the file is nearly sorted already (clocks grow). */
    for (size_t i = 1; i < ds.nold; i++) {
        struct enc_det t = ds.old[i];
        size_t j = i;

        while (j > 0 && by_clock(&ds.old[j - 1], &t) > 0) {
            ds.old[j] = ds.old[j - 1];
            j--;
        }
        ds.old[j] = t;
    }
}

static bool map_at(size_t cap)
{
    void *p;

    if (ftruncate(ds.fd, (off_t)cap) != 0)
        return false;
    p = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_SHARED, ds.fd, 0);
    if (p == MAP_FAILED)
        return false;
    if (ds.map != NULL)
        munmap(ds.map, ds.cap);
    ds.map = p;
    ds.cap = cap;
    return true;
}

/* The file's record bytes: up to the first zero kind (mutex held, mapped). */
static size_t record_bytes(void)
{
    size_t n = 0;

    while (n + ENC_DET_WIRE <= ds.cap && ds.map[n] != 0)
        n += ENC_DET_WIRE;
    return n;
}

/* A copy (encore-run's) longer than the file replaces it: the rank moved
 * to another host, or came back to one holding an older file. */
static void adopt(const uint8_t *copy, size_t n)
{
    size_t have = record_bytes();

    if (n <= have || (n > ds.cap && !map_at(n + FIRST_BYTES)))
        return;
    memcpy(ds.map, copy, n);
    /* past the copy: zeros, also where a set cut short by a kill left
     * records behind its unpublished first one */
    memset(ds.map + n, 0, ds.cap - n);
    ENC_INFO("p2p", "determinants: %zu records from encore-run's copy (%zu in the file here)",
             n / ENC_DET_WIRE, have / ENC_DET_WIRE);
}

enc_status_t enc_det_store_open(int rank, uint32_t incarnation)
{
    return enc_det_store_open_from(rank, incarnation, NULL, 0);
}

enc_status_t enc_det_store_open_from(int rank, uint32_t incarnation, const uint8_t *copy,
                                     size_t n)
{
    char path[4200];
    int flags = O_RDWR | O_CREAT | O_CLOEXEC | (incarnation == 0 ? O_TRUNC : 0);
    off_t size;

    path_of(rank, path, sizeof(path));
    pthread_mutex_lock(&ds.mu);
    if (ds.fd >= 0) { /* a restored snapshot image: its clock stays, records are read again */
        if (ds.map != NULL)
            munmap(ds.map, ds.cap);
        __atomic_store_n(&ds.map, NULL, __ATOMIC_RELEASE);
        ds.cap = 0;
        ds.nold = 0;
        ds.none_at = 0;
        close(ds.fd);
        ds.fd = -1;
    }
    ds.rank = (uint32_t)rank;
    ds.dirty = 0; /* the whole file is shipped at the next flush */
    ds.shipped_version = ds.version; /* an empty file has nothing to ship */
    if ((ds.fd = open(path, flags, 0600)) < 0 ||
        (size = lseek(ds.fd, 0, SEEK_END)) < 0 ||
        !map_at(ENC_MAX((size_t)size, FIRST_BYTES))) {
        ENC_WARN("p2p", "cannot map %s (%m): nondeterministic outcomes are not recorded, a "
                 "restart of this rank replays them live", path);
        if (ds.fd >= 0)
            close(ds.fd);
        ds.fd = -1;
        pthread_mutex_unlock(&ds.mu);
        return ENC_ERR_SYS;
    }
    if (copy != NULL && n % ENC_DET_WIRE == 0)
        adopt(copy, n);
    load();
    if (ds.used > 0) /* shipped again whole at the next flush */
        __atomic_store_n(&ds.version, ds.version + 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&ds.mu);
    return ENC_OK;
}

void enc_det_store_on_first_record(void (*fn)(void)) { ds.on_first = fn; }

void enc_det_store_on_record(void (*fn)(void)) { ds.on_record = fn; }

bool enc_det_store_on(void) { return __atomic_load_n(&ds.map, __ATOMIC_ACQUIRE) != NULL; }

uint64_t enc_det_store_tick(void) { return __atomic_add_fetch(&ds.clock, 1, __ATOMIC_RELAXED); }

uint64_t enc_det_store_clock(void) { return __atomic_load_n(&ds.clock, __ATOMIC_RELAXED); }

void enc_det_store_set_clock(uint64_t clock) { __atomic_store_n(&ds.clock, clock, __ATOMIC_RELAXED); }

uint64_t enc_det_store_made(void) { return __atomic_load_n(&ds.made, __ATOMIC_RELAXED); }

/* The index of the first old record with clock >= c (nold: none). */
static size_t lower(uint64_t c)
{
    size_t lo = 0, hi = ds.nold;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (ds.old[mid].clock < c)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static bool find_locked(uint64_t clock, struct enc_det *d)
{
    size_t i = lower(clock);

    if (i < ds.nold && ds.old[i].clock == clock) {
        *d = ds.old[i];
        return true;
    }
    /* A NONE run that started earlier and covers clock. */
    if (i > 0 && ds.old[i - 1].kind == ENC_DET_NONE &&
        clock - ds.old[i - 1].clock < ds.old[i - 1].seq) {
        *d = ds.old[i - 1];
        return true;
    }
    return false;
}

bool enc_det_store_find(uint64_t clock, struct enc_det *d)
{
    bool hit;

    if (clock == 0 || ds.nold == 0)
        return false;
    pthread_mutex_lock(&ds.mu);
    hit = find_locked(clock, d);
    pthread_mutex_unlock(&ds.mu);
    return hit;
}

size_t enc_det_store_find_all(uint64_t clock, struct enc_det *out, size_t cap)
{
    size_t n = 0;

    if (clock == 0 || ds.nold == 0)
        return 0;
    pthread_mutex_lock(&ds.mu);
    for (size_t i = lower(clock); i < ds.nold && ds.old[i].clock == clock; i++, n++)
        if (n < cap)
            out[n] = ds.old[i];
    pthread_mutex_unlock(&ds.mu);
    return n;
}

/* Room for n more records (the mutex held). */
static bool room(size_t n)
{
    if (ds.used + n * ENC_DET_WIRE <= ds.cap)
        return true;
    if (map_at(ENC_MAX(ds.cap * 2, ds.used + n * ENC_DET_WIRE)))
        return true;
    ENC_WARN("p2p", "cannot grow the determinant file (%m): later outcomes are not recorded");
    return false;
}

/* Appends n records, the first one's kind byte stored last: a reader sees
 * all of them or none (the mutex held). */
static void append(const struct enc_det *d, size_t n)
{
    uint8_t rec[ENC_DET_WIRE], kind0 = 0;
    uint8_t *at;

    if (ds.map == NULL || n == 0 || !room(n))
        return;
    at = ds.map + ds.used;
    for (size_t i = 0; i < n; i++) {
        struct enc_det one = d[i];
        size_t skip = i == 0; /* the first kind byte: stored last */

        one.creator = ds.rank;
        enc_det_encode(&one, rec);
        memcpy(at + i * ENC_DET_WIRE + skip, rec + skip, ENC_DET_WIRE - skip);
        if (i == 0)
            kind0 = rec[0];
    }
    __atomic_store_n(at, kind0, __ATOMIC_RELEASE);
    ds.dirty = ENC_MIN(ds.dirty, ds.used);
    ds.used += n * ENC_DET_WIRE;
    __atomic_store_n(&ds.version, ds.version + 1, __ATOMIC_RELEASE);
    if (ds.made == 0 && ds.on_first != NULL)
        ds.on_first();
    ds.made += n;
}

/* An earlier incarnation recorded a d->kind at d->clock (the mutex held). */
static bool had_locked(const struct enc_det *d)
{
    struct enc_det old;

    if (d->kind == ENC_DET_NONE)
        return find_locked(d->clock, &old);
    for (size_t i = lower(d->clock); i < ds.nold && ds.old[i].clock == d->clock; i++)
        if (ds.old[i].kind == d->kind)
            return true;
    return false;
}

void enc_det_store_record_n(const struct enc_det *d, size_t n)
{
    uint64_t made;
    void (*after)(void);

    pthread_mutex_lock(&ds.mu);
    made = ds.made;
    if (n > 0 && !had_locked(d))
        append(d, n);
    after = ds.made != made ? ds.on_record : NULL;
    pthread_mutex_unlock(&ds.mu);
    if (after != NULL)
        after();
}

void enc_det_store_record(const struct enc_det *d) { enc_det_store_record_n(d, 1); }

void enc_det_store_none(uint64_t clock)
{
    struct enc_det d = {.kind = ENC_DET_NONE, .clock = clock, .seq = 1};

    pthread_mutex_lock(&ds.mu);
    if (ds.none_at != 0 && ds.none_end == clock) {
        uint64_t *count = (uint64_t *)(void *)(ds.map + ds.none_at - 1 + SEQ_AT);

        /* one aligned store: the run's new length (big-endian, as encoded) */
        __atomic_store_n(count, htobe64(be64toh(*count) + 1),
                         __ATOMIC_RELEASE);
        ds.none_end = clock + 1;
        ds.dirty = ENC_MIN(ds.dirty, ds.none_at - 1);
        __atomic_store_n(&ds.version, ds.version + 1, __ATOMIC_RELEASE);
    } else if (ds.map != NULL && !had_locked(&d)) {
        size_t at = ds.used;
        uint64_t made = ds.made;

        d = (struct enc_det){.kind = ENC_DET_NONE, .clock = clock, .seq = 1};
        append(&d, 1);
        ds.none_at = ds.made != made ? at + 1 : 0;
        ds.none_end = clock + 1;
    }
    pthread_mutex_unlock(&ds.mu);
}

uint64_t enc_det_store_version(void) { return __atomic_load_n(&ds.version, __ATOMIC_ACQUIRE); }

bool enc_det_store_unshipped(uint64_t *version, uint64_t *off, uint8_t **copy, size_t *n)
{
    size_t from;
    bool some = false;

    pthread_mutex_lock(&ds.mu);
    *version = ds.version;
    *copy = NULL;
    *off = *n = 0;
    if (ds.map != NULL && ds.version != ds.shipped_version) {
        from = ENC_MIN(ds.dirty, ds.used);
        if (ds.used > from && (*copy = malloc(ds.used - from)) == NULL) {
            pthread_mutex_unlock(&ds.mu);
            return false;
        }
        if (ds.used > from)
            memcpy(*copy, ds.map + from, ds.used - from);
        *off = from;
        *n = ds.used - from;
        ds.dirty = ds.used;
        ds.shipped_version = ds.version;
        some = true;
    }
    pthread_mutex_unlock(&ds.mu);
    return some;
}
