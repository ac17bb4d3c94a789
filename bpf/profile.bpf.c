// SPDX-License-Identifier: GPL-2.0
/*
 * profile: timed stack sampling from a perf_event program on every CPU, one
 * program per way of taking user stacks (core/unwind/unwind_plan.h):
 * stk_profile_sample_cfi (--unwind cfi): the kernel unwinder walks the user
 * stack with CFI tables (bpf/unwind.bpf.c); both chains are counted in the
 * kernel; a sample whose process has no tables yet takes the dwarf path.
 * stk_profile_sample_dwarf (--unwind dwarf): every sample's user registers
 * and stack copy go to user space, which unwinds and counts them.
 * stk_profile_sample (--unwind fp): only helpers and map types of 4.14
 * (bpf_get_stackid, STACK_TRACE, perf event output), counted in the kernel.
 * With events on (-o FILE.parquet, bpf/event_log.h) each sample counted in the
 * kernel is also sent as an event carrying its stack ids or chain ids; a
 * sample whose copy goes to user space carries its time and span there.
 */
#include "kernel_types.h"
#include <bpf/bpf_helpers.h>
#include "profile_types.h"
#include "stack_take.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct stk_profile_config);
} profile_config SEC(".maps");

/* The configuration when this task is to be sampled, else NULL. */
static __always_inline struct stk_profile_config *profile_wanted(u32 tgid, u32 tid)
{
	u32 zero = 0;
	struct stk_profile_config *cfg = bpf_map_lookup_elem(&profile_config, &zero);

	if (!cfg)
		return NULL;
	if (tid == 0 && !cfg->include_idle)
		return NULL;
	if (!stk_thread_wanted(&cfg->stack, tgid, tid))
		return NULL;
	return cfg;
}

/* A sample counted in the kernel, also as an event (events on), then counted. */
static __always_inline int count(struct bpf_perf_event_data *ctx, const struct stk_profile_config *cfg,
				 const struct stk_stack_ref *ref, u32 tid)
{
	if (cfg->stack.events) {
		struct stk_event e;

		stk_event_begin(&e, ref, tid, STK_EVENT_CPU);
		stk_event_send(&e, cfg->stack.events);
	}
	stk_count(ctx, ref, 1);
	return 0;
}

/* Frame-pointer stacks counted in the kernel: --unwind fp, and dwarf samples the buffer had no room for. */
static __always_inline int count_fp(struct bpf_perf_event_data *ctx, const struct stk_profile_config *cfg, u32 tgid,
				    u32 tid)
{
	struct stk_stack_ref ref = {};

	stk_ref_task(&cfg->stack, &ref, tgid, tid);
	ref.kernel_stack_id = -1;
	ref.user_stack_id = -1;
	stk_take_fp(ctx, &ref, cfg->stack.kernel_stacks, cfg->stack.user_stacks && tgid != 0);
	return count(ctx, cfg, &ref, tid);
}

SEC("perf_event")
int stk_profile_sample(struct bpf_perf_event_data *ctx)
{
	u64 id = bpf_get_current_pid_tgid();
	u32 tgid = id >> 32, tid = (u32)id;
	struct stk_profile_config *cfg = profile_wanted(tgid, tid);

	if (!cfg)
		return 0;
	return count_fp(ctx, cfg, tgid, tid);
}

/* A sample's registers and stack copy, unwound and counted in user space (each sample sent: not hashed). */
static __always_inline int send_copy(struct bpf_perf_event_data *ctx, const struct stk_profile_config *cfg, u32 tgid,
				     u32 tid)
{
	u32 cpu = bpf_get_smp_processor_id();
	struct stk_stack_sample *s = bpf_map_lookup_elem(&stk_scratch, &cpu);

	if (!s)
		return 0;
	stk_sample_begin(ctx, s, tgid, tid, 1, cfg->stack.kernel_stacks);
	if (cfg->stack.user_stacks && tgid != 0)
		stk_capture_user(s, (stk_uregs_t *)&ctx->regs, cfg->stack.stack_bytes);
	if (cfg->stack.events & STK_EVENTS_SPANS) {
		struct stk_span_frame *f = stk_span_top(tid);

		if (f) {
			s->span_label = f->label;
			s->span_value = f->value;
			s->span_flags = f->flags;
		}
	}
	/* No room in the buffer (its reader starved of CPU): the sample still counts, by frame pointers. */
	if (bpf_perf_event_output(ctx, &stk_samples, BPF_F_CURRENT_CPU, s, stk_sample_size(s))) {
		stk_stat_inc(&stk_stats, STK_STAT_SAMPLES_LOST);
		return count_fp(ctx, cfg, tgid, tid);
	}
	if (stk_announce_process(ctx, &stk_seen, &stk_new_process, tgid, s->comm))
		stk_stat_inc(&stk_stats, STK_STAT_NEW_PROCESS_LOST);
	return 0;
}

/*
 * A hashed copy counted in the kernel under its content hash, sent once per
 * content (the way of every other applet's copies: one capture of many
 * kinds reads its copies one way); frame pointers where the buffer had no room.
 */
static __always_inline int count_hashed(struct bpf_perf_event_data *ctx, const struct stk_profile_config *cfg,
					u32 tgid, u32 tid)
{
	struct stk_stack_ref ref = {};

	stk_ref_task(&cfg->stack, &ref, tgid, tid);
	stk_take_stacks(ctx, &cfg->stack, &ref, tid, (stk_uregs_t *)&ctx->regs, cfg->stack.kernel_stacks,
			cfg->stack.user_stacks && tgid != 0, STK_TAKE_DWARF);
	return count(ctx, cfg, &ref, tid);
}

/* A sample by a copy: sent whole (profile's own), or hashed (stk record). */
static __always_inline int by_copy(struct bpf_perf_event_data *ctx, const struct stk_profile_config *cfg, u32 tgid,
				   u32 tid)
{
	return cfg->hashed ? count_hashed(ctx, cfg, tgid, tid) : send_copy(ctx, cfg, tgid, tid);
}

SEC("perf_event")
int stk_profile_sample_dwarf(struct bpf_perf_event_data *ctx)
{
	u64 id = bpf_get_current_pid_tgid();
	u32 tgid = id >> 32, tid = (u32)id;
	struct stk_profile_config *cfg = profile_wanted(tgid, tid);

	if (!cfg)
		return 0;
	return by_copy(ctx, cfg, tgid, tid);
}

SEC("perf_event")
int stk_profile_sample_cfi(struct bpf_perf_event_data *ctx)
{
	u64 id = bpf_get_current_pid_tgid();
	u32 tgid = id >> 32, tid = (u32)id;
	struct stk_profile_config *cfg = profile_wanted(tgid, tid);
	struct stk_stack_ref ref = {};

	if (!cfg)
		return 0;
	ref.type = (u16)cfg->stack.type;
	ref.tgid = tgid;
	ref.tid = cfg->stack.per_thread ? tid : 0;
	ref.kernel_stack_id = -1;
	ref.user_stack_id = -1;
	/* no tables for it yet, or no room: the copy path */
	if (!stk_take_chains(ctx, &cfg->stack, &ref, (stk_uregs_t *)&ctx->regs, cfg->stack.kernel_stacks,
			     cfg->stack.user_stacks && tgid != 0))
		return by_copy(ctx, cfg, tgid, tid);
	bpf_get_current_comm(&ref.comm, sizeof(ref.comm));
	return count(ctx, cfg, &ref, tid);
}

char LICENSE[] SEC("license") = "GPL";
