/*
 * turns.c - handing the engine to other collectives of this process from
 * inside a wait (see turns.h).
 */
#include "enc.h"

#include <unistd.h>

#include "engine/engine.h"
#include "engine/scratch.h"
#include "engine/state.h"
#include "engine/turns.h"

static const struct enc_turns *turns;
static uint64_t sleeps;                    /* atomic: waits' sleeps ended */
static __thread uint64_t seen = UINT64_MAX; /* sleeps when this thread last handed on */

void enc_engine_set_turns(const struct enc_turns *t)
{
    turns = t;
}

bool enc_turn_wanted(void)
{
    return turns && !enc_eng.regrouping && turns->wanted();
}

bool enc_turn_shared(void)
{
    return turns && !enc_eng.regrouping && turns->shared();
}

enc_status_t enc_turn_pass(uint32_t epoch)
{
    if (enc_turn_wanted())
        turns->pass();
    return enc_eng.epoch == epoch ? ENC_OK : ENC_ERR_EPOCH;
}

/* The probes of the threads that wait for their turn in a wait.  Only
 * the engine's holder reads or changes them (a waiter adds its own before
 * it hands the engine on and takes it out once it has it back), so no
 * lock. */
#define MAX_PROBES 256
static struct enc_turn_probe *probes[MAX_PROBES];
static int nprobes;

bool enc_turn_probe_due(const struct enc_turn_probe *p)
{
    return enc_eng.epoch != p->epoch ||
           enc_now_ns() - p->looked_ns > ENC_TURN_STALE_MS * 1000000ull;
}

static bool any_ready(void)
{
    for (int i = 0; i < nprobes; i++)
        if (probes[i]->ready(probes[i]))
            return true;
    return false;
}

/* A probed waiter gets the engine as soon as it is ready, and only then;
 * one without a probe once per sleep of the engine. */
bool enc_turn_hand_on_probe(uint32_t epoch, enc_status_t *rv, struct enc_turn_probe *probe)
{
    uint64_t now = __atomic_load_n(&sleeps, __ATOMIC_ACQUIRE);
    bool listed = false, unprobed;

    if (!enc_turn_wanted())
        return false;
    unprobed = turns->waiting == NULL || turns->waiting() > nprobes;
    if ((!unprobed || seen == now) && !any_ready())
        return false;
    seen = now;
    if (probe != NULL && nprobes < MAX_PROBES) {
        probe->looked_ns = enc_now_ns();
        probe->epoch = epoch;
        probes[nprobes++] = probe;
        listed = true;
    }
    *rv = enc_turn_pass(epoch);
    for (int i = 0; listed && i < nprobes; i++)
        if (probes[i] == probe) {
            probes[i] = probes[--nprobes];
            break;
        }
    return true;
}

bool enc_turn_hand_on(uint32_t epoch, enc_status_t *rv)
{
    return enc_turn_hand_on_probe(epoch, rv, NULL);
}

void enc_turn_slept(void)
{
    if (turns)
        __atomic_add_fetch(&sleeps, 1, __ATOMIC_ACQ_REL);
}

/* A TCP wait polls the listener's eventfd, a shared-memory wait this
 * rank's own eventfd: both wake up, find nothing, and sleep again for at
 * most ENC_TURN_POLL_MS. */
void enc_engine_turn_wake(void)
{
    uint64_t one = 1;
    int fds[2] = {enc_eng.lst.wake_fd,
                  enc_eng.shm.base != NULL ? enc_eng.shm.evfd[enc_eng.shm.me] : -1};

    for (int i = 0; i < 2; i++)
        if (fds[i] >= 0 && write(fds[i], &one, sizeof(one)) < 0)
            ENC_DEBUG("turns", "eventfd write: %m");
}

void enc_engine_thread_end(void)
{
    enc_scratch_release_all();
}
