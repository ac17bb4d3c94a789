/*
 * What every threadstate sampling source (task iterator, tracepoint state,
 * /proc) is opened with and how it is driven; core/threads/bpf/threads_source.c
 * picks one.
 */
#ifndef STK_THREAD_SOURCE_H
#define STK_THREAD_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/threads/thread_sample.h"

struct stk_symbolizer;
struct bpf_map;

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
	const char *forced;   /* --source: the rung to use or fail, or NULL: the first that works */
	struct stk_symbolizer *sym; /* names for BPF-taken stacks (not owned) */
	/*
	 * -u with --unwind dwarf (tracepoint_state): user stacks are captured at
	 * switch-out for unwinding above this layer, which names a sample's
	 * stack by its content hash through user_stack_by_hash (folded, malloc'd;
	 * NULL: not known yet). Samples with no buffer room take frame pointers
	 * (so do those before the reader exists: the source attaches first).
	 */
	bool user_dwarf;
	uint32_t stack_bytes;
	char *(*user_stack_by_hash)(void *ctx, uint32_t pid, uint64_t hash);
	void *user_stack_ctx;
	/*
	 * -u: the user stack (folded, malloc'd; NULL: none) of a thread that had
	 * no event since the source attached, blocked since before the capture
	 * (from a snapshot taken at start); NULL: no such stacks.
	 */
	char *(*user_stack_at_start)(void *ctx, uint32_t tid);
};

/* One source, behind the sampler: a pass over the threads, and its release. */
struct stk_tsource_impl {
	int (*sample)(void *impl, struct stk_thread_batch *b);
	void (*free)(void *impl);
	void *impl;
	/* user_dwarf: the perf buffer map of the samples, and the loss counters (bpf/stack_stats.h) */
	struct bpf_map *user_samples, *user_stats;
};

/*
 * Folds addresses (leaf first) into "root;...;leaf" when fold (else NULL);
 * pid 0 means kernel addresses, whose wchan-like frame goes to wchan (may be NULL).
 */
char *stk_fold_addrs(struct stk_symbolizer *sym, uint32_t pid, const unsigned long long *addrs, size_t n, bool fold,
		     char *wchan, size_t wchan_len);

#endif
