/*
 * precopy.h - the program's MPI buffers copied into a snapshot at its fork
 * instead of shared with it copy-on-write (precopy.c).
 *
 * A forked image shares every page with the rank; the first write to each
 * afterwards is a copy-on-write fault, and a program rewrites its message
 * buffers at every step.  A fault per 4 KiB page costs 16-37 us on the VMs
 * encore is measured on (docs/snapshots.md), so a 32 MiB receive window
 * rewritten after each snapshot cost 150 ms; copying it into the image at
 * the fork costs about 3 ms.  Buffers of at least 64 KiB that the program
 * passed to encore since the last snapshot, and the whole mappings (up to
 * 64 MiB, not the heap) around smaller ones (a stencil sends rows of the
 * arrays it rewrites at every step), are copied (with pwrite) into a
 * memory file the image maps back at their addresses, and are kept out of
 * the fork (MADV_DONTFORK), so the rank writes them on without a fault.
 */
#ifndef ENC_RECOVERY_SNAPSHOT_PRECOPY_H
#define ENC_RECOVERY_SNAPSHOT_PRECOPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A buffer the program passed to an MPI call (a message's or a
 * collective's); any thread; below 64 KiB, a load and a compare when it
 * lies in the same 2 MiB as the last such one. */
void enc_precopy_note(const void *p, size_t len);
/* Right before a snapshot's fork (the fork guard held, no other thread of
 * the program running): the buffers noted since the last snapshot that
 * lie in private writable memory, up to ENCORE_SNAPSHOT_COPY_MAX bytes,
 * are copied into the memory file and marked not to be forked. */
void enc_precopy_prepare(void);
/* In the image, first thing after the fork: maps the copies back at
 * their addresses; false when it cannot (the image must not be used). */
bool enc_precopy_child(void);
/* In the image once activated, before anything else: the copies mapped
 * back become anonymous memory with the same bytes; false when they could
 * not (the restored rank cannot go on). */
bool enc_precopy_activated(void);
/* In the rank after the fork (img: the image's pid, or -1 when the fork
 * failed): the buffers are forked as before again. */
void enc_precopy_parent(pid_t img);
/* Whether fd is one of the memory files (not the program's: an image
 * closes them, and notes no offset of theirs). */
bool enc_precopy_owns_fd(int fd);
/* Bytes copied at the last snapshot. */
uint64_t enc_precopy_last_bytes(void);

#endif
