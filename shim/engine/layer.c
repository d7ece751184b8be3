/*
 * layer.c - the engine's side of the layer above it (engine/layer.h): the
 * state the layer may see (read-only accessors, plus the one jump a
 * checkpoint load makes), and the poll loops' calls of its ops.
 */
#include "enc.h"

#include <errno.h>
#include <poll.h>

#include "core/limits.h"
#include "engine/layer.h"
#include "engine/state.h"
#include "topo/topo.h"

uint64_t enc_engine_seq(void) { return enc_eng.seq; }
uint32_t enc_engine_epoch(void) { return enc_eng.epoch; }
uint64_t enc_engine_log_floor(void) { return enc_eng.log_floor; }
uint32_t enc_engine_incarnation(void) { return enc_eng.incarnation; }
int enc_engine_coll_timeout_ms(void) { return enc_eng.coll_timeout_ms; }
double enc_engine_ranks_per_core(void) { return ENC_MAX(enc_eng.ranks_per_core, 1.0); }
int enc_engine_tracker_fd(void) { return enc_tclient_event_fd(enc_eng.tc); }

void enc_engine_skip_to(uint64_t seq) { enc_eng.seq = seq; }

void enc_engine_report_dropped(uint64_t first, uint64_t last)
{
    struct enc_msg_dropped m = {.first = first, .last = last};

    if (enc_eng.tc != NULL && enc_tclient_send_dropped(enc_eng.tc, &m) != ENC_OK)
        ENC_DEBUG("engine", "cannot report dropped results to the tracker");
}

void enc_engine_report_nondeterminism(void)
{
    if (enc_eng.tc != NULL && enc_tclient_send_nondet(enc_eng.tc) != ENC_OK)
        ENC_DEBUG("engine", "cannot report determinants to the tracker");
}

void enc_engine_locality_neighbours(int *next, int *prev)
{
    enc_engine_locality_neighbours_of(enc_eng.rank, next, prev);
}

void enc_engine_locality_neighbours_of(int rank, int *next, int *prev)
{
    int n = enc_eng.size, pos = enc_topo_pos(enc_eng.locality, n, rank);

    *next = enc_eng.locality[(pos + 1) % n];
    *prev = enc_eng.locality[(pos + n - 1) % n];
}

bool enc_coll_behind(uint64_t seq)
{
    const struct enc_engine_ops *ops = enc_eng.ops;

    return ops && ops->behind && ops->replay && ops->behind(enc_eng.ops_arg, seq);
}

int enc_layer_pollfds(struct pollfd *p, int cap)
{
    const struct enc_engine_ops *ops = enc_eng.ops;

    return ops && ops->pollfds ? ops->pollfds(enc_eng.ops_arg, p, cap) : 0;
}

enc_status_t enc_layer_serve(const struct pollfd *p, int n)
{
    const struct enc_engine_ops *ops = enc_eng.ops;

    return n > 0 && ops->serve ? ops->serve(enc_eng.ops_arg, p, n) : ENC_OK;
}

enc_status_t enc_engine_wait_readable(int fd, uint64_t deadline)
{
    struct pollfd p[3 + ENC_MAX_RANKS];

    for (;;) {
        int np, left = enc_ms_left(deadline);
        enc_status_t rv;

        if (left == 0)
            return ENC_ERR_TIMEOUT;
        enc_links_poll_accepted();
        p[0] = (struct pollfd){.fd = fd, .events = POLLIN};
        p[1] = (struct pollfd){.fd = enc_tclient_event_fd(enc_eng.tc), .events = POLLIN};
        p[2] = (struct pollfd){.fd = enc_eng.lst.wake_fd, .events = POLLIN};
        np = 3 + enc_layer_pollfds(p + 3, ENC_MAX_RANKS);
        if (poll(p, (nfds_t)np, left) < 0 && errno != EINTR)
            return ENC_ERR_SYS;
        if (p[1].revents && (rv = enc_engine_poll_tracker()) != ENC_OK)
            return rv;
        if (p[0].revents)
            return ENC_OK;
        if ((rv = enc_layer_serve(p + 3, np - 3)) != ENC_OK)
            return rv;
    }
}

enc_status_t enc_engine_follow_epoch(void)
{
    const struct enc_engine_ops *ops = enc_eng.ops;
    struct pollfd p[ENC_MAX_RANKS];
    enc_status_t rv;
    int np;

    enc_links_poll_accepted();
    np = enc_layer_pollfds(p, ENC_MAX_RANKS);
    if (np > 0 && poll(p, (nfds_t)np, 0) > 0 && (rv = enc_layer_serve(p, np)) != ENC_OK)
        return rv;
    if ((rv = enc_engine_poll_tracker()) != ENC_ERR_EPOCH)
        return rv;
    if (ops == NULL || ops->recover == NULL)
        return ENC_ERR_EPOCH;
    enc_eng.regrouping = true;
    rv = ops->recover(enc_eng.ops_arg);
    enc_eng.regrouping = false;
    return rv;
}
