/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every stk resources program does with an event, whatever its source:
 * the thread it happened in passes the filters (never stk itself), every
 * Nth is taken, its stacks are taken by the program's --unwind rung (the
 * kernel unwinder's chains, a hashed stack copy, frame pointers; each falls
 * back to the next, bpf/stack_take.h) and its weight is added under
 * (task, kind, detail, stacks) in stk_counts.
 */
#ifndef STK_RESOURCES_EVENT_H
#define STK_RESOURCES_EVENT_H

#include <bpf/bpf_core_read.h>
#include "resources_maps.h"
#include "stack_take.h"

#define STK_PF_IO_WORKER 0x00000010

/* One program per rung: NAME (frame pointers), NAME_dwarf and NAME_cfi, each calling FN(ctx, mode). */
#define STK_RES_PROGRAMS(SECTION, NAME, CTX, FN)                                 \
	SEC(SECTION) int NAME(CTX ctx) { return FN(ctx, STK_TAKE_FP); }          \
	SEC(SECTION) int NAME##_dwarf(CTX ctx) { return FN(ctx, STK_TAKE_DWARF); } \
	SEC(SECTION) int NAME##_cfi(CTX ctx) { return FN(ctx, STK_TAKE_CFI); }

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

/* A kernel thread, an io_uring worker, or a user thread (also where BTF cannot tell): STK_WHO_*. */
static __always_inline u16 stk_res_who(void)
{
	struct task_struct *task = (void *)bpf_get_current_task();
	unsigned int flags;

	if (!bpf_core_field_exists(task->flags))
		return STK_WHO_USER;
	flags = BPF_CORE_READ(task, flags);
	if (flags & STK_PF_KTHREAD)
		return STK_WHO_KTHREAD;
	return flags & STK_PF_IO_WORKER ? STK_WHO_IO_WORKER : STK_WHO_USER;
}

/*
 * Whether the current thread is one to count (-p, -t, never stk itself);
 * fills ref's task part. *tid: the thread, for the stack copy.
 */
static __always_inline bool stk_res_task(const struct stk_res_config *cfg, struct stk_stack_ref *ref, u32 *tid)
{
	u64 id = bpf_get_current_pid_tgid();
	u32 tgid = id >> 32;

	*tid = (u32)id;
	if (*tid == 0) /* the idle task: interrupts' work, no thread's */
		return false;
	if (!stk_thread_wanted(&cfg->stack, tgid, *tid))
		return false;
	stk_ref_task(&cfg->stack, ref, tgid, *tid);
	ref->who = stk_res_who();
	return true;
}

/*
 * Every Nth of kind: read by constant indexes, as a kind in a register may
 * reach the verifier without its bounds (spilled and reloaded as 32 bits).
 * A loop over every kind, so a new kind needs nothing here.
 */
static __always_inline u32 stk_res_every(const struct stk_res_config *cfg, u32 kind)
{
#pragma unroll
	for (u32 k = 0; k < STK_RES_KIND_COUNT; k++)
		if (k == kind)
			return cfg->every[k];
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

/* What the taking of stacks needs besides ctx and ref, in one argument (BPF functions take five). */
#define STK_RES_TAKE_KERNEL (1ULL << 32)
#define STK_RES_TAKE_USER (1ULL << 33)

/*
 * A hashed stack copy (--unwind dwarf, and cfi's processes without tables
 * yet), else frame pointers. A function of its own, not inlined: every
 * program of a file calls the one copy (the capture is most of a program's
 * size). take: the thread id, STK_RES_TAKE_KERNEL, STK_RES_TAKE_USER.
 */
static __noinline void stk_res_stacks_copy(void *ctx, struct stk_stack_ref *ref, stk_uregs_t *user_ctx, u64 take)
{
	const struct stk_res_config *cfg = stk_res_config_get();
	bool kern = take & STK_RES_TAKE_KERNEL, user = take & STK_RES_TAKE_USER;

	if (!cfg)
		return;
	ref->copy = stk_take_copy(ctx, &cfg->stack, ref->tgid, (u32)take, user_ctx, kern, user);
	if (!ref->copy)
		stk_take_fp(ctx, ref, kern, user);
}

/* The kernel unwinder's chains (--unwind cfi), else the copy. Not inlined, as above. */
static __noinline void stk_res_stacks_cfi(void *ctx, struct stk_stack_ref *ref, stk_uregs_t *user_ctx, u64 take)
{
	const struct stk_res_config *cfg = stk_res_config_get();

	if (!cfg)
		return;
	if (stk_take_chains(ctx, &cfg->stack, ref, user_ctx, take & STK_RES_TAKE_KERNEL, take & STK_RES_TAKE_USER))
		return;
	/* no tables for the process yet, or no room to keep the chain */
	ref->kernel_chain = 0;
	ref->user_chain = 0;
	ref->kernel_stack_id = -1;
	ref->user_stack_id = -1;
	stk_res_stacks_copy(ctx, ref, user_ctx, take);
}

/*
 * The current thread's stacks into ref by the program's rung: kernel frames
 * when kernel (a system call's exit has none worth keeping), user frames for
 * user threads. user_ctx: the event's registers when they may be user mode
 * (perf_event), else NULL.
 */
static __always_inline void stk_res_stacks(void *ctx, const struct stk_res_config *cfg, struct stk_stack_ref *ref,
					   u32 tid, stk_uregs_t *user_ctx, bool kernel, const int mode)
{
	bool user = cfg->stack.user_stacks && ref->who == STK_WHO_USER, kern = cfg->stack.kernel_stacks && kernel;
	u64 take = tid | (kern ? STK_RES_TAKE_KERNEL : 0) | (user ? STK_RES_TAKE_USER : 0);

	ref->kernel_stack_id = -1;
	ref->user_stack_id = -1;
	if (mode == STK_TAKE_CFI)
		stk_res_stacks_cfi(ctx, ref, user_ctx, take);
	else if (mode == STK_TAKE_DWARF)
		stk_res_stacks_copy(ctx, ref, user_ctx, take);
	else
		stk_take_fp(ctx, ref, kern, user);
}

/* What a counted weight carries besides its reference (one argument: BPF functions take five). */
struct stk_res_weighed {
	u64 weight;
	u64 start; /* 0: now; a system call or a block request: when it began */
	u64 bytes; /* a block request's (iorq), else 0 */
	u32 tid;   /* the thread it is (ref.tid is 0 unless threads are kept apart) */
	u32 dev;   /* a block request's device (iorq), else 0 */
};

/*
 * w's weight added under ref, and (the capture records) sent as an event of
 * thread w->tid from w->start. A function of its own, not inlined: every
 * program calls the one copy (events are a large part of a program).
 */
static __noinline void stk_res_count(void *ctx, const struct stk_stack_ref *ref, const struct stk_res_weighed *w)
{
	const struct stk_res_config *cfg = stk_res_config_get();

	if (!cfg)
		return;
	if (cfg->stack.events) {
		struct stk_event e;

		stk_event_begin(&e, ref, w->tid, STK_EVENT_RESOURCE);
		if (w->start)
			e.time = w->start;
		e.weight = w->weight;
		e.dev = w->dev;
		e.bytes = w->bytes;
		stk_event_send(&e, cfg->stack.events);
	}
	stk_count(ctx, ref, w->weight);
}

/*
 * One event of kind in the current thread, weighing weight, begun at start
 * (0: now): filtered, every Nth taken (unless the event source samples
 * itself: presampled), stacks taken, counted. detail: see stk_stack_ref.
 */
static __always_inline void stk_res_event(void *ctx, u32 kind, u64 weight, u16 detail, stk_uregs_t *user_ctx,
					  bool kernel, bool presampled, u64 start, const int mode)
{
	const struct stk_res_config *cfg = stk_res_config_get();
	struct stk_stack_ref ref = {};
	u32 tid;

	if (!cfg || kind >= STK_RES_KIND_COUNT || !(cfg->enabled & (1u << kind)))
		return;
	if (!stk_res_task(cfg, &ref, &tid))
		return;
	if (!presampled && !stk_res_sampled(cfg, kind))
		return;
	ref.type = (u16)(cfg->stack.type + kind);
	ref.detail = detail;
	stk_res_stacks(ctx, cfg, &ref, tid, user_ctx, kernel, mode);
	const struct stk_res_weighed w = { .weight = stk_res_scaled(cfg, kind, weight), .start = start, .tid = tid };

	stk_res_count(ctx, &ref, &w);
}

#endif
