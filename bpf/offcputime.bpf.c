// SPDX-License-Identifier: GPL-2.0
/*
 * offcputime: how long threads block, per stack. At switch-out the thread's
 * stacks and a timestamp go into offcpu_start; at switch-in the elapsed time
 * is added to stk_counts (bpf/stack_maps.h). One program per sched_switch mechanism
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
 * hash is seen (stk_sent), to be unwound there. And a *_cfi twin
 * (--unwind cfi, 5.17+): the kernel unwinder walks the user stack with CFI
 * tables (bpf/unwind.bpf.c) and time is counted under the chains' ids; a
 * thread whose process has no tables yet takes the dwarf way.
 *
 * With events on (bpf/event_log.h) each block counted is also sent as an
 * event at switch-in: its start, length, CPU, state and stack references.
 *
 * --sample N (stk record's offcpu:N) takes one switch-out in N and weighs
 * its block N times; the rest cost a count down (and the switch-in's
 * lookup, which finds nothing).
 */
#include "kernel_types.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "offcputime_types.h"
#include "stack_take.h"

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

/* Threads now off CPU, keyed by task pointer (tid for the tracepoint). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);
	__type(key, u64);
	__type(value, struct stk_offcpu_start);
} offcpu_start SEC(".maps");

/*
 * How many offcpu_start entries each bucket of threads holds, at least (an
 * entry dropped without its count, as a freed task's, leaves one more,
 * never one less), so a switch-in whose bucket is empty skips the hash
 * lookup, whose miss is the dearest part of a switch not taken (--sample):
 * a load from 16 KiB that stays in cache against a walk of a bucket list.
 * A thread's bucket comes from a seed its mechanism can always compute at
 * both ends: the tid where the task is a typed pointer (tp_btf, whose
 * pointers take no arithmetic), else the key itself.
 */
#define PENDING_BUCKETS 4096
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, PENDING_BUCKETS);
	__type(key, u32);
	__type(value, u32);
} offcpu_pending SEC(".maps");

static __always_inline u32 *pending_of(u64 seed)
{
	u32 b = (u32)(seed ^ (seed >> 12) ^ (seed >> 24)) & (PENDING_BUCKETS - 1);

	return bpf_map_lookup_elem(&offcpu_pending, &b);
}

/* Adds an entry to offcpu_start under key, counted in seed's bucket first (a switch-in never misses it). */
static __always_inline void start_store(u64 key, u64 seed, const struct stk_offcpu_start *st)
{
	u32 *n = pending_of(seed);

	if (n)
		__sync_fetch_and_add(n, 1);
	if (bpf_map_update_elem(&offcpu_start, &key, st, BPF_ANY)) {
		stk_stat_inc(&stk_stats, STK_STAT_START_FULL);
		if (n)
			__sync_fetch_and_add(n, -1);
	}
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
	u64 key, seed; /* seed: its offcpu_pending bucket's */
	u32 tgid, tid;
	long state;
	int kthread;       /* -1: unknown, decided by the user-stack test below */
	bool in_prev;      /* the program runs on the thread's own stack (not kprobe) */
	struct task_struct *task; /* kprobe: read comm from here */
};

/*
 * The current task's stacks for a block by the program's mode (a kernel
 * thread has no user stack to take): it blocks on its own kernel stack, so
 * its kernel chain may be the one kept from its last block there.
 */
static __always_inline void take_stacks(void *ctx, const struct stk_offcpu_config *cfg, struct stk_stack_ref *ref,
					u32 tid, bool kthread, const int mode)
{
	stk_take_stacks_at(ctx, &cfg->stack, ref, tid, NULL, cfg->stack.kernel_stacks,
			   cfg->stack.user_stacks && !kthread, mode, true);
}

/* --sample N: switch-outs left on this CPU until the next one taken. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, u32);
} offcpu_countdown SEC(".maps");

/*
 * --sample N: whether this switch-out is the one in N taken, decided before
 * anything else is read, so the others cost a count down (nothing is stored
 * for them, so their switch-in finds nothing either). The gaps between
 * taken ones on a CPU are drawn at random from N - N/2 to N + N/2 (mean N):
 * random, so threads taking turns on a CPU are all taken alike; spread
 * narrowly, so a thread's count of taken blocks strays less than a coin
 * flipped per switch-out would make it.
 */
static __always_inline bool switch_out_taken(const struct stk_offcpu_config *cfg)
{
	u32 zero = 0, *left, half;

	if (cfg->every <= 1)
		return true;
	left = bpf_map_lookup_elem(&offcpu_countdown, &zero);
	if (!left)
		return false;
	if (*left > 1) {
		*left -= 1;
		return false;
	}
	half = cfg->every / 2;
	*left = cfg->every - half + bpf_get_prandom_u32() % (2 * half + 1);
	return true;
}

static __always_inline void on_switch_out(void *ctx, const struct stk_offcpu_config *cfg,
					  struct switch_out *o, const int mode)
{
	struct stk_offcpu_start st = {};
	u64 t0 = cfg->every > 1 ? bpf_ktime_get_ns() : 0;

	if (o->tid == 0) /* the idle task never blocks */
		return;
	if (o->state != STATE_UNKNOWN && (o->state & STK_TASK_DEAD))
		return; /* exiting: its last switch-out never comes back */
	/* never stk's own waits: each would wake it with a new sample to read, and so on */
	if (!stk_thread_wanted(&cfg->stack, o->tgid, o->tid))
		return;
	if (!state_passes(cfg, o->state))
		return;
	st.ref.kernel_stack_id = -1;
	st.ref.user_stack_id = -1;
	if (mode != STK_TAKE_FP && o->kthread < 0) {
		struct task_struct *cur = (void *)bpf_get_current_task();

		o->kthread = (BPF_CORE_READ(cur, flags) & PF_KTHREAD) != 0;
	}
	if (o->in_prev && mode == STK_TAKE_FP) {
		if (cfg->stack.user_stacks || (o->kthread < 0 && (cfg->user_threads_only || cfg->kernel_threads_only)))
			st.ref.user_stack_id = stk_stack_id(ctx, &stk_stacks, BPF_F_USER_STACK, &stk_stats,
							    STK_STAT_USTACK_COLLISION, STK_STAT_USTACK_FULL);
		/* Without BTF: a kernel thread has no user stack at all (-EFAULT). */
		if (o->kthread < 0)
			o->kthread = st.ref.user_stack_id == -EFAULT;
		if (!cfg->stack.user_stacks)
			st.ref.user_stack_id = -1;
	}
	if (cfg->user_threads_only && o->kthread == 1)
		return;
	if (cfg->kernel_threads_only && o->kthread == 0)
		return;
	st.ref.tgid = o->tgid;
	st.ref.type = (u16)cfg->stack.type;
	if (o->in_prev) {
		if (mode != STK_TAKE_FP)
			take_stacks(ctx, cfg, &st.ref, o->tid, o->kthread == 1, mode);
		else
			stk_take_fp(ctx, &st.ref, cfg->stack.kernel_stacks, false);
		bpf_get_current_comm(&st.ref.comm, sizeof(st.ref.comm));
	} else if (o->task) {
		struct task_struct *t = o->task; /* a plain pointer: no CO-RE relocation on switch_out */

		BPF_CORE_READ_STR_INTO(&st.ref.comm, t, comm);
	}
	/*
	 * Every block: timed from after its stacks were taken, as the thread's own clocks count (the time
	 * spent taking them is its CPU time). One in N: from before, as the N - 1 it stands for had no such
	 * work (a timer set before the switch would otherwise show each taken block shorter by it).
	 */
	st.ts = cfg->every > 1 ? t0 : bpf_ktime_get_ns();
	st.ref.tid = o->tid;
	st.cpu = bpf_get_smp_processor_id();
	st.state = state_letter(o->state);
	start_store(o->key, o->seed, &st);
}

/* in_next: the program runs on the returning thread (kprobe): take its stacks now. now: 0 until read. */
static __always_inline void on_switch_in(void *ctx, const struct stk_offcpu_config *cfg, u64 key, u64 seed,
					 u64 now, bool in_next, const int mode)
{
	struct stk_offcpu_start *sp;
	struct stk_stack_ref ref;
	u64 start, delta, weight;
	u32 tid, cpu, state, *pending = pending_of(seed);

	if (pending && !*pending)
		return; /* nothing stored for any thread of its bucket */
	sp = bpf_map_lookup_elem(&offcpu_start, &key);
	if (!sp)
		return;
	if (!now)
		now = bpf_ktime_get_ns();
	start = sp->ts;
	delta = now - start;
	ref = sp->ref;
	tid = ref.tid;
	cpu = sp->cpu; /* the event's, read before the delete */
	state = sp->state;
	if (bpf_map_delete_elem(&offcpu_start, &key) == 0 && pending)
		__sync_fetch_and_add(pending, -1);
	if (delta < cfg->min_ns || delta > cfg->max_ns)
		return;
	weight = cfg->every > 1 ? delta * cfg->every : delta;
	ref.tid = cfg->stack.per_thread ? tid : 0;
	if (in_next) {
		struct task_struct *cur = (void *)bpf_get_current_task();
		bool kthread = (BPF_CORE_READ(cur, flags) & PF_KTHREAD) != 0;

		take_stacks(ctx, cfg, &ref, tid, kthread, mode);
	}
	if (cfg->stack.events) {
		struct stk_event e;

		stk_event_begin(&e, &ref, tid, STK_EVENT_OFFCPU);
		e.time = start;
		e.weight = weight;
		e.cpu = cpu;
		e.state = (u8)state;
		stk_event_send(&e, cfg->stack.events);
	}
	stk_count(ctx, &ref, weight);
}

static __always_inline const struct stk_offcpu_config *config(void)
{
	u32 zero = 0;

	return bpf_map_lookup_elem(&offcpu_config, &zero);
}

/* tp_btf and raw_tp share this: prev is the current task, next is a pointer. */
static __always_inline int on_sched_switch(void *ctx, bool preempt, struct task_struct *prev,
					   struct task_struct *next, u64 prev_seed, u64 next_seed, const int mode)
{
	const struct stk_offcpu_config *cfg = config();

	if (!cfg)
		return 0;
	if (switch_out_taken(cfg)) {
		u64 id = bpf_get_current_pid_tgid();
		struct switch_out o = {
			.key = (u64)prev,
			.seed = prev_seed,
			.tgid = id >> 32,
			.tid = (u32)id,
			.in_prev = true,
		};

		/* Preempted threads are runnable: state 0, as the tracepoint reports "R+". */
		o.state = task_state(prev);
		if (preempt && o.state != STATE_UNKNOWN)
			o.state = 0;
		o.kthread = task_is_kthread(prev);
		on_switch_out(ctx, cfg, &o, mode);
	}
	on_switch_in(ctx, cfg, (u64)next, next_seed, 0, false, mode);
	return 0;
}

/* Typed task pointers: their buckets by tid (read directly, no helper). */
static __always_inline int tp_btf_switch(u64 *ctx, const int mode)
{
	struct task_struct *prev = (struct task_struct *)ctx[1], *next = (struct task_struct *)ctx[2];

	return on_sched_switch(ctx, (bool)ctx[0], prev, next, (u32)prev->pid, (u32)next->pid, mode);
}

/* Plain numbers: the pointers are their own seeds. */
static __always_inline int raw_tp_switch(struct bpf_raw_tracepoint_args *ctx, const int mode)
{
	return on_sched_switch(ctx, (bool)ctx->args[0], (struct task_struct *)ctx->args[1],
			       (struct task_struct *)ctx->args[2], ctx->args[1], ctx->args[2], mode);
}

SEC("tp_btf/sched_switch")
int stk_offcpu_tp_btf(u64 *ctx)
{
	return tp_btf_switch(ctx, STK_TAKE_FP);
}

SEC("tp_btf/sched_switch")
int stk_offcpu_tp_btf_dwarf(u64 *ctx)
{
	return tp_btf_switch(ctx, STK_TAKE_DWARF);
}

SEC("tp_btf/sched_switch")
int stk_offcpu_tp_btf_cfi(u64 *ctx)
{
	return tp_btf_switch(ctx, STK_TAKE_CFI);
}

SEC("raw_tp/sched_switch")
int stk_offcpu_raw_tp(struct bpf_raw_tracepoint_args *ctx)
{
	return raw_tp_switch(ctx, STK_TAKE_FP);
}

SEC("raw_tp/sched_switch")
int stk_offcpu_raw_tp_dwarf(struct bpf_raw_tracepoint_args *ctx)
{
	return raw_tp_switch(ctx, STK_TAKE_DWARF);
}

SEC("raw_tp/sched_switch")
int stk_offcpu_raw_tp_cfi(struct bpf_raw_tracepoint_args *ctx)
{
	return raw_tp_switch(ctx, STK_TAKE_CFI);
}

/*
 * A freed task's pointer may be reused by a new task: drop its entry, so a
 * thread that died off CPU (only possible when its state could not be read)
 * never lends its time to the next owner of the address. Its bucket keeps
 * its count (its seed may be a tid this program cannot tell): one more only
 * costs lookups.
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
		.seed = (u32)ctx->prev_pid,
		.tgid = id >> 32,
		.tid = (u32)ctx->prev_pid,
		.state = tp_state(ctx->prev_state),
		.kthread = -1,
		.in_prev = true,
	};

	if (!cfg)
		return 0;
	if (switch_out_taken(cfg))
		on_switch_out(ctx, cfg, &o, mode);
	if (ctx->next_pid)
		on_switch_in(ctx, cfg, (u32)ctx->next_pid, (u32)ctx->next_pid, now, false, mode);
	return 0;
}

SEC("tracepoint/sched/sched_switch")
int stk_offcpu_tracepoint(struct sched_switch_record *ctx)
{
	return on_tracepoint(ctx, STK_TAKE_FP);
}

SEC("tracepoint/sched/sched_switch")
int stk_offcpu_tracepoint_dwarf(struct sched_switch_record *ctx)
{
	return on_tracepoint(ctx, STK_TAKE_DWARF);
}

SEC("tracepoint/sched/sched_switch")
int stk_offcpu_tracepoint_cfi(struct sched_switch_record *ctx)
{
	return on_tracepoint(ctx, STK_TAKE_CFI);
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
		.seed = (u64)prev,
		.tgid = BPF_CORE_READ(prev, tgid),
		.tid = BPF_CORE_READ(prev, pid),
		.state = task_state(prev),
		.kthread = task_is_kthread(prev),
		.in_prev = false,
		.task = prev,
	};

	if (!cfg)
		return 0;
	if (switch_out_taken(cfg))
		on_switch_out(ctx, cfg, &o, mode);
	u64 cur = bpf_get_current_task();

	on_switch_in(ctx, cfg, cur, cur, now, true, mode);
	return 0;
}

SEC("kprobe")
int stk_offcpu_kprobe(struct pt_regs *ctx)
{
	return on_finish_task_switch(ctx, STK_TAKE_FP);
}

SEC("kprobe")
int stk_offcpu_kprobe_dwarf(struct pt_regs *ctx)
{
	return on_finish_task_switch(ctx, STK_TAKE_DWARF);
}

SEC("kprobe")
int stk_offcpu_kprobe_cfi(struct pt_regs *ctx)
{
	return on_finish_task_switch(ctx, STK_TAKE_CFI);
}

char LICENSE[] SEC("license") = "GPL";
