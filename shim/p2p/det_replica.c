/* det_replica.c - determinants copied to encore-run before they matter off the host (det_replica.h). */
#include "enc.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "engine/engine.h"
#include "engine/layer.h"
#include "engine/state.h"
#include "p2p/det_replica.h"
#include "p2p/det_store.h"
#include "proto/detmsg.h"
#include "tracker_client/tclient.h"

_Static_assert(ENC_DETMSG_REC == ENC_DET_WIRE, "a determinant record's size on the wire");

enum { R_UNKNOWN = 0, R_OFF, R_ON };

static struct {
    pthread_mutex_t mu;      /* one shipment at a time, in version order */
    int state;
    uint64_t acked;          /* the store's version encore-run holds */
} rp = {.mu = PTHREAD_MUTEX_INITIALIZER};

static int64_t bound_ms(void) { return ENC_MAX(enc_tunable_ll(ENC_TUNE_HEARTBEAT_TIMEOUT_MS), 1000); }

/* Whether this rank copies: decided once the tracker connection exists. */
static bool copying(void)
{
    int s = __atomic_load_n(&rp.state, __ATOMIC_ACQUIRE);

    if (s == R_UNKNOWN && enc_eng.tc != NULL) {
        /* no copy without recovery (nothing restarts), nor on encore-run's
         * host (whose loss ends the job) */
        s = enc_tunable_bool(ENC_TUNE_P2P_DET_REPLICA) && enc_tunable_bool(ENC_TUNE_RECOVERY) &&
                    !enc_tclient_tracker_local(enc_eng.tc)
                ? R_ON : R_OFF;
        ENC_DEBUG("p2p", "determinants %s", s == R_ON ? "copied to encore-run before they "
                  "leave this host" : "kept on this host only");
        __atomic_store_n(&rp.state, s, __ATOMIC_RELEASE);
    }
    return s == R_ON;
}

/* The first record of an incarnation: one that is not copied tells
 * encore-run, whose host-loss rule then ends the job (docs/p2p.md 5.3). */
static void first_record(void)
{
    if (!copying())
        enc_engine_report_nondeterminism();
}

/* Ships what changed without waiting for the ack: a record of an outcome
 * (not a NONE run growing, one store per poll) leaves at once, so it is
 * normally at encore-run before the program's next output line, which
 * reaches encore-run one hop later (through the host's agent), and the
 * next send's flush finds the ack on its way. */
static void ship(void)
{
    uint64_t v, off;
    uint8_t *copy;
    size_t n;

    if (!copying())
        return;
    pthread_mutex_lock(&rp.mu); /* shipments leave in version order */
    if (enc_det_store_unshipped(&v, &off, &copy, &n)) {
        if (enc_tclient_det_put(enc_eng.tc, v, off, copy, n) != ENC_OK)
            ENC_DEBUG("p2p", "cannot ship determinants now; the next send waits for them");
        free(copy);
    }
    pthread_mutex_unlock(&rp.mu);
}

void enc_det_replica_init(void)
{
    enc_det_store_on_first_record(first_record);
    enc_det_store_on_record(ship);
}

enc_status_t enc_det_replica_open(int rank, uint32_t incarnation)
{
    uint8_t *copy = NULL;
    size_t n = 0;
    enc_status_t rv;
    char why[200];

    /* a restarted rank asks even when it now runs on encore-run's host: it
     * may have moved there from a lost one */
    if (incarnation == 0 || enc_eng.tc == NULL || !enc_tunable_bool(ENC_TUNE_P2P_DET_REPLICA) ||
        !enc_tunable_bool(ENC_TUNE_RECOVERY))
        return enc_det_store_open(rank, incarnation);
    rv = enc_tclient_det_fetch(enc_eng.tc, enc_deadline_ms(bound_ms()), &copy, &n);
    if (rv != ENC_OK) {
        snprintf(why, sizeof(why), "rank %d restarted but cannot read its determinants from "
                 "encore-run within %lld ms: %s", rank, (long long)bound_ms(),
                 encore_strerror(rv));
        enc_engine_abort(1, why);
    }
    rv = enc_det_store_open_from(rank, incarnation, copy, n);
    free(copy);
    return rv;
}

void enc_det_replica_flush(const char *fn)
{
    uint64_t v, off;
    uint8_t *copy;
    size_t n;
    enc_status_t rv = ENC_OK;
    char why[200];

    if (__atomic_load_n(&rp.acked, __ATOMIC_ACQUIRE) == enc_det_store_version() || !copying())
        return;
    pthread_mutex_lock(&rp.mu); /* shipments leave in version order */
    if (enc_det_store_unshipped(&v, &off, &copy, &n)) {
        rv = enc_tclient_det_put(enc_eng.tc, v, off, copy, n);
        free(copy);
    }
    pthread_mutex_unlock(&rp.mu);
    if (rv == ENC_OK)
        rv = enc_tclient_det_wait_ack(enc_eng.tc, v, enc_deadline_ms(bound_ms()));
    if (rv != ENC_OK) {
        snprintf(why, sizeof(why), "%s: the determinants this rank recorded were not copied to "
                 "encore-run within %lld ms (%s); nothing that depends on them may leave its "
                 "host", fn, (long long)bound_ms(), encore_strerror(rv));
        enc_engine_abort(1, why);
    }
    /* acked only grows: a slower thread's older version must not lower it */
    for (uint64_t a = __atomic_load_n(&rp.acked, __ATOMIC_ACQUIRE);
         a < v && !__atomic_compare_exchange_n(&rp.acked, &a, v, false, __ATOMIC_RELEASE,
                                               __ATOMIC_ACQUIRE);)
        ;
}
