/*
 * Which threads of a sample pass threadstate keeps, and what /proc adds to
 * them: the --cgroup's threads (read anew each pass), then either every
 * thread (-a, and stk record's state) or the active ones
 * (core/threads/thread_active.h), each kept thread's kernel stack folded
 * and its syscall, file, executable and user filled
 * (core/threads/thread_enrich.h).
 */
#ifndef STK_THREAD_SELECT_H
#define STK_THREAD_SELECT_H

#include <stdbool.h>

#include "core/threads/thread_sample.h"

struct stk_symbolizer;

struct stk_thread_select_opts {
	const char *cgroup;  /* a cgroup v2 or v1 directory (NULL: every thread); must outlive the selector */
	bool all;            /* keep sleeping threads too */
	bool kernel_stacks;  /* whole kernel stacks folded, not only the wchan frame */
};

struct stk_thread_selector;

/* NULL when out of memory; sym (names for BPF-taken kernel stacks) must outlive it. */
struct stk_thread_selector *stk_thread_selector_new(const struct stk_thread_select_opts *o, struct stk_symbolizer *sym);
/* Sets keep on b's threads and fills the kept ones. */
void stk_thread_select(struct stk_thread_selector *s, struct stk_thread_batch *b);
void stk_thread_selector_free(struct stk_thread_selector *s);

#endif
