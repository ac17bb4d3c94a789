#include "core/threads/bpf/threads_source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/stack/stack.h"
#include "core/sym/symbolize.h"
#include "core/ladder/mechanism.h"
#include "core/threads/threads_proc.h"

static const char *const names[STK_TSOURCE_COUNT] = {
	[STK_TSOURCE_ITER] = "task_iter",
	[STK_TSOURCE_TRACEPOINT] = "tracepoint_state",
	[STK_TSOURCE_PROC] = "proc",
};

struct stk_thread_sampler {
	enum stk_tsource kind;
	struct stk_tsource_impl impl;
	char tried[768];
};

const char *stk_tsource_name(enum stk_tsource s)
{
	return (unsigned)s < STK_TSOURCE_COUNT ? names[s] : "?";
}

int stk_tsource_from_name(const char *name, enum stk_tsource *s)
{
	for (int i = 0; i < STK_TSOURCE_COUNT; i++)
		if (strcmp(names[i], name) == 0) {
			*s = (enum stk_tsource)i;
			return 0;
		}
	return -1;
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

static int open_kind(enum stk_tsource k, const struct stk_tsource_request *req, struct stk_tsource_impl *out,
		     char *why, size_t len)
{
	switch (k) {
	case STK_TSOURCE_ITER: return stk_threads_iter_open(req, out, why, len);
	case STK_TSOURCE_TRACEPOINT: return stk_threads_tp_open(req, out, why, len);
	case STK_TSOURCE_PROC: return open_proc(req, out, why, len);
	case STK_TSOURCE_COUNT: break;
	}
	snprintf(why, len, "unknown source");
	return -1;
}

struct stk_thread_sampler *stk_tsource_open(const struct stk_tsource_request *req, char *err, size_t errlen)
{
	struct stk_thread_sampler *s = calloc(1, sizeof(*s));
	size_t n, used = 0;
	const struct stk_mechanism *order = stk_mechanisms_for(STK_ATTACH_THREAD_SAMPLING, &n);
	char why[384];

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		enum stk_tsource k;
		if (stk_tsource_from_name(order[i].name, &k))
			continue;
		if (req->forced >= 0 && (int)k != req->forced)
			continue;
		why[0] = '\0';
		if (open_kind(k, req, &s->impl, why, sizeof(why)) == 0) {
			s->kind = k;
			return s;
		}
		if (req->forced >= 0) {
			snprintf(err, errlen, "--source %s: not available here: %s", stk_tsource_name(k), why);
			free(s);
			return NULL;
		}
		int w = snprintf(s->tried + used, sizeof(s->tried) - used, "%s%s: %s", used ? "; " : "",
				 stk_tsource_name(k), why);
		if (w > 0 && (size_t)w < sizeof(s->tried) - used)
			used += (size_t)w;
	}
	snprintf(err, errlen, "no thread sampling source works here (%s)", s->tried);
	free(s);
	return NULL;
}

enum stk_tsource stk_tsource_kind(const struct stk_thread_sampler *s)
{
	return s->kind;
}

const char *stk_tsource_tried(const struct stk_thread_sampler *s)
{
	return s->tried;
}

static int64_t now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int stk_tsource_sample(struct stk_thread_sampler *s, struct stk_thread_batch *b)
{
	b->wall_ns = now_ns(CLOCK_REALTIME);
	b->mono_ns = now_ns(CLOCK_MONOTONIC);
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

char *stk_fold_addrs(struct stk_symbolizer *sym, uint32_t pid, const unsigned long long *addrs, size_t n, bool fold,
		     char *wchan, size_t wchan_len)
{
	const char *syms[128];
	size_t total = 0;

	if (n > 128)
		n = 128;
	for (size_t i = 0; i < n; i++) {
		struct stk_frame f = { 0 };
		if (pid)
			stk_symbolize_user(sym, (pid_t)pid, addrs[i], &f);
		else
			stk_symbolize_kernel(sym, addrs[i], &f);
		syms[i] = f.symbol ? f.symbol : "[unknown]";
		total += strlen(syms[i]) + 1;
	}
	if (wchan)
		snprintf(wchan, wchan_len, "%s", stk_wchan_from_frames(syms, n));
	if (!fold || !n)
		return NULL;
	char *folded = malloc(total), *p = folded;
	if (!folded)
		return NULL;
	for (size_t i = n; i-- > 0;) {
		size_t l = strlen(syms[i]);
		memcpy(p, syms[i], l);
		p += l;
		*p++ = i ? ';' : '\0';
	}
	return folded;
}
