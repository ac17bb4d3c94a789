/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The steps every stack applet's programs share (profile, offcputime,
 * stackcount, resources), over the shared maps of bpf/stack_maps.h: which
 * threads count, taking a stack by the program's rung into a struct
 * stk_stack_ref (the kernel unwinder's chains, else a hashed stack copy,
 * else frame pointers: each rung falls back to the next), adding a weight
 * under it, and sending it as an event.
 */
#ifndef STK_STACK_TAKE_H
#define STK_STACK_TAKE_H

#include "stack_maps.h"
#include "stack_counting.h"
#include "stack_capture.h"
#include "announce_process.h"
#include "unwind_walk.h"
#include "event_log.h"

/* How a program takes stacks: the --unwind rung it was built for (one program per rung). */
enum stk_take_mode { STK_TAKE_FP, STK_TAKE_DWARF, STK_TAKE_CFI };

/* Whether a thread (the current one) counts: never stk itself (when self_tgid is set), and -p / -t / --cgroup. */
static __always_inline bool stk_thread_wanted(const struct stk_stack_config *cfg, u32 tgid, u32 tid)
{
	if (cfg->self_tgid && tgid == cfg->self_tgid)
		return false;
	if (cfg->filter_pids && !bpf_map_lookup_elem(&stk_pids, &tgid))
		return false;
	if (cfg->filter_tids && !bpf_map_lookup_elem(&stk_tids, &tid))
		return false;
	return !cfg->filter_cgroup || bpf_current_task_under_cgroup(&stk_cgroup, 0) == 1;
}

/* The task part of ref for the current thread (tgid, tid as the counts keep it, comm) and the configuration's type. */
static __always_inline void stk_ref_task(const struct stk_stack_config *cfg, struct stk_stack_ref *ref, u32 tgid,
					 u32 tid)
{
	ref->type = (u16)cfg->type;
	ref->tgid = tgid;
	ref->tid = cfg->per_thread ? tid : 0;
	bpf_get_current_comm(&ref->comm, sizeof(ref->comm));
}

/* Frame-pointer stack ids into ref, their losses counted. */
static __always_inline void stk_take_fp(void *ctx, struct stk_stack_ref *ref, bool kernel, bool user)
{
	if (kernel)
		ref->kernel_stack_id = stk_stack_id(ctx, &stk_stacks, 0, &stk_stats, STK_STAT_KSTACK_COLLISION,
						    STK_STAT_KSTACK_FULL);
	if (user)
		ref->user_stack_id = stk_stack_id(ctx, &stk_stacks, BPF_F_USER_STACK, &stk_stats,
						  STK_STAT_USTACK_COLLISION, STK_STAT_USTACK_FULL);
}

/*
 * The kernel unwinder's chains into ref (cfi). false when the stack must be
 * taken by a copy instead: the process has no tables yet, or no room was
 * left to keep a chain. user_ctx: the event's registers when they may be
 * user mode (perf_event, uprobe), else NULL. blocking: the thread is
 * switching out on its own kernel stack, where its kernel chain may be
 * the one it was kept with (bpf/kernel_memo.h).
 */
static __always_inline bool stk_take_chains_at(void *ctx, const struct stk_stack_config *cfg, struct stk_stack_ref *ref,
					       stk_uregs_t *user_ctx, bool kernel, bool user, const bool blocking)
{
	if (user) {
		int res = stk_unwind_user_chain(ctx, user_ctx, ref->tgid, cfg->max_depth, &ref->user_chain);

		if (res == STK_WALK_NO_USER)
			ref->user_stack_id = -STK_EFAULT;
		else if (res != STK_WALK_DONE)
			return false;
	}
	if (!kernel)
		return true;
	if (blocking)
		return stk_unwind_kernel_chain_kept(ctx, &ref->kernel_chain, &ref->kernel_stack_id);
	return stk_unwind_kernel_chain(ctx, &ref->kernel_chain, &ref->kernel_stack_id);
}

static __always_inline bool stk_take_chains(void *ctx, const struct stk_stack_config *cfg, struct stk_stack_ref *ref,
					    stk_uregs_t *user_ctx, bool kernel, bool user)
{
	return stk_take_chains_at(ctx, cfg, ref, user_ctx, kernel, user, false);
}

/* A hashed stack copy of the current thread, sent once per content: its hash, or 0 (no buffer room). */
static __always_inline u64 stk_take_copy(void *ctx, const struct stk_stack_config *cfg, u32 tgid, u32 tid,
					 stk_uregs_t *user_ctx, bool kernel, bool user)
{
	return stk_capture_hashed(ctx, &stk_scratch, &stk_samples, &stk_sent, &stk_stats, tgid, tid, kernel, user,
				  user_ctx, cfg->stack_bytes);
}

/*
 * The current thread's stacks into ref by mode: chains (cfi), else a hashed
 * copy (dwarf, and cfi without tables), else frame pointers (fp, and copies
 * the buffer had no room for). kernel, user: which stacks to take. ref->tgid
 * must be set. blocking: as stk_take_chains_at.
 */
static __always_inline void stk_take_stacks_at(void *ctx, const struct stk_stack_config *cfg, struct stk_stack_ref *ref,
					       u32 tid, stk_uregs_t *user_ctx, bool kernel, bool user, const int mode,
					       const bool blocking)
{
	ref->kernel_stack_id = -1;
	ref->user_stack_id = -1;
	if (mode == STK_TAKE_CFI && stk_take_chains_at(ctx, cfg, ref, user_ctx, kernel, user, blocking))
		return;
	ref->kernel_chain = 0;
	ref->user_chain = 0;
	ref->kernel_stack_id = -1;
	ref->user_stack_id = -1;
	if (mode != STK_TAKE_FP && (ref->copy = stk_take_copy(ctx, cfg, ref->tgid, tid, user_ctx, kernel, user)))
		return;
	stk_take_fp(ctx, ref, kernel, user);
}

static __always_inline void stk_take_stacks(void *ctx, const struct stk_stack_config *cfg, struct stk_stack_ref *ref,
					    u32 tid, stk_uregs_t *user_ctx, bool kernel, bool user, const int mode)
{
	stk_take_stacks_at(ctx, cfg, ref, tid, user_ctx, kernel, user, mode, false);
}

/* Adds weight under ref. A new key may mean a new process (or one that exec'd): announced. */
static __always_inline void stk_count(void *ctx, const struct stk_stack_ref *ref, u64 weight)
{
	if (stk_count_add(&stk_counts, ref, weight, &stk_stats, STK_STAT_COUNTS_FULL) != 1)
		return;
	if (stk_announce_process(ctx, &stk_seen, &stk_new_process, ref->tgid, ref->comm))
		stk_stat_inc(&stk_stats, STK_STAT_NEW_PROCESS_LOST);
}

#endif
