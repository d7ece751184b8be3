/* coldcopy.c - copies written around the caches (coldcopy.h). */
#include "core/coldcopy.h"

#include <stdint.h>
#include <string.h>

#if defined(__x86_64__)
#include <emmintrin.h>

void enc_cold_copy(void *dst, const void *src, size_t n)
{
    uint8_t *d = dst;
    const uint8_t *s = src;
    size_t head;

    if (n < ENC_COLD_COPY_MIN) {
        memcpy(dst, src, n);
        return;
    }
    /* up to the first 64-byte line of dst with ordinary stores */
    head = (64 - ((uintptr_t)d & 63)) & 63;
    memcpy(d, s, head);
    d += head;
    s += head;
    n -= head;
    for (; n >= 64; n -= 64, d += 64, s += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)s);
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(s + 32));
        __m128i e = _mm_loadu_si128((const __m128i *)(const void *)(s + 48));

        _mm_stream_si128((__m128i *)(void *)d, a);
        _mm_stream_si128((__m128i *)(void *)(d + 16), b);
        _mm_stream_si128((__m128i *)(void *)(d + 32), c);
        _mm_stream_si128((__m128i *)(void *)(d + 48), e);
    }
    memcpy(d, s, n);
    _mm_sfence();
}

#else

void enc_cold_copy(void *dst, const void *src, size_t n) { memcpy(dst, src, n); }

#endif
