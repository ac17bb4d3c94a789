// SPDX-License-Identifier: GPL-2.0
/*
 * pmp's thread snapshot, the task_iter_copy rung (5.18+, the kernel's own
 * BTF): a sleepable task iterator writes one stk_pmp_record per wanted
 * thread into its seq_file, followed by a copy of the thread's user stack.
 * No thread is stopped: a thread off CPU does not change its registers or
 * its stack until it runs again, so its saved user registers
 * (bpf_task_pt_regs) and the stack above its stack pointer, up to the end
 * of that mapping (bpf_find_vma) or stack_bytes, read with
 * bpf_copy_from_user_task, are one moment of it. A thread that ran while
 * it was copied (its switch count moved, or it is on a CPU now) is flagged
 * RACED, and a thread on a CPU is flagged ON_CPU and not copied: user space
 * takes those again, or samples them as they run. User space unwinds the
 * copies with CFI.
 */
#include "kernel_types.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "pmp_types.h"
#include "task_state.h"

#define PF_KTHREAD 0x00200000

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct stk_pmp_config);
} pmp_config SEC(".maps");

/* The tgids or tids a pass writes (pmp_config.filter says which). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, STK_PMP_FILTER_MAX);
	__type(key, u32);
	__type(value, u8);
} pmp_filter SEC(".maps");

/* The record and its stack copy are too big for the BPF stack. */
struct pmp_scratch {
	struct stk_pmp_record rec;
	u8 stack[STK_PMP_STACK_MAX + 8];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct pmp_scratch);
} pmp_scratch SEC(".maps");

static long vma_end(struct task_struct *task, struct vm_area_struct *vma, void *ctx)
{
	*(u64 *)ctx = vma->vm_end;
	return 0;
}

static __always_inline u64 switches(struct task_struct *t)
{
	return t->nvcsw + t->nivcsw;
}

static __always_inline bool on_cpu(struct task_struct *t)
{
	/* Read by size: on_cpu is not an int on every kernel. */
	return bpf_core_field_exists(t->on_cpu) && BPF_CORE_READ_BITFIELD(t, on_cpu);
}

static __always_inline bool wanted(const struct stk_pmp_config *cfg, u32 tgid, u32 tid)
{
	if (tgid == cfg->skip_tgid)
		return false;
	if (cfg->filter == STK_PMP_FILTER_TGIDS)
		return bpf_map_lookup_elem(&pmp_filter, &tgid) != NULL;
	if (cfg->filter == STK_PMP_FILTER_TIDS)
		return bpf_map_lookup_elem(&pmp_filter, &tid) != NULL;
	return true;
}

/* The user registers and the stack above the stack pointer, into s. */
static __always_inline void copy_user(struct task_struct *t, const struct stk_pmp_config *cfg, struct pmp_scratch *s)
{
	struct stk_pmp_record *r = &s->rec;
	stk_uregs_t u;
	u64 end = 0, sp, len;

	if (bpf_probe_read_kernel(&u, sizeof(u), (const void *)bpf_task_pt_regs(t)))
		return;
	stk_uregs_from(r->regs, u);
	r->flags |= STK_PMP_F_REGS;
	sp = r->regs[STK_UREG_SP];
	if (bpf_find_vma(t, sp, vma_end, &end, 0) || end <= sp) {
		r->flags |= STK_PMP_F_NO_VMA;
		return;
	}
	r->stack_end = end;
	len = end - sp;
	if (len > cfg->stack_bytes)
		len = cfg->stack_bytes;
	if (len > STK_PMP_STACK_MAX)
		len = STK_PMP_STACK_MAX;
	if (bpf_copy_from_user_task(s->stack, len, (const void *)sp, t, 0)) {
		r->flags |= STK_PMP_F_COPY_FAULT;
		return;
	}
	r->stack_bytes = len;
}

SEC("iter.s/task")
int stk_pmp_iter(struct bpf_iter__task *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct task_struct *t = ctx->task;
	u32 zero = 0;

	if (!t)
		return 0;
	struct stk_pmp_config *cfg = bpf_map_lookup_elem(&pmp_config, &zero);
	struct pmp_scratch *s = bpf_map_lookup_elem(&pmp_scratch, &zero);
	if (!cfg || !s)
		return 0;
	struct stk_pmp_record *r = &s->rec;
	r->tgid = t->tgid;
	r->tid = t->pid;
	if (!wanted(cfg, r->tgid, r->tid))
		return 0;
	u64 before = switches(t);
	r->switches = before;
	r->state = stk_task_state(t);
	r->exit_state = (u32)BPF_CORE_READ_BITFIELD(t, exit_state);
	r->flags = 0;
	r->kstack_bytes = 0;
	r->stack_bytes = 0;
	r->stack_end = 0;
	__builtin_memset(r->regs, 0, sizeof(r->regs));
	bpf_probe_read_kernel(r->comm, sizeof(r->comm), t->comm);
	if (t->flags & PF_KTHREAD)
		r->flags |= STK_PMP_F_KTHREAD;
	if (on_cpu(t))
		r->flags |= STK_PMP_F_ON_CPU;
	/* A running task's stacks are moving: user space samples it as it runs. */
	if (!(r->flags & STK_PMP_F_ON_CPU) && !r->exit_state) {
		r->kstack_bytes = bpf_get_task_stack(t, r->kstack, sizeof(r->kstack), 0);
		if (!(r->flags & STK_PMP_F_KTHREAD))
			copy_user(t, cfg, s);
		if (switches(t) != before || on_cpu(t))
			r->flags |= STK_PMP_F_RACED;
	}
	u64 padded = r->stack_bytes;
	if (padded > STK_PMP_STACK_MAX)
		padded = STK_PMP_STACK_MAX;
	padded = (padded + 7) & ~7ULL; /* at most STK_PMP_STACK_MAX + 7 to the verifier: the scratch has room */
	r->size = sizeof(*r) + padded;
	bpf_seq_write(seq, r, sizeof(*r));
	if (padded)
		bpf_seq_write(seq, s->stack, padded);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
