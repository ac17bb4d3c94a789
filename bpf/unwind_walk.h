/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What an applet's program calls to take stacks by the kernel unwinder
 * (bpf/unwind.bpf.c): its kernel chain and the current task's user chain,
 * each interned to a chain id to count under. A user stack the tables cannot
 * walk yet (a process not loaded, mappings that changed) is the caller's to
 * take by the next rung, the stack copy.
 */
#ifndef STK_UNWIND_WALK_H
#define STK_UNWIND_WALK_H

#include <bpf/bpf_core_read.h>
#include "unwind_maps.h"
#include "stack_capture.h"

int stk_unwind_walk(u32 tgid, u32 max);
u64 stk_chain_intern(u32 kernel);
int stk_unwind_memo_keep(u64 chain);
u64 stk_kernel_chain_kept(u32 tid);
int stk_kernel_chain_keep(u64 chain, u64 base);

static __always_inline struct stk_walk *stk_unwind_scratch(void)
{
	u32 zero = 0;

	return bpf_map_lookup_elem(&unwind_scratch, &zero);
}

/*
 * The kernel stack of ctx's event as a chain id in *chain (0: none, the
 * event was in user mode: *why then says -EFAULT). false when the chain
 * store had no room: the caller takes the copy path.
 */
static __always_inline bool stk_unwind_kernel_chain(void *ctx, u64 *chain, s32 *why)
{
	struct stk_walk *w = stk_unwind_scratch();
	long n;

	*chain = 0;
	if (!w)
		return false;
	n = bpf_get_stack(ctx, w->kernel.pcs, sizeof(w->kernel.pcs), 0);
	if (n <= 0) {
		*why = -STK_EFAULT;
		return true;
	}
	w->kernel.n = n / sizeof(u64);
	w->kernel.stop = STK_STOP_KERNEL;
	w->kernel.flags = STK_CHAIN_KERNEL;
	*chain = stk_chain_intern(1);
	return *chain != 0;
}

/*
 * The same for a thread switching out on its own kernel stack (a block):
 * its chain kept from the last time it blocked at this depth
 * (bpf/kernel_memo.h), when every return address is still in its slot;
 * else taken and kept for the next time.
 */
static __always_inline bool stk_unwind_kernel_chain_kept(void *ctx, u64 *chain, s32 *why)
{
	struct stk_walk *w = stk_unwind_scratch();
	u64 anchor = 0; /* its address: where on the kernel stack this program's frame is */
	struct task_struct *task;

	*chain = 0;
	if (!w)
		return false;
	/* a stack address kept as a number: the key, never followed but by bpf_probe_read_kernel */
	asm volatile("" : : "r"(&anchor) : "memory");
	w->kmemo_key.sp = (u64)&anchor;
	*chain = stk_kernel_chain_kept((u32)bpf_get_current_pid_tgid());
	if (*chain)
		return true;
	if (!stk_unwind_kernel_chain(ctx, chain, why))
		return false;
	task = (void *)bpf_get_current_task();
	stk_kernel_chain_keep(*chain, (u64)BPF_CORE_READ(task, stack));
	return true;
}

/* A request to user space (a lost one is counted: it only delays what it asks for). */
static __always_inline void stk_unwind_request(void *ctx, struct stk_unwind_request *req)
{
	if (bpf_perf_event_output(ctx, &unwind_requests, BPF_F_CURRENT_CPU, req, sizeof(*req))) {
		u32 slot = STK_USTAT_REQUESTS_LOST;
		u64 *v = bpf_map_lookup_elem(&unwind_stats, &slot);

		if (v)
			(*v)++;
	}
}

/*
 * The current task's user chain by the tables: STK_WALK_DONE with its id in
 * *chain, STK_WALK_NO_USER for a task without user space, or another result
 * when the caller must take the copy path (no tables yet, no room). ctx_regs: the event's registers when they may be
 * user mode (perf_event, uprobe), else NULL (the task's saved registers).
 */
static __always_inline int stk_unwind_user_chain(void *ctx, stk_uregs_t *ctx_regs, u32 tgid, u32 max, u64 *chain)
{
	struct stk_walk *w = stk_unwind_scratch();
	struct stk_unwind_request req = { .tgid = tgid };
	stk_uregs_t *r;
	int res;

	_Static_assert(sizeof(stk_uregs_t) <= sizeof(w->task_regs), "stk_walk.task_regs holds the user registers");
	*chain = 0;
	if (!w)
		return STK_WALK_DONE;
	w->memo_want = 0;
	if (ctx_regs && stk_regs_user_mode(*ctx_regs)) {
		w->pc = stk_uregs_pc(*ctx_regs);
		w->sp = stk_uregs_sp(*ctx_regs);
		w->fp = stk_uregs_fp(*ctx_regs);
		w->lr = stk_uregs_lr(*ctx_regs);
		STK_CTX_READS_END();
	} else {
		/* in the kernel (a block, a syscall): the same saved registers come back, so a kept walk may too */
		w->memo_want = 1;
		r = (stk_uregs_t *)w->task_regs;
		if (stk_task_user_regs(r))
			return STK_WALK_NO_USER; /* a kernel thread */
		w->pc = stk_uregs_pc(*r);
		w->sp = stk_uregs_sp(*r);
		w->fp = stk_uregs_fp(*r);
		w->lr = stk_uregs_lr(*r);
	}
	res = stk_unwind_walk(tgid, max);
	if (w->ask_threads) {
		req.kind = STK_UNWIND_REQ_THREADS;
		stk_unwind_request(ctx, &req);
	}
	if (res == STK_WALK_DONE && w->reused) {
		*chain = w->reused;
		return res;
	}
	if (res == STK_WALK_DONE) {
		*chain = stk_chain_intern(0);
		stk_unwind_memo_keep(*chain);
		/* a new chain with interpreted frames: user space names them while the process lives */
		if (*chain && w->stored && w->rt_frames) {
			req.kind = STK_UNWIND_REQ_NAMES;
			req.arg = *chain;
			stk_unwind_request(ctx, &req);
		}
		return *chain ? res : STK_WALK_NO_ROOM;
	}
	if (res == STK_WALK_STALE && w->ask_refresh) {
		req.kind = STK_UNWIND_REQ_REFRESH;
		stk_unwind_request(ctx, &req);
	}
	return res;
}

#endif
