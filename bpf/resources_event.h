/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every stk resources program does with an event, whatever its source:
 * the thread it happened in passes the filters (never stk itself), every
 * Nth is taken, its stacks are taken by the program's --unwind rung (the
 * kernel unwinder's chains, a hashed stack copy, frame pointers; each falls
 * back to the next as offcputime's do) and its weight is added under
 * (task, kind, detail, stacks) in res_counts.
 */
#ifndef STK_RESOURCES_EVENT_H
#define STK_RESOURCES_EVENT_H

#include <bpf/bpf_core_read.h>
#include "resources_maps.h"
#include "announce_process.h"
#include "stack_counting.h"
#include "stack_capture.h"
#include "unwind_walk.h"

#define STK_PF_IO_WORKER 0x00000010

/* How a program takes stacks: the --unwind rung it was built for. */
enum stk_res_mode { RES_FP, RES_DWARF, RES_CFI };

/* One program per rung: NAME (frame pointers), NAME_dwarf and NAME_cfi, each calling FN(ctx, mode). */
#define STK_RES_PROGRAMS(SECTION, NAME, CTX, FN)                                 \
	SEC(SECTION) int NAME(CTX ctx) { return FN(ctx, RES_FP); }               \
	SEC(SECTION) int NAME##_dwarf(CTX ctx) { return FN(ctx, RES_DWARF); }    \
	SEC(SECTION) int NAME##_cfi(CTX ctx) { return FN(ctx, RES_CFI); }

static __always_inline const struct stk_res_config *stk_res_config_get(void)
{
	u32 zero = 0;

	return bpf_map_lookup_elem(&res_config, &zero);
}

static __always_inline void stk_res_fact(u32 slot)
{
	stk_stat_inc(&res_facts, slot);
}

/* Kernel memory (a tracepoint record, a kernel structure), by the helper this kernel has. */
static __always_inline long stk_res_read(void *dst, u32 size, const void *src)
{
	if (bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_probe_read_kernel))
		return bpf_probe_read_kernel(dst, size, src);
	return bpf_probe_read(dst, size, src);
}

/* A kernel thread, an io_uring worker, or a user thread (also where BTF cannot tell). */
static __always_inline u32 stk_res_who(void)
{
	struct task_struct *task = (void *)bpf_get_current_task();
	unsigned int flags;

	if (!bpf_core_field_exists(task->flags))
		return STK_RES_WHO_USER;
	flags = BPF_CORE_READ(task, flags);
	if (flags & STK_PF_KTHREAD)
		return STK_RES_WHO_KTHREAD;
	return flags & STK_PF_IO_WORKER ? STK_RES_WHO_IO_WORKER : STK_RES_WHO_USER;
}

/*
 * Whether the current thread is one to count (-p, -t, never stk itself);
 * fills key's task part. *tid: the thread, for the stack copy.
 */
static __always_inline bool stk_res_task(const struct stk_res_config *cfg, struct stk_res_key *key, u32 *tid)
{
	u64 id = bpf_get_current_pid_tgid();
	u32 tgid = id >> 32;

	*tid = (u32)id;
	if (*tid == 0) /* the idle task: interrupts' work, no thread's */
		return false;
	if (cfg->self_tgid && tgid == cfg->self_tgid)
		return false;
	if (cfg->filter_pids && !bpf_map_lookup_elem(&res_pids, &tgid))
		return false;
	if (cfg->filter_tids && !bpf_map_lookup_elem(&res_tids, tid))
		return false;
	key->tgid = tgid;
	key->tid = cfg->per_thread ? *tid : 0;
	bpf_get_current_comm(&key->comm, sizeof(key->comm));
	key->who = stk_res_who();
	return true;
}

/*
 * Every Nth of kind: read by constant indexes, as a kind in a register may
 * reach the verifier without its bounds (spilled and reloaded as 32 bits).
 */
static __always_inline u32 stk_res_every(const struct stk_res_config *cfg, u32 kind)
{
	switch (kind) {
	case STK_RES_RSS: return cfg->every[STK_RES_RSS];
	case STK_RES_FAULTS: return cfg->every[STK_RES_FAULTS];
	case STK_RES_BLOCK: return cfg->every[STK_RES_BLOCK];
	case STK_RES_BLOCK_TIME: return cfg->every[STK_RES_BLOCK_TIME];
	case STK_RES_READ: return cfg->every[STK_RES_READ];
	case STK_RES_WRITE: return cfg->every[STK_RES_WRITE];
	case STK_RES_SEND: return cfg->every[STK_RES_SEND];
	case STK_RES_RECV: return cfg->every[STK_RES_RECV];
	}
	return 1;
}

/* Every Nth event of kind (a per-CPU count); true when this one is taken. */
static __always_inline bool stk_res_sampled(const struct stk_res_config *cfg, u32 kind)
{
	u32 every = stk_res_every(cfg, kind);
	u64 *n;

	if (every <= 1)
		return true;
	n = bpf_map_lookup_elem(&res_every, &kind);
	if (!n)
		return true;
	return ++*n % every == 0;
}

/* The weight of one taken event: times N when every Nth is taken. */
static __always_inline u64 stk_res_scaled(const struct stk_res_config *cfg, u32 kind, u64 weight)
{
	u32 every = stk_res_every(cfg, kind);

	return every > 1 ? weight * every : weight;
}

/* Frame-pointer stacks (--unwind fp, and copies with no room in the buffer). */
static __always_inline void stk_res_stacks_fp(void *ctx, struct stk_res_key *key, bool kern, bool user)
{
	if (kern)
		key->kernel_stack_id = stk_stack_id(ctx, &res_stacks, 0, &res_stats, STK_STAT_KSTACK_COLLISION,
						    STK_STAT_KSTACK_FULL);
	if (user)
		key->user_stack_id = stk_stack_id(ctx, &res_stacks, BPF_F_USER_STACK, &res_stats,
						  STK_STAT_USTACK_COLLISION, STK_STAT_USTACK_FULL);
}

/* What the taking of stacks needs besides ctx and key, in one argument (BPF functions take five). */
#define STK_RES_TAKE_KERNEL (1ULL << 32)
#define STK_RES_TAKE_USER (1ULL << 33)

/*
 * A hashed stack copy (--unwind dwarf, and cfi's processes without tables
 * yet). A function of its own, not inlined: every program of a file calls
 * the one copy (the capture is most of a program's size). take: the
 * thread id, STK_RES_TAKE_KERNEL, STK_RES_TAKE_USER.
 */
static __noinline void stk_res_stacks_copy(void *ctx, struct stk_res_key *key, stk_uregs_t *user_ctx, u64 take)
{
	const struct stk_res_config *cfg = stk_res_config_get();
	bool kern = take & STK_RES_TAKE_KERNEL, user = take & STK_RES_TAKE_USER;

	if (!cfg)
		return;
	key->content_hash = stk_capture_hashed(ctx, &res_scratch, &res_samples, &res_sent, &res_stats, key->tgid,
					       (u32)take, kern, user, user_ctx, cfg->stack_bytes);
	if (!key->content_hash)
		stk_res_stacks_fp(ctx, key, kern, user);
}

/* The kernel unwinder's chains (--unwind cfi), else the copy. Not inlined, as above. */
static __noinline void stk_res_stacks_cfi(void *ctx, struct stk_res_key *key, stk_uregs_t *user_ctx, u64 take)
{
	const struct stk_res_config *cfg = stk_res_config_get();

	if (!cfg)
		return;
	if (take & STK_RES_TAKE_USER) {
		int res = stk_unwind_user_chain(ctx, user_ctx, key->tgid, cfg->max_depth, &key->user_chain);

		if (res == STK_WALK_NO_USER)
			key->user_stack_id = -STK_EFAULT;
		else if (res != STK_WALK_DONE)
			goto copy;
	}
	if (!(take & STK_RES_TAKE_KERNEL) || stk_unwind_kernel_chain(ctx, &key->kernel_chain, &key->kernel_stack_id))
		return;
copy:
	/* no tables for the process yet, or no room to keep the chain */
	key->kernel_chain = 0;
	key->user_chain = 0;
	key->kernel_stack_id = -1;
	key->user_stack_id = -1;
	stk_res_stacks_copy(ctx, key, user_ctx, take);
}

/*
 * The current thread's stacks into key by the program's rung: kernel frames
 * when kernel (a system call's exit has none worth keeping), user frames for
 * user threads. user_ctx: the event's registers when they may be user mode
 * (perf_event), else NULL.
 */
static __always_inline void stk_res_stacks(void *ctx, const struct stk_res_config *cfg, struct stk_res_key *key,
					   u32 tid, stk_uregs_t *user_ctx, bool kernel, const int mode)
{
	bool user = cfg->user_stacks && key->who == STK_RES_WHO_USER, kern = cfg->kernel_stacks && kernel;
	u64 take = tid | (kern ? STK_RES_TAKE_KERNEL : 0) | (user ? STK_RES_TAKE_USER : 0);

	key->kernel_stack_id = -1;
	key->user_stack_id = -1;
	if (mode == RES_CFI)
		stk_res_stacks_cfi(ctx, key, user_ctx, take);
	else if (mode == RES_DWARF)
		stk_res_stacks_copy(ctx, key, user_ctx, take);
	else
		stk_res_stacks_fp(ctx, key, kern, user);
}

/* Adds weight under key; a new key may mean a new process (or one that exec'd): announced. */
static __always_inline void stk_res_count(void *ctx, const struct stk_res_key *key, u64 weight)
{
	if (stk_count_add(&res_counts, key, weight, &res_stats, STK_STAT_COUNTS_FULL) != 1)
		return;
	if (stk_announce_process(ctx, &res_seen, &res_new_process, key->tgid, key->comm))
		stk_stat_inc(&res_stats, STK_STAT_NEW_PROCESS_LOST);
}

/*
 * One event of kind in the current thread, weighing weight: filtered,
 * every Nth taken (unless the event source samples itself: presampled),
 * stacks taken, counted. detail: see stk_res_key.
 */
static __always_inline void stk_res_event(void *ctx, u32 kind, u64 weight, u16 detail, stk_uregs_t *user_ctx,
					  bool kernel, bool presampled, const int mode)
{
	const struct stk_res_config *cfg = stk_res_config_get();
	struct stk_res_key key = {};
	u32 tid;

	if (!cfg || kind >= STK_RES_KIND_COUNT || !(cfg->enabled & (1u << kind)))
		return;
	if (!stk_res_task(cfg, &key, &tid))
		return;
	if (!presampled && !stk_res_sampled(cfg, kind))
		return;
	key.kind = (u16)kind;
	key.detail = detail;
	stk_res_stacks(ctx, cfg, &key, tid, user_ctx, kernel, mode);
	stk_res_count(ctx, &key, stk_res_scaled(cfg, kind, weight));
}

#endif
