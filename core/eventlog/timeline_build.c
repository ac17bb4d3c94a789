/* Rows into a timeline: see timeline_build.h. */
#include "core/eventlog/timeline_build.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/grow.h"
#include "core/base/key_index.h"

struct builder {
	struct stk_ev_timeline *t;
	uint64_t *keys; /* per thread, in the order first seen: pid << 32 | tid */
	size_t cap_keys;
	struct stk_key_index by_thread;
	const struct stk_ev_filter *flt;
	int64_t first, last;
	char err[128];
};

static struct stk_timeline_thread *thread_of(struct builder *b, const struct stk_ev_event *ev, uint32_t *index)
{
	struct stk_ev_timeline *t = b->t;
	uint64_t key = (uint64_t)ev->pid << 32 | ev->tid;
	int64_t known = stk_key_index_find(&b->by_thread, b->keys, &key);
	size_t n = t->tl.n_threads;

	if (known >= 0) {
		*index = (uint32_t)known;
		return &t->threads[known];
	}
	if (stk_grow((void **)&t->threads, &t->cap_threads, n + 1, sizeof(*t->threads)) ||
	    stk_grow((void **)&t->per_thread, &t->cap_per_thread, n + 1, sizeof(*t->per_thread)) ||
	    stk_grow((void **)&b->keys, &b->cap_keys, n + 1, sizeof(*b->keys)))
		return NULL;
	b->keys[n] = key;
	if (stk_key_index_add(&b->by_thread, b->keys, n + 1))
		return NULL;
	t->threads[n] = (struct stk_timeline_thread){ .pid = ev->pid, .tid = ev->tid };
	t->per_thread[n] = (struct stk_ev_thread_events){ 0 };
	t->tl.n_threads = n + 1;
	*index = (uint32_t)n;
	return &t->threads[n];
}

/* An interval's name: the event and the thread's state ("offcpu S"). */
static uint32_t interval_label(struct builder *b, const struct stk_ev_event *ev)
{
	char name[80];

	snprintf(name, sizeof(name), ev->state ? "%s %c" : "%s", ev->event, ev->state);
	return stk_string_pool_id(b->t->labels, name, strlen(name));
}

/* 0, or 1 when out of memory or past the limit (ends the walk, err set). */
static int add_event(void *ctx, const struct stk_ev_event *ev)
{
	struct builder *b = ctx;
	struct stk_ev_timeline *t = b->t;
	struct stk_timeline_event e = { .time = ev->time, .weight = (uint64_t)ev->weight, .stack = ev->stack,
					.span = STK_TIMELINE_NONE };
	bool span_row = strcmp(ev->event, "span") == 0;
	struct stk_timeline_thread *th;
	uint32_t index;

	if (t->total >= STK_TIMELINE_MAX_EVENTS) {
		snprintf(b->err, sizeof(b->err), "more than %u events to draw: narrow with --from/--to, -p or -t",
			 STK_TIMELINE_MAX_EVENTS);
		return 1;
	}
	if (!(th = thread_of(b, ev, &index)))
		return 1;
	memcpy(th->comm, ev->comm, sizeof(th->comm));
	if (ev->interval) {
		const char *label = ev->span ? ev->span : "span";

		e.kind = span_row ? STK_TIMELINE_SPAN : STK_TIMELINE_INTERVAL;
		if (e.time < b->flt->from) /* the reader cut its length to the window already */
			e.time = b->flt->from;
		e.duration = ev->weight;
		e.label = span_row ? stk_string_pool_id(t->labels, label, strlen(label)) : interval_label(b, ev);
		if (e.label == STK_STRING_NONE)
			return 1;
	}
	if (!span_row && ev->span &&
	    (e.span = stk_string_pool_id(t->labels, ev->span, strlen(ev->span))) == STK_STRING_NONE)
		return 1;
	struct stk_ev_thread_events *pt = &t->per_thread[index];
	if (stk_grow((void **)&pt->events, &pt->cap, th->n_events + 1, sizeof(e)))
		return 1;
	pt->events[th->n_events++] = e;
	th->events = pt->events;
	t->total++;
	if (e.time < b->first)
		b->first = e.time;
	if (e.time + e.duration > b->last)
		b->last = e.time + e.duration;
	return 0;
}

static int cmp_events(const void *pa, const void *pb)
{
	const struct stk_timeline_event *a = pa, *b = pb;

	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	if (a->kind != b->kind) /* a span encloses what starts with it, an interval its samples */
		return a->kind > b->kind ? -1 : 1;
	if (a->duration != b->duration)
		return a->duration > b->duration ? -1 : 1;
	return 0;
}

static int cmp_threads(const void *pa, const void *pb)
{
	const struct stk_timeline_thread *a = pa, *b = pb;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

int stk_ev_timeline_read(struct stk_ev_file *f, const struct stk_ev_filter *flt, struct stk_ev_timeline *out,
			 char *err, size_t err_len)
{
	struct builder b = { .t = out, .flt = flt, .first = INT64_MAX, .last = INT64_MIN,
			     .by_thread = { .key_size = sizeof(uint64_t), .stride = sizeof(uint64_t) } };
	const struct stk_ev_meta *m = stk_ev_meta(f);
	int rc;

	*out = (struct stk_ev_timeline){ 0 };
	rc = (out->labels = stk_string_pool_new()) ? stk_ev_each(f, flt, add_event, &b, err, err_len) : 1;
	stk_key_index_free(&b.by_thread);
	free(b.keys);
	if (rc > 0)
		snprintf(err, err_len, "%s", b.err[0] ? b.err : "out of memory");
	if (rc == 0 && !(out->tl.stacks = stk_ev_stacks(f, &out->tl.n_stacks))) {
		snprintf(err, err_len, "out of memory");
		rc = -1;
	}
	if (rc)
		return -1;
	for (size_t i = 0; i < out->tl.n_threads; i++)
		qsort(out->per_thread[i].events, out->threads[i].n_events, sizeof(struct stk_timeline_event), cmp_events);
	/* each thread keeps its own events pointer: per_thread stays in the first-seen order */
	qsort(out->threads, out->tl.n_threads, sizeof(*out->threads), cmp_threads);
	out->tl.threads = out->threads;
	out->tl.labels = stk_string_pool_strings(out->labels);
	out->tl.n_labels = stk_string_pool_count(out->labels);
	out->tl.start = out->total ? (flt->from > b.first ? flt->from : b.first) : m->start;
	out->tl.end = out->total ? (flt->to < b.last ? flt->to : b.last) : m->start;
	if (out->tl.end < out->tl.start)
		out->tl.end = out->tl.start;
	out->tl.sample_ns = m->sample_ns;
	out->tl.title = m->report.title;
	return 0;
}

void stk_ev_timeline_free(struct stk_ev_timeline *t)
{
	for (size_t i = 0; i < t->tl.n_threads; i++)
		free(t->per_thread[i].events);
	free(t->per_thread);
	free(t->threads);
	stk_string_pool_free(t->labels);
	*t = (struct stk_ev_timeline){ 0 };
}
