// SPDX-License-Identifier: GPL-2.0
/*
 * stackcount: how often each stack reaches a probe. Every program runs the
 * same count; there is one per attach mechanism, and core/attach/attach_kfunc.c and
 * core/attach/attach_uprobe.c pick which to load:
 *
 *   fentry        kernel function through a BTF trampoline (5.5+); loaded
 *                 once per function (the target is fixed at load)
 *   kprobe.multi  many kernel functions through one fprobe link (5.18+)
 *   kprobe        kernel function, perf PMU or legacy kprobe_events
 *   raw_tp        a real tracepoint, called straight from it (4.17+)
 *   tracepoint    any classic tracepoint event, through perf (the context is
 *                 opaque here)
 *   uprobe        user function; uprobe.multi for many at once (6.6+)
 *   usdt          USDT probe through libbpf's USDT support
 *
 * Only 4.14 helpers and map types (raw_tp: 4.17); configuration lives in an array map.
 * Each has a *_dwarf twin (--unwind dwarf, as offcputime's): kernel frames,
 * user registers and user stack copy hashed; counts keyed by the hash; new
 * content sent once to user space for unwinding (bpf/stack_take.h). And a *_cfi twin (--unwind
 * cfi): the kernel unwinder's chains (bpf/unwind.bpf.c), counted under their
 * ids; a process without tables yet takes the dwarf way.
 * With events on (bpf/event_log.h) each hit counted is also sent as an event.
 */
#include "kernel_types.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/usdt.bpf.h>
#include "stackcount_types.h"
#include "stack_take.h"


struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct stk_sc_config);
} sc_config SEC(".maps");

/*
 * mode: how to take the stacks (dwarf: for user-space unwinding); user_ctx:
 * the probe's registers when they are the user's (uprobe, USDT), else NULL.
 */
static __always_inline int count_stack(void *ctx, const int mode, stk_uregs_t *user_ctx)
{
	u32 zero = 0;
	const struct stk_sc_config *cfg = bpf_map_lookup_elem(&sc_config, &zero);
	u64 id = bpf_get_current_pid_tgid();
	struct stk_stack_ref ref = {};
	u32 tgid = id >> 32;

	if (!cfg)
		return 0;
	/* -p, and never stk's own hits (a probe on a function stk calls too): each would feed the next */
	if (!stk_thread_wanted(&cfg->stack, tgid, (u32)id))
		return 0;
	if (cfg->filter_cpu && bpf_get_smp_processor_id() != cfg->cpu)
		return 0;
	/* user stacks resolve in their process, and folded output names the command */
	stk_ref_task(&cfg->stack, &ref, tgid, (u32)id);
	stk_take_stacks(ctx, &cfg->stack, &ref, (u32)id, user_ctx, cfg->stack.kernel_stacks,
			cfg->stack.user_stacks && tgid, mode);
	if (cfg->stack.events) {
		struct stk_event e;

		stk_event_begin(&e, &ref, (u32)id, STK_EVENT_PROBE);
		stk_event_send(&e, cfg->stack.events);
	}
	stk_count(ctx, &ref, 1);
	return 0;
}

SEC("fentry")
int stk_sc_fentry(u64 *ctx)
{
	return count_stack(ctx, STK_TAKE_FP, NULL);
}

SEC("fentry")
int stk_sc_fentry_dwarf(u64 *ctx)
{
	return count_stack(ctx, STK_TAKE_DWARF, NULL);
}

SEC("fentry")
int stk_sc_fentry_cfi(u64 *ctx)
{
	return count_stack(ctx, STK_TAKE_CFI, NULL);
}

SEC("kprobe.multi")
int stk_sc_kprobe_multi(struct pt_regs *ctx)
{
	return count_stack(ctx, STK_TAKE_FP, NULL);
}

SEC("kprobe.multi")
int stk_sc_kprobe_multi_dwarf(struct pt_regs *ctx)
{
	return count_stack(ctx, STK_TAKE_DWARF, NULL);
}

SEC("kprobe.multi")
int stk_sc_kprobe_multi_cfi(struct pt_regs *ctx)
{
	return count_stack(ctx, STK_TAKE_CFI, NULL);
}

SEC("kprobe")
int stk_sc_kprobe(struct pt_regs *ctx)
{
	return count_stack(ctx, STK_TAKE_FP, NULL);
}

SEC("kprobe")
int stk_sc_kprobe_dwarf(struct pt_regs *ctx)
{
	return count_stack(ctx, STK_TAKE_DWARF, NULL);
}

SEC("kprobe")
int stk_sc_kprobe_cfi(struct pt_regs *ctx)
{
	return count_stack(ctx, STK_TAKE_CFI, NULL);
}

SEC("raw_tp")
int stk_sc_raw_tp(void *ctx)
{
	return count_stack(ctx, STK_TAKE_FP, NULL);
}

SEC("raw_tp")
int stk_sc_raw_tp_dwarf(void *ctx)
{
	return count_stack(ctx, STK_TAKE_DWARF, NULL);
}

SEC("raw_tp")
int stk_sc_raw_tp_cfi(void *ctx)
{
	return count_stack(ctx, STK_TAKE_CFI, NULL);
}

SEC("tracepoint")
int stk_sc_tracepoint(void *ctx)
{
	return count_stack(ctx, STK_TAKE_FP, NULL);
}

SEC("tracepoint")
int stk_sc_tracepoint_dwarf(void *ctx)
{
	return count_stack(ctx, STK_TAKE_DWARF, NULL);
}

SEC("tracepoint")
int stk_sc_tracepoint_cfi(void *ctx)
{
	return count_stack(ctx, STK_TAKE_CFI, NULL);
}

SEC("uprobe")
int stk_sc_uprobe(struct pt_regs *ctx)
{
	return count_stack(ctx, STK_TAKE_FP, NULL);
}

SEC("uprobe")
int stk_sc_uprobe_dwarf(struct pt_regs *ctx)
{
	return count_stack(ctx, STK_TAKE_DWARF, (stk_uregs_t *)ctx);
}

SEC("uprobe")
int stk_sc_uprobe_cfi(struct pt_regs *ctx)
{
	return count_stack(ctx, STK_TAKE_CFI, (stk_uregs_t *)ctx);
}

SEC("uprobe.multi")
int stk_sc_uprobe_multi(struct pt_regs *ctx)
{
	return count_stack(ctx, STK_TAKE_FP, NULL);
}

SEC("uprobe.multi")
int stk_sc_uprobe_multi_dwarf(struct pt_regs *ctx)
{
	return count_stack(ctx, STK_TAKE_DWARF, (stk_uregs_t *)ctx);
}

SEC("uprobe.multi")
int stk_sc_uprobe_multi_cfi(struct pt_regs *ctx)
{
	return count_stack(ctx, STK_TAKE_CFI, (stk_uregs_t *)ctx);
}

SEC("usdt")
int stk_sc_usdt(struct pt_regs *ctx)
{
	return count_stack(ctx, STK_TAKE_FP, NULL);
}

SEC("usdt")
int stk_sc_usdt_dwarf(struct pt_regs *ctx)
{
	return count_stack(ctx, STK_TAKE_DWARF, (stk_uregs_t *)ctx);
}

SEC("usdt")
int stk_sc_usdt_cfi(struct pt_regs *ctx)
{
	return count_stack(ctx, STK_TAKE_CFI, (stk_uregs_t *)ctx);
}

char LICENSE[] SEC("license") = "GPL";
