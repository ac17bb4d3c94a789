/* SPDX-License-Identifier: GPL-2.0 */
/* Types shared by bpf/offcputime.bpf.c and cmd/offcputime.c. */
#ifndef STK_OFFCPUTIME_TYPES_H
#define STK_OFFCPUTIME_TYPES_H

#include "stack_types.h"

/* Kernel task state bits (include/linux/sched.h), stable since 4.14. */
#define STK_TASK_INTERRUPTIBLE 0x1
#define STK_TASK_UNINTERRUPTIBLE 0x2
#define STK_TASK_STOPPED 0x4
#define STK_TASK_TRACED 0x8
#define STK_TASK_PARKED 0x40
#define STK_TASK_DEAD 0x80
#define STK_TASK_NOLOAD 0x400
#define STK_TASK_IDLE (STK_TASK_UNINTERRUPTIBLE | STK_TASK_NOLOAD)

/* For user space: each sched_switch mechanism's program (enum stk_sched_mech order; one per rung of user
 * stacks: these names with its suffix), the cleanup of task-pointer keys, the maps of its own. */
#define STK_OFFCPU_PROGRAMS { "stk_offcpu_tp_btf", "stk_offcpu_raw_tp", "stk_offcpu_tracepoint", "stk_offcpu_kprobe" }
#define STK_OFFCPU_FREE_PROGRAM "stk_offcpu_task_free"
#define STK_OFFCPU_MAPS { "offcpu_config", "offcpu_start", "offcpu_countdown", "offcpu_pending", NULL }

/* offcpu_config (one-entry array map; no global data, so 4.14 loads it). Counts keyed by struct stk_stack_ref. */
struct stk_offcpu_config {
	struct stk_stack_config stack;
	__u32 user_threads_only;   /* -u */
	__u32 kernel_threads_only; /* -k */
	/* --state: a switch-out passes when any of these matches (all 0: no filter) */
	__u32 state_running;       /* state == 0 (preempted, runnable) */
	__u32 state_include;       /* state & include ... */
	__u32 state_exclude;       /* ... && !(state & exclude) */
	__u32 state_idle;          /* (state & TASK_IDLE) == TASK_IDLE */
	__u64 min_ns;              /* -m: shorter blocks are not counted */
	__u64 max_ns;              /* -M: longer blocks are not counted */
	/*
	 * > 1: one switch-out in this many, at random gaps (offcpu_countdown),
	 * is taken and its block's time counted this many times over (an
	 * unbiased total for a fraction of the cost). Random, not every Nth:
	 * two threads taking turns on a CPU would otherwise leave one of them
	 * never taken.
	 */
	__u32 every;
	__u32 pad;
};

/* offcpu_start value: a thread that switched out and has not come back yet. */
struct stk_offcpu_start {
	struct stk_stack_ref ref; /* its stacks (kprobe mechanism: taken at switch-in), ref.tid the thread */
	__u64 ts;                 /* bpf_ktime_get_ns() at switch-out (CLOCK_MONOTONIC) */
	__u32 cpu;                /* where it switched out (the event log's cpu) */
	__u32 state;              /* its state then, as a letter ('S', 'D', 'R', ...; 0: unknown) */
};

#endif
