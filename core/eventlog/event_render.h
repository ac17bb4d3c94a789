/*
 * A recording rendered in any format stk has, narrowed by a filter: the
 * stack formats from its totals (event_totals.h), the timelines from its
 * events (timeline_build.h). `stk report` renders each output with it, and
 * a capture renders from its own recording the outputs that need events.
 * A recording may be several files (read as one: event_reader.h), and two
 * of them (or two windows of one) make a difference.
 */
#ifndef STK_EVENT_RENDER_H
#define STK_EVENT_RENDER_H

#include <stddef.h>
#include <stdio.h>

#include "core/eventlog/event_reader.h"
#include "core/output/output.h"

/* Return values besides 0: the file is not a recording stk can read, or out is not writable. */
#define STK_EV_RENDER_BAD_INPUT (-2)
#define STK_EV_RENDER_WRITE_FAILED (-1)

/*
 * Renders the event log on fd (read from its start) as format (not
 * parquet) into out, with the capture's output options, the report fields
 * narrowed to flt's window. 0, or one of the values above with err.
 */
int stk_ev_render(int fd, const struct stk_ev_filter *flt, enum stk_format format, FILE *out, char *err,
		  size_t err_len);

/* A recording: its files (one or more) and what of it is shown. */
struct stk_ev_source {
	const int *fds;
	size_t n;
	const struct stk_ev_filter *flt;
	size_t bad; /* after STK_EV_RENDER_BAD_INPUT: which of fds */
	size_t shown; /* after a render: the stacks (or a timeline's threads) it drew; 0: no event passed flt */
};

/* The same over a recording of several files. */
int stk_ev_render_many(struct stk_ev_source *src, enum stk_format format, FILE *out, char *err, size_t err_len);

/* Whether a difference can be drawn in format: folded, svg and pprof. */
bool stk_ev_diff_format(enum stk_format format);
/*
 * The difference of now against base (two recordings, or two windows of
 * one): the stacks of both by their text (threads of either run are
 * alike), each with now's weight and the base's (stk_report.diff): folded
 * prints both, svg colours what grew and shrank, pprof the difference.
 * 0, or one of the values above with err (src->bad says which file of
 * which recording).
 */
int stk_ev_render_diff(struct stk_ev_source *base, struct stk_ev_source *now, enum stk_format format, FILE *out,
		       char *err, size_t err_len);

#endif
