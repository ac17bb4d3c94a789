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
#include "announce_process.h"
#include "stack_counting.h"
#include "stack_capture.h"
#include "unwind_walk.h"
#include "event_log.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct stk_profile_config);
} profile_config SEC(".maps");

/* Sizes are set from options before load. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, u8);
} profile_pids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, u8);
} profile_tids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, u32);
} profile_cgroup SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 16384);
	__uint(key_size, sizeof(u32));
	__uint(value_size, 127 * sizeof(u64));
} profile_stacks SEC(".maps");

/* Per-CPU counts: no atomic add and no cache line shared between CPUs. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 40960);
	__type(key, struct stk_profile_key);
	__type(value, u64);
} profile_counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, STK_STAT_COUNT);
	__type(key, u32);
	__type(value, u64);
} profile_stats SEC(".maps");

/* (tgid, comm) pairs already announced to user space (see announce_process.h). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, u64);
	__type(value, u8);
} profile_seen SEC(".maps");

/* New tgids, so user space reads their mappings while they still exist. */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(u32));
	__uint(value_size, sizeof(u32));
} profile_new_process SEC(".maps");

/* One scratch sample per CPU (max_entries set to the CPU count before load). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct stk_stack_sample);
} profile_scratch SEC(".maps");

/* Samples for user-space unwinding (--unwind dwarf). */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(u32));
	__uint(value_size, sizeof(u32));
} profile_samples SEC(".maps");

/* The configuration when this task is to be sampled, else NULL. */
static __always_inline struct stk_profile_config *profile_wanted(u32 tgid, u32 tid)
{
	u32 zero = 0;
	struct stk_profile_config *cfg = bpf_map_lookup_elem(&profile_config, &zero);

	if (!cfg)
		return NULL;
	if (tid == 0 && !cfg->include_idle)
		return NULL;
	if (cfg->filter_pids && !bpf_map_lookup_elem(&profile_pids, &tgid))
		return NULL;
	if (cfg->filter_tids && !bpf_map_lookup_elem(&profile_tids, &tid))
		return NULL;
	if (cfg->filter_cgroup && bpf_current_task_under_cgroup(&profile_cgroup, 0) != 1)
		return NULL;
	return cfg;
}

/* A sample counted in the kernel, as an event too (events on). */
static __always_inline void send_event(const struct stk_profile_config *cfg, const struct stk_profile_key *key,
				       u32 tid)
{
	struct stk_event e;

	if (!cfg->events)
		return;
	stk_event_begin(&e, key->tgid, tid, STK_EVENT_CPU);
	STK_EVENT_KEY_STACK(&e, key);
	stk_event_send(&e, cfg->events);
}

/* Frame-pointer stacks counted in the kernel: --unwind fp, and dwarf samples the buffer had no room for. */
static __always_inline int count_fp(struct bpf_perf_event_data *ctx, const struct stk_profile_config *cfg, u32 tgid,
				    u32 tid)
{
	struct stk_profile_key key = {};

	key.tgid = tgid;
	key.tid = cfg->per_thread ? tid : 0;
	bpf_get_current_comm(&key.comm, sizeof(key.comm));
	key.kernel_stack_id = -1;
	key.user_stack_id = -1;
	if (cfg->kernel_stacks) {
		key.kernel_stack_id = stk_stack_id(ctx, &profile_stacks, 0, &profile_stats,
						   STK_STAT_KSTACK_COLLISION, STK_STAT_KSTACK_FULL);
	}
	if (cfg->user_stacks && tgid != 0) {
		key.user_stack_id = stk_stack_id(ctx, &profile_stacks, BPF_F_USER_STACK, &profile_stats,
						 STK_STAT_USTACK_COLLISION, STK_STAT_USTACK_FULL);
	}
	send_event(cfg, &key, tid);

	/* The hot path: a stack already counted, so its process is known too. */
	if (stk_count_add(&profile_counts, &key, 1, &profile_stats, STK_STAT_COUNTS_FULL) != 1)
		return 0;
	/* A new key may mean a new process, or one that exec'd. */
	if (stk_announce_process(ctx, &profile_seen, &profile_new_process, tgid, key.comm))
		stk_stat_inc(&profile_stats, STK_STAT_NEW_PROCESS_LOST);
	return 0;
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

/* A sample's registers and stack copy, unwound in user space. */
static __always_inline int send_copy(struct bpf_perf_event_data *ctx, const struct stk_profile_config *cfg, u32 tgid,
				     u32 tid)
{
	u32 cpu = bpf_get_smp_processor_id();
	struct stk_stack_sample *s = bpf_map_lookup_elem(&profile_scratch, &cpu);

	if (!s)
		return 0;
	stk_sample_begin(ctx, s, tgid, tid, 1, cfg->kernel_stacks);
	if (cfg->user_stacks && tgid != 0)
		stk_capture_user(s, (stk_uregs_t *)&ctx->regs, cfg->stack_bytes);
	if (cfg->events & STK_EVENTS_SPANS) {
		struct stk_span_frame *f = stk_span_top(tid);

		if (f) {
			s->span_label = f->label;
			s->span_value = f->value;
			s->span_flags = f->flags;
		}
	}
	/* No room in the buffer (its reader starved of CPU): the sample still counts, by frame pointers. */
	if (bpf_perf_event_output(ctx, &profile_samples, BPF_F_CURRENT_CPU, s, stk_sample_size(s))) {
		stk_stat_inc(&profile_stats, STK_STAT_SAMPLES_LOST);
		return count_fp(ctx, cfg, tgid, tid);
	}
	if (stk_announce_process(ctx, &profile_seen, &profile_new_process, tgid, s->comm))
		stk_stat_inc(&profile_stats, STK_STAT_NEW_PROCESS_LOST);
	return 0;
}

SEC("perf_event")
int stk_profile_sample_dwarf(struct bpf_perf_event_data *ctx)
{
	u64 id = bpf_get_current_pid_tgid();
	u32 tgid = id >> 32, tid = (u32)id;
	struct stk_profile_config *cfg = profile_wanted(tgid, tid);

	if (!cfg)
		return 0;
	return send_copy(ctx, cfg, tgid, tid);
}

SEC("perf_event")
int stk_profile_sample_cfi(struct bpf_perf_event_data *ctx)
{
	u64 id = bpf_get_current_pid_tgid();
	u32 tgid = id >> 32, tid = (u32)id;
	struct stk_profile_config *cfg = profile_wanted(tgid, tid);
	struct stk_profile_key key = {};

	if (!cfg)
		return 0;
	key.tgid = tgid;
	key.tid = cfg->per_thread ? tid : 0;
	key.kernel_stack_id = -1;
	key.user_stack_id = -1;
	if (cfg->user_stacks && tgid != 0) {
		int res = stk_unwind_user_chain(ctx, (stk_uregs_t *)&ctx->regs, tgid, cfg->max_depth, &key.user_chain);

		if (res == STK_WALK_NO_USER)
			key.user_stack_id = -STK_EFAULT;
		else if (res != STK_WALK_DONE)
			return send_copy(ctx, cfg, tgid, tid); /* no tables for it yet, no room */
	}
	if (cfg->kernel_stacks && !stk_unwind_kernel_chain(ctx, &key.kernel_chain, &key.kernel_stack_id))
		return send_copy(ctx, cfg, tgid, tid);
	bpf_get_current_comm(&key.comm, sizeof(key.comm));
	send_event(cfg, &key, tid);
	if (stk_count_add(&profile_counts, &key, 1, &profile_stats, STK_STAT_COUNTS_FULL) != 1)
		return 0;
	if (stk_announce_process(ctx, &profile_seen, &profile_new_process, tgid, key.comm))
		stk_stat_inc(&profile_stats, STK_STAT_NEW_PROCESS_LOST);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
