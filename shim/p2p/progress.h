/*
 * progress.h - the point-to-point progress thread (progress.c); its stop
 * and its id are p2p.h's (enc_p2p_finalize, enc_p2p_thread_id).
 */
#ifndef ENC_P2P_PROGRESS_H
#define ENC_P2P_PROGRESS_H

#include "core/status.h"

/* Starts the progress thread. */
enc_status_t enc_p2p_conn_start(void);
/* A restored image (the lock held): the eventfds made again, the thread
 * started again. */
enc_status_t enc_p2p_conn_restart(void);

#endif
