// SPDX-License-Identifier: GPL-2.0
/*
 * stk resources: stacks weighed by what they cost. This file defines the
 * maps every resources program shares (bpf/resources_maps.h) and holds the
 * memory sources; bpf/resources_block.bpf.c and resources_io.bpf.c the
 * others. Each source has one program per mechanism of its ladder
 * (core/ladder/ladder.c), each in three --unwind twins (STK_RES_PROGRAMS).
 *
 * rss: kmem:rss_stat fires when an address space's resident-page counters
 * change (5.5+). The counter's new value is kept per (mm, counter); an
 * increase in the current task's own mm weighs its stack by the bytes
 * gained. The first change seen of an mm is its baseline only. Swap
 * entries are not resident and are left out.
 *   tp_btf, raw_tp  the mm and counter are arguments; the value is read
 *                   from the mm with CO-RE (percpu_counter from 6.2)
 *   tracepoint      the record's mm_id, curr, member and size
 *
 * faults: page faults counted.
 *   perf_event  the software page-faults event on every CPU (every Nth by
 *               its sample period): user-mode faults, and kernel-mode ones
 *               on user memory, with the fault's own registers
 *   tracepoint  exceptions:page_fault_user (x86): user-mode faults
 */
#include "kernel_types.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#define STK_RES_MAPS_HERE
#include "resources_event.h"

#define MM_SWAPENTS 2
#define NR_MM_COUNTERS 4
#define PAGE_SHIFT 12

/* Bytes resident of counter member of mm (pages in the kernel), by CO-RE: atomic before 6.2, else percpu. */
static __always_inline s64 mm_counter_bytes(const void *mm, u32 member)
{
	s64 pages = 0;
	u64 at;

	if (member >= NR_MM_COUNTERS)
		return 0;
	if (bpf_core_type_exists(struct mm_rss_stat___stk)) {
		at = bpf_core_field_offset(struct mm_struct___atomic, rss_stat) +
		     bpf_core_field_offset(struct mm_rss_stat___stk, count) + member * sizeof(long);
	} else {
		at = bpf_core_field_offset(struct mm_struct___pcpu, rss_stat) +
		     member * bpf_core_type_size(struct percpu_counter___stk) +
		     bpf_core_field_offset(struct percpu_counter___stk, count);
	}
	stk_res_read(&pages, sizeof(pages), (const char *)mm + at);
	return pages << PAGE_SHIFT;
}

/* A counter of mm is now size bytes: its growth, in the current task's own mm, weighs the current stack. */
static __always_inline void rss_changed(void *ctx, u64 mm, u32 member, s64 size, bool current_mm, const int mode)
{
	struct stk_res_rss_key k = { .mm = mm, .member = member };
	s64 *last, grown;

	if (member == MM_SWAPENTS || member >= NR_MM_COUNTERS)
		return;
	last = bpf_map_lookup_elem(&res_rss_last, &k);
	if (!last) {
		bpf_map_update_elem(&res_rss_last, &k, &size, BPF_ANY);
		stk_res_fact(STK_RES_FACT_RSS_BASELINE);
		return;
	}
	grown = size - *last;
	*last = size;
	/* another mm's change (reclaim, a process exiting) moves the baseline only */
	if (grown > 0 && current_mm)
		stk_res_event(ctx, STK_RES_RSS, (u64)grown, 0, NULL, true, false, 0, mode);
}

/* tp_btf and raw_tp: (struct mm_struct *mm, int member[, long count before 6.2]). */
static __always_inline int rss_args(void *ctx, u64 mm, u64 member, const int mode)
{
	struct task_struct *task = (void *)bpf_get_current_task();
	u64 own = (u64)BPF_CORE_READ(task, mm);

	rss_changed(ctx, mm, (u32)member, mm_counter_bytes((const void *)mm, (u32)member), own == mm, mode);
	return 0;
}

static __always_inline int rss_tp_btf(u64 *ctx, const int mode)
{
	return rss_args(ctx, ctx[0], ctx[1], mode);
}
STK_RES_PROGRAMS("tp_btf/rss_stat", stk_res_rss_tp_btf, u64 *, rss_tp_btf)

static __always_inline int rss_raw_tp(struct bpf_raw_tracepoint_args *ctx, const int mode)
{
	return rss_args(ctx, ctx->args[0], ctx->args[1], mode);
}
STK_RES_PROGRAMS("raw_tp/rss_stat", stk_res_rss_raw_tp, struct bpf_raw_tracepoint_args *, rss_raw_tp)

/* The classic record: mm_id (a hash of the mm), curr (the current task's mm), member, size in bytes. */
static __always_inline int rss_record(void *ctx, const int mode)
{
	const struct stk_res_config *cfg = stk_res_config_get();
	u32 mm_id = 0, curr = 0;
	s32 member = 0;
	s64 size = 0;

	if (!cfg)
		return 0;
	stk_res_read(&mm_id, sizeof(mm_id), (const char *)ctx + cfg->off.rss_mm_id);
	stk_res_read(&curr, sizeof(curr), (const char *)ctx + cfg->off.rss_curr);
	stk_res_read(&member, sizeof(member), (const char *)ctx + cfg->off.rss_member);
	stk_res_read(&size, sizeof(size), (const char *)ctx + cfg->off.rss_size);
	rss_changed(ctx, mm_id, (u32)member, size, curr != 0, mode);
	return 0;
}
STK_RES_PROGRAMS("tracepoint/kmem/rss_stat", stk_res_rss_tp, void *, rss_record)

/* One fault, its registers those of the faulting code; the period takes every Nth. */
static __always_inline int fault_sampled(struct bpf_perf_event_data *ctx, const int mode)
{
	stk_res_event(ctx, STK_RES_FAULTS, 1, 0, (stk_uregs_t *)&ctx->regs, true, true, 0, mode);
	return 0;
}
STK_RES_PROGRAMS("perf_event", stk_res_faults_perf, struct bpf_perf_event_data *, fault_sampled)

/* A user-mode fault: the kernel frames are the exception entry's, the user ones say where. */
static __always_inline int fault_user(void *ctx, const int mode)
{
	stk_res_event(ctx, STK_RES_FAULTS, 1, 0, NULL, false, false, 0, mode);
	return 0;
}
STK_RES_PROGRAMS("tracepoint/exceptions/page_fault_user", stk_res_faults_tp, void *, fault_user)

char LICENSE[] SEC("license") = "GPL";
