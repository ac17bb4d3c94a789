/*
 * The event path of a capture, user side: events (bpf/event_types.h) read
 * from the BPF ring buffer stk_events while the capture runs (on a 100 ms
 * timer, and when a quarter of the ring fills), each distinct stack
 * reference resolved once by the session's resolver (the one its totals
 * go through, so the stack is exactly the one they print), rendered to text and
 * frames, and written as a row to every event log stream
 * (core/eventlog/event_writer.h). Samples unwound in user space (profile
 * --unwind dwarf) become events through core/session/dwarf_samples.c;
 * events whose stack copy has not been unwound yet wait for it.
 */
#ifndef STK_EVENT_SINK_H
#define STK_EVENT_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/types.h>

#include "bpf/event_types.h"
#include "core/stack/stack.h"
#include "core/probe/span_spec.h"

struct stk_bpf;
struct stk_run_loop;
struct stk_stack;
struct stk_stack_list;
struct stk_dwarf_samples;
struct stk_stack_resolver;
struct stk_report;
struct stk_output_opts;
struct stk_ev_row;
struct stk_ev_series_opts;

/* One kind of event a capture records: the events whose ref.type is its index in the source's kinds. */
struct stk_event_desc {
	const char *event;  /* the Parquet `event`: "cpu", "offcpu", the probe, "rss" (NULL: none of this type) */
	const char *unit;   /* its weight's unit: "count", "nanoseconds", "bytes" */
	struct stk_value_type value; /* how its totals are reported, in a recording of several kinds */
	uint64_t divisor;   /* its totals print weight sums divided by this (offcputime: 1000) */
	int64_t sample_ns;  /* cpu: the time one sample stands for */
	unsigned columns;   /* STK_EV_FILLS_*: what its rows add to the common columns */
	uint64_t every;     /* > 1: one event in this many was taken, its weight this many times over */
	const char *taken;  /* then how the one was chosen ("at random", "every Nth on each CPU") */
};
#define STK_EV_FILLS_SYSCALL 1u /* syscall, syscall_nr from ref.detail (the call's number + 1) */
#define STK_EV_FILLS_BLOCK 2u   /* op from ref.detail (the direction); device and bytes from the event (iorq) */

/* What an applet says about its events. */
struct stk_event_source {
	bool per_thread; /* its totals keep threads apart */
	/* by ref.type (copied by the sink; the strings must outlive it) */
	const struct stk_event_desc *kinds;
	size_t n_kinds;
};

struct stk_event_sink;

/*
 * A sink writing rows to streams[0..n) (each an empty file, or stdout), the
 * labels of spans[0..n_spans) for the span column. NULL with err.
 */
struct stk_event_sink *stk_event_sink_new(FILE *const *streams, size_t n, const struct stk_span_spec *spans,
					  size_t n_spans, char *err, size_t err_len);
/* src's events (its kinds copied): for a sink of rows user space makes alone (threadstate); connect says it too. 0, or -1 with err. */
int stk_event_sink_describe_events(struct stk_event_sink *k, const struct stk_event_source *src, char *err,
				   size_t err_len);
/*
 * After load: reads skel's ring buffer from here on (replacing one read
 * before: a retried mechanism brings a new skeleton), src's events, their
 * stacks by resolver (its copies, if any, are the applet's: events wait
 * for theirs to be unwound). resolver must outlive the sink. 0, or -1 with err.
 */
int stk_event_sink_connect(struct stk_event_sink *k, struct stk_bpf *skel, const struct stk_event_source *src,
			   const struct stk_stack_resolver *resolver, char *err, size_t err_len);
/* Reads while the capture runs. 0, or -1 with err. */
int stk_event_sink_watch(struct stk_event_sink *k, struct stk_run_loop *loop, char *err, size_t err_len);
/* Reads what the ring buffer holds; final: events still waiting for a stack copy are written without it. */
void stk_event_sink_drain(struct stk_event_sink *k, bool final);
/* An event user space made (offcputime: a block still going at the end). */
void stk_event_sink_add(struct stk_event_sink *k, const struct stk_event *e);
/* The host column of every row from now on (checked: event_host.h); this machine's name until set. */
void stk_event_sink_set_host(struct stk_event_sink *k, const char *host);
/*
 * A row user space made without a stack (a thread's state sampled by stk
 * record), of the kind of ref.type type: its event and unit are the kind's.
 */
void stk_event_sink_add_row(struct stk_event_sink *k, uint16_t type, struct stk_ev_row *row);
/* The command line, the report the capture printed and its options, for the footer (copied). */
void stk_event_sink_describe(struct stk_event_sink *k, const char *applet, const char *command,
			     const struct stk_report *r, const struct stk_output_opts *o);
/*
 * stk record -o DIR/: rows go to a series of files in dir (core/eventlog/
 * event_series.h) beside any streams, its first file opened when the sink
 * is watched, rotated on its timer and on SIGHUP, closed with the sink.
 * Each file's footer describes its own span and losses. 0, or -1 with err
 * (the directory refused, another recorder there).
 */
int stk_event_sink_series(struct stk_event_sink *k, const char *dir, const struct stk_ev_series_opts *opts,
			  char *err, size_t err_len);
/* Events a series lost to a full disk (all, or of ref.type type). */
uint64_t stk_event_sink_lost_full(const struct stk_event_sink *k);
uint64_t stk_event_sink_lost_full_of(const struct stk_event_sink *k, uint16_t type);
/* Rows written so far, and events the kernel found no room for (all, or of ref.type type). */
uint64_t stk_event_sink_rows(const struct stk_event_sink *k);
uint64_t stk_event_sink_lost(const struct stk_event_sink *k);
uint64_t stk_event_sink_lost_of(const struct stk_event_sink *k, uint16_t type);
/* Rows written of ref.type type. */
uint64_t stk_event_sink_rows_of(const struct stk_event_sink *k, uint16_t type);
/* The event name of ref.type type's kind, or NULL where the capture records none of it. */
const char *stk_event_sink_kind_name(const struct stk_event_sink *k, uint16_t type);
/*
 * Distinct stacks resolved (a series: in its last file), the bytes of their
 * text and frames kept, how often one was rendered, and how many entries a
 * series' new files let go (for -v).
 */
void stk_event_sink_stacks(const struct stk_event_sink *k, size_t *n, size_t *bytes, uint64_t *renders,
			   uint64_t *forgotten);
/*
 * Writes every stream's footer (what stk_event_sink_describe said, and the
 * counts) and fflushes. 0, or -1 with err (the first failure). Once.
 */
int stk_event_sink_close(struct stk_event_sink *k, char *err, size_t err_len);
void stk_event_sink_free(struct stk_event_sink *k);

#endif
