/*
 * agent_proto.h - the messages between encore-run and a host's
 * encore-agent, on an authenticated frame connection (role
 * ENC_ROLE_AGENT).  encore-run -> agent: SPAWN (one rank), KILL, HEARTBEAT;
 * agent -> encore-run: HELLO, STARTED, FAILED (cannot start), EXITED (wait
 * status), HEARTBEAT.  The job secret never travels here: the agent reads
 * it from its standard input and adds it to each rank's environment.
 * Snapshot images of the host's ranks park with its agent: agent ->
 * encore-run: PARKED (an image, where it stands), UNPARKED (it died),
 * RESTORED (an ACTIVATE made it the rank), NOIMAGE (nothing to activate);
 * encore-run -> agent: ACTIVATE {rank, inc, text = ENCORE_INJECT}, FORGET
 * {rank} (its images are no use any more).
 */
#ifndef ENC_COMMON_AGENT_PROTO_H
#define ENC_COMMON_AGENT_PROTO_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "core/status.h"
#include "proto/snapmsg.h"

#define ENC_AGENT_TEXT_MAX 512
#define ENC_AGENT_HEARTBEAT_MS 500

/* HELLO {rank = host index, value = pid, text = host name}, KILL {rank,
 * value = signal}, STARTED {rank, inc, value = pid}, FAILED {rank, inc,
 * text = reason}, EXITED {rank, inc, value = wait status, text = its
 * memory, enc_agent_mem_format}. */
struct enc_agent_note {
    uint32_t rank;
    uint32_t inc;
    uint32_t value;
    char text[ENC_AGENT_TEXT_MAX];
};

struct enc_agent_spawn {
    uint32_t rank;
    uint32_t inc;
    uint32_t bind_index;          /* the rank's slot on its host */
    bool tag_output;
    char bind_to[16];             /* "" or "none": no binding */
    char *cwd;
    char *path;
    char **argv;                  /* NULL-terminated */
    char **env;                   /* NULL-terminated; no ENCORE_SECRET/ENCORE_TRACKER */
};

/* PARKED {rank, inc, seq, comms} and RESTORED {rank, inc, pid, seq}: a
 * snapshot image of rank, taken by incarnation inc after world collective
 * seq (proto/snapmsg.h); decoded comms are malloc'd (free them). */
struct enc_agent_image {
    uint32_t rank;
    uint32_t inc;
    uint32_t pid;
    uint64_t seq;
    uint32_t ncomms;
    struct enc_snap_comm *comms;
};
enc_status_t enc_agent_image_encode(const struct enc_agent_image *m, uint8_t **out, size_t *len);
enc_status_t enc_agent_send_image(int fd, uint8_t type, const struct enc_agent_image *m);
/* Strict: ENC_ERR_PROTO for a short, long or inconsistent payload. */
enc_status_t enc_agent_image_decode(struct enc_agent_image *m, const void *p, size_t len);

/* Encodes into a malloc'd buffer. */
enc_status_t enc_agent_note_encode(const struct enc_agent_note *m, uint8_t **out, size_t *len);
enc_status_t enc_agent_note_decode(struct enc_agent_note *m, const void *p, size_t len);
/* env entries named in skip[] (prefixes "NAME=") are left out. */
enc_status_t enc_agent_spawn_encode(const struct enc_agent_spawn *m, const char *const *skip,
                                    uint8_t **out, size_t *len);
/* Decoded strings point into a malloc'd block; free with enc_agent_spawn_free. */
enc_status_t enc_agent_spawn_decode(struct enc_agent_spawn *m, const void *p, size_t len);
void enc_agent_spawn_free(struct enc_agent_spawn *m);

/*
 * The host's ranks, known before the agent spawns any (encore-agent
 * --shm NP:R,R,...: the job's size, then this host's world ranks in
 * increasing order), so the agent makes the host's shared-memory segment
 * with every one of them in it.  format: false when the host starts with
 * fewer than two ranks (no segment needed) or it does not fit.
 * parse: strict (decimal numbers only, 2 <= NP <= max_np, ranks strictly
 * increasing and below NP, at most cap of them); ENC_ERR_INVAL otherwise.
 */
bool enc_agent_shm_format(char *out, size_t cap, int np, const int *host_of, int host);
enc_status_t enc_agent_shm_parse(const char *s, int max_np, int *np, int *ranks, int cap,
                                 int *n);

/* What an EXITED note says about memory, in KiB (-1: unknown): the
 * rank's largest private RSS sampled (proc_mem.c), and the host
 * segment's written and allocated size then (enc_shm_host_usage).
 * format: "PRIVATE USED ALLOCATED" in decimal; parse: a missing or
 * malformed field reads as -1. */
struct enc_agent_mem {
    long private_kb;
    long shm_used_kb;
    long shm_alloc_kb;
};
void enc_agent_mem_format(const struct enc_agent_mem *m, char *out, size_t cap);
void enc_agent_mem_parse(const char *s, struct enc_agent_mem *m);

/* One frame on fd (bounded by the control send timeout). */
enc_status_t enc_agent_send(int fd, uint8_t type, const void *p, size_t len);
enc_status_t enc_agent_send_note(int fd, uint8_t type, const struct enc_agent_note *m);

#endif
