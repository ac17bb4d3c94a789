/*
 * A recording's footer (core/eventlog/event_schema.h's keys) as the
 * description of its capture, and the descriptions of several files read
 * as one recording (stk report over many): the earliest start to the
 * latest end, events and losses added up, the kinds of all of them (each
 * described as its first file does), the first file's report fields and
 * options. Internal to core/eventlog/ (the reader's).
 */
#ifndef STK_EVENT_META_H
#define STK_EVENT_META_H

#include <stddef.h>

#include "core/eventlog/event_reader.h"
#include "core/parquet/parquet_reader.h"

/*
 * r's footer into m (its strings point into r, but the kinds' into
 * *kinds_text, which the caller frees). A key missing or malformed is a
 * file stk did not write: -1 with a one-line err.
 */
int stk_ev_meta_read(const struct stk_pq_reader *r, struct stk_ev_meta *m, char **kinds_text, char *err,
		     size_t err_len);
/* parts[0..n) (in time order, n >= 1) as one recording into whole (pointing into them). */
void stk_ev_meta_merge(struct stk_ev_meta *whole, const struct stk_ev_meta *parts, size_t n);

#endif
