/*
 * peer_host.c - which host a peer is on, for layers above the engine: the
 * data address it published in the current WORLD (the address from which
 * it reaches the tracker, one per host).
 */
#include "enc.h"

#include "engine/layer.h"
#include "engine/state.h"

const char *enc_engine_peer_host(int rank)
{
    if (enc_eng.peers == NULL || rank < 0 || rank >= enc_eng.size)
        return "";
    return enc_eng.peers[rank].addr;
}
