#include "core/snapshot/bpf/snapshot_source.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/base/clock.h"
#include "core/base/grow.h"
#include "core/ladder/climb.h"
#include "core/snapshot/bpf/snap_iter.h"
#include "core/snapshot/frame_names.h"
#include "core/snapshot/snap_perf.h"
#include "core/snapshot/snap_proc.h"

/* Rounds of sampling running threads and taking racing ones again. */
#define MAX_ROUNDS 3

struct stk_snapper {
	struct stk_snap_request req;
	enum stk_snap_mech mech;
	struct stk_snap_rung rung;
	struct stk_frame_names *names;
	char tried[768];
	struct stk_snap again; /* a round's records */
	uint32_t *tids, *tgids;
	size_t *at;    /* where each pending thread's record is in the snapshot */
	bool *sampled; /* per pending thread: sampled, or taken again */
	size_t cap;
	size_t starved; /* the last round's threads on a CPU that were not given one to be sampled on */
	char perf_why[256];
};

static int open_rung(void *ctx, const struct stk_rung *r, char *why, size_t len)
{
	struct stk_snapper *s = ctx;
	const char *no;

	switch ((enum stk_snap_mech)r->id) {
	case STK_SNAP_TASK_ITER_COPY: {
		const struct stk_snap_iter_request ir = {
			.skip_tgid = s->req.self_tgid, .stack_bytes = s->req.stack_bytes,
			.btf_custom_path = s->req.btf_custom_path, .kernel_btf = s->req.kernel_btf,
		};
		return stk_snap_iter_open(&ir, &s->rung, why, len);
	}
	case STK_SNAP_PROC:
	case STK_SNAP_PTRACE:
		if (r->id == STK_SNAP_PTRACE && s->req.never_stop) {
			snprintf(why, len, "it stops threads, which this run must not");
			return -1;
		}
		if (r->id == STK_SNAP_PROC && (no = stk_snap_proc_usable("/proc"))) {
			snprintf(why, len, "%s", no);
			return -1;
		}
		s->rung.impl = stk_snap_proc_new("/proc", s->req.self_tgid, s->req.stack_bytes, s->names,
						 r->id == STK_SNAP_PTRACE);
		if (!s->rung.impl) {
			snprintf(why, len, "out of memory");
			return -1;
		}
		s->rung.take = stk_snap_proc_take;
		s->rung.free = stk_snap_proc_free;
		return 0;
	case STK_SNAP_MECH_COUNT:
		break;
	}
	snprintf(why, len, "unknown mechanism");
	return -1;
}

struct stk_snapper *stk_snapper_open(const struct stk_snap_request *req, char *err, size_t len)
{
	struct stk_snapper *s = calloc(1, sizeof(*s));

	if (!s || !(s->names = stk_frame_names_new())) {
		free(s);
		snprintf(err, len, "out of memory");
		return NULL;
	}
	s->req = *req;
	struct stk_climb c = {
		.cls = STK_ATTACH_THREAD_SNAPSHOT, .forced = req->forced, .forced_opt = "--mechanism",
		.attempt = open_rung, .ctx = s,
	};
	if (stk_climb_all(&c, "no mechanism can take thread snapshots here", err, len)) {
		stk_snapper_free(s);
		return NULL;
	}
	s->mech = (enum stk_snap_mech)c.chosen->id;
	snprintf(s->tried, sizeof(s->tried), "%s", c.tried);
	return s;
}

enum stk_snap_mech stk_snapper_mech(const struct stk_snapper *s)
{
	return s->mech;
}

const char *stk_snapper_mech_name(const struct stk_snapper *s)
{
	const struct stk_rung *r = stk_rung_by_id(STK_ATTACH_THREAD_SNAPSHOT, (int)s->mech);

	return r ? r->name : "?";
}

const char *stk_snapper_tried(const struct stk_snapper *s)
{
	return s->tried;
}

struct stk_frame_names *stk_snapper_names(struct stk_snapper *s)
{
	return s->names;
}

void stk_snapper_free(struct stk_snapper *s)
{
	if (!s)
		return;
	if (s->rung.free)
		s->rung.free(s->rung.impl);
	stk_snap_free(&s->again);
	stk_frame_names_free(s->names);
	free(s->tids);
	free(s->tgids);
	free(s->at);
	free(s->sampled);
	free(s);
}

static double ms_since(int64_t t0)
{
	return (double)(stk_now_ns(CLOCK_MONOTONIC) - t0) / 1e6;
}

/* The pending records (only those flagged with bits) into s->tids/tgids/at. Their count, or -1: no memory. */
static long collect_pending(struct stk_snapper *s, const struct stk_snap *out, uint32_t bits)
{
	size_t n = 0;

	if (s->cap < out->n) {
		/* four arrays of one capacity: each grows from it alike */
		size_t cap[4] = { s->cap, s->cap, s->cap, s->cap };

		if (stk_grow((void **)&s->tids, &cap[0], out->n, sizeof(*s->tids)) ||
		    stk_grow((void **)&s->tgids, &cap[1], out->n, sizeof(*s->tgids)) ||
		    stk_grow((void **)&s->at, &cap[2], out->n, sizeof(*s->at)) ||
		    stk_grow((void **)&s->sampled, &cap[3], out->n, sizeof(*s->sampled)))
			return -1;
		s->cap = cap[0];
	}
	for (size_t i = 0; i < out->n; i++) {
		if (!(out->threads[i].pending & bits))
			continue;
		s->tids[n] = out->threads[i].tid;
		s->tgids[n] = out->threads[i].tgid;
		s->at[n++] = i;
	}
	return (long)n;
}

/* Each record of s->again takes the place of its thread's pending record in out (s->sampled[j] set). */
static void replace_from_again(struct stk_snapper *s, struct stk_snap *out, size_t n_pending)
{
	for (size_t j = 0; j < n_pending; j++)
		s->sampled[j] = false;
	for (size_t k = 0; k < s->again.n; k++) {
		struct stk_snap_thread *t = &s->again.threads[k];

		for (size_t j = 0; j < n_pending; j++) {
			struct stk_snap_thread *old = &out->threads[s->at[j]];
			if (old->tid != t->tid || !old->pending)
				continue;
			if (!t->comm[0]) /* a perf sample names no thread */
				memcpy(t->comm, old->comm, sizeof(t->comm));
			t->kthread = t->kthread || old->kthread;
			stk_snap_thread_replace(old, t);
			s->sampled[j] = true;
			break;
		}
	}
	stk_snap_reset(&s->again);
}

/* Threads on a CPU, sampled as they run. */
static int sample_running(struct stk_snapper *s, struct stk_snap *out, struct stk_snap_stats *st)
{
	long n = collect_pending(s, out, STK_SNAP_RUNNING);
	char why[256];
	int got;

	if (n <= 0)
		return (int)n;
	got = stk_snap_perf_take(s->tids, s->tgids, (size_t)n, s->req.stack_bytes, s->req.running_ms, &s->again,
				 s->sampled, &s->starved, why, sizeof(why));
	if (got < 0) {
		snprintf(s->perf_why, sizeof(s->perf_why), "%s", why);
		st->perf_why = s->perf_why;
		return 0;
	}
	st->sampled_running += (size_t)got;
	replace_from_again(s, out, (size_t)n);
	return 0;
}

/* Threads still pending, taken again by the mechanism (a thread that blocked since can be copied now). */
static int take_again(struct stk_snapper *s, struct stk_snap *out, struct stk_snap_stats *st)
{
	long n = collect_pending(s, out, STK_SNAP_RUNNING | STK_SNAP_RACED);

	if (n <= 0)
		return (int)n;
	const struct stk_snap_want want = { .tids = s->tids, .n_tids = (size_t)n };
	if (s->rung.take(s->rung.impl, &want, &s->again))
		return -1;
	for (size_t k = 0; k < s->again.n; k++)
		if (!s->again.threads[k].pending)
			st->retaken++;
	replace_from_again(s, out, (size_t)n);
	/* Not there any more: it exited meanwhile. */
	for (size_t j = 0; j < (size_t)n; j++)
		if (!s->sampled[j])
			out->threads[s->at[j]].pending = STK_SNAP_GONE;
	return 0;
}

static bool gone(const struct stk_snap_thread *t, void *ctx)
{
	(void)ctx;
	return t->pending == STK_SNAP_GONE;
}

/* A record that stayed pending: what it shows of the user stack cannot be trusted, so it shows none. */
static void give_up(struct stk_snap_thread *t)
{
	if (t->pending & STK_SNAP_RUNNING)
		t->no_user = "it kept running and no sample of it came";
	else
		t->no_user = "it kept running while its stack was copied";
	t->has_regs = false;
	t->pending = 0;
}

int stk_snapper_take(struct stk_snapper *s, struct stk_snap *out, struct stk_snap_stats *st)
{
	int64_t t0 = stk_now_ns(CLOCK_MONOTONIC);

	memset(st, 0, sizeof(*st));
	stk_snap_reset(out);
	if (s->rung.take(s->rung.impl, &s->req.want, out))
		return -1;
	st->pass_ms = ms_since(t0);
	s->starved = 0;
	for (int round = 0;; round++) {
		long pending = collect_pending(s, out, STK_SNAP_RUNNING | STK_SNAP_RACED);

		if (pending < 0)
			return -1;
		if (!pending)
			break;
		/* Past the rounds, only a thread still waiting for a CPU is waited for, up to starved_ms in all. */
		if (round >= MAX_ROUNDS && !(s->starved && ms_since(t0) < (double)s->req.starved_ms))
			break;
		if (sample_running(s, out, st) || take_again(s, out, st))
			return -1;
	}
	stk_snap_filter(out, gone, NULL);
	st->starved = s->starved;
	for (size_t i = 0; i < out->n; i++) {
		if (out->threads[i].pending) {
			give_up(&out->threads[i]);
			st->unresolved++;
		}
	}
	st->threads = out->n;
	st->total_ms = ms_since(t0);
	return 0;
}
