/*
 * snapmsg.h - what a parked snapshot and encore-run say to each other on
 * the launcher's snapshot socket (a Unix socket in the job's private
 * directory, ENCORE_SNAPSHOT_SOCK), and the ENCORE_SNAPSHOT_S syntax both
 * sides check.
 *
 * Both ends are on the same host and run the same build: the messages are
 * fixed-size structs, checked by magic, wire version and exact length; the
 * launcher also checks the sender's pid with SO_PEERCRED.  The snapshot
 * sends HELLO once and blocks reading; encore-run answers ACTIVATE when the
 * rank died, or closes the socket (the snapshot exits on EOF, so none
 * outlives encore-run, even a SIGKILLed one).
 */
#ifndef ENC_PROTO_SNAPMSG_H
#define ENC_PROTO_SNAPMSG_H

#include <stdbool.h>
#include <stdint.h>

#include "core/status.h"

#define ENC_SNAP_MAGIC 0x454e5350u /* "ENSP" */
#define ENC_SNAP_WIRE 1
#define ENC_SNAP_INJECT_MAX 64

/* snapshot -> encore-run: "rank r, incarnation i, parked after collective seq". */
struct enc_snap_hello {
    uint32_t magic;
    uint32_t wire;
    uint32_t rank;
    uint32_t incarnation;
    uint32_t pid;
    uint32_t ckpt_version;     /* checkpoint committed when it was taken */
    uint64_t seq;              /* the last collective it completed */
};

/* encore-run -> snapshot: become `incarnation` of the rank. */
struct enc_snap_activate {
    uint32_t magic;
    uint32_t incarnation;
    char inject[ENC_SNAP_INJECT_MAX]; /* ENCORE_INJECT of that incarnation ("" none) */
};

bool enc_snap_hello_valid(const struct enc_snap_hello *h, int size);

/* ENCORE_SNAPSHOT_S: "auto" (or unset/empty) -> *auto_mode, *seconds 0;
 * a number of seconds >= 0 (0: snapshots off).  ENC_ERR_INVAL otherwise. */
enc_status_t enc_snap_parse_interval(const char *s, bool *auto_mode, double *seconds);

#endif
