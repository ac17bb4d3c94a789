/* Rendering a recording: see event_render.h. */
#include "core/eventlog/event_render.h"

#include <errno.h>
#include <stdlib.h>
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
	if (report->diff)
		opts.show_tid = false; /* a thread of one run is no thread of the other */
	if (stk_output_write(out, report, &opts) || fflush(out)) {
		snprintf(err, err_len, "writing failed: %s", errno ? strerror(errno) : "out of memory");
		return STK_EV_RENDER_WRITE_FAILED;
	}
	return 0;
}

/* src's files opened as one recording, its report fields narrowed to its filter. NULL with err. */
static struct stk_ev_file *open_source(struct stk_ev_source *src, struct stk_report *report,
				       struct stk_value_type *types, char *err, size_t err_len)
{
	struct stk_ev_file *f = stk_ev_open_many(src->fds, src->n, &src->bad, err, err_len);

	if (!f)
		return NULL;
	*report = stk_ev_meta(f)->report;
	narrow(report, src->flt);
	kinds_shown(report, stk_ev_meta(f), src->flt, types);
	return f;
}

int stk_ev_render_many(struct stk_ev_source *src, enum stk_format format, FILE *out, char *err, size_t err_len)
{
	const struct stk_format_desc *desc = stk_format_desc(format);
	struct stk_value_type types[STK_EV_MAX_KINDS];
	struct stk_report report;
	struct stk_ev_file *f = open_source(src, &report, types, err, err_len);
	int ret = STK_EV_RENDER_BAD_INPUT;

	if (!f)
		return STK_EV_RENDER_BAD_INPUT;
	if (desc && desc->source == STK_FROM_TIMELINE) {
		struct stk_ev_filter with_spans = *src->flt;
		struct stk_ev_timeline tl;

		with_spans.with_spans = true;
		if (stk_ev_timeline_read(f, &with_spans, &tl, err, err_len) == 0) {
			report.timeline = &tl.tl;
			src->shown = tl.tl.n_threads;
			ret = write_report(out, &report, stk_ev_meta(f), format, err, err_len);
		}
		stk_ev_timeline_free(&tl);
	} else if (desc && desc->source == STK_FROM_TOTALS) {
		struct stk_ev_totals t;

		/* pprof carries each span as a sample label (span_labels); the others print stacks without them */
		if (stk_ev_totals_read(f, src->flt, desc->span_labels, &t, err, err_len) == 0) {
			report.stacks = t.stacks;
			report.n_stacks = t.n;
			src->shown = t.n;
			ret = write_report(out, &report, stk_ev_meta(f), format, err, err_len);
		}
		stk_ev_totals_free(&t);
	} else {
		snprintf(err, err_len, "a recording is already Parquet");
	}
	stk_ev_close(f);
	return ret;
}

int stk_ev_render(int fd, const struct stk_ev_filter *flt, enum stk_format format, FILE *out, char *err,
		  size_t err_len)
{
	struct stk_ev_source src = { .fds = &fd, .n = 1, .flt = flt };

	return stk_ev_render_many(&src, format, out, err, err_len);
}

bool stk_ev_diff_format(enum stk_format format)
{
	return format == STK_FORMAT_FOLDED || format == STK_FORMAT_SVG || format == STK_FORMAT_PPROF;
}

/* The difference's value type of name, added when new: its index, or -1 past STK_EV_MAX_KINDS. */
static int diff_type(struct stk_value_type *types, size_t *n, struct stk_value_type t)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp(types[i].type, t.type) == 0)
			return (int)i;
	if (*n == STK_EV_MAX_KINDS)
		return -1;
	types[*n] = t;
	return (int)(*n)++;
}

/* One side's totals into the difference's stacks (its value, or as base), their types the difference's. */
static int add_side(struct stk_stack **all, size_t *n, const struct stk_ev_totals *t, const struct stk_report *side,
		    struct stk_value_type *types, size_t *n_types, bool is_base)
{
	struct stk_stack *grown = realloc(*all, (*n + t->n + 1) * sizeof(**all));

	if (!grown)
		return -1;
	*all = grown;
	for (size_t i = 0; i < t->n; i++) {
		struct stk_stack s = t->stacks[i];
		int type = diff_type(types, n_types, stk_report_type(side, s.type));

		if (type < 0)
			continue;
		s.type = (uint32_t)type;
		s.base = is_base ? s.value : 0;
		s.value = is_base ? 0 : s.value;
		s.span = NULL;
		grown[(*n)++] = s;
	}
	return 0;
}

int stk_ev_render_diff(struct stk_ev_source *base, struct stk_ev_source *now, enum stk_format format, FILE *out,
		       char *err, size_t err_len)
{
	struct stk_value_type types_base[STK_EV_MAX_KINDS], types_now[STK_EV_MAX_KINDS], types[STK_EV_MAX_KINDS];
	struct stk_report rb, rn, report;
	struct stk_ev_totals tb = { 0 }, tn = { 0 };
	struct stk_ev_file *fb = NULL, *fn = NULL;
	struct stk_stack *all = NULL;
	size_t n = 0, n_types = 0;
	int ret = STK_EV_RENDER_BAD_INPUT;

	if (!stk_ev_diff_format(format)) {
		snprintf(err, err_len, "a difference is drawn as folded, svg or pprof");
		return STK_EV_RENDER_BAD_INPUT;
	}
	if (!(fb = open_source(base, &rb, types_base, err, err_len)) || stk_ev_totals_read(fb, base->flt, false, &tb, err, err_len))
		goto out;
	if (!(fn = open_source(now, &rn, types_now, err, err_len)) || stk_ev_totals_read(fn, now->flt, false, &tn, err, err_len))
		goto out;
	base->shown = tb.n;
	now->shown = tn.n;
	/* now's value types first, then any only the base has */
	if (add_side(&all, &n, &tn, &rn, types, &n_types, false) || add_side(&all, &n, &tb, &rb, types, &n_types, true)) {
		snprintf(err, err_len, "out of memory");
		ret = STK_EV_RENDER_WRITE_FAILED;
		goto out;
	}
	report = rn;
	report.stacks = all;
	report.n_stacks = n;
	report.types = n_types > 1 ? types : NULL;
	report.n_types = n_types > 1 ? n_types : 0;
	if (n_types == 1) {
		report.value_type = types[0].type;
		report.value_unit = types[0].unit;
	}
	report.diff = true;
	ret = write_report(out, &report, stk_ev_meta(fn), format, err, err_len);
out:
	free(all);
	stk_ev_totals_free(&tb);
	stk_ev_totals_free(&tn);
	stk_ev_close(fb);
	stk_ev_close(fn);
	return ret;
}
