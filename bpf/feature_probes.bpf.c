// SPDX-License-Identifier: GPL-2.0
/*
 * Tiny programs `stk info` loads and attaches one at a time to find out what
 * the running kernel really supports. Each one only bumps its slot in
 * feature_hits. No global variables: they would need 5.2's global data.
 */
#include "kernel_types.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/usdt.bpf.h>
#include "feature_ids.h"
#include "user_regs.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, STK_FEAT_SLOT_COUNT);
	__type(key, u32);
	__type(value, u64);
} feature_hits SEC(".maps");

#define STK_PROBE_STACK_DEPTH 127

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, u64[STK_PROBE_STACK_DEPTH]);
} feature_stack_buf SEC(".maps");

static __always_inline void count_hit(u32 slot)
{
	u64 *hits = bpf_map_lookup_elem(&feature_hits, &slot);

	if (hits)
		__sync_fetch_and_add(hits, 1);
}

SEC("perf_event")
int stk_feat_perf_event(struct bpf_perf_event_data *ctx)
{
	count_hit(STK_FEAT_SLOT_PERF_EVENT);
	return 0;
}

SEC("kprobe")
int stk_feat_kprobe(struct pt_regs *ctx)
{
	count_hit(STK_FEAT_SLOT_KPROBE);
	return 0;
}

SEC("kprobe.multi")
int stk_feat_kprobe_multi(struct pt_regs *ctx)
{
	count_hit(STK_FEAT_SLOT_KPROBE_MULTI);
	return 0;
}

/* The attach target is set from user space before load. */
SEC("fentry")
int stk_feat_fentry(void *ctx)
{
	count_hit(STK_FEAT_SLOT_FENTRY);
	return 0;
}

SEC("tp_btf/sched_switch")
int stk_feat_tp_btf(void *ctx)
{
	count_hit(STK_FEAT_SLOT_TP_BTF);
	return 0;
}

SEC("raw_tp")
int stk_feat_raw_tp(void *ctx)
{
	count_hit(STK_FEAT_SLOT_RAW_TP);
	return 0;
}

SEC("tracepoint")
int stk_feat_tracepoint(void *ctx)
{
	count_hit(STK_FEAT_SLOT_TRACEPOINT);
	return 0;
}

SEC("uprobe")
int stk_feat_uprobe(struct pt_regs *ctx)
{
	count_hit(STK_FEAT_SLOT_UPROBE);
	return 0;
}

SEC("uprobe.multi")
int stk_feat_uprobe_multi(struct pt_regs *ctx)
{
	count_hit(STK_FEAT_SLOT_UPROBE_MULTI);
	return 0;
}

SEC("usdt")
int stk_feat_usdt(struct pt_regs *ctx)
{
	long arg = 0;

	/* Reading an argument exercises libbpf's USDT spec map too. */
	if (bpf_usdt_arg(ctx, 0, &arg) == 0 && arg == 42)
		count_hit(STK_FEAT_SLOT_USDT);
	return 0;
}

SEC("iter/task")
int stk_feat_task_iter(struct bpf_iter__task *ctx)
{
	if (ctx->task)
		count_hit(STK_FEAT_SLOT_TASK_ITER);
	return 0;
}

SEC("perf_event")
int stk_feat_get_stack(struct bpf_perf_event_data *ctx)
{
	u32 zero = 0;
	u64 *buf = bpf_map_lookup_elem(&feature_stack_buf, &zero);

	if (!buf)
		return 0;
	if (bpf_get_stack(ctx, buf, STK_PROBE_STACK_DEPTH * sizeof(u64), BPF_F_USER_STACK) > 0)
		count_hit(STK_FEAT_SLOT_GET_STACK);
	return 0;
}

static long feat_vma_end(struct task_struct *task, struct vm_area_struct *vma, void *ctx)
{
	*(u64 *)ctx = vma->vm_end;
	return 0;
}

/* What pmp's task_iter_copy rung needs, tried on the reading thread itself as on any other task:
 * its saved user registers, the mapping of its stack pointer, a word of its stack. */
SEC("iter.s/task")
int stk_feat_task_iter_copy(struct bpf_iter__task *ctx)
{
	struct task_struct *t = ctx->task;
	u64 end = 0, sp, word;
	stk_uregs_t u;

	if (!t || t->pid != (u32)bpf_get_current_pid_tgid())
		return 0;
	if (bpf_probe_read_kernel(&u, sizeof(u), (const void *)bpf_task_pt_regs(t)))
		return 0;
	sp = stk_uregs_sp(u);
	if (bpf_find_vma(t, sp, feat_vma_end, &end, 0) || end <= sp)
		return 0;
	if (bpf_copy_from_user_task(&word, sizeof(word), (const void *)sp, t, 0) == 0)
		count_hit(STK_FEAT_SLOT_TASK_ITER_COPY);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
