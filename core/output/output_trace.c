/*
 * The Chrome Trace Event Format (JSON; Perfetto and chrome://tracing open
 * it): process and thread names as metadata events, and per thread begin
 * and end events (ph B/E) that nest: a run of samples sharing a stack
 * prefix becomes one slice per shared frame (each sample stands for
 * timeline.sample_ns), off-CPU intervals are slices named by their state
 * with their wait stack inside, spans enclose what happened in them.
 * Samples of no length (probe hits) are instant events with their stack.
 * Times are microseconds from the window's start (otherData.start_ns says
 * when that was).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/grow.h"
#include "core/output/output_formats.h"
#include "core/output/output_timeline.h"

#define FLUSH_BYTES (1u << 20)

struct trace {
	FILE *out;
	struct stk_buf *b;
	bool write_failed;
	const struct stk_timeline *tl;
	const struct stk_timeline_thread *t;
	struct stk_tl_names names;
	const char **open; /* the sample slices open now, root first */
	size_t n_open, cap_open;
	int64_t run_end;   /* when the last sample's time runs out */
};

static void maybe_flush(struct trace *tr)
{
	if (tr->b->len < FLUSH_BYTES || tr->b->oom)
		return;
	if (stk_write_all(tr->out, tr->b->data, tr->b->len))
		tr->write_failed = true;
	stk_buf_reset(tr->b);
}

/* The tid a track is shown as: the thread's, a kind's track numbered in the top byte. */
static uint32_t track_tid(const struct stk_timeline_thread *t)
{
	return t->track_id ? t->tid | t->track_id << 24 : t->tid;
}

static void event_head(struct trace *tr, char ph, int64_t at)
{
	stk_buf_printf(tr->b, ",\n{\"ph\":\"%c\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32 ",\"ts\":", ph, tr->t->pid,
		       track_tid(tr->t));
	stk_json_us(tr->b, at - tr->tl->start);
}

static void begin(struct trace *tr, const char *name, const char *cat, int64_t at)
{
	event_head(tr, 'B', at);
	stk_buf_printf(tr->b, ",\"cat\":\"%s\",\"name\":", cat);
	stk_json_string(tr->b, name);
	stk_buf_putc(tr->b, '}');
	maybe_flush(tr);
}

static void end(struct trace *tr, int64_t at)
{
	event_head(tr, 'E', at);
	stk_buf_putc(tr->b, '}');
	maybe_flush(tr);
}

/* Ends the sample slices from depth keep on, at t (no later than the run's end). */
static void close_samples(struct trace *tr, size_t keep, int64_t t)
{
	if (t > tr->run_end)
		t = tr->run_end;
	while (tr->n_open > keep) {
		tr->n_open--;
		end(tr, t);
	}
}

/* A probe hit: an instant event named by its leaf, its whole stack in args. */
static void instant(struct trace *tr, const struct stk_timeline_event *ev)
{
	size_t d = stk_tl_depth(&tr->names, ev->stack);

	event_head(tr, 'i', ev->time);
	stk_buf_puts(tr->b, ",\"s\":\"t\",\"cat\":\"event\",\"name\":");
	stk_json_string(tr->b, d ? stk_tl_name(&tr->names, ev->stack, d - 1) : "event");
	stk_buf_puts(tr->b, ",\"args\":{\"stack\":\"");
	for (size_t j = 0; j < d; j++) {
		struct stk_buf one = { 0 };

		stk_json_string(&one, stk_tl_name(&tr->names, ev->stack, j));
		if (one.len >= 2) /* without its quotes */
			stk_buf_putn(tr->b, stk_buf_str(&one) + 1, one.len - 2);
		stk_buf_free(&one);
		if (j + 1 < d)
			stk_buf_putc(tr->b, ';');
	}
	stk_buf_puts(tr->b, "\"}}");
	maybe_flush(tr);
}

static int sample(void *ctx, const struct stk_timeline_event *ev)
{
	struct trace *tr = ctx;
	size_t d = stk_tl_depth(&tr->names, ev->stack), same = 0;

	int64_t sample_ns = stk_tl_sample_ns(tr->tl, tr->t);

	if (sample_ns <= 0) {
		instant(tr, ev);
		return 0;
	}
	/* a gap of more than half a sample ends the run */
	if (ev->time > tr->run_end + sample_ns / 2)
		close_samples(tr, 0, tr->run_end);
	while (same < tr->n_open && same < d && strcmp(tr->open[same], stk_tl_name(&tr->names, ev->stack, same)) == 0)
		same++;
	close_samples(tr, same, ev->time);
	if (stk_grow((void **)&tr->open, &tr->cap_open, d, sizeof(*tr->open)))
		return -1;
	for (size_t j = same; j < d; j++) {
		tr->open[tr->n_open++] = stk_tl_name(&tr->names, ev->stack, j);
		begin(tr, tr->open[j], "cpu", ev->time);
	}
	tr->run_end = ev->time + sample_ns;
	return 0;
}

static int open_item(void *ctx, const struct stk_timeline_event *ev, int64_t start)
{
	struct trace *tr = ctx;

	close_samples(tr, 0, start);
	if (ev->kind == STK_TIMELINE_SPAN) {
		begin(tr, tr->tl->labels[ev->label], "span", start);
		return 0;
	}
	begin(tr, tr->tl->labels[ev->label], "offcpu", start);
	for (size_t j = 0; j < stk_tl_depth(&tr->names, ev->stack); j++)
		begin(tr, stk_tl_name(&tr->names, ev->stack, j), "offcpu", start);
	return 0;
}

static int close_item(void *ctx, const struct stk_timeline_event *ev, int64_t at)
{
	struct trace *tr = ctx;

	close_samples(tr, 0, at);
	for (size_t j = 0; ev->kind != STK_TIMELINE_SPAN && j < stk_tl_depth(&tr->names, ev->stack); j++)
		end(tr, at);
	end(tr, at);
	return 0;
}

/* Names of the process (at its first thread) and the thread. */
static void thread_names(struct trace *tr, bool first_of_process)
{
	char name[16 + 48];

	snprintf(name, sizeof(name), "%.16s", tr->t->comm);
	if (first_of_process) {
		stk_buf_printf(tr->b, ",\n{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32
			       ",\"args\":{\"name\":", tr->t->pid, tr->t->pid);
		stk_json_string(tr->b, name);
		stk_buf_puts(tr->b, "}}");
	}
	stk_buf_printf(tr->b, ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32
		       ",\"args\":{\"name\":", tr->t->pid, track_tid(tr->t));
	if (tr->t->track)
		snprintf(name, sizeof(name), "%.16s [%.40s]", tr->t->comm, tr->t->track);
	stk_json_string(tr->b, name);
	stk_buf_puts(tr->b, "}}");
}

int stk_output_trace(FILE *out, const struct stk_report *r, const struct stk_output_opts *o)
{
	const struct stk_timeline *tl = r->timeline;
	struct trace tr = { .out = out, .tl = tl };
	const struct stk_tl_walk w = { .open = open_item, .close = close_item, .sample = sample, .ctx = &tr };
	struct stk_buf b = { 0 };
	int ret = -1;

	if (!tl)
		return -1;
	tr.b = &b;
	if (stk_tl_names_build(&tr.names, tl, o))
		goto out;
	stk_buf_printf(&b, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"start_ns\":\"%" PRId64 "\",\"title\":", tl->start);
	stk_json_string(&b, tl->title ? tl->title : "stk");
	stk_buf_puts(&b, "},\"traceEvents\":[\n{\"ph\":\"M\",\"name\":\"stk\",\"pid\":0,\"tid\":0,\"args\":{}}");
	for (size_t i = 0; i < tl->n_threads; i++) {
		tr.t = &tl->threads[i];
		thread_names(&tr, i == 0 || tl->threads[i - 1].pid != tr.t->pid);
		tr.n_open = 0;
		tr.run_end = INT64_MIN / 2;
		if (stk_tl_walk_thread(tr.t, &w))
			goto out;
		close_samples(&tr, 0, tr.run_end);
	}
	stk_buf_puts(&b, "\n]}\n");
	ret = b.oom || tr.write_failed ? -1 : stk_write_all(out, b.data, b.len);
out:
	stk_tl_names_free(&tr.names);
	free(tr.open);
	stk_buf_free(&b);
	return ret ? -1 : stk_finish_stream(out);
}
