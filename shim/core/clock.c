/* clock.c - clock helpers: monotonic time and deadlines, and the coarse wall clock of shared schedules. */
#include "enc.h"

#include <stdint.h>
#include <time.h>

uint64_t enc_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

double enc_coarse_now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double enc_coarse_wall_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME_COARSE, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

uint64_t enc_coarse_deadline_ms(int64_t ms)
{
    struct timespec ts;

    if (ms < 0)
        return ENC_NEVER;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec +
           (uint64_t)ms * 1000000ull;
}

uint64_t enc_deadline_ms(int64_t ms)
{
    if (ms < 0)
        return ENC_NEVER;
    return enc_now_ns() + (uint64_t)ms * 1000000ull;
}

int enc_ms_left(uint64_t deadline)
{
    uint64_t now;

    if (deadline == ENC_NEVER)
        return -1;
    now = enc_now_ns();
    if (now >= deadline)
        return 0;
    uint64_t ms = (deadline - now + 999999ull) / 1000000ull;
    return ms > INT32_MAX ? INT32_MAX : (int)ms;
}
