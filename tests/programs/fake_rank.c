/*
 * fake_rank.c - a rank without MPI for launcher and tracker tests: joins
 * the tracker through the real client (shim/tracker_client), waits for WORLD, then
 * does what its arguments say.  Arguments (all optional):
 *   rank=R       the action below applies to rank R only (default: all)
 *   exit=N       exit with status N after WORLD, without finalizing
 *   abort=C      send ABORT (code C) and exit with C
 *   kill         SIGKILL itself after WORLD (every incarnation)
 *   kill-once    SIGKILL itself in incarnation 0 only; the others ride the
 *                recovery (EVENT DEAD -> STATUS -> WORLD + RESUME) and finalize
 *   stop         SIGSTOP itself after WORLD (detected by heartbeat timeout)
 *   sleep=MS     sleep before finalizing
 *   no-init      never contact the tracker; just exit 0
 *   hang         never contact the tracker; sleep until killed (a rank
 *                that never arrives)
 */
#include "enc.h"
#include "proto/auth.h"
#include "proto/frame.h"
#include "proto/msgs.h"
#include "topo/topo.h"
#include "tracker_client/tclient.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct args {
    int rank, exit_code, abort_code, kill, kill_once, stop, no_init, hang;
    long sleep_ms;
};

static void parse(int argc, char **argv, struct args *a)
{
    *a = (struct args){.rank = -1, .exit_code = -1, .abort_code = -1};
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];

        if (strncmp(s, "rank=", 5) == 0) a->rank = atoi(s + 5);
        else if (strncmp(s, "exit=", 5) == 0) a->exit_code = atoi(s + 5);
        else if (strncmp(s, "abort=", 6) == 0) a->abort_code = atoi(s + 6);
        else if (strncmp(s, "sleep=", 6) == 0) a->sleep_ms = atol(s + 6);
        else if (strcmp(s, "kill") == 0) a->kill = 1;
        else if (strcmp(s, "kill-once") == 0) a->kill_once = 1;
        else if (strcmp(s, "stop") == 0) a->stop = 1;
        else if (strcmp(s, "no-init") == 0) a->no_init = 1;
        else if (strcmp(s, "hang") == 0) a->hang = 1;
        else { fprintf(stderr, "fake_rank: unknown argument %s\n", s); exit(2); }
    }
}

static uint32_t env_u32(const char *name)
{
    const char *v = getenv(name);

    return v != NULL ? (uint32_t)strtoul(v, NULL, 10) : 0;
}

static struct enc_tclient *join(struct enc_msg_register *reg)
{
    struct enc_secret s;
    struct enc_tclient *c;
    const char *tracker = getenv("ENCORE_TRACKER");

    *reg = (struct enc_msg_register){.rank = env_u32("ENCORE_RANK"),
        .size = env_u32("ENCORE_SIZE"), .incarnation = env_u32("ENCORE_INCARNATION"),
        .pid = (uint32_t)getpid(), .data_port = 1, .addr = "127.0.0.1"};
    enc_locality_detect(&reg->loc);
    if (tracker == NULL || enc_secret_from_env(&s) != 0) {
        fprintf(stderr, "fake_rank: no ENCORE_TRACKER / ENCORE_SECRET\n");
        exit(2);
    }
    if (enc_tclient_open(&c, tracker, &s, reg, enc_deadline_ms(10000)) != 0)
        exit(3);
    return c;
}

/* Waits for an event of the given type, answering EVENT DEAD with STATUS. */
static void wait_for(struct enc_tclient *c, uint8_t type, uint64_t completed)
{
    struct enc_tclient_event ev;

    for (;;) {
        if (enc_tclient_wait_event(c, &ev, enc_deadline_ms(20000)) != ENC_OK) {
            fprintf(stderr, "fake_rank: no event %u from the tracker\n", type);
            exit(4);
        }
        if (ev.type == ENC_MSG_EVENT && ev.u.ev.kind == ENC_EV_ABORT)
            exit(5);
        if (ev.type == ENC_MSG_EVENT && ev.u.ev.kind == ENC_EV_DEAD) {
            struct enc_msg_status st = {.epoch = ev.u.ev.epoch, .completed = completed};
            enc_tclient_send_status(c, &st);
        }
        if (ev.type == ENC_MSG_WORLD)
            enc_msg_world_free(&ev.u.world);
        if (ev.type == ENC_MSG_RESUME)
            enc_msg_resume_free(&ev.u.resume);
        if (ev.type == type)
            return;
    }
}

static void act(struct enc_tclient *c, const struct args *a, const struct enc_msg_register *reg)
{
    if (a->rank >= 0 && (uint32_t)a->rank != reg->rank)
        return;
    if (a->exit_code >= 0)
        exit(a->exit_code);
    if (a->abort_code >= 0) {
        struct enc_msg_abort m = {.code = a->abort_code};
        snprintf(m.reason, sizeof(m.reason), "fake_rank abort");
        enc_tclient_send_abort(c, &m);
        sleep(5); /* the launcher ends the job */
        exit(a->abort_code);
    }
    if (a->kill || (a->kill_once && reg->incarnation == 0))
        raise(SIGKILL);
    if (a->stop)
        raise(SIGSTOP);
}

int main(int argc, char **argv)
{
    struct args a;
    struct enc_msg_register reg;
    struct enc_tclient *c;

    parse(argc, argv, &a);
    if (a.no_init)
        return 0;
    if (a.hang && (a.rank < 0 || a.rank == (int)env_u32("ENCORE_RANK")))
        for (;;)
            pause(); /* encore-run ends the job, and us, at the register timeout */
    /* before join() starts the tracker client's thread, which logs too
     * (ThreadSanitizer: a race on the tag) */
    enc_log_set_tag("fake_rank");
    c = join(&reg);
    wait_for(c, ENC_MSG_WORLD, 0);
    act(c, &a, &reg);
    if (a.kill_once) /* everyone meets again after the recovery */
        wait_for(c, ENC_MSG_RESUME, reg.incarnation == 0 ? 1 : 0);
    if (a.sleep_ms > 0)
        nanosleep(&(struct timespec){a.sleep_ms / 1000, (a.sleep_ms % 1000) * 1000000}, NULL);
    struct enc_msg_stats st = {.completed = 1, .replayed = reg.incarnation > 0};
    enc_tclient_send_finalize(c, &st);
    enc_tclient_close(c);
    return 0;
}
