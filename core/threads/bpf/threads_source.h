/*
 * Choosing threadstate's sampling source. Core owns the order (the thread
 * sampling list of core/ladder/mechanism.c: task_iter -> tracepoint_state -> proc):
 * each candidate is opened, loaded and attached for real and the first that
 * works is kept, so the choice is what the running kernel accepts.
 */
#ifndef STK_THREADS_SOURCE_H
#define STK_THREADS_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/threads/thread_sample.h"

enum stk_tsource {
	STK_TSOURCE_ITER,       /* "task_iter" */
	STK_TSOURCE_TRACEPOINT, /* "tracepoint_state" */
	STK_TSOURCE_PROC,       /* "proc" */
	STK_TSOURCE_COUNT,
};

const char *stk_tsource_name(enum stk_tsource s);
int stk_tsource_from_name(const char *name, enum stk_tsource *s);

struct stk_symbolizer;

struct stk_tsource_request {
	const uint32_t *pids; /* only these processes (n_pids 0: all) */
	size_t n_pids;
	uint32_t self_tgid;   /* left out: stk's own threads */
	bool kernel_stacks;   /* -k: whole kernel stacks, not only the wchan frame */
	bool user_stacks;     /* -u */
	bool all;             /* -a: every thread, not only those that may be active */
	bool syscall_time;    /* task_iter: hook sys_enter for the time in the current syscall */
	const char *btf_custom_path;
	bool kernel_btf;      /* the running kernel's BTF is available */
	int forced;           /* an enum stk_tsource to use or fail, -1: first that works */
	struct stk_symbolizer *sym; /* names for BPF-taken stacks (not owned) */
};

struct stk_thread_sampler;

/* NULL with err set when no source works (or the forced one does not). */
struct stk_thread_sampler *stk_tsource_open(const struct stk_tsource_request *req, char *err, size_t errlen);
enum stk_tsource stk_tsource_kind(const struct stk_thread_sampler *s);
/* Why earlier candidates were passed over ("" when the first worked). */
const char *stk_tsource_tried(const struct stk_thread_sampler *s);
/* One pass over the threads into b (b->wall_ns, b->mono_ns set). 0 or -1. */
int stk_tsource_sample(struct stk_thread_sampler *s, struct stk_thread_batch *b);
void stk_tsource_free(struct stk_thread_sampler *s);

/* Each source, behind the interface above. */
struct stk_tsource_impl {
	int (*sample)(void *impl, struct stk_thread_batch *b);
	void (*free)(void *impl);
	void *impl;
};
int stk_threads_iter_open(const struct stk_tsource_request *req, struct stk_tsource_impl *out, char *why,
			  size_t len);
int stk_threads_tp_open(const struct stk_tsource_request *req, struct stk_tsource_impl *out, char *why,
			size_t len);

/*
 * Folds addresses (leaf first) into "root;...;leaf" when fold (else NULL);
 * pid 0 means kernel addresses, whose wchan-like frame goes to wchan (may be NULL).
 */
char *stk_fold_addrs(struct stk_symbolizer *sym, uint32_t pid, const unsigned long long *addrs, size_t n, bool fold,
		     char *wchan, size_t wchan_len);

#endif
