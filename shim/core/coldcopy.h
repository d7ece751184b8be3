/*
 * coldcopy.h - a copy into memory nobody will read soon (a message's log
 * copy once the message itself has left): written around the caches, so
 * the program's own working set stays in them.
 *
 * A sender-side message log copies every payload a second time, into
 * memory that is read again only if the receiver is restored.  With
 * ordinary stores each copy first reads its destination lines into the
 * cache and then evicts the program's data with them: in a 2-D stencil
 * (bench/p2p_apps.sh) the log's 4 KiB copies cost the program's own loop
 * more than the copies themselves (bench/README.md, session 20).
 */
#ifndef ENC_CORE_COLDCOPY_H
#define ENC_CORE_COLDCOPY_H

#include <stddef.h>

/* Payloads shorter than this are copied with memcpy: a few lines, and a
 * partial line written around the cache costs more than it saves. */
#define ENC_COLD_COPY_MIN ((size_t)1024)

/* memcpy(dst, src, n), with non-temporal stores where the machine has
 * them (x86-64: SSE2, always there) and n >= ENC_COLD_COPY_MIN; ordered
 * before any later store (sfence), so a reader told afterwards sees it. */
void enc_cold_copy(void *dst, const void *src, size_t n);

#endif
