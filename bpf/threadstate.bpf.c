// SPDX-License-Identifier: GPL-2.0
/*
 * threadstate, task iterator source (5.8+, BTF): one pass over every task
 * per sample. For each thread it writes one stk_ts_iter_record into the
 * iterator's seq_file: state, on-CPU flag, the syscall number and arguments
 * from the registers saved at kernel entry, and the kernel stack (for the
 * wchan-like "where does it wait"). User space reads the records with
 * read() on the iterator fd and does everything else.
 *
 * Two programs that differ only in how they find the saved registers:
 * bpf_task_pt_regs() (5.15+), or the top of the task's kernel stack
 * computed as the kernel's task_pt_regs() does on x86_64 (older kernels,
 * where THREAD_SIZE is 16 KiB and there is no FRED padding).
 */
#include "kernel_types.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "threadstate.h"

#define PF_KTHREAD 0x00200000
#define X86_64_THREAD_SIZE 16384

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct stk_ts_iter_config);
} ts_iter_config SEC(".maps");

/* The record is too big for the BPF stack: built here, then copied out. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct stk_ts_iter_record);
} ts_iter_scratch SEC(".maps");

static __always_inline u32 ts_task_state(struct task_struct *t)
{
	struct task_struct___old *old = (void *)t;

	if (bpf_core_field_exists(t->__state))
		return BPF_CORE_READ(t, __state);
	return (u32)BPF_CORE_READ(old, state);
}

/* Syscall number (orig_ax) and arguments from the registers saved at kernel entry. */
static __always_inline void read_syscall(struct stk_ts_iter_record *r, const void *regs)
{
#if defined(__TARGET_ARCH_x86)
	struct pt_regs saved;

	if (!regs || bpf_probe_read_kernel(&saved, sizeof(saved), regs))
		return;
	r->syscall_nr = (s64)saved.orig_rax;
	r->args[0] = saved.rdi;
	r->args[1] = saved.rsi;
	r->args[2] = saved.rdx;
	r->args[3] = saved.r10;
	r->args[4] = saved.r8;
	r->args[5] = saved.r9;
	r->flags |= STK_TS_F_REGS;
#endif
}

static __always_inline int sample_task(struct bpf_iter__task *ctx, bool has_task_pt_regs)
{
	struct seq_file *seq = ctx->meta->seq;
	struct task_struct *t = ctx->task;
	u32 zero = 0;

	if (!t)
		return 0;
	struct stk_ts_iter_config *cfg = bpf_map_lookup_elem(&ts_iter_config, &zero);
	struct stk_ts_iter_record *r = bpf_map_lookup_elem(&ts_iter_scratch, &zero);
	if (!cfg || !r)
		return 0;
	r->tgid = t->tgid;
	if (r->tgid == cfg->skip_tgid)
		return 0;
	r->tid = t->pid;
	r->state = ts_task_state(t);
	r->exit_state = t->exit_state;
	r->flags = 0;
	if (t->flags & PF_KTHREAD)
		r->flags |= STK_TS_F_KTHREAD;
	if (bpf_core_field_exists(t->on_cpu) && t->on_cpu)
		r->flags |= STK_TS_F_ON_CPU;
	r->syscall_nr = STK_TS_NO_SYSCALL;
	__builtin_memset(r->args, 0, sizeof(r->args));
	bpf_probe_read_kernel(r->comm, sizeof(r->comm), t->comm);
	/* A running thread's saved registers are stale (it may be in user mode). */
	if (!(r->flags & (STK_TS_F_KTHREAD | STK_TS_F_ON_CPU)) && !r->exit_state) {
		const void *regs;
		if (has_task_pt_regs)
			regs = (const void *)bpf_task_pt_regs(t);
		else
			regs = (const char *)BPF_CORE_READ(t, stack) + X86_64_THREAD_SIZE - sizeof(struct pt_regs);
		read_syscall(r, regs);
	}
	r->kstack_bytes = 0;
	u32 depth = cfg->kstack_depth;
	if (depth > STK_TS_KSTACK_MAX)
		depth = STK_TS_KSTACK_MAX;
	if (depth && !(r->flags & STK_TS_F_ON_CPU) && !r->exit_state)
		r->kstack_bytes = bpf_get_task_stack(t, r->kstack, depth * sizeof(u64), 0);
	bpf_seq_write(seq, r, sizeof(*r));
	return 0;
}

SEC("iter/task")
int stk_ts_iter(struct bpf_iter__task *ctx)
{
	return sample_task(ctx, true);
}

SEC("iter/task")
int stk_ts_iter_stack_regs(struct bpf_iter__task *ctx)
{
	return sample_task(ctx, false);
}

char LICENSE[] SEC("license") = "GPL";
