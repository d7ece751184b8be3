/*
 * xorshift_fill.h - a message's content that depends on where it came from:
 * n words of an xorshift64 stream seeded by two numbers (sender and
 * iteration, round and message), so a receiver can check every word.
 * Included by one program each (the function is static).
 */
#ifndef ENC_TESTS_XORSHIFT_FILL_H
#define ENC_TESTS_XORSHIFT_FILL_H

#include <stddef.h>
#include <stdint.h>

/* Fills b[0..n) from seeds a and c; returns the last word. */
static uint64_t xorshift_fill(uint64_t *b, size_t n, int a, int c)
{
    uint64_t x = (uint64_t)a * 1000003u + (uint64_t)c * 7919u + 1;

    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        b[i] = x;
    }
    return x;
}

#endif
