/*
 * tclient_det.h - tclient_det.c's side for the client's own thread and
 * lifecycle (tclient.c): set up and tear down the determinant copy's
 * state, wake its waiters, take its frames.  Callers use tclient.h.
 */
#ifndef ENC_TRACKER_CLIENT_TCLIENT_DET_H
#define ENC_TRACKER_CLIENT_TCLIENT_DET_H

#include "enc.h"
#include "tracker_client/tclient_int.h"

void enc_tc_det_init(struct enc_tclient *c);
void enc_tc_det_fini(struct enc_tclient *c);
/* The connection is lost: a caller waiting for an ack or a copy wakes. */
void enc_tc_det_wake(struct enc_tclient *c);
/* A DET_ACK or DET_DATA read by the client's thread: ENC_OK, or the
 * status that ends the connection. */
enc_status_t enc_tc_det_frame(struct enc_tclient *c);

#endif
