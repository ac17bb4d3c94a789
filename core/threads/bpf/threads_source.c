#include "core/threads/bpf/threads_source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/base/clock.h"
#include "core/stack/stack.h"
#include "core/sym/symbolize.h"
#include "core/ladder/climb.h"
#include "core/threads/bpf/threads_iter.h"
#include "core/threads/bpf/threads_tp.h"
#include "core/threads/threads_proc.h"

struct stk_thread_sampler {
	enum stk_tsource kind;
	struct stk_tsource_impl impl;
	char tried[768];
};

const char *stk_tsource_name(enum stk_tsource s)
{
	const struct stk_rung *r = stk_rung_by_id(STK_ATTACH_THREAD_SAMPLING, (int)s);

	return r ? r->name : "?";
}

int stk_tsource_from_name(const char *name, enum stk_tsource *s)
{
	const struct stk_rung *r = stk_rung_by_name(STK_ATTACH_THREAD_SAMPLING, name);

	if (!r)
		return -1;
	*s = (enum stk_tsource)r->id;
	return 0;
}

static int proc_sample(void *impl, struct stk_thread_batch *b)
{
	return stk_threads_proc_sample(impl, b);
}

static void proc_free(void *impl)
{
	stk_threads_proc_free(impl);
}

static int open_proc(const struct stk_tsource_request *req, struct stk_tsource_impl *out, char *why, size_t len)
{
	out->impl = stk_threads_proc_new("/proc", req->pids, req->n_pids, req->self_tgid);
	if (!out->impl) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	out->sample = proc_sample;
	out->free = proc_free;
	return 0;
}

struct open_ctx {
	const struct stk_tsource_request *req;
	struct stk_tsource_impl *out;
};

static int open_rung(void *ctx, const struct stk_rung *r, char *why, size_t len)
{
	const struct open_ctx *o = ctx;

	switch ((enum stk_tsource)r->id) {
	case STK_TSOURCE_ITER: return stk_threads_iter_open(o->req, o->out, why, len);
	case STK_TSOURCE_TRACEPOINT: return stk_threads_tp_open(o->req, o->out, why, len);
	case STK_TSOURCE_PROC: return open_proc(o->req, o->out, why, len);
	case STK_TSOURCE_COUNT: break;
	}
	snprintf(why, len, "unknown source");
	return -1;
}

struct stk_thread_sampler *stk_tsource_open(const struct stk_tsource_request *req, char *err, size_t errlen)
{
	struct stk_thread_sampler *s = calloc(1, sizeof(*s));

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	struct open_ctx o = { req, &s->impl };
	struct stk_climb c = {
		.cls = STK_ATTACH_THREAD_SAMPLING, .forced = req->forced, .forced_opt = "--source",
		.attempt = open_rung, .ctx = &o,
	};
	if (stk_climb_all(&c, "no thread sampling source works here", err, errlen)) {
		free(s);
		return NULL;
	}
	s->kind = (enum stk_tsource)c.chosen->id;
	snprintf(s->tried, sizeof(s->tried), "%s", c.tried);
	return s;
}

struct stk_thread_sampler *stk_tsource_open_in(const struct stk_tsource_request *req, struct stk_bpf *skel,
					       const char *program, char *err, size_t errlen)
{
	struct stk_thread_sampler *s = calloc(1, sizeof(*s));
	int ret;

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->kind = program ? STK_TSOURCE_ITER : STK_TSOURCE_PROC;
	ret = program ? stk_threads_iter_open_in(req, skel, program, &s->impl, err, errlen)
		      : open_proc(req, &s->impl, err, errlen);
	if (ret) {
		free(s);
		return NULL;
	}
	return s;
}

enum stk_tsource stk_tsource_kind(const struct stk_thread_sampler *s)
{
	return s->kind;
}

struct bpf_map *stk_tsource_user_samples(const struct stk_thread_sampler *s)
{
	return s->impl.user_samples;
}

struct bpf_map *stk_tsource_user_stats(const struct stk_thread_sampler *s)
{
	return s->impl.user_stats;
}

const char *stk_tsource_tried(const struct stk_thread_sampler *s)
{
	return s->tried;
}

int stk_tsource_sample(struct stk_thread_sampler *s, struct stk_thread_batch *b)
{
	b->wall_ns = stk_now_ns(CLOCK_REALTIME);
	b->mono_ns = stk_now_ns(CLOCK_MONOTONIC);
	return s->impl.sample(s->impl.impl, b);
}

void stk_tsource_free(struct stk_thread_sampler *s)
{
	if (!s)
		return;
	if (s->impl.free)
		s->impl.free(s->impl.impl);
	free(s);
}
