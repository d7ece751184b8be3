/*
 * shm_link.c - this rank's mapping of the point-to-point rings of its
 * host's segment, and the lines that say who polls and who must be rung
 * (shm_link.h).
 */
#include "enc.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <linux/futex.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/tunables.h"
#include "p2p/shm_link.h"
#include "shm/shm.h"

struct p2p_shm_line {
    _Atomic uint32_t attentive; /* threads polling this rank's rings now */
    _Atomic uint32_t bell;      /* a bell is on its way to this rank */
    _Atomic uint32_t sleepers;  /* threads asleep on `wake` */
    _Atomic uint32_t wake;      /* the futex they sleep on: 1 while one may sleep */
    _Atomic uint32_t held;      /* 1: attentive counts a thread that left (no poll) */
    uint8_t pad[44];
};
_Static_assert(sizeof(struct p2p_shm_line) == 64, "one cache line per rank");

static struct {
    uint8_t *map;
    size_t map_len;
    struct p2p_shm_line *lines;
    uint8_t *rings;
    size_t cap;
    int me, size;
    bool *local;          /* per world rank: reached through the rings */
    struct enc_p2p_ring **in; /* their rings to this rank, npeers of them */
    int npeers;
    bool any;
    uint64_t spin_ns, yield_ns;
} ps;

static uint64_t auto_ns(enum enc_tunable_id id, uint64_t auto_us)
{
    if (strcmp(enc_tunable_str(id), "auto") == 0)
        return auto_us * 1000;
    return (uint64_t)ENC_MAX(enc_tunable_ll(id), 0) * 1000;
}

/* The ranks of this host from ENCORE_SHM_EVENTFDS ("5,6,-,-": - for a rank
 * of another host); false when it is not of that form. */
static bool local_ranks(const char *v, int size, bool *local)
{
    const char *p = v;

    for (int i = 0; i < size; i++) {
        local[i] = *p != '-';
        while (*p != '\0' && *p != ',')
            p++;
        if (*p != (i + 1 < size ? ',' : '\0'))
            return false;
        if (*p == ',')
            p++;
    }
    return true;
}

static bool map_rings(int fd, int size)
{
    struct enc_shm_header h;
    struct stat st;
    void *p;

    if (pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) || fstat(fd, &st) != 0 ||
        h.magic != ENC_SHM_MAGIC || (int)h.nslots != size || h.p2p_ring == 0 ||
        (h.p2p_ring & (h.p2p_ring - 1)) != 0 || h.total != (uint64_t)st.st_size ||
        h.p2p_off % 4096 != 0 ||
        h.total - h.p2p_off < enc_shm_p2p_bytes(size, (size_t)h.p2p_ring))
        return false;
    p = mmap(NULL, (size_t)(h.total - h.p2p_off), PROT_READ | PROT_WRITE, MAP_SHARED, fd,
             (off_t)h.p2p_off);
    if (p == MAP_FAILED)
        return false;
    ps.map = p;
    ps.map_len = (size_t)(h.total - h.p2p_off);
    ps.cap = (size_t)h.p2p_ring;
    ps.lines = p;
    ps.rings = (uint8_t *)p + ((size_t)size * 64 + 4095) / 4096 * 4096;
    return true;
}

void enc_p2p_shm_open(int me, int size)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int nlocal = 0;

    if (ps.local != NULL || !enc_tunable_bool(ENC_TUNE_SHM) ||
        !enc_tunable_bool(ENC_TUNE_P2P_SHM) || !enc_tunable_isset(ENC_TUNE_SHM_FD) ||
        !enc_tunable_isset(ENC_TUNE_SHM_EVENTFDS))
        return;
    if ((ps.local = calloc((size_t)size, sizeof(bool))) == NULL)
        return;
    if (!local_ranks(enc_tunable_str(ENC_TUNE_SHM_EVENTFDS), size, ps.local) ||
        !ps.local[me] || !map_rings((int)enc_tunable_uint(ENC_TUNE_SHM_FD), size)) {
        ENC_DEBUG("p2p", "no point-to-point rings in the segment: messages go over TCP");
        memset(ps.local, 0, (size_t)size * sizeof(bool));
        return;
    }
    ps.me = me;
    ps.size = size;
    for (int i = 0; i < size; i++)
        nlocal += ps.local[i];
    ps.local[me] = false; /* a message to oneself never leaves the layer */
    if ((ps.in = calloc((size_t)size, sizeof(*ps.in))) == NULL) {
        memset(ps.local, 0, (size_t)size * sizeof(bool));
        return;
    }
    for (int i = 0; i < size; i++)
        if (ps.local[i])
            ps.in[ps.npeers++] = enc_p2p_shm_ring(i, me);
    ps.any = nlocal > 1;
    ps.spin_ns = auto_ns(ENC_TUNE_SPIN_US, cores <= 0 || nlocal > cores ? 0 : 50);
    ps.yield_ns = auto_ns(ENC_TUNE_SHM_YIELD_US, cores <= 0 || nlocal > cores ? 1000 : 0);
    enc_p2p_shm_reset_line();
    ENC_DEBUG("p2p", "point-to-point rings of %zu bytes with %d ranks of this host", ps.cap,
              nlocal - 1);
}

/*
 * The held count.  A thread that ends an attentive call leaves its count
 * in the line, held, and the next attentive call of any thread takes it
 * over: a program that calls again soon (a ping-pong, a halo exchange)
 * never writes its line's attentive count, which every writer reads after
 * each message (a line written by one core after the other read it is a
 * transfer between the cores, as long as a whole small message of native
 * Open MPI's, and the locked add waits for it on the receiver's way to its
 * reply).  The line says the count is held, so a writer that needs the
 * reader to act (enc_p2p_shm_bell_needed) does not take a held count for
 * a poll; an eager writer needs nothing from it.  (The progress thread
 * used to let an idle held count go after HOLD_MS, on a timer set at
 * every call that left it: two wake-ups per burst of calls, each
 * preempting the program's computation.)
 */
bool enc_p2p_shm_take_held(void)
{
    return ps.any && atomic_load_explicit(&ps.lines[ps.me].held, memory_order_relaxed) != 0 &&
           atomic_exchange(&ps.lines[ps.me].held, 0) != 0;
}

bool enc_p2p_shm_leave_held(void)
{
    /* a full barrier: held, then the caller's last look */
    return atomic_exchange(&ps.lines[ps.me].held, 1) == 0;
}

void enc_p2p_shm_reset_line(void)
{
    if (!ps.any)
        return;
    atomic_store(&ps.lines[ps.me].held, 0);
    atomic_store(&ps.lines[ps.me].attentive, 0);
    atomic_store(&ps.lines[ps.me].bell, 0);
    atomic_store(&ps.lines[ps.me].sleepers, 0);
}

bool enc_p2p_shm_peer(int peer)
{
    return ps.local != NULL && peer >= 0 && peer < ps.size && ps.local[peer];
}

bool enc_p2p_shm_any(void) { return ps.any; }

struct enc_p2p_ring *enc_p2p_shm_ring(int from, int to)
{
    size_t i = (size_t)from * (size_t)ps.size + (size_t)to;

    return (struct enc_p2p_ring *)(ps.rings + i * (ENC_P2P_RING_HDR + ps.cap));
}

size_t enc_p2p_shm_cap(void) { return ps.cap; }

bool enc_p2p_shm_unread(void)
{
    for (int i = 0; i < ps.npeers; i++) {
        struct enc_p2p_ring *r = ps.in[i];
        uint64_t rd = atomic_load_explicit(&r->rpos, memory_order_relaxed);

        /* the line the next frame lands in, loaded with the write
         * position: once published, both come over together instead of
         * the frame's line after the position's (the writer stores a
         * small frame's line at once, enc_p2p_ring_put_all2) */
        (void)*(volatile uint8_t *)&r->data[rd & (ps.cap - 1)];
        if (atomic_load_explicit(&r->wpos, memory_order_relaxed) != rd)
            return true;
    }
    return false;
}

bool enc_p2p_shm_look_needed(void)
{
    return ps.any && (atomic_load_explicit(&ps.lines[ps.me].bell, memory_order_relaxed) != 0 ||
                      enc_p2p_shm_unread());
}

void enc_p2p_shm_attend(int delta)
{
    atomic_fetch_add(&ps.lines[ps.me].attentive, (uint32_t)delta);
    atomic_thread_fence(memory_order_seq_cst); /* before the waiter's last look */
}

/* Wakes the threads of rank that sleep in enc_p2p_shm_sleep (the futex
 * is in the shared mapping: not a private one).  The first writer after a
 * sleeper set the word takes it back to 0 and makes the system call; the
 * writers after it, until the sleeper has run again (a stream of small
 * messages to a rank woken but not yet scheduled), find 0 and make none:
 * a sleeper not yet in FUTEX_WAIT finds 0 there and returns, and one that
 * sleeps again sets the word first and looks at the rings after. */
static void wake(int rank)
{
    struct p2p_shm_line *l = &ps.lines[rank];

    if (atomic_exchange(&l->wake, 0) != 0)
        (void)syscall(SYS_futex, &l->wake, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/* How long a writer watches a peer that neither polls nor sleeps before
 * it rings on TCP: a peer between two calls (a ping-pong's reply sent, its
 * receive not yet waiting) polls or sleeps within a few microseconds, and
 * the TCP bell costs its progress thread a wake-up and the lock. */
#define BELL_GRACE_NS 10000u

static uint64_t mono_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A thread of the line's rank polls its rings now: the line counts more
 * attentive threads than one that left its count held.  (A count taken
 * over between the two loads reads as no poll: one bell too many.) */
static bool polling(struct p2p_shm_line *l)
{
    uint32_t held = atomic_load(&l->held);

    return atomic_load(&l->attentive) > held;
}

/* The bytes published, then the look: wakes peer's sleeping threads (an
 * attending wait sleeps too); true when it did. */
static bool woke_sleepers(int peer)
{
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load(&ps.lines[peer].sleepers) == 0)
        return false;
    wake(peer);
    return true;
}

void enc_p2p_shm_wake_sleepers(int peer) { (void)woke_sleepers(peer); }

bool enc_p2p_shm_bell_needed(int peer, bool grace)
{
    struct p2p_shm_line *l = &ps.lines[peer];
    uint64_t t0 = 0;

    /* one ring (futex or TCP) until the peer looks again */
    if (woke_sleepers(peer))
        return false;
    if (polling(l) || atomic_load(&l->bell) != 0 || atomic_exchange(&l->bell, 1) != 0)
        return false;
    for (unsigned i = 0;; i++) {
        if (atomic_load(&l->sleepers) != 0) {
            wake(peer);
            return false;
        }
        /* polling now, or it cleared the bell: it reads the rings after that */
        if (polling(l) || atomic_load(&l->bell) == 0)
            return false;
        if (!grace ||
            (i % 64 == 0 && (t0 == 0 ? (t0 = mono_ns(), false) : mono_ns() - t0 > BELL_GRACE_NS)))
            return true;
        __builtin_ia32_pause();
    }
}

void enc_p2p_shm_wake_self(void)
{
    if (ps.any && atomic_load(&ps.lines[ps.me].sleepers) != 0)
        wake(ps.me);
}

uint32_t enc_p2p_shm_sleep_begin(void)
{
    uint32_t seen = 1;

    atomic_store(&ps.lines[ps.me].wake, seen); /* a writer from now on wakes */
    atomic_store(&ps.lines[ps.me].bell, 0); /* rung from now on */
    atomic_fetch_add(&ps.lines[ps.me].sleepers, 1);
    atomic_thread_fence(memory_order_seq_cst); /* announced, then the last look */
    return seen;
}

void enc_p2p_shm_sleep(uint32_t seen, uint64_t deadline_ns)
{
    struct timespec ts = {.tv_sec = (time_t)(deadline_ns / 1000000000u),
                          .tv_nsec = (long)(deadline_ns % 1000000000u)};

    /* FUTEX_WAIT_BITSET: an absolute CLOCK_MONOTONIC deadline */
    (void)syscall(SYS_futex, &ps.lines[ps.me].wake, FUTEX_WAIT_BITSET, seen,
                  deadline_ns == UINT64_MAX ? NULL : &ts, NULL, FUTEX_BITSET_MATCH_ANY);
}

void enc_p2p_shm_sleep_end(void)
{
    atomic_fetch_sub(&ps.lines[ps.me].sleepers, 1);
    /* a writer that saw this thread asleep set the bell and woke it: clear
     * it, or no later write would ring; then the caller looks once more */
    atomic_store(&ps.lines[ps.me].bell, 0);
    atomic_thread_fence(memory_order_seq_cst);
}

void enc_p2p_shm_bell_heard(void)
{
    if (!ps.any) /* a BELL from a peer that sees rings this rank has not mapped */
        return;
    if (atomic_load_explicit(&ps.lines[ps.me].bell, memory_order_relaxed) == 0)
        return; /* nobody rang since the last look: leave the line alone */
    atomic_store(&ps.lines[ps.me].bell, 0);
    atomic_thread_fence(memory_order_seq_cst); /* cleared, then the rings are read */
}

bool enc_p2p_shm_want_room(int peer)
{
    struct enc_p2p_ring *r = enc_p2p_shm_ring(ps.me, peer);

    atomic_store(&r->room_wanted, 1);
    atomic_thread_fence(memory_order_seq_cst);
    return enc_p2p_ring_used(r) < ps.cap;
}

bool enc_p2p_shm_room_asked(int peer)
{
    struct enc_p2p_ring *r = enc_p2p_shm_ring(peer, ps.me);

    atomic_thread_fence(memory_order_seq_cst); /* rpos advanced, then the look */
    return atomic_load(&r->room_wanted) != 0 && atomic_exchange(&r->room_wanted, 0) != 0;
}

uint64_t enc_p2p_shm_spin_ns(void) { return ps.spin_ns; }
uint64_t enc_p2p_shm_yield_ns(void) { return ps.yield_ns; }
