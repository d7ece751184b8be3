/*
 * snapshot.c - when to snapshot, and the fork itself (see snapshot.h).
 *
 * ENCORE_SNAPSHOT_S=auto (the default) keeps the fault-free cost at or
 * below 3 %: each snapshot costs the rank its stall (vfork + fork) plus one copy-on-write fault for every page it
 * writes afterwards.  Both are measured: the stall directly, the faults
 * with getrusage (minor faults since the last snapshot) times the time
 * of one copy-on-write fault, timed on a few pages right after each fork.
 * The next interval is that cost / 0.03, times the host's ranks per core
 * (ranks that snapshot together share the cores for their faults),
 * between SNAP_MIN_S and SNAP_MAX_S.
 *
 * The ranks of a job snapshot together.  A program whose ranks wait for
 * each other (a halo exchange, any collective) pays for every rank's
 * stall: taken at different moments, four ranks' snapshots stop the job
 * four times (LAMMPS at 4 ranks: 15 % instead of 3 %).  So a snapshot is
 * due when the wall clock, which every host shares through NTP, crosses
 * a multiple of the interval, rounded up to a power of two seconds for
 * auto: ranks with the same interval cross the same line, and ranks whose
 * intervals differ still meet on every line of the longer one.  Each then
 * snapshots at its next collective or point-to-point call, all within the
 * same step of the program, and their stalls overlap.
 *
 * The log is trimmed only by snapshots, so auto also takes one as soon as
 * the log has copied ENCORE_LOG_MEM_MAX / SNAP_LOG_SHARE bytes into the
 * rank's memory since the last (peak log memory stays near that, whatever
 * the cost estimate says: the fault count includes the log's own growth
 * and can only overstate), or has kept as many bytes of the host's result
 * buffer by reference (or half the buffer, if that is less: trimmed before
 * the buffer comes round, its entries are never copied out).  Results kept
 * in the buffer are log too: counting them against the same share keeps
 * the peak log of a job whose results all stay on the host near one
 * interval's results, not half the buffer (1 GiB by default).
 *
 * The share follows the same 3 %: a stream of messages fills a share in
 * milliseconds, and a receiver that rewrites its buffers between two
 * snapshots pays a copy-on-write fault per page each time (a 2 MiB
 * bandwidth window of 128 MiB: every page of it at every share, so the
 * receiver ran at a fifth of its speed).  When a snapshot made due by the
 * log came sooner after the previous one than that one's cost / 0.03, the
 * share grows in proportion, up to SNAP_LOG_SHARE_MAX of the budget (the
 * log then still stays well within one interval's traffic); when it came
 * four times later than needed, it halves, down to its start.
 */
#include "enc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "engine/engine.h"
#include "engine/layer.h"
#include "recovery/log/log.h"
#include "recovery/snapshot/image.h"
#include "recovery/snapshot/precopy.h"
#include "recovery/snapshot/snapshot.h"
#include "recovery/snapshot/threads.h"

#define SNAP_BUDGET 0.03
#define SNAP_MIN_S 1.0
#define SNAP_MAX_S 600.0
#define SNAP_FIRST_S 1.0
#define CALIB_PAGES 16
#define SNAP_LOG_SHARE 8     /* the share at start: ENCORE_LOG_MEM_MAX / 8 */
#define SNAP_LOG_SHARE_MAX 2 /* at most ENCORE_LOG_MEM_MAX / 2 */
#define SNAP_CLOCK_STEP_S 2048.0 /* beyond auto's longest period (600 s rounded up) */

static struct {
    bool on, adaptive, force;
    double interval;
    double next_at;           /* wall clock (enc_coarse_wall_s) */
    uint64_t log_share;       /* ENCORE_LOG_MEM_MAX / SNAP_LOG_SHARE, grown by cost */
    uint64_t log_share_min, log_share_max;
    double taken_at;          /* wall clock (enc_coarse_wall_s) of the last snapshot */
    double fault_s;           /* one copy-on-write fault, measured */
    long flt_after;           /* minor faults right after the last snapshot */
    double stall_s;           /* the last snapshot's stall */
    int pidfd;                /* the newest snapshot, -1 none */
    uint64_t taken, forks;
    uint64_t log_at;          /* enc_log_recorded() at the last snapshot */
    uint64_t resbuf_at;         /* enc_log_resbuf_recorded() then */
    char skipped[512];        /* the reason last reported, to report once */
} sn = {.pidfd = -1};

static uint8_t calib[CALIB_PAGES * 4096] __attribute__((aligned(4096)));

/* The line of the shared schedule after wall time now: the next multiple
 * of the interval (auto: of the interval rounded up to a power of two
 * seconds, so that every rank's lines are lines of the longer intervals). */
static double next_line(double now)
{
    double period = sn.interval;

    if (sn.adaptive)
        for (period = SNAP_MIN_S; period < sn.interval; period *= 2)
            ;
    return ((double)(int64_t)(now / period) + 1.0) * period;
}

enc_status_t enc_snapshot_init(void)
{
    double s = enc_tunable_seconds(ENC_TUNE_SNAPSHOT_S); /* -1: auto */

    sn.adaptive = s < 0;
    sn.on = s != 0 && enc_tunable_isset(ENC_TUNE_SNAPSHOT_SOCK);
    /* Images park with their host's owner (encore-run or the host's agent,
     * on an abstract socket of that host's network namespace): a rank that
     * cannot reach it (it entered another namespace, say) would fork images
     * nothing keeps, so it says so once and takes none. */
    if (sn.on && !enc_snap_parking_reachable()) {
        ENC_WARN("snapshot", "snapshots off on this rank: its images cannot be parked "
                 "(nothing answers on ENCORE_SNAPSHOT_SOCK=%s, the socket of encore-run "
                 "or of this host's agent, in this network namespace); a restart of this "
                 "rank re-executes from the start or its last checkpoint",
                 enc_tunable_str(ENC_TUNE_SNAPSHOT_SOCK));
        sn.on = false;
    }
    sn.interval = sn.adaptive ? SNAP_FIRST_S : s;
    if (sn.on)
        sn.next_at = next_line(enc_coarse_wall_s() + sn.interval);
    sn.log_share_min = enc_tunable_uint(ENC_TUNE_LOG_MEM_MAX) / SNAP_LOG_SHARE;
    sn.log_share_max = enc_tunable_uint(ENC_TUNE_LOG_MEM_MAX) / SNAP_LOG_SHARE_MAX;
    sn.log_share = sn.log_share_min;
    return ENC_OK;
}

uint64_t enc_snapshot_count(void) { return sn.taken; }

static long minor_faults(void)
{
    struct rusage ru;

    return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_minflt : 0;
}

static void kill_parked(void)
{
    if (sn.pidfd < 0)
        return;
    if (syscall(SYS_pidfd_send_signal, sn.pidfd, SIGKILL, NULL, 0) != 0 && errno != ESRCH)
        ENC_WARN("snapshot", "cannot end the parked snapshot: %m");
    close(sn.pidfd);
    sn.pidfd = -1;
}

/* The cost of the last snapshot so far, and the interval that keeps it
 * at SNAP_BUDGET of the run. */
/* A snapshot due by the log's growth, dt seconds after the previous one
 * whose cost spread over `need` seconds keeps to the budget: the share
 * grows so that the next such one comes no sooner, or halves when it came
 * four times later (between the start share and SNAP_LOG_SHARE_MAX). */
static void adapt_share(double dt, double need)
{
    double grown = (double)sn.log_share * need / ENC_MAX(dt, 1e-3);

    if (dt < need)
        sn.log_share = (uint64_t)ENC_MIN(grown, (double)sn.log_share_max);
    else if (dt > 4.0 * need)
        sn.log_share = ENC_MAX(sn.log_share / 2, sn.log_share_min);
}

static void adapt(double now, bool by_log)
{
    long faults = minor_faults() - sn.flt_after;
    double cost = sn.stall_s + (double)ENC_MAX(faults, 0) * sn.fault_s;
    double sharing = enc_engine_ranks_per_core();

    if (sn.adaptive)
        sn.interval = ENC_MIN(ENC_MAX(cost * sharing / SNAP_BUDGET, SNAP_MIN_S), SNAP_MAX_S);
    if (sn.adaptive && by_log)
        adapt_share(now - sn.taken_at, cost * sharing / SNAP_BUDGET);
    ENC_DEBUG("snapshot", "last snapshot cost %.6f s (stall %.6f s, %ld faults of %.2f us, "
              "%.2f ranks per core): interval %.2f s, log share %llu bytes", cost, sn.stall_s,
              faults, sn.fault_s * 1e6, sharing, sn.interval, (unsigned long long)sn.log_share);
}

/* Says once why snapshots are skipped (until they work again). */
static bool feasible(void)
{
    char why[512] = "";

    if (enc_snap_threads_check(why, sizeof(why)) == ENC_OK &&
        enc_snap_memory_check(why, sizeof(why)) == ENC_OK) {
        sn.skipped[0] = '\0';
        return true;
    }
    if (strcmp(why, sn.skipped) != 0)
        ENC_INFO("snapshot", "snapshot skipped: %s", why);
    snprintf(sn.skipped, sizeof(sn.skipped), "%s", why);
    return false;
}

static void calibrate_cow(void)
{
    double t0 = enc_now_s();

    for (size_t i = 0; i < sizeof(calib); i += 4096)
        calib[i]++;
    sn.fault_s = (enc_now_s() - t0) / CALIB_PAGES;
}

static void parked(pid_t pid, double t0, uint64_t seq)
{
    int fd = (int)syscall(SYS_pidfd_open, pid, 0);

    sn.stall_s = enc_now_s() - t0;
    calibrate_cow();
    sn.flt_after = minor_faults();
    if (fd < 0)
        ENC_DEBUG("snapshot", "pidfd_open(%d): %m", (int)pid);
    /* The previous image stays: encore-run ends it when this one registers.
     * Ending it here left a window (this rank dying before encore-run read
     * the new image's registration) with no image at all, while the logs
     * were already trimmed past the previous one: the rank re-ran from the
     * start and found its results gone. */
    if (sn.pidfd >= 0)
        close(sn.pidfd);
    sn.pidfd = fd;
    sn.taken++;
    ENC_INFO("snapshot", "snapshot at seq %lld taken (pid %d) in %.3f ms, %.1f MiB of buffers "
             "copied; next in %.2f s (interval %.2f s)", (long long)seq, (int)pid,
             sn.stall_s * 1e3, (double)enc_precopy_last_bytes() / (1 << 20),
             sn.next_at - enc_coarse_wall_s(), sn.interval);
}

/* The image becomes what it was taken from: the rank, restored.  The spare
 * it left parked is this rank's parked image now: a checkpoint must end it
 * like any other (soak trial 796: a spare from before a checkpoint was
 * activated after it, and the replay found the truncated results lost). */
static void become_rank(uint64_t seq)
{
    pid_t spare = enc_snap_child(seq);

    if (sn.pidfd >= 0)
        close(sn.pidfd);
    sn = (typeof(sn)){.on = sn.on, .adaptive = sn.adaptive, .log_share = sn.log_share,
                      .log_share_min = sn.log_share_min, .log_share_max = sn.log_share_max,
                      .interval = sn.interval, .pidfd = -1, .log_at = sn.log_at, .resbuf_at = sn.resbuf_at,
                      .next_at = 0};
    sn.next_at = next_line(enc_coarse_wall_s());
    if (spare > 0)
        sn.pidfd = (int)syscall(SYS_pidfd_open, spare, 0);
}

static void take(uint64_t seq)
{
    double t0 = enc_now_s();
    pid_t img;

    for (size_t i = 0; i < sizeof(calib); i += 4096)
        calib[i]++;
    enc_snap_note_offsets();
    enc_log_fork_prepare();
    enc_precopy_prepare();
    if ((img = enc_snap_fork_orphan()) == 0) {
        if (!enc_precopy_child()) {
            ENC_WARN("snapshot", "snapshot at seq %llu discarded: its copied buffers could not "
                     "be mapped back in the image: %m", (unsigned long long)seq);
            _exit(0);
        }
        enc_snap_guard_forked(true);
        become_rank(seq);
        enc_snap_guard_restored();
        return;
    }
    enc_precopy_parent(img);
    enc_log_fork_parent();
    enc_snap_guard_forked(false);
    enc_snap_forget_offsets();
    if (img < 0) {
        ENC_WARN("snapshot", "snapshot at seq %llu failed: fork: %m", (unsigned long long)seq);
        return;
    }
    if (enc_inject_snapshot(++sn.forks))
        raise(SIGKILL); /* a test: the rank dies while its image is parking */
    parked(img, t0, seq);
}

void enc_snapshot_begin(const struct enc_coll *co)
{
    if (sn.on && co->sig->kind == ENC_COLL_CHECKPOINT) {
        kill_parked();
        sn.force = true;
    }
}

static bool log_grown(void)
{
    uint64_t resbuf = enc_engine_resbuf_bytes();

    return sn.adaptive && (enc_log_recorded() - sn.log_at >= sn.log_share ||
                           (resbuf > 0 && enc_log_resbuf_recorded() - sn.resbuf_at >=
                                              ENC_MIN(resbuf / 2, sn.log_share)));
}

/* A snapshot is due: the interval passed, a checkpoint asked for one, or
 * the log grew by its share. */
static bool due(double now)
{
    return now >= sn.next_at || sn.force || log_grown();
}

/* Takes one when due, after world collective seq (UINT64_MAX: none yet). */
static void maybe_take(uint64_t seq)
{
    double now = enc_coarse_wall_s(); /* every call: seconds-scale interval */

    /* The wall clock stepped back (an operator, NTP): its lines start again
     * from now rather than waiting for the old one to come round. */
    if (sn.next_at - now > ENC_MAX(SNAP_CLOCK_STEP_S, 3.0 * sn.interval))
        sn.next_at = next_line(now);
    bool by_log;

    if (!due(now) || !enc_snap_guard_prepare())
        return;
    by_log = !sn.force && now < sn.next_at;
    sn.log_at = enc_log_recorded();
    sn.resbuf_at = enc_log_resbuf_recorded();
    if (sn.taken > 0)
        adapt(now, by_log);
    sn.taken_at = now;
    sn.next_at = next_line(now);
    sn.force = false;
    if (feasible())
        take(seq); /* releases the guard */
    else
        enc_snap_guard_forked(false);
}

/* The buffers of a collective, which the program is likely to write
 * again before the next (precopy.h). */
static void note_buffers(const struct enc_coll *co)
{
    size_t end = 0;

    if (co->column != NULL) { /* an alltoall: rows of n blocks */
        enc_precopy_note(co->column, (size_t)co->n * co->block);
        enc_precopy_note(co->sendbuf, (size_t)co->n * co->block);
        return;
    }
    if (co->displs != NULL && co->recvbytes != NULL) {
        for (int i = 0; i < co->n; i++)
            end = ENC_MAX(end, co->displs[i] + co->recvbytes[i]);
        enc_precopy_note(co->recvbuf, end);
        return;
    }
    enc_precopy_note(co->recvbuf, co->bytes);
    enc_precopy_note(co->sendbuf, co->bytes);
}

void enc_snapshot_note_buffer(const void *p, size_t len)
{
    if (sn.on)
        enc_precopy_note(p, len);
}

void enc_snapshot_after(const struct enc_coll *co)
{
    if (sn.on)
        note_buffers(co);
    if (sn.on && enc_engine_seq() > 0)
        maybe_take(enc_engine_seq() - 1);
}

bool enc_snapshot_due(void)
{
    return sn.on && due(enc_coarse_wall_s());
}

/* Between two MPI calls of the program's thread (a point-to-point call's
 * entry): as after a collective, at the world collective it completed
 * last; before the first, at none (UINT64_MAX, printed as seq -1: its
 * image trims nothing of the world's log, and replays it from seq 0). */
void enc_snapshot_point(void)
{
    if (sn.on)
        maybe_take(enc_engine_seq() - 1);
}
