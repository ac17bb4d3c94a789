/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The counting every stack applet's BPF side does per event: a per-CPU stat
 * slot bumped, a stack id taken with its losses counted, and a value added to
 * a per-CPU count map. Each program passes its own maps:
 * stats a PERCPU_ARRAY of u64, stacks a STACK_TRACE map, counts a PERCPU_HASH
 * of u64.
 */
#ifndef STK_STACK_COUNTING_H
#define STK_STACK_COUNTING_H

#include "bpf_errno.h"

static __always_inline void stk_stat_inc(void *stats, u32 slot)
{
	u64 *v = bpf_map_lookup_elem(stats, &slot);

	if (v)
		(*v)++;
}

/* bpf_get_stackid(), counting a hash collision or a full map in its stat slot. */
static __always_inline s32 stk_stack_id(void *ctx, void *stacks, u64 flags, void *stats, u32 collision_slot,
					u32 full_slot)
{
	s32 id = bpf_get_stackid(ctx, stacks, flags);

	if (id == -STK_EEXIST)
		stk_stat_inc(stats, collision_slot);
	else if (id == -STK_ENOMEM)
		stk_stat_inc(stats, full_slot);
	return id;
}

/*
 * Adds delta to key's count. 0: the key was counted before (the hot path);
 * 1: a new key; -1: no room for it (counted in full_slot).
 */
static __always_inline int stk_count_add(void *counts, const void *key, u64 delta, void *stats, u32 full_slot)
{
	u64 *n = bpf_map_lookup_elem(counts, key);

	if (n) {
		*n += delta;
		return 0;
	}
	if (bpf_map_update_elem(counts, key, &delta, BPF_NOEXIST) == 0)
		return 1;
	/* Lost unless another event inserted the same key meanwhile. */
	n = bpf_map_lookup_elem(counts, key);
	if (n) {
		*n += delta;
		return 0;
	}
	stk_stat_inc(stats, full_slot);
	return -1;
}

#endif
