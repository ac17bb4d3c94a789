/*
 * `stk report --from/--to`: a time in a recording, as
 *   SECONDS                         from its first event (2, 2.5)
 *   HH:MM[:SS[.frac]]               that wall-clock time on the first event's day (local time)
 *   YYYY-MM-DD[T| ]HH:MM[:SS[.frac]][Z|+HH:MM|-HH:MM]   that instant (local time without a zone)
 */
#ifndef STK_TIME_ARG_H
#define STK_TIME_ARG_H

#include <stddef.h>
#include <stdint.h>

/* *ns since the epoch; first: the recording's first event. 0, or -1 with a one-line err. */
int stk_time_arg_parse(const char *text, int64_t first, int64_t *ns, char *err, size_t err_len);

#endif
