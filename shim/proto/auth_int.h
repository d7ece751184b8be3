/*
 * auth_int.h - pieces shared by the client and server sides of the
 * handshake (proto/auth.h); not for use outside shim/proto.
 */
#ifndef ENC_PROTO_AUTH_INT_H
#define ENC_PROTO_AUTH_INT_H

#include <stddef.h>
#include <stdint.h>

#include "proto/wire.h"
#include "proto/auth.h"

/* role u8, rank u32, incarnation u32, epoch u32 */
#define ENC_AUTH_ID_LEN 13
/* AUTH payload: id, nonce_c, client MAC */
#define ENC_AUTH_LEN (ENC_AUTH_ID_LEN + ENC_NONCE_LEN + ENC_MAC_LEN)

/* HMAC-SHA256(k, label | first | second | id); label is 8 bytes. */
enc_status_t enc_auth_mac(const struct enc_secret *s, const char *label, const uint8_t *first,
                          const uint8_t *second, const struct enc_auth_id *id,
                          uint8_t out[ENC_MAC_LEN]);
void enc_auth_id_write(struct enc_wbuf *w, const struct enc_auth_id *id);
void enc_auth_id_read(struct enc_rbuf *r, struct enc_auth_id *id);
/* "addr:port" of the peer for log lines, "local" for non-IP sockets. */
void enc_auth_peer_name(int fd, char *buf, size_t cap);

#define ENC_AUTH_LABEL_CLIENT "encore-c"
#define ENC_AUTH_LABEL_SERVER "encore-s"

#endif
