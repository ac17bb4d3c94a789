/*
 * Reading an event log back (for `stk report` and for the formats a capture
 * makes from its own events): the footer's description of the capture, and
 * the rows that pass a filter, each with its stack decoded once per stack id
 * (core/eventlog/frames_codec.h). Anything that is not a file stk wrote
 * (not Parquet, truncated, another schema, frames that do not decode) is
 * refused with one line, never a crash; memory is bounded by the reader's
 * pages and the file's distinct stacks.
 */
#ifndef STK_EVENT_READER_H
#define STK_EVENT_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/output/output.h"
#include "core/stack/stack.h"

/* One kind of event a recording holds (stk.kinds; a recording of one kind: from the other keys). */
struct stk_ev_kind {
	const char *event;           /* "cpu", "offcpu", "rss", the probe */
	const char *unit;            /* its weight's ("count", "nanoseconds", "bytes"); NULL where the footer does not say */
	struct stk_value_type value; /* how its totals are reported */
	uint64_t divisor;            /* its totals are weight sums divided by this */
	int64_t sample_ns;
	uint64_t lost;               /* events of it the kernel found no room for */
};

/* Kinds one recording holds at most. */
#define STK_EV_MAX_KINDS 32

/* What the footer says about the capture (strings live as long as the file). */
struct stk_ev_meta {
	const char *applet, *command;
	const char *event;       /* the capture's own events ("cpu", "offcpu", the probe; the first kind's) */
	int64_t start, duration; /* the capture's, ns */
	int64_t first;           /* the earliest row's time (0: no rows) */
	uint64_t events, lost;
	bool per_thread;         /* the capture kept threads apart (tid in its totals) */
	uint64_t divisor;        /* its totals were weight sums divided by this */
	int64_t sample_ns;       /* what one sample stands for (0: not a sampler) */
	struct stk_report report;    /* title, value and period fields (no stacks); types: the kinds' when several */
	struct stk_output_opts opts; /* the capture's output options (format left TEXT) */
	struct stk_ev_kind kinds[STK_EV_MAX_KINDS];
	size_t n_kinds;              /* at least 1 */
	struct stk_value_type types[STK_EV_MAX_KINDS]; /* the kinds' value types (report.types when n_kinds > 1) */
};

struct stk_ev_filter {
	int64_t from, to;             /* [from, to), ns since the epoch (INT64_MIN, INT64_MAX: all) */
	const uint32_t *pids, *tids;  /* NULL/0: all */
	size_t n_pids, n_tids;
	const char *span;             /* NULL: all; else the label, or FUNC for every FUNC=VALUE */
	const char *event;            /* NULL: the capture's own events, every kind (and, with spans, span rows);
				       * else one event, or several joined by ',' */
	bool with_spans;              /* event NULL: span rows too (timelines draw them) */
	const char *host;             /* NULL: all; else one host, or several joined by ',' (rows without one: none) */
};
/* Everything in the file. */
void stk_ev_filter_all(struct stk_ev_filter *f);

/* One row that passed, valid during the callback. */
struct stk_ev_event {
	int64_t time, weight;   /* weight clipped to the window for intervals (unit nanoseconds) */
	uint32_t pid, tid, cpu;
	char comm[16];
	const char *event, *unit;
	const char *span;       /* NULL outside a span */
	char state;             /* 0: not known */
	bool interval;          /* weight is a length in nanoseconds (off-CPU, spans, system calls, block requests) */
	uint32_t stack;         /* index in stk_ev_stacks(), or UINT32_MAX */
	uint32_t kind;          /* index in the meta's kinds, or UINT32_MAX (a span, an event of no kind) */
	/* What some kinds add (NULL, or syscall_nr -1: none) */
	const char *state_name; /* the state column as written ("S", "RUNQ") */
	const char *syscall, *wchan, *file, *device, *op;
	int32_t syscall_nr;
	int64_t bytes;          /* -1: none */
	const char *host;       /* NULL: none (files before the column) */
};

struct stk_ev_file;

/* Reads fd's footer and checks it is an event log stk wrote. NULL with a one-line err. */
struct stk_ev_file *stk_ev_open(int fd, char *err, size_t err_len);
/*
 * Several files as one recording (n >= 1): read in the time order of their
 * first events, their footers merged (event_meta.h), a stack that files
 * (or ids) print alike one stack. NULL with a one-line err about fds[*bad].
 */
struct stk_ev_file *stk_ev_open_many(const int *fds, size_t n, size_t *bad, char *err, size_t err_len);
const struct stk_ev_meta *stk_ev_meta(const struct stk_ev_file *f);
/*
 * Calls fn for every row passing flt, in file order (files in time order;
 * row groups wholly outside the window are skipped). A nonzero return of
 * fn ends the walk with it. 0, or -1 with err (a file is bad; fn's own -1
 * leaves err alone). Once per recording: the reader moves forward only.
 */
int stk_ev_each(struct stk_ev_file *f, const struct stk_ev_filter *flt,
		int (*fn)(void *ctx, const struct stk_ev_event *ev), void *ctx, char *err, size_t err_len);
/* The stacks decoded so far (index: stk_ev_event.stack); valid until stk_ev_close. */
const struct stk_stack *stk_ev_stacks(struct stk_ev_file *f, size_t *n);
void stk_ev_close(struct stk_ev_file *f);

/*
 * The kinds flt keeps (its events, or every kind), as a report of them
 * shows them: type_of[kind] their value type's index (-1: not kept), types
 * in kind order. Returns how many (a report of one has no types).
 */
size_t stk_ev_kinds_kept(const struct stk_ev_meta *m, const struct stk_ev_filter *flt, int *type_of,
			 struct stk_value_type *types);

/* Whether label (FUNC or FUNC=VALUE) is what --span want names: the same, or want=... */
bool stk_ev_span_matches(const char *label, const char *want);

#endif
