// SPDX-License-Identifier: GPL-2.0
/*
 * threadstate, tracepoint source (no BTF, no iterators: the floor for old
 * kernels): classic tracepoints keep one stk_ts_tp_thread per thread that
 * had an event since attach, and user space reads the whole map every
 * sample. Threads that had no event yet are taken from /proc by user space.
 *
 *   sched:sched_switch        prev -> its reported state, next -> RUN
 *   sched:sched_wakeup(_new)  -> RUNQ
 *   raw_syscalls:sys_enter    syscall number, arguments, entry time
 *   raw_syscalls:sys_exit     out of the syscall
 *
 * No exit event: sched_process_free's record layout changed in 6.x (comm
 * became a __data_loc string), and none is needed: user space only looks
 * up threads that exist, the map is LRU, and a new thread that reuses a
 * tid starts afresh at sched_wakeup_new.
 *
 * Only 4.14 helpers and map types; configuration lives in an array map.
 * With -u and --unwind dwarf, stk_ts_tp_switch_dwarf takes sched_switch
 * instead: the user stack is captured for unwinding in user space and
 * hashed, as offcputime does (BTF, 5.3+; loaded only then).
 */
#include "kernel_types.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "threadstate_types.h"
#include "stack_maps.h"
#include "stack_counting.h"
#include "stack_capture.h"

/* The reported prev_state bits (TASK_REPORT; "preempted" is TASK_REPORT_MAX). */
#define REPORT_S 0x1
#define REPORT_D 0x2
#define REPORT_STOPPED 0xc /* T and t */
#define REPORT_EXIT 0x30   /* X and Z */
#define REPORT_PARKED 0x40
#define REPORT_IDLE 0x80
#define REPORT_PREEMPTED 0x100

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct stk_ts_tp_config);
} ts_tp_config SEC(".maps");

/* LRU: a thread that exits unseen by sched_process_free cannot fill the map. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, u32);
	__type(value, struct stk_ts_tp_thread);
} ts_tp_threads SEC(".maps");

/* Classic tracepoint records (format file layouts, stable since 4.x). */
struct ts_switch_record {
	u64 common;
	char prev_comm[16];
	int prev_pid;
	int prev_prio;
	long prev_state;
	char next_comm[16];
	int next_pid;
	int next_prio;
};

struct ts_pid_record { /* sched_wakeup, sched_wakeup_new */
	u64 common;
	char comm[16];
	int pid;
};

struct ts_sys_enter_record {
	u64 common;
	long id;
	unsigned long args[6];
};

static __always_inline u32 state_of_report(long reported)
{
	if (reported & REPORT_PREEMPTED)
		return STK_TS_RUNQ;
	if (reported & REPORT_EXIT)
		return STK_TS_ZOMBIE;
	if (reported & (REPORT_IDLE | REPORT_PARKED))
		return STK_TS_IDLE;
	if (reported & REPORT_D)
		return STK_TS_DISK;
	if (reported & REPORT_S)
		return STK_TS_SLEEP;
	if (reported & REPORT_STOPPED)
		return STK_TS_STOPPED;
	return STK_TS_RUNQ; /* R at switch-out: preempted */
}

/* The thread's entry, created (syscall unknown) when it has none yet. */
static __always_inline struct stk_ts_tp_thread *thread_entry(u32 tid, u32 tgid, u32 state, const char *comm)
{
	struct stk_ts_tp_thread *e = bpf_map_lookup_elem(&ts_tp_threads, &tid);

	if (e)
		return e;
	struct stk_ts_tp_thread fresh = {
		.tgid = tgid,
		.state = state,
		.syscall_nr = STK_TS_SYSCALL_UNKNOWN,
		.kstack_id = -1,
		.ustack_id = -1,
	};
	if (comm)
		bpf_probe_read_kernel(fresh.comm, sizeof(fresh.comm), comm);
	bpf_map_update_elem(&ts_tp_threads, &tid, &fresh, BPF_NOEXIST);
	return bpf_map_lookup_elem(&ts_tp_threads, &tid);
}

/* prev (the current task) leaves the CPU with its state and stacks; next runs. */
static __always_inline int on_switch(struct ts_switch_record *ctx, const bool dwarf)
{
	u32 prev = (u32)ctx->prev_pid, next = (u32)ctx->next_pid, zero = 0;
	u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct stk_ts_tp_config *cfg = bpf_map_lookup_elem(&ts_tp_config, &zero);
	struct stk_ts_tp_thread *e;

	if (prev && (e = thread_entry(prev, tgid, STK_TS_SLEEP, ctx->prev_comm))) {
		e->tgid = tgid;
		e->state = state_of_report(ctx->prev_state);
		bpf_probe_read_kernel(e->comm, sizeof(e->comm), ctx->prev_comm);
		if (cfg && cfg->kernel_stacks)
			e->kstack_id = bpf_get_stackid(ctx, &stk_stacks, 0);
		e->ustack_hash = 0;
		if (dwarf && cfg && cfg->user_stacks)
			e->ustack_hash = stk_capture_hashed(ctx, &stk_scratch, &stk_samples, &stk_sent,
							    &stk_stats, tgid, prev, false, true, NULL,
							    cfg->stack_bytes);
		/* fp, or a dwarf sample the buffer had no room for */
		if (cfg && cfg->user_stacks)
			e->ustack_id = e->ustack_hash ? -1 : bpf_get_stackid(ctx, &stk_stacks, BPF_F_USER_STACK);
	}
	if (next && (e = thread_entry(next, 0, STK_TS_RUN, ctx->next_comm)))
		e->state = STK_TS_RUN;
	return 0;
}

SEC("tracepoint/sched/sched_switch")
int stk_ts_tp_switch(struct ts_switch_record *ctx)
{
	return on_switch(ctx, false);
}

SEC("tracepoint/sched/sched_switch")
int stk_ts_tp_switch_dwarf(struct ts_switch_record *ctx)
{
	return on_switch(ctx, true);
}

static __always_inline int on_wakeup(struct ts_pid_record *ctx)
{
	u32 tid = (u32)ctx->pid;
	struct stk_ts_tp_thread *e = tid ? thread_entry(tid, 0, STK_TS_RUNQ, ctx->comm) : NULL;

	if (e && e->state != STK_TS_RUN)
		e->state = STK_TS_RUNQ;
	return 0;
}

SEC("tracepoint/sched/sched_wakeup")
int stk_ts_tp_wakeup(struct ts_pid_record *ctx)
{
	return on_wakeup(ctx);
}

/* A new thread: nothing an earlier thread with the same tid left applies. */
SEC("tracepoint/sched/sched_wakeup_new")
int stk_ts_tp_wakeup_new(struct ts_pid_record *ctx)
{
	u32 tid = (u32)ctx->pid;
	struct stk_ts_tp_thread fresh = {
		.state = STK_TS_RUNQ,
		.syscall_nr = STK_TS_NO_SYSCALL, /* it starts by returning to user mode */
		.kstack_id = -1,
		.ustack_id = -1,
	};

	if (!tid)
		return 0;
	bpf_probe_read_kernel(fresh.comm, sizeof(fresh.comm), ctx->comm);
	bpf_map_update_elem(&ts_tp_threads, &tid, &fresh, BPF_ANY);
	return 0;
}

SEC("tracepoint/raw_syscalls/sys_enter")
int stk_ts_tp_sys_enter(struct ts_sys_enter_record *ctx)
{
	u64 id = bpf_get_current_pid_tgid();
	u32 tid = (u32)id;
	struct stk_ts_tp_thread *e = thread_entry(tid, id >> 32, STK_TS_RUN, NULL);

	if (!e)
		return 0;
	e->tgid = id >> 32;
	e->state = STK_TS_RUN;
	e->syscall_nr = (s32)ctx->id;
	for (int i = 0; i < 6; i++)
		e->args[i] = ctx->args[i];
	e->enter_ns = bpf_ktime_get_ns();
	if (!e->comm[0])
		bpf_get_current_comm(e->comm, sizeof(e->comm));
	return 0;
}

SEC("tracepoint/raw_syscalls/sys_exit")
int stk_ts_tp_sys_exit(void *ctx)
{
	u32 tid = (u32)bpf_get_current_pid_tgid();
	struct stk_ts_tp_thread *e = bpf_map_lookup_elem(&ts_tp_threads, &tid);

	if (e)
		e->syscall_nr = STK_TS_NO_SYSCALL;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
