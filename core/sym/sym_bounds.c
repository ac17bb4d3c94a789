/*
 * What bounds the symbolizer's work, below everything else it does: the
 * deadline, the stop request, and the note of the last failure (-v).
 */
#include "core/sym/sym_state.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "core/base/clock.h"

void sym_note_failure(struct stk_symbolizer *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->stats.last_failure, sizeof(s->stats.last_failure), fmt, ap);
	va_end(ap);
}

/* Checked before each process or file is learned: the deadline and the stop request. */
bool sym_stopped(struct stk_symbolizer *s)
{
	if (s->stopped)
		return true;
	if (s->deadline_ns && stk_now_ns(CLOCK_MONOTONIC) >= s->deadline_ns) {
		s->stopped = true;
		sym_note_failure(s, "symbolization stopped at its deadline; the rest stays unresolved");
	} else if (s->stop_fn && s->stop_fn(s->stop_ctx)) {
		s->stopped = true;
		sym_note_failure(s, "symbolization stopped on request; the rest stays unresolved");
	}
	return s->stopped;
}
