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
 * content sent once to user space for unwinding. And a *_cfi twin (--unwind
 * cfi): the kernel unwinder's chains (bpf/unwind.bpf.c), counted under their
 * ids; a process without tables yet takes the dwarf way.
 * With events on (bpf/event_log.h) each hit counted is also sent as an event.
 */
#include "kernel_types.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/usdt.bpf.h>
#include "stackcount_types.h"
#include "announce_process.h"
#include "stack_counting.h"
#include "stack_capture.h"
#include "unwind_walk.h"
#include "event_log.h"


struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct stk_sc_config);
} sc_config SEC(".maps");

/* Sizes are set from options before load. */
struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 16384);
	__uint(key_size, sizeof(u32));
	__uint(value_size, 127 * sizeof(u64));
} sc_stacks SEC(".maps");

/* Per-CPU counts: no atomics, no shared cache lines on the hot path. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 40960);
	__type(key, struct stk_sc_key);
	__type(value, u64);
} sc_counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, STK_STAT_COUNT);
	__type(key, u32);
	__type(value, u64);
} sc_stats SEC(".maps");

/* (tgid, comm) pairs already announced to user space (see announce_process.h). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, u64);
	__type(value, u8);
} sc_seen SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(u32));
	__uint(value_size, sizeof(u32));
} sc_new_process SEC(".maps");

/* --unwind dwarf: one scratch sample per CPU (max_entries: the CPU count). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct stk_stack_sample);
} sc_scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(u32));
	__uint(value_size, sizeof(u32));
} sc_samples SEC(".maps");

/* Content hashes already sent to user space. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, u64);
	__type(value, u8);
} sc_sent SEC(".maps");

/* How a program takes stacks: the --unwind rung it was built for. */
enum mode { FP, DWARF, CFI };

/* The kernel unwinder's chains into key; false when they need the dwarf way (no tables yet, no room). */
static __always_inline bool cfi_stacks(void *ctx, const struct stk_sc_config *cfg, u32 tgid, stk_uregs_t *user_ctx,
				       struct stk_sc_key *key)
{
	if (cfg->user_stacks && tgid) {
		int res = stk_unwind_user_chain(ctx, user_ctx, tgid, cfg->max_depth, &key->user_chain);

		if (res == STK_WALK_NO_USER)
			key->user_stack_id = -STK_EFAULT;
		else if (res != STK_WALK_DONE)
			return false;
	}
	return !cfg->kernel_stacks || stk_unwind_kernel_chain(ctx, &key->kernel_chain, &key->kernel_stack_id);
}

/* A hit counted, as an event too (events on). */
static __always_inline void send_event(const struct stk_sc_config *cfg, const struct stk_sc_key *key, u64 id)
{
	struct stk_event e;

	if (!cfg->events)
		return;
	stk_event_begin(&e, id >> 32, (u32)id, STK_EVENT_PROBE);
	STK_EVENT_KEY_STACK(&e, key);
	e.content_hash = key->content_hash;
	stk_event_send(&e, cfg->events);
}

/*
 * mode: how to take the stacks (dwarf: for user-space unwinding); user_ctx:
 * the probe's registers when they are the user's (uprobe, USDT), else NULL.
 */
static __always_inline int count_stack(void *ctx, const int mode, stk_uregs_t *user_ctx)
{
	u32 zero = 0;
	const struct stk_sc_config *cfg = bpf_map_lookup_elem(&sc_config, &zero);
	u64 id = bpf_get_current_pid_tgid();
	struct stk_sc_key key = {};
	u32 tgid = id >> 32;

	if (!cfg)
		return 0;
	if (cfg->filter_pid && tgid != cfg->pid)
		return 0;
	/* stk's own hits (a probe on a function stk calls too): each would feed the next */
	if (cfg->self_tgid && tgid == cfg->self_tgid)
		return 0;
	if (cfg->filter_cpu && bpf_get_smp_processor_id() != cfg->cpu)
		return 0;
	key.kernel_stack_id = -1;
	key.user_stack_id = -1;
	if (cfg->keep_tgid) {
		key.tgid = tgid;
		bpf_get_current_comm(&key.comm, sizeof(key.comm));
	}
	if (mode == CFI && cfi_stacks(ctx, cfg, tgid, user_ctx, &key))
		goto count;
	key.kernel_chain = 0;
	key.user_chain = 0;
	key.user_stack_id = -1;
	if (mode != FP)
		key.content_hash = stk_capture_hashed(ctx, &sc_scratch, &sc_samples, &sc_sent, &sc_stats, tgid,
						      (u32)id, cfg->kernel_stacks, cfg->user_stacks && tgid, user_ctx,
						      cfg->stack_bytes);
	/* fp, or a dwarf sample the buffer had no room for */
	if (!key.content_hash) {
		if (cfg->kernel_stacks)
			key.kernel_stack_id = stk_stack_id(ctx, &sc_stacks, 0, &sc_stats,
							   STK_STAT_KSTACK_COLLISION, STK_STAT_KSTACK_FULL);
		if (cfg->user_stacks)
			key.user_stack_id = stk_stack_id(ctx, &sc_stacks, BPF_F_USER_STACK, &sc_stats,
							 STK_STAT_USTACK_COLLISION, STK_STAT_USTACK_FULL);
	}
count:
	send_event(cfg, &key, id);
	if (stk_count_add(&sc_counts, &key, 1, &sc_stats, STK_STAT_COUNTS_FULL) != 1)
		return 0;
	/* A new key may mean a new process, or one that exec'd. */
	if (cfg->keep_tgid && stk_announce_process(ctx, &sc_seen, &sc_new_process, tgid, key.comm))
		stk_stat_inc(&sc_stats, STK_STAT_NEW_PROCESS_LOST);
	return 0;
}

SEC("fentry")
int stk_sc_fentry(u64 *ctx)
{
	return count_stack(ctx, FP, NULL);
}

SEC("fentry")
int stk_sc_fentry_dwarf(u64 *ctx)
{
	return count_stack(ctx, DWARF, NULL);
}

SEC("fentry")
int stk_sc_fentry_cfi(u64 *ctx)
{
	return count_stack(ctx, CFI, NULL);
}

SEC("kprobe.multi")
int stk_sc_kprobe_multi(struct pt_regs *ctx)
{
	return count_stack(ctx, FP, NULL);
}

SEC("kprobe.multi")
int stk_sc_kprobe_multi_dwarf(struct pt_regs *ctx)
{
	return count_stack(ctx, DWARF, NULL);
}

SEC("kprobe.multi")
int stk_sc_kprobe_multi_cfi(struct pt_regs *ctx)
{
	return count_stack(ctx, CFI, NULL);
}

SEC("kprobe")
int stk_sc_kprobe(struct pt_regs *ctx)
{
	return count_stack(ctx, FP, NULL);
}

SEC("kprobe")
int stk_sc_kprobe_dwarf(struct pt_regs *ctx)
{
	return count_stack(ctx, DWARF, NULL);
}

SEC("kprobe")
int stk_sc_kprobe_cfi(struct pt_regs *ctx)
{
	return count_stack(ctx, CFI, NULL);
}

SEC("raw_tp")
int stk_sc_raw_tp(void *ctx)
{
	return count_stack(ctx, FP, NULL);
}

SEC("raw_tp")
int stk_sc_raw_tp_dwarf(void *ctx)
{
	return count_stack(ctx, DWARF, NULL);
}

SEC("raw_tp")
int stk_sc_raw_tp_cfi(void *ctx)
{
	return count_stack(ctx, CFI, NULL);
}

SEC("tracepoint")
int stk_sc_tracepoint(void *ctx)
{
	return count_stack(ctx, FP, NULL);
}

SEC("tracepoint")
int stk_sc_tracepoint_dwarf(void *ctx)
{
	return count_stack(ctx, DWARF, NULL);
}

SEC("tracepoint")
int stk_sc_tracepoint_cfi(void *ctx)
{
	return count_stack(ctx, CFI, NULL);
}

SEC("uprobe")
int stk_sc_uprobe(struct pt_regs *ctx)
{
	return count_stack(ctx, FP, NULL);
}

SEC("uprobe")
int stk_sc_uprobe_dwarf(struct pt_regs *ctx)
{
	return count_stack(ctx, DWARF, (stk_uregs_t *)ctx);
}

SEC("uprobe")
int stk_sc_uprobe_cfi(struct pt_regs *ctx)
{
	return count_stack(ctx, CFI, (stk_uregs_t *)ctx);
}

SEC("uprobe.multi")
int stk_sc_uprobe_multi(struct pt_regs *ctx)
{
	return count_stack(ctx, FP, NULL);
}

SEC("uprobe.multi")
int stk_sc_uprobe_multi_dwarf(struct pt_regs *ctx)
{
	return count_stack(ctx, DWARF, (stk_uregs_t *)ctx);
}

SEC("uprobe.multi")
int stk_sc_uprobe_multi_cfi(struct pt_regs *ctx)
{
	return count_stack(ctx, CFI, (stk_uregs_t *)ctx);
}

SEC("usdt")
int stk_sc_usdt(struct pt_regs *ctx)
{
	return count_stack(ctx, FP, NULL);
}

SEC("usdt")
int stk_sc_usdt_dwarf(struct pt_regs *ctx)
{
	return count_stack(ctx, DWARF, (stk_uregs_t *)ctx);
}

SEC("usdt")
int stk_sc_usdt_cfi(struct pt_regs *ctx)
{
	return count_stack(ctx, CFI, (stk_uregs_t *)ctx);
}

char LICENSE[] SEC("license") = "GPL";
