/*
 * A recording's rows as a timeline (core/stack/timeline.h) for the speedscope
 * and trace formats: per thread, its samples, intervals (cut to the window)
 * and spans, sorted by time.
 */
#ifndef STK_TIMELINE_BUILD_H
#define STK_TIMELINE_BUILD_H

#include <stddef.h>

#include "core/base/string_pool.h"
#include "core/eventlog/event_reader.h"
#include "core/stack/timeline.h"

/* Events a timeline holds at most (about 40 bytes each). */
#define STK_TIMELINE_MAX_EVENTS 20000000u

struct stk_ev_timeline {
	struct stk_timeline tl; /* what the formats read: points into the rest */
	struct stk_timeline_thread *threads;
	size_t cap_threads;
	struct stk_ev_thread_events {
		struct stk_timeline_event *events;
		size_t cap;
	} *per_thread; /* in the order threads were first seen */
	size_t cap_per_thread;
	struct stk_string_pool *labels; /* intervals' names and spans' labels */
	size_t total;
};

/* Reads f's rows passing flt (spans included). 0, or -1 with err. Stacks live until stk_ev_close(f). */
int stk_ev_timeline_read(struct stk_ev_file *f, const struct stk_ev_filter *flt, struct stk_ev_timeline *out,
			 char *err, size_t err_len);
void stk_ev_timeline_free(struct stk_ev_timeline *t);

#endif
