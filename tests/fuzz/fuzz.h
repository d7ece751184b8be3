/*
 * fuzz.h - what every fuzz target (tests/fuzz/fuzz_*.c) shares: the
 * libFuzzer entry point, the seed hook, and feeding bytes through a socket.
 *
 * Each target is one file holding LLVMFuzzerTestOneInput and fuzz_seeds().
 * It builds twice: with clang and -fsanitize=fuzzer for `make fuzz`, and
 * with the normal compiler plus driver.c for `make check`, which replays
 * the checked-in corpus and regression inputs (tests/fuzz/README.md).
 */
#ifndef ENC_TESTS_FUZZ_H
#define ENC_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* enc.h holds only core/: the decoders under test come from these. */
#include "enc.h"
#include "net/sock.h"
#include "proto/auth.h"
#include "proto/frame.h"
#include "proto/msgs.h"
#include "proto/wire.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Seeds: a target hands a few valid encodings, made by the real encoders,
 * to emit; `driver --seeds DIR` writes them as DIR/<name>. */
typedef void (*fuzz_emit_fn)(const char *name, const void *data, size_t len);
void fuzz_seeds(fuzz_emit_fn emit);

/* A non-blocking socketpair: returns one end, *peer the other; -1 if none. */
int fuzz_pair(int *peer);
/* Sends data from peer, then shuts peer down for writing: the other end
 * reads the bytes, then EOF, never a wait.  Bytes beyond the socket buffer
 * are dropped. */
void fuzz_send(int peer, const uint8_t *data, size_t size);
/* fuzz_pair + fuzz_send. */
int fuzz_feed(const uint8_t *data, size_t size, int *peer);
void fuzz_close_pair(int fd, int peer);

/* data as a NUL-terminated string (stops at its first NUL); free() it. */
char *fuzz_strndup(const uint8_t *data, size_t size);
/* A malloc'd copy, so a target may patch its input; free() it. */
uint8_t *fuzz_memdup(const uint8_t *data, size_t size);

/* Aborts with msg: a fuzz oracle (round trip, invariant) failed. */
void fuzz_fail(const char *msg) __attribute__((noreturn));

#define FUZZ_CHECK(cond) ((cond) ? (void)0 : fuzz_fail(#cond))

#endif
