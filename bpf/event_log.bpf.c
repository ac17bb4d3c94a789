// SPDX-License-Identifier: GPL-2.0
/*
 * The event log's maps (bpf/event_log.h) and the span programs of --span:
 * a user function's entry (uprobe) or a USDT start probe opens a span on
 * the current thread, its return (uretprobe) or the end probe closes it and
 * sends one STK_EVENT_SPAN event (start and length). Every event the
 * applet sends meanwhile from that thread carries the innermost span's label.
 * One pair of programs per --span slot (STK_MAX_SPANS), so no kernel needs
 * BPF cookies; stk_span_config says which argument, if any, is the value.
 * Needs the ring buffer (5.8); user space refuses --span before loading
 * where there is none.
 */
#include "kernel_types.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/usdt.bpf.h>

#define STK_EVENT_MAPS_HERE
#include "event_log.h"

/* The n-th integer argument of a function at its entry (0: the first); 0 past the registers. */
static __always_inline u64 function_arg(struct pt_regs *ctx, u32 n)
{
	/* all read at fixed offsets: the verifier refuses a context pointer moved by a variable */
	u64 args[6] = { PT_REGS_PARM1(ctx), PT_REGS_PARM2(ctx), PT_REGS_PARM3(ctx),
			PT_REGS_PARM4(ctx), PT_REGS_PARM5(ctx), PT_REGS_PARM6(ctx) };

	return n < 6 ? args[n] : 0;
}

static __always_inline struct stk_span_stack *thread_spans(u32 tid)
{
	struct stk_span_stack *st = bpf_map_lookup_elem(&stk_spans, &tid);
	struct stk_span_stack zero = {};

	if (st)
		return st;
	/* LRU: a thread that died inside a span gives its entry back in time */
	if (bpf_map_update_elem(&stk_spans, &tid, &zero, BPF_NOEXIST) && !bpf_map_lookup_elem(&stk_spans, &tid)) {
		stk_stat_inc(&stk_event_stats, STK_EVSTAT_SPAN_FULL);
		return NULL;
	}
	return bpf_map_lookup_elem(&stk_spans, &tid);
}

/* usdt: the probe's arguments come through libbpf's USDT specs instead of registers. */
static __always_inline int span_open(struct pt_regs *ctx, u32 slot, bool usdt)
{
	u32 tid = (u32)bpf_get_current_pid_tgid();
	struct stk_span_config *cfg = bpf_map_lookup_elem(&stk_span_config, &slot);
	struct stk_span_stack *st;
	struct stk_span_frame f = { .label = slot + 1 };
	long v = 0;

	if (!cfg || !stk_events_possible())
		return 0;
	if (cfg->arg) {
		if (usdt) {
			if (bpf_usdt_arg(ctx, cfg->arg - 1, &v) == 0)
				f.flags = STK_EVENT_SPAN_VALUE;
			f.value = (u64)v;
		} else {
			f.value = function_arg(ctx, cfg->arg - 1);
			f.flags = STK_EVENT_SPAN_VALUE;
		}
	}
	st = thread_spans(tid);
	if (!st)
		return 0;
	f.start = bpf_ktime_get_ns();
	if (st->depth >= STK_SPAN_DEPTH)
		stk_stat_inc(&stk_event_stats, STK_EVSTAT_SPAN_DEEP);
#pragma unroll
	for (int i = 0; i < STK_SPAN_DEPTH; i++) /* constant indices, as stk_span_top */
		if ((u32)i == st->depth)
			st->frames[i] = f;
	st->depth++;
	return 0;
}

/*
 * slot's innermost open span closes: one span event for it. Spans opened
 * inside it that never closed (longjmp, an exception) close with it; a
 * return whose entry was never seen (attached mid-call) changes nothing.
 */
static __always_inline int span_close(u32 slot)
{
	u64 id = bpf_get_current_pid_tgid(), now = bpf_ktime_get_ns();
	u32 tid = (u32)id, d;
	struct stk_span_stack *st = bpf_map_lookup_elem(&stk_spans, &tid);
	struct stk_span_frame f = {};
	struct stk_stack_ref task = { .kernel_stack_id = -1, .user_stack_id = -1, .tgid = id >> 32 };
	struct stk_event e;
	bool found = false;

	if (!st || !st->depth || !stk_events_possible())
		return 0;
	if (st->depth > STK_SPAN_DEPTH) { /* too deep to have been kept */
		st->depth--;
		return 0;
	}
	d = st->depth;
	/* the innermost open frame of this slot; constant indices, which every verifier bounds */
#pragma unroll
	for (int i = STK_SPAN_DEPTH - 1; i >= 0; i--) {
		if (!found && (u32)i < d && st->frames[i].label == slot + 1) {
			f = st->frames[i];
			st->depth = (u32)i;
			found = true;
		}
	}
	if (!found)
		return 0;
	/* a span has no stack: only its thread */
	bpf_get_current_comm(&task.comm, sizeof(task.comm));
	stk_event_begin(&e, &task, tid, STK_EVENT_SPAN);
	e.time = f.start;
	e.weight = now - f.start;
	e.span_label = f.label;
	e.span_value = f.value;
	e.flags = f.flags & STK_EVENT_SPAN_VALUE;
	stk_event_send(&e, STK_EVENTS_ON);
	return 0;
}

#define STK_SPAN_SLOT(N)                                                  \
	SEC("uprobe")                                                     \
	int stk_span_enter_##N(struct pt_regs *ctx)                       \
	{                                                                 \
		return span_open(ctx, N, false);                          \
	}                                                                 \
	SEC("uretprobe")                                                  \
	int stk_span_exit_##N(struct pt_regs *ctx)                        \
	{                                                                 \
		return span_close(N);                                     \
	}                                                                 \
	SEC("usdt")                                                       \
	int stk_span_usdt_start_##N(struct pt_regs *ctx)                  \
	{                                                                 \
		return span_open(ctx, N, true);                           \
	}                                                                 \
	SEC("usdt")                                                       \
	int stk_span_usdt_end_##N(struct pt_regs *ctx)                    \
	{                                                                 \
		return span_close(N);                                     \
	}

STK_SPAN_SLOT(0)
STK_SPAN_SLOT(1)
STK_SPAN_SLOT(2)
STK_SPAN_SLOT(3)
STK_SPAN_SLOT(4)
STK_SPAN_SLOT(5)
STK_SPAN_SLOT(6)
STK_SPAN_SLOT(7)

char LICENSE[] SEC("license") = "GPL";
