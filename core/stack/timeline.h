/*
 * A recording as a timeline (the speedscope and trace formats draw it):
 * per thread (and, in a recording of several kinds, per kind of a thread)
 * its events in time order, each a sample (an instant with a
 * weight and a stack), an interval (an off-CPU block: start, length, wait
 * stack) or a span (start, length, label). Built from the event log by
 * core/eventlog/timeline_build.c; the stacks are the same resolved model
 * the other formats print (stack.h), and every string is owned by the
 * builder.
 */
#ifndef STK_TIMELINE_H
#define STK_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "core/stack/stack.h"

#define STK_TIMELINE_NONE UINT32_MAX

enum stk_timeline_kind {
	STK_TIMELINE_SAMPLE,
	STK_TIMELINE_INTERVAL,
	STK_TIMELINE_SPAN,
};

struct stk_timeline_event {
	int64_t time;     /* ns since the Unix epoch */
	int64_t duration; /* ns: intervals and spans; 0 for samples */
	uint64_t weight;  /* samples: what one counts (the report's unit) */
	uint32_t stack;   /* index in stacks, or STK_TIMELINE_NONE */
	uint32_t label;   /* an interval's name ("off-CPU S"), a span's label: index in labels */
	uint32_t span;    /* a sample's or interval's innermost span: index in labels, or STK_TIMELINE_NONE */
	uint8_t kind;     /* enum stk_timeline_kind */
};

struct stk_timeline_thread {
	uint32_t pid, tid;
	char comm[16];
	/* A recording of several kinds draws each kind of a thread on a track of its own: the kind (NULL: the
	 * thread's only track) and its number from 1 (the trace format shows it in the tid's top byte). */
	const char *track;
	uint32_t track_id;
	int64_t sample_ns; /* a kind's track: the time one of its samples stands for (0: an instant) */
	const struct stk_timeline_event *events; /* by time, a span before what starts with it */
	size_t n_events;
};

struct stk_timeline {
	const struct stk_timeline_thread *threads; /* by pid, then tid */
	size_t n_threads;
	const struct stk_stack *stacks;
	size_t n_stacks;
	const char *const *labels;
	size_t n_labels;
	int64_t start, end;  /* the window shown, ns since the epoch */
	int64_t sample_ns;   /* the time one sample stands for (profile: 1 s / frequency); 0: none */
	const char *title;
};

#endif
