// SPDX-License-Identifier: GPL-2.0
/*
 * offcputime: how long threads block, per stack. At switch-out the thread's
 * stacks and a timestamp go into offcpu_start; at switch-in the elapsed time
 * is added to offcpu_counts. One program per sched_switch mechanism
 * (core/attach/attach_sched.c picks the first that loads and attaches):
 *
 *   tp_btf     sched_switch with BTF-typed arguments (5.5+)
 *   raw_tp     sched_switch raw arguments (4.17+); needs no BTF for the
 *              accounting itself, since threads are keyed by task pointer
 *   tracepoint sched:sched_switch classic record (prev_pid, prev_state,
 *              next_pid): no BTF at all, the floor for old kernels
 *   kprobe     finish_task_switch(prev) runs in the next task: stacks are
 *              taken at switch-in, as bcc does
 *
 * Only 4.14 helpers and map types; configuration lives in an array map.
 *
 * Each has a *_dwarf twin (--unwind dwarf, 5.3+ for its bounded loops): at
 * switch-out the kernel frames, user registers and a copy of the user stack
 * are hashed (bpf/stack_capture.h); time is counted in the kernel under that
 * hash, and the sample itself goes to user space only the first time its
 * hash is seen (offcpu_sent), to be unwound there. And a *_cfi twin
 * (--unwind cfi, 5.17+): the kernel unwinder walks the user stack with CFI
 * tables (bpf/unwind.bpf.c) and time is counted under the chains' ids; a
 * thread whose process has no tables yet takes the dwarf way.
 *
 * With events on (bpf/event_log.h) each block counted is also sent as an
 * event at switch-in: its start, length, CPU, state and stack references.
 */
#include "kernel_types.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "offcputime_types.h"
#include "announce_process.h"
#include "stack_counting.h"
#include "stack_capture.h"
#include "unwind_walk.h"
#include "event_log.h"

#define EFAULT 14
#define PF_KTHREAD 0x00200000
/* The tracepoint reports "preempted" as this bit (TASK_REPORT_MAX), idle as 0x80. */
#define TP_STATE_PREEMPTED 0x100
#define TP_STATE_IDLE 0x80
#define TP_STATE_EXITING 0x30 /* EXIT_DEAD | EXIT_ZOMBIE */
/* Not read from the kernel (no BTF): let every switch-out through. */
#define STATE_UNKNOWN (-1L)

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct stk_offcpu_config);
} offcpu_config SEC(".maps");

/* Sizes are set from options before load. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, u8);
} offcpu_pids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, u8);
} offcpu_tids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 16384);
	__uint(key_size, sizeof(u32));
	__uint(value_size, 127 * sizeof(u64));
} offcpu_stacks SEC(".maps");

/* Threads now off CPU, keyed by task pointer (tid for the tracepoint). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);
	__type(key, u64);
	__type(value, struct stk_offcpu_start);
} offcpu_start SEC(".maps");

/* Per-CPU totals: a thread's switch-in may happen on any CPU, without atomics. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 40960);
	__type(key, struct stk_offcpu_key);
	__type(value, u64);
} offcpu_counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, STK_STAT_COUNT);
	__type(key, u32);
	__type(value, u64);
} offcpu_stats SEC(".maps");

/* (tgid, comm) pairs already announced to user space (see announce_process.h). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, u64);
	__type(value, u8);
} offcpu_seen SEC(".maps");

/* New tgids, so user space reads their mappings while they still exist. */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(u32));
	__uint(value_size, sizeof(u32));
} offcpu_new_process SEC(".maps");

/* --unwind dwarf: one scratch sample per CPU (max_entries: the CPU count). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct stk_stack_sample);
} offcpu_scratch SEC(".maps");

/* Samples with content user space has not seen yet. */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(u32));
	__uint(value_size, sizeof(u32));
} offcpu_samples SEC(".maps");

/* Content hashes already sent to user space. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, u64);
	__type(value, u8);
} offcpu_sent SEC(".maps");

/* How a program takes stacks: the --unwind rung it was built for. */
enum mode { FP, DWARF, CFI };

/* Captures and sends the current task's stacks: their content hash, or 0 (see stk_capture_hashed). */
static __always_inline u64 capture_dwarf(void *ctx, const struct stk_offcpu_config *cfg, u32 tgid, u32 tid,
					 bool kthread)
{
	return stk_capture_hashed(ctx, &offcpu_scratch, &offcpu_samples, &offcpu_sent, &offcpu_stats, tgid, tid,
				  cfg->kernel_stacks, cfg->user_stacks && !kthread, NULL, cfg->stack_bytes);
}

/* The current task's frame-pointer stacks (--unwind fp, and dwarf samples with no room in the buffer). */
static __always_inline void fp_stack_ids(void *ctx, const struct stk_offcpu_config *cfg, s32 *kid, s32 *uid)
{
	if (cfg->kernel_stacks)
		*kid = stk_stack_id(ctx, &offcpu_stacks, 0, &offcpu_stats, STK_STAT_KSTACK_COLLISION,
				    STK_STAT_KSTACK_FULL);
	if (cfg->user_stacks)
		*uid = stk_stack_id(ctx, &offcpu_stacks, BPF_F_USER_STACK, &offcpu_stats, STK_STAT_USTACK_COLLISION,
				    STK_STAT_USTACK_FULL);
}

/* __state (5.14+) or state; STATE_UNKNOWN without BTF (the branches are then dead code). */
static __always_inline long task_state(struct task_struct *t)
{
	struct task_struct___old *old = (void *)t;

	if (bpf_core_field_exists(t->__state))
		return BPF_CORE_READ(t, __state);
	if (bpf_core_field_exists(old->state))
		return BPF_CORE_READ(old, state);
	return STATE_UNKNOWN;
}

/* 1 kernel thread, 0 user thread, -1 unknown (no BTF). */
static __always_inline int task_is_kthread(struct task_struct *t)
{
	if (bpf_core_field_exists(t->flags))
		return (BPF_CORE_READ(t, flags) & PF_KTHREAD) != 0;
	return -1;
}

static __always_inline bool state_passes(const struct stk_offcpu_config *cfg, long state)
{
	if (!cfg->state_running && !cfg->state_include && !cfg->state_idle)
		return true;
	if (state == STATE_UNKNOWN)
		return true; /* user space refuses --state where the state cannot be read */
	if (cfg->state_running && state == 0)
		return true;
	if ((state & cfg->state_include) && !(state & cfg->state_exclude))
		return true;
	return cfg->state_idle && (state & STK_TASK_IDLE) == STK_TASK_IDLE;
}

/* The state's letter as ps shows it (0: not known). */
static __always_inline u32 state_letter(long state)
{
	if (state == STATE_UNKNOWN)
		return 0;
	if (state == 0)
		return 'R';
	if ((state & STK_TASK_IDLE) == STK_TASK_IDLE)
		return 'I';
	if (state & STK_TASK_UNINTERRUPTIBLE)
		return 'D';
	if (state & STK_TASK_INTERRUPTIBLE)
		return 'S';
	if (state & STK_TASK_STOPPED)
		return 'T';
	if (state & STK_TASK_TRACED)
		return 't';
	if (state & STK_TASK_PARKED)
		return 'P';
	return '?';
}

/* What the switching-out thread is, as far as the mechanism can tell. */
struct switch_out {
	u64 key;
	u32 tgid, tid;
	long state;
	int kthread;       /* -1: unknown, decided by the user-stack test below */
	bool in_prev;      /* the program runs on the thread's own stack (not kprobe) */
	struct task_struct *task; /* kprobe: read comm from here */
};

/*
 * The current task's stacks by the kernel unwinder into the start record;
 * false when they need the dwarf way (no tables yet, no room to keep them).
 */
static __always_inline bool cfi_stacks(void *ctx, const struct stk_offcpu_config *cfg, u32 tgid, bool kthread,
				       u64 *kchain, u64 *uchain, s32 *kid, s32 *uid)
{
	if (cfg->user_stacks && !kthread) {
		int res = stk_unwind_user_chain(ctx, NULL, tgid, cfg->max_depth, uchain);

		if (res == STK_WALK_NO_USER)
			*uid = -STK_EFAULT;
		else if (res != STK_WALK_DONE)
			return false;
	}
	return !cfg->kernel_stacks || stk_unwind_kernel_chain(ctx, kchain, kid);
}

/* The current task's stacks for a block, by the program's mode; dwarf falls back to frame pointers. */
static __always_inline void take_stacks(void *ctx, const struct stk_offcpu_config *cfg, u32 tgid, u32 tid,
					bool kthread, u64 *hash, u64 *kchain, u64 *uchain, s32 *kid, s32 *uid,
					const int mode)
{
	if (mode == CFI && cfi_stacks(ctx, cfg, tgid, kthread, kchain, uchain, kid, uid))
		return;
	*kchain = 0;
	*uchain = 0;
	*kid = -1;
	*uid = -1;
	if (mode != FP && (*hash = capture_dwarf(ctx, cfg, tgid, tid, kthread)))
		return;
	fp_stack_ids(ctx, cfg, kid, uid);
}

static __always_inline void on_switch_out(void *ctx, const struct stk_offcpu_config *cfg,
					  struct switch_out *o, u64 now, const int mode)
{
	struct stk_offcpu_start st = {};

	if (o->tid == 0) /* the idle task never blocks */
		return;
	/* stk's own waits: each would wake it with a new sample to read, and so on */
	if (cfg->self_tgid && o->tgid == cfg->self_tgid)
		return;
	if (o->state != STATE_UNKNOWN && (o->state & STK_TASK_DEAD))
		return; /* exiting: its last switch-out never comes back */
	if (cfg->filter_pids && !bpf_map_lookup_elem(&offcpu_pids, &o->tgid))
		return;
	if (cfg->filter_tids && !bpf_map_lookup_elem(&offcpu_tids, &o->tid))
		return;
	if (!state_passes(cfg, o->state))
		return;
	st.kernel_stack_id = -1;
	st.user_stack_id = -1;
	if (mode != FP && o->kthread < 0) {
		struct task_struct *cur = (void *)bpf_get_current_task();

		o->kthread = (BPF_CORE_READ(cur, flags) & PF_KTHREAD) != 0;
	}
	if (o->in_prev && mode == FP) {
		if (cfg->user_stacks || (o->kthread < 0 && (cfg->user_threads_only || cfg->kernel_threads_only)))
			st.user_stack_id = stk_stack_id(ctx, &offcpu_stacks, BPF_F_USER_STACK, &offcpu_stats,
							STK_STAT_USTACK_COLLISION, STK_STAT_USTACK_FULL);
		/* Without BTF: a kernel thread has no user stack at all (-EFAULT). */
		if (o->kthread < 0)
			o->kthread = st.user_stack_id == -EFAULT;
		if (!cfg->user_stacks)
			st.user_stack_id = -1;
	}
	if (cfg->user_threads_only && o->kthread == 1)
		return;
	if (cfg->kernel_threads_only && o->kthread == 0)
		return;
	if (o->in_prev) {
		if (mode != FP)
			take_stacks(ctx, cfg, o->tgid, o->tid, o->kthread == 1, &st.content_hash, &st.kernel_chain,
				    &st.user_chain, &st.kernel_stack_id, &st.user_stack_id, mode);
		else if (cfg->kernel_stacks)
			st.kernel_stack_id = stk_stack_id(ctx, &offcpu_stacks, 0, &offcpu_stats,
							  STK_STAT_KSTACK_COLLISION, STK_STAT_KSTACK_FULL);
		bpf_get_current_comm(&st.comm, sizeof(st.comm));
	} else if (o->task) {
		struct task_struct *t = o->task; /* a plain pointer: no CO-RE relocation on switch_out */

		BPF_CORE_READ_STR_INTO(&st.comm, t, comm);
	}
	st.ts = now;
	st.tgid = o->tgid;
	st.tid = o->tid;
	st.cpu = bpf_get_smp_processor_id();
	st.state = state_letter(o->state);
	if (bpf_map_update_elem(&offcpu_start, &o->key, &st, BPF_ANY))
		stk_stat_inc(&offcpu_stats, STK_STAT_START_FULL);
}

/* A block counted, as an event too (events on): its start, length and where it blocked. */
struct block {
	u64 start;
	u32 tid, cpu, state;
};

static __always_inline void send_event(const struct stk_offcpu_config *cfg, const struct block *b,
				       const struct stk_offcpu_key *k, u64 delta)
{
	struct stk_event e;

	if (!cfg->events)
		return;
	stk_event_begin(&e, k->tgid, b->tid, STK_EVENT_OFFCPU);
	e.time = b->start;
	e.weight = delta;
	e.cpu = b->cpu;
	e.state = (u8)b->state;
	STK_EVENT_KEY_STACK(&e, k);
	e.content_hash = k->content_hash;
	stk_event_send(&e, cfg->events);
}

static __always_inline void add_time(void *ctx, const struct stk_offcpu_key *key, u64 delta)
{
	if (stk_count_add(&offcpu_counts, key, delta, &offcpu_stats, STK_STAT_COUNTS_FULL) != 1)
		return;
	/* A new key may mean a new process, or one that exec'd. */
	if (stk_announce_process(ctx, &offcpu_seen, &offcpu_new_process, key->tgid, key->comm))
		stk_stat_inc(&offcpu_stats, STK_STAT_NEW_PROCESS_LOST);
}

/* in_next: the program runs on the returning thread (kprobe): take its stacks now. */
static __always_inline void on_switch_in(void *ctx, const struct stk_offcpu_config *cfg, u64 key,
					 u64 now, bool in_next, const int mode)
{
	struct stk_offcpu_start *sp = bpf_map_lookup_elem(&offcpu_start, &key);
	struct stk_offcpu_key k = {};
	struct block b;
	u64 delta;

	if (!sp)
		return;
	delta = now - sp->ts;
	k.tgid = sp->tgid;
	k.tid = cfg->per_thread ? sp->tid : 0;
	k.kernel_stack_id = sp->kernel_stack_id;
	k.user_stack_id = sp->user_stack_id;
	k.content_hash = sp->content_hash;
	k.kernel_chain = sp->kernel_chain;
	k.user_chain = sp->user_chain;
	__builtin_memcpy(k.comm, sp->comm, sizeof(k.comm));
	b.start = sp->ts; /* the event's, read before the delete */
	b.tid = sp->tid;
	b.cpu = sp->cpu;
	b.state = sp->state;
	bpf_map_delete_elem(&offcpu_start, &key);
	if (delta < cfg->min_ns || delta > cfg->max_ns)
		return;
	if (in_next) {
		struct task_struct *cur = (void *)bpf_get_current_task();
		bool kthread = (BPF_CORE_READ(cur, flags) & PF_KTHREAD) != 0;

		take_stacks(ctx, cfg, k.tgid, sp->tid, kthread, &k.content_hash, &k.kernel_chain, &k.user_chain,
			    &k.kernel_stack_id, &k.user_stack_id, mode);
	}
	send_event(cfg, &b, &k, delta);
	add_time(ctx, &k, delta);
}

static __always_inline const struct stk_offcpu_config *config(void)
{
	u32 zero = 0;

	return bpf_map_lookup_elem(&offcpu_config, &zero);
}

/* tp_btf and raw_tp share this: prev is the current task, next is a pointer. */
static __always_inline int on_sched_switch(void *ctx, bool preempt, struct task_struct *prev,
					   struct task_struct *next, const int mode)
{
	const struct stk_offcpu_config *cfg = config();
	u64 id = bpf_get_current_pid_tgid(), now = bpf_ktime_get_ns();
	struct switch_out o = {
		.key = (u64)prev,
		.tgid = id >> 32,
		.tid = (u32)id,
		.in_prev = true,
	};

	if (!cfg)
		return 0;
	/* Preempted threads are runnable: state 0, as the tracepoint reports "R+". */
	o.state = task_state(prev);
	if (preempt && o.state != STATE_UNKNOWN)
		o.state = 0;
	o.kthread = task_is_kthread(prev);
	on_switch_out(ctx, cfg, &o, now, mode);
	on_switch_in(ctx, cfg, (u64)next, now, false, mode);
	return 0;
}

SEC("tp_btf/sched_switch")
int stk_offcpu_tp_btf(u64 *ctx)
{
	return on_sched_switch(ctx, (bool)ctx[0], (struct task_struct *)ctx[1], (struct task_struct *)ctx[2], FP);
}

SEC("tp_btf/sched_switch")
int stk_offcpu_tp_btf_dwarf(u64 *ctx)
{
	return on_sched_switch(ctx, (bool)ctx[0], (struct task_struct *)ctx[1], (struct task_struct *)ctx[2], DWARF);
}

SEC("tp_btf/sched_switch")
int stk_offcpu_tp_btf_cfi(u64 *ctx)
{
	return on_sched_switch(ctx, (bool)ctx[0], (struct task_struct *)ctx[1], (struct task_struct *)ctx[2], CFI);
}

SEC("raw_tp/sched_switch")
int stk_offcpu_raw_tp(struct bpf_raw_tracepoint_args *ctx)
{
	return on_sched_switch(ctx, (bool)ctx->args[0], (struct task_struct *)ctx->args[1],
			       (struct task_struct *)ctx->args[2], FP);
}

SEC("raw_tp/sched_switch")
int stk_offcpu_raw_tp_dwarf(struct bpf_raw_tracepoint_args *ctx)
{
	return on_sched_switch(ctx, (bool)ctx->args[0], (struct task_struct *)ctx->args[1],
			       (struct task_struct *)ctx->args[2], DWARF);
}

SEC("raw_tp/sched_switch")
int stk_offcpu_raw_tp_cfi(struct bpf_raw_tracepoint_args *ctx)
{
	return on_sched_switch(ctx, (bool)ctx->args[0], (struct task_struct *)ctx->args[1],
			       (struct task_struct *)ctx->args[2], CFI);
}

/*
 * A freed task's pointer may be reused by a new task: drop its entry, so a
 * thread that died off CPU (only possible when its state could not be read)
 * never lends its time to the next owner of the address.
 */
SEC("raw_tp/sched_process_free")
int stk_offcpu_task_free(struct bpf_raw_tracepoint_args *ctx)
{
	u64 key = ctx->args[0];

	bpf_map_delete_elem(&offcpu_start, &key);
	return 0;
}

/* The classic record of sched:sched_switch (format file layout since 4.x). */
struct sched_switch_record {
	u64 common;
	char prev_comm[16];
	int prev_pid;
	int prev_prio;
	long prev_state;
	char next_comm[16];
	int next_pid;
	int next_prio;
};

/* The tracepoint's reported state, mapped onto kernel state bits. */
static __always_inline long tp_state(long reported)
{
	if (reported & TP_STATE_PREEMPTED)
		return 0;
	if (reported & TP_STATE_EXITING)
		return STK_TASK_DEAD;
	if (reported & TP_STATE_IDLE)
		return STK_TASK_IDLE;
	return reported;
}

static __always_inline int on_tracepoint(struct sched_switch_record *ctx, const int mode)
{
	const struct stk_offcpu_config *cfg = config();
	u64 id = bpf_get_current_pid_tgid(), now = bpf_ktime_get_ns();
	struct switch_out o = {
		.key = (u32)ctx->prev_pid,
		.tgid = id >> 32,
		.tid = (u32)ctx->prev_pid,
		.state = tp_state(ctx->prev_state),
		.kthread = -1,
		.in_prev = true,
	};

	if (!cfg)
		return 0;
	on_switch_out(ctx, cfg, &o, now, mode);
	if (ctx->next_pid)
		on_switch_in(ctx, cfg, (u32)ctx->next_pid, now, false, mode);
	return 0;
}

SEC("tracepoint/sched/sched_switch")
int stk_offcpu_tracepoint(struct sched_switch_record *ctx)
{
	return on_tracepoint(ctx, FP);
}

SEC("tracepoint/sched/sched_switch")
int stk_offcpu_tracepoint_dwarf(struct sched_switch_record *ctx)
{
	return on_tracepoint(ctx, DWARF);
}

SEC("tracepoint/sched/sched_switch")
int stk_offcpu_tracepoint_cfi(struct sched_switch_record *ctx)
{
	return on_tracepoint(ctx, CFI);
}

/*
 * finish_task_switch(prev) (or a compiler clone such as
 * finish_task_switch.isra.0; user space resolves the name) runs in the task
 * that was just switched in.
 */
static __always_inline int on_finish_task_switch(struct pt_regs *ctx, const int mode)
{
	const struct stk_offcpu_config *cfg = config();
	struct task_struct *prev = (struct task_struct *)PT_REGS_PARM1(ctx);
	u64 now = bpf_ktime_get_ns();
	struct switch_out o = {
		.key = (u64)prev,
		.tgid = BPF_CORE_READ(prev, tgid),
		.tid = BPF_CORE_READ(prev, pid),
		.state = task_state(prev),
		.kthread = task_is_kthread(prev),
		.in_prev = false,
		.task = prev,
	};

	if (!cfg)
		return 0;
	on_switch_out(ctx, cfg, &o, now, mode);
	on_switch_in(ctx, cfg, (u64)bpf_get_current_task(), now, true, mode);
	return 0;
}

SEC("kprobe")
int stk_offcpu_kprobe(struct pt_regs *ctx)
{
	return on_finish_task_switch(ctx, FP);
}

SEC("kprobe")
int stk_offcpu_kprobe_dwarf(struct pt_regs *ctx)
{
	return on_finish_task_switch(ctx, DWARF);
}

SEC("kprobe")
int stk_offcpu_kprobe_cfi(struct pt_regs *ctx)
{
	return on_finish_task_switch(ctx, CFI);
}

char LICENSE[] SEC("license") = "GPL";
