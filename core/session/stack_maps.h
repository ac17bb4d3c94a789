/*
 * The maps every stack applet sizes and fills the same way: the stack map
 * (entries and frames per entry from --stack-storage-size and
 * --perf-max-stack-depth), the count map, and the -p / thread filter maps.
 */
#ifndef STK_STACK_MAPS_H
#define STK_STACK_MAPS_H

#include "core/options/stack_opts.h"

struct bpf_map;

struct stk_stack_maps {
	struct bpf_map *stacks, *counts;
	struct bpf_map *pids, *tids; /* NULL when the applet has no such filter */
	struct bpf_map *scratch;     /* stack copies: a per-CPU sample buffer (an entry per CPU), or NULL */
	unsigned counts_size;
};

/* Before load. 0, or -1 with errno. */
int stk_stack_maps_size(const struct stk_stack_maps *m, const struct stk_stack_opts *o);
/* After load: every -p PID and thread id into its filter map. 0, or -1 with errno. */
int stk_stack_maps_fill_targets(const struct stk_stack_maps *m, const struct stk_stack_opts *o);

#endif
