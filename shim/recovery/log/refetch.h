/*
 * refetch.h - a rank restored from a snapshot fetches again the entries it
 * holds that the fork wiped (refetch.c).
 */
#ifndef ENC_RECOVERY_LOG_REFETCH_H
#define ENC_RECOVERY_LOG_REFETCH_H

/* After the rejoin: every forgotten held entry, from its other holders. */
void enc_refetch_forgotten(void);

#endif
