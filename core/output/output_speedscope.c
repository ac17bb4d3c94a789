/*
 * speedscope's file format (its JSON schema, file-format-schema.json): one
 * frame table, and per thread a sampled profile (its samples in time order,
 * each weighted by the time it stands for, the innermost span as a root
 * frame) and an evented profile (off-CPU intervals with their wait stacks
 * and spans, opened and closed in nesting order), times in nanoseconds from
 * the window's start.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/output/output_formats.h"
#include "core/output/output_timeline.h"

#define SPAN_PREFIX "span "

struct frame_ref {
	const char *name;
	uint32_t *id; /* where the frame's index goes */
};

/* The JSON is written as it grows past this, so memory does not follow the recording. */
#define FLUSH_BYTES (1u << 20)

struct speedscope {
	FILE *out;
	struct stk_buf *b;
	bool write_failed;
	bool first_profile;
	const struct stk_timeline *tl;
	struct stk_tl_names names;
	uint32_t *name_frame;  /* per name of names */
	uint32_t *label_frame; /* per label: as an interval's name */
	uint32_t *span_frame;  /* per label: as a span ("span LABEL") */
	char *span_names;
	bool first_event;
};

static int cmp_refs(const void *a, const void *b)
{
	return strcmp(((const struct frame_ref *)a)->name, ((const struct frame_ref *)b)->name);
}

/* The shared frame table: every name once, in name order. */
static int build_frames(struct speedscope *ss)
{
	const struct stk_timeline *tl = ss->tl;
	size_t n_names = ss->names.first[tl->n_stacks], n = n_names + 2 * tl->n_labels, used = 0, span_len = 0;
	struct frame_ref *refs = calloc(n ? n : 1, sizeof(*refs));
	uint32_t id = 0;

	ss->name_frame = calloc(n_names + 1, sizeof(uint32_t));
	ss->label_frame = calloc(tl->n_labels + 1, sizeof(uint32_t));
	ss->span_frame = calloc(tl->n_labels + 1, sizeof(uint32_t));
	for (size_t i = 0; i < tl->n_labels; i++)
		span_len += sizeof(SPAN_PREFIX) + strlen(tl->labels[i]);
	ss->span_names = malloc(span_len + 1);
	if (!refs || !ss->name_frame || !ss->label_frame || !ss->span_frame || !ss->span_names) {
		free(refs);
		return -1;
	}
	for (size_t i = 0; i < n_names; i++)
		refs[i] = (struct frame_ref){ ss->names.text + ss->names.offset[i], &ss->name_frame[i] };
	for (size_t i = 0; i < tl->n_labels; i++) {
		char *s = ss->span_names + used;

		used += (size_t)sprintf(s, SPAN_PREFIX "%s", tl->labels[i]) + 1;
		refs[n_names + 2 * i] = (struct frame_ref){ tl->labels[i], &ss->label_frame[i] };
		refs[n_names + 2 * i + 1] = (struct frame_ref){ s, &ss->span_frame[i] };
	}
	qsort(refs, n, sizeof(*refs), cmp_refs);
	stk_buf_puts(ss->b, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"shared\":{\"frames\":[");
	for (size_t i = 0; i < n; i++) {
		if (i && strcmp(refs[i].name, refs[i - 1].name) != 0)
			id++;
		*refs[i].id = id;
		if (i && id == *refs[i - 1].id)
			continue;
		stk_buf_puts(ss->b, i ? ",{\"name\":" : "{\"name\":");
		stk_json_string(ss->b, refs[i].name);
		stk_buf_putc(ss->b, '}');
	}
	stk_buf_puts(ss->b, "]},\"profiles\":[");
	free(refs);
	return 0;
}

/* Writes what the buffer holds once it is large. */
static void maybe_flush(struct speedscope *ss)
{
	if (ss->b->len < FLUSH_BYTES || ss->b->oom)
		return;
	if (stk_write_all(ss->out, ss->b->data, ss->b->len))
		ss->write_failed = true;
	stk_buf_reset(ss->b);
}

static void profile_head(struct speedscope *ss, const struct stk_timeline_thread *t, const char *type,
			 const char *suffix, const char *unit, int64_t end)
{
	char name[160];

	snprintf(name, sizeof(name), "%.16s (%" PRIu32 "/%" PRIu32 ")%s%s%.40s%s", t->comm, t->pid, t->tid, suffix,
		 t->track ? " [" : "", t->track ? t->track : "", t->track ? "]" : "");
	if (!ss->first_profile)
		stk_buf_putc(ss->b, ',');
	ss->first_profile = false;
	stk_buf_printf(ss->b, "{\"type\":\"%s\",\"name\":", type);
	stk_json_string(ss->b, name);
	stk_buf_printf(ss->b, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":%" PRId64 ",", unit, end);
}

/* The thread's samples, each root first below its span. */
static void sampled_profile(struct speedscope *ss, const struct stk_timeline_thread *t)
{
	const struct stk_timeline *tl = ss->tl;
	int64_t sample_ns = stk_tl_sample_ns(tl, t);
	uint64_t scale = sample_ns > 0 ? (uint64_t)sample_ns : 1, total = 0;
	bool first = true;

	for (size_t i = 0; i < t->n_events; i++)
		if (t->events[i].kind == STK_TIMELINE_SAMPLE)
			total += t->events[i].weight * scale;
	profile_head(ss, t, "sampled", "", sample_ns > 0 ? "nanoseconds" : "none", (int64_t)total);
	stk_buf_puts(ss->b, "\"samples\":[");
	for (size_t i = 0; i < t->n_events; i++) {
		const struct stk_timeline_event *ev = &t->events[i];
		const char *sep = "";

		if (ev->kind != STK_TIMELINE_SAMPLE)
			continue;
		stk_buf_puts(ss->b, first ? "[" : ",[");
		first = false;
		if (ev->span != STK_TIMELINE_NONE) {
			stk_buf_printf(ss->b, "%" PRIu32, ss->span_frame[ev->span]);
			sep = ",";
		}
		for (size_t j = 0; j < stk_tl_depth(&ss->names, ev->stack); j++, sep = ",")
			stk_buf_printf(ss->b, "%s%" PRIu32, sep, ss->name_frame[ss->names.first[ev->stack] + j]);
		stk_buf_putc(ss->b, ']');
		maybe_flush(ss);
	}
	stk_buf_puts(ss->b, "],\"weights\":[");
	first = true;
	for (size_t i = 0; i < t->n_events; i++) {
		if (t->events[i].kind != STK_TIMELINE_SAMPLE)
			continue;
		stk_buf_printf(ss->b, "%s%" PRIu64, first ? "" : ",", t->events[i].weight * scale);
		first = false;
		maybe_flush(ss);
	}
	stk_buf_puts(ss->b, "]}");
}

static void evented(struct speedscope *ss, char type, uint32_t frame, int64_t at)
{
	stk_buf_printf(ss->b, "%s{\"type\":\"%c\",\"frame\":%" PRIu32 ",\"at\":%" PRId64 "}",
		       ss->first_event ? "" : ",", type, frame, at - ss->tl->start);
	ss->first_event = false;
	maybe_flush(ss);
}

static int open_item(void *ctx, const struct stk_timeline_event *ev, int64_t start)
{
	struct speedscope *ss = ctx;

	if (ev->kind == STK_TIMELINE_SPAN) {
		evented(ss, 'O', ss->span_frame[ev->label], start);
		return 0;
	}
	evented(ss, 'O', ss->label_frame[ev->label], start);
	for (size_t j = 0; j < stk_tl_depth(&ss->names, ev->stack); j++)
		evented(ss, 'O', ss->name_frame[ss->names.first[ev->stack] + j], start);
	return 0;
}

static int close_item(void *ctx, const struct stk_timeline_event *ev, int64_t end)
{
	struct speedscope *ss = ctx;

	if (ev->kind == STK_TIMELINE_SPAN) {
		evented(ss, 'C', ss->span_frame[ev->label], end);
		return 0;
	}
	for (size_t j = stk_tl_depth(&ss->names, ev->stack); j-- > 0;)
		evented(ss, 'C', ss->name_frame[ss->names.first[ev->stack] + j], end);
	evented(ss, 'C', ss->label_frame[ev->label], end);
	return 0;
}

static int evented_profile(struct speedscope *ss, const struct stk_timeline_thread *t, bool has_samples)
{
	const struct stk_tl_walk w = { .open = open_item, .close = close_item, .ctx = ss };

	profile_head(ss, t, "evented", has_samples ? " spans" : "", "nanoseconds", ss->tl->end - ss->tl->start);
	stk_buf_puts(ss->b, "\"events\":[");
	ss->first_event = true;
	if (stk_tl_walk_thread(t, &w))
		return -1;
	stk_buf_puts(ss->b, "]}");
	return 0;
}

int stk_output_speedscope(FILE *out, const struct stk_report *r, const struct stk_output_opts *o)
{
	const struct stk_timeline *tl = r->timeline;
	struct speedscope ss = { 0 };
	struct stk_buf b = { 0 };
	int ret = -1;

	if (!tl)
		return -1;
	ss.out = out;
	ss.b = &b;
	ss.tl = tl;
	ss.first_profile = true;
	if (stk_tl_names_build(&ss.names, tl, o) || build_frames(&ss))
		goto out;
	for (size_t i = 0; i < tl->n_threads; i++) {
		const struct stk_timeline_thread *t = &tl->threads[i];
		size_t samples = 0, others = 0;

		for (size_t j = 0; j < t->n_events; j++)
			*(t->events[j].kind == STK_TIMELINE_SAMPLE ? &samples : &others) += 1;
		if (samples)
			sampled_profile(&ss, t);
		if (others && evented_profile(&ss, t, samples > 0))
			goto out;
	}
	stk_buf_puts(&b, "],\"name\":");
	stk_json_string(&b, tl->title ? tl->title : "stk");
	stk_buf_puts(&b, ",\"activeProfileIndex\":0,\"exporter\":\"stk\"}\n");
	ret = b.oom || ss.write_failed ? -1 : stk_write_all(out, b.data, b.len);
out:
	stk_tl_names_free(&ss.names);
	free(ss.name_frame);
	free(ss.label_frame);
	free(ss.span_frame);
	free(ss.span_names);
	stk_buf_free(&b);
	return ret ? -1 : stk_finish_stream(out);
}
