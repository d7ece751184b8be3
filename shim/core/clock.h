/* clock.h - monotonic time and deadlines for bounded waits, and the wall clock of shared schedules. */
#ifndef ENC_CORE_CLOCK_H
#define ENC_CORE_CLOCK_H

#include <stdint.h>

/* Monotonic time in nanoseconds. */
uint64_t enc_now_ns(void);
static inline double enc_now_s(void) { return (double)enc_now_ns() * 1e-9; }
/* The same clock to the last tick (a few ms), for checks made on every
 * collective: reading it costs a fraction of a precise read. */
double enc_coarse_now_s(void);
/* Wall-clock seconds (CLOCK_REALTIME_COARSE): the one clock that ranks on
 * different hosts share (through NTP), for schedules they must keep
 * together; never for durations or deadlines. */
double enc_coarse_wall_s(void);

/* A deadline ms milliseconds from now; ms < 0 means "never". */
uint64_t enc_deadline_ms(int64_t ms);
/* The same from the coarse clock: up to a tick (a few ms) earlier, for a
 * wait that computes one per call (a small message's receive). */
uint64_t enc_coarse_deadline_ms(int64_t ms);
/* Milliseconds left until deadline, clamped to [0, INT32_MAX]; -1 if never. */
int enc_ms_left(uint64_t deadline);

#define ENC_NEVER UINT64_MAX

#endif
