/*
 * tclient_int.h - the tracker client's state, shared by tclient.c (the
 * connection, its thread, events), tclient_send.c (frames the rank sends)
 * and tclient_det.c (determinant copies), and tclient_send.c's one frame
 * writer.  Not for other users: they go through tclient.h.
 */
#ifndef ENC_TRACKER_CLIENT_TCLIENT_INT_H
#define ENC_TRACKER_CLIENT_TCLIENT_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "proto/frame.h"
#include "tracker_client/tclient.h"

struct tc_node {
    struct tc_node *next;
    struct enc_tclient_event ev;
};

struct enc_tclient {
    int fd;
    int efd;                    /* semaphore eventfd: one count per queued event */
    int stop_fd;                /* tells the thread to finish */
    pthread_t thread;
    int thread_started;
    int tid;                    /* the thread's gettid(), 0 until it runs */
    pthread_mutex_t wlock;      /* serialises writes on fd */
    pthread_mutex_t qlock;
    struct tc_node *head, *tail;
    enc_status_t lost;          /* status once the connection is gone */
    uint32_t rank;
    uint32_t epoch;             /* latest epoch heard of, for frame headers */
    uint64_t completed;
    bool quiet;                 /* finalized or closing: loss is expected */
    int64_t hb_ms;
    int64_t send_ms;
    struct enc_frame_reader rd;
    /* determinant replication (detmsg.h), answered on the thread */
    pthread_mutex_t det_mu;
    pthread_cond_t det_cv;
    uint64_t det_acked;         /* highest version encore-run acked */
    uint8_t *det_copy;          /* DET_DATA received so far */
    uint64_t det_have, det_total;
    bool det_fetching, det_fetched;
};

/* tclient_send.c: one frame on the connection, serialised with the heartbeats. */
enc_status_t enc_tc_send_frame(struct enc_tclient *c, uint8_t type, const void *p, size_t len);

#endif
