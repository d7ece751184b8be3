/*
 * snapmsg.h - what a parked snapshot and encore-run say to each other on
 * the launcher's snapshot socket (ENCORE_SNAPSHOT_SOCK: a Unix socket in
 * the abstract namespace, "@name", so that nothing is left on disk even
 * when encore-run is SIGKILLed).
 *
 * Both ends are on the same host and run the same build: the messages are
 * fixed-size structs, checked by magic, wire version and exact length; the
 * launcher also checks the sender's pid and user with SO_PEERCRED.  The snapshot
 * sends HELLO (and the communicator positions it announces) once and blocks reading; encore-run answers ACTIVATE when the
 * rank died, or closes the socket (the snapshot exits on EOF, so none
 * outlives encore-run, even a SIGKILLed one).
 */
#ifndef ENC_PROTO_SNAPMSG_H
#define ENC_PROTO_SNAPMSG_H

#include <stdbool.h>
#include <stdint.h>

#include "core/status.h"

#define ENC_SNAP_MAGIC 0x454e5350u /* "ENSP" */
#define ENC_SNAP_WIRE 2
#define ENC_SNAP_INJECT_MAX 64
#define ENC_SNAP_COMMS_MAX 1024

/* snapshot -> encore-run: "rank r, incarnation i, parked after collective seq". */
struct enc_snap_hello {
    uint32_t magic;
    uint32_t wire;
    uint32_t rank;
    uint32_t incarnation;
    uint32_t pid;
    uint32_t ckpt_version;     /* checkpoint committed when it was taken */
    uint64_t seq;              /* the last world collective it completed */
    uint32_t ncomms;           /* enc_snap_comm records that follow */
    uint32_t pad;
};

/* After the hello: where the image stands on a communicator other than the
 * world (restored, it asks for that communicator's entries from `next` on),
 * and how many members it has. */
struct enc_snap_comm {
    uint64_t cid;
    uint64_t next;
    uint32_t members;
    uint32_t pad;
};

/* encore-run -> snapshot: become `incarnation` of the rank. */
struct enc_snap_activate {
    uint32_t magic;
    uint32_t incarnation;
    char inject[ENC_SNAP_INJECT_MAX]; /* ENCORE_INJECT of that incarnation ("" none) */
};

bool enc_snap_hello_valid(const struct enc_snap_hello *h, int size);

/* The address of socket name ("@x": abstract x, else a path); its length,
 * 0 when the name does not fit. */
struct sockaddr_un;
unsigned enc_snap_sockaddr(const char *name, struct sockaddr_un *sa);

#endif
