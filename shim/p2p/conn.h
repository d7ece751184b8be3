/*
 * conn.h - the point-to-point transport's lifecycle (conn.c): the tables
 * made, the delivery (conn_rx.h) the layer above registers, peers'
 * connections accepted and installed, a restored rank's RESUME, a
 * snapshot's image.
 * The transport's other parts: conn_tx.h, conn_rx.h, progress.h.
 */
#ifndef ENC_P2P_CONN_H
#define ENC_P2P_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "p2p/conn_rx.h"

struct p2p_out;

/* The connection tables and the eventfd. */
enc_status_t enc_p2p_conn_alloc(void);
/* Peers' connections are handed to this layer from now on, their frames
 * delivered to up (kept: a static table). */
void enc_p2p_conn_listen(const struct enc_p2p_delivery *up);
/* A restored rank tells every peer where it is now (RESUME): each sends
 * it its log again.  Once, from the program's thread (the world adopted). */
void enc_p2p_announce(void);
/* The progress thread (the lock held): installs the connections the
 * listener accepted; a RESUME that waits (its peer was being restarted)
 * and the try to deliver it again. */
void enc_p2p_conn_install_accepted(void);
bool enc_p2p_conn_resume_waits(const struct p2p_out *o);
void enc_p2p_conn_retry_resumes(void);
/* A snapshot's fork (the lock held by the forking thread): in the image
 * every descriptor of the layer is closed and frames half read are
 * forgotten; restored, the layer starts again (progress.h). */
void enc_p2p_conn_fork_child(void);

#endif
