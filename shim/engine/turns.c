/*
 * turns.c - handing the engine to other collectives of this process from
 * inside a wait (see turns.h).
 */
#include "enc.h"

#include "engine/engine.h"
#include "engine/scratch.h"
#include "engine/state.h"
#include "engine/turns.h"

static const struct enc_turns *turns;

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

void enc_engine_thread_end(void)
{
    enc_scratch_release_all();
}
