/*
 * A recording rendered in any format stk has, narrowed by a filter: the
 * stack formats from its totals (event_totals.h), the timelines from its
 * events (timeline_build.h). `stk report` renders each output with it, and
 * a capture renders from its own recording the outputs that need events.
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

#endif
