/* Rows into a timeline: see timeline_build.h. */
#include "core/eventlog/timeline_build.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/grow.h"
#include "core/base/key_index.h"

/* What tells tracks apart: the thread, and in a recording of several kinds the kind (spans a track of their own). */
struct track_key {
	uint64_t thread; /* pid << 32 | tid */
	uint64_t track;  /* 0: the thread's only track; else the kind's index + 1 (spans: the kinds' count + 1) */
};

struct builder {
	struct stk_ev_timeline *t;
	const struct stk_ev_meta *meta;
	bool tracks;    /* a track per kind */
	struct track_key *keys; /* per track, in the order first seen */
	size_t cap_keys;
	struct stk_key_index by_thread;
	const struct stk_ev_filter *flt;
	int64_t first, last;
	char err[128];
};

/* The track of ev's kind: its index + 1, the kinds' count + 1 for spans (and events of no kind); 0 without tracks. */
static uint64_t track_of(const struct builder *b, const struct stk_ev_event *ev)
{
	if (!b->tracks)
		return 0;
	return ev->kind == UINT32_MAX ? b->meta->n_kinds + 1 : ev->kind + 1;
}

static struct stk_timeline_thread *thread_of(struct builder *b, const struct stk_ev_event *ev, uint32_t *index)
{
	struct stk_ev_timeline *t = b->t;
	struct track_key key = { (uint64_t)ev->pid << 32 | ev->tid, track_of(b, ev) };
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
	t->threads[n] = (struct stk_timeline_thread){ .pid = ev->pid, .tid = ev->tid, .track_id = (uint32_t)key.track };
	if (key.track && key.track <= b->meta->n_kinds) {
		t->threads[n].track = b->meta->kinds[key.track - 1].event;
		t->threads[n].sample_ns = b->meta->kinds[key.track - 1].sample_ns;
	} else if (key.track) {
		t->threads[n].track = "span";
	}
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
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	return a->track_id < b->track_id ? -1 : a->track_id > b->track_id;
}

int stk_ev_timeline_read(struct stk_ev_file *f, const struct stk_ev_filter *flt, struct stk_ev_timeline *out,
			 char *err, size_t err_len)
{
	const struct stk_ev_meta *m = stk_ev_meta(f);
	int type_of[STK_EV_MAX_KINDS];
	struct stk_value_type types[STK_EV_MAX_KINDS];
	struct builder b = { .t = out, .meta = m, .flt = flt, .first = INT64_MAX, .last = INT64_MIN,
			     .tracks = m->n_kinds > 1 && stk_ev_kinds_kept(m, flt, type_of, types) > 1,
			     .by_thread = { .key_size = sizeof(struct track_key), .stride = sizeof(struct track_key) } };
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
	for (size_t k = 0; m->n_kinds > 1 && !b.tracks && k < m->n_kinds; k++)
		if (type_of[k] == 0) /* the one kind kept */
			out->tl.sample_ns = m->kinds[k].sample_ns;
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
