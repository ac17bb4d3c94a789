/* Rendering a recording: see event_render.h. */
#include "core/eventlog/event_render.h"

#include <errno.h>
#include <string.h>

#include "core/eventlog/event_totals.h"
#include "core/eventlog/timeline_build.h"

/* The report's time and length: the capture's, or the part of it the window keeps. */
static void narrow(struct stk_report *r, const struct stk_ev_filter *flt)
{
	int64_t start = r->time_nanos, end = r->time_nanos + r->duration_nanos;

	if (flt->from != INT64_MIN && flt->from > start)
		start = flt->from;
	if (flt->to != INT64_MAX && flt->to < end)
		end = flt->to;
	r->time_nanos = start;
	r->duration_nanos = end > start ? end - start : 0;
}

/* A recording of several kinds narrowed by --event: the report's value types are the kinds kept (one: none). */
static void kinds_shown(struct stk_report *r, const struct stk_ev_meta *m, const struct stk_ev_filter *flt,
			struct stk_value_type *types)
{
	int type_of[STK_EV_MAX_KINDS];
	size_t n;

	if (m->n_kinds < 2)
		return;
	n = stk_ev_kinds_kept(m, flt, type_of, types);
	r->types = n > 1 ? types : NULL;
	r->n_types = n > 1 ? n : 0;
	if (n == 1) {
		r->value_type = types[0].type;
		r->value_unit = types[0].unit;
	}
}

static int write_report(FILE *out, const struct stk_report *report, const struct stk_ev_meta *m, enum stk_format format,
			char *err, size_t err_len)
{
	struct stk_output_opts opts = m->opts;

	opts.format = format;
	if (stk_output_write(out, report, &opts) || fflush(out)) {
		snprintf(err, err_len, "writing failed: %s", errno ? strerror(errno) : "out of memory");
		return STK_EV_RENDER_WRITE_FAILED;
	}
	return 0;
}

int stk_ev_render(int fd, const struct stk_ev_filter *flt, enum stk_format format, FILE *out, char *err,
		  size_t err_len)
{
	const struct stk_format_desc *desc = stk_format_desc(format);
	struct stk_ev_file *f = stk_ev_open(fd, err, err_len);
	struct stk_report report;
	struct stk_value_type types[STK_EV_MAX_KINDS];
	int ret = STK_EV_RENDER_BAD_INPUT;

	if (!f)
		return STK_EV_RENDER_BAD_INPUT;
	report = stk_ev_meta(f)->report;
	narrow(&report, flt);
	kinds_shown(&report, stk_ev_meta(f), flt, types);
	if (desc && desc->source == STK_FROM_TIMELINE) {
		struct stk_ev_filter with_spans = *flt;
		struct stk_ev_timeline tl;

		with_spans.with_spans = true;
		if (stk_ev_timeline_read(f, &with_spans, &tl, err, err_len) == 0) {
			report.timeline = &tl.tl;
			ret = write_report(out, &report, stk_ev_meta(f), format, err, err_len);
		}
		stk_ev_timeline_free(&tl);
	} else if (desc && desc->source == STK_FROM_TOTALS) {
		struct stk_ev_totals t;

		/* pprof carries each span as a sample label (span_labels); the others print stacks without them */
		if (stk_ev_totals_read(f, flt, desc->span_labels, &t, err, err_len) == 0) {
			report.stacks = t.stacks;
			report.n_stacks = t.n;
			ret = write_report(out, &report, stk_ev_meta(f), format, err, err_len);
		}
		stk_ev_totals_free(&t);
	} else {
		snprintf(err, err_len, "a recording is already Parquet");
	}
	stk_ev_close(f);
	return ret;
}
