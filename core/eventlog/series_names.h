/*
 * The names of stk record's series of files (event_series.h): a complete
 * file is stk-FIRST-END.parquet (or stk-FIRST-END-N.parquet when the name
 * was taken), FIRST the earliest instant any of its events covers and END
 * its close, each a UTC stamp to the millisecond (20261127T082500.123Z):
 * FIRST rounded down, END up, so every event lies within [FIRST, END].
 * Readers choose files for a window by them without opening the others.
 */
#ifndef STK_SERIES_NAMES_H
#define STK_SERIES_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* "20261127T082500.123Z" */
#define STK_EV_STAMP_LEN 20

/* ns since the epoch as a stamp (UTC, the millisecond rounded down) into buf (STK_EV_STAMP_LEN + 1). */
void stk_ev_series_stamp(int64_t ns, char *buf);
/* "stk-FIRST-END" (no ".parquet") for a file whose events lie within [first, end], into buf. */
void stk_ev_series_base_name(int64_t first, int64_t end, char *buf, size_t len);
/* The time range a complete file's name says: every event in it lies within [first, end]. false for any other name. */
bool stk_ev_series_name_range(const char *name, int64_t *first, int64_t *end);
/* Whether the file named name can hold an event reaching into [from, to): true for a name that does not say. */
bool stk_ev_series_reaches(const char *name, int64_t from, int64_t to);

#endif
