/* Clock readings in nanoseconds. */
#ifndef STK_CLOCK_H
#define STK_CLOCK_H

#include <stdint.h>
#include <time.h>

/* clock (CLOCK_MONOTONIC, CLOCK_REALTIME, ...) now, in nanoseconds. */
int64_t stk_now_ns(clockid_t clock);

#endif
