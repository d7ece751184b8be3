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

bool enc_turn_hand_on(uint32_t epoch, enc_status_t *rv)
{
    uint64_t now = __atomic_load_n(&sleeps, __ATOMIC_ACQUIRE);

    if (seen == now || !enc_turn_wanted())
        return false;
    seen = now;
    *rv = enc_turn_pass(epoch);
    return true;
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
