/* SPDX-License-Identifier: GPL-2.0 */
/* Types shared by bpf/offcputime.bpf.c and cmd/offcputime.c. */
#ifndef STK_OFFCPUTIME_TYPES_H
#define STK_OFFCPUTIME_TYPES_H

#include "stack_stats.h"

#define STK_OFFCPU_COMM_LEN 16

/* Kernel task state bits (include/linux/sched.h), stable since 4.14. */
#define STK_TASK_INTERRUPTIBLE 0x1
#define STK_TASK_UNINTERRUPTIBLE 0x2
#define STK_TASK_STOPPED 0x4
#define STK_TASK_TRACED 0x8
#define STK_TASK_PARKED 0x40
#define STK_TASK_DEAD 0x80
#define STK_TASK_NOLOAD 0x400
#define STK_TASK_IDLE (STK_TASK_UNINTERRUPTIBLE | STK_TASK_NOLOAD)

/* offcpu_config (one-entry array map; no global data, so 4.14 loads it). */
struct stk_offcpu_config {
	__u32 filter_pids;         /* only tgids in offcpu_pids */
	__u32 filter_tids;         /* only tids in offcpu_tids */
	__u32 user_threads_only;   /* -u */
	__u32 kernel_threads_only; /* -k */
	__u32 kernel_stacks;       /* capture kernel stacks */
	__u32 user_stacks;         /* capture user stacks */
	__u32 per_thread;          /* key counts by tid too */
	/* --state: a switch-out passes when any of these matches (all 0: no filter) */
	__u32 state_running;       /* state == 0 (preempted, runnable) */
	__u32 state_include;       /* state & include ... */
	__u32 state_exclude;       /* ... && !(state & exclude) */
	__u32 state_idle;          /* (state & TASK_IDLE) == TASK_IDLE */
	__u32 stack_bytes;         /* --unwind dwarf: user stack copied per block */
	__u32 self_tgid;           /* stk itself, never counted (0: unknown, another PID namespace) */
	__u32 max_depth;           /* cfi: frames a user chain keeps */
	__u64 min_ns;              /* -m: shorter blocks are not counted */
	__u64 max_ns;              /* -M: longer blocks are not counted */
	__u32 events;              /* STK_EVENTS_* (bpf/event_types.h): an event per block too */
	__u32 pad;
};

/* offcpu_start value: a thread that switched out and has not come back yet. */
struct stk_offcpu_start {
	__u64 ts;              /* bpf_ktime_get_ns() at switch-out (CLOCK_MONOTONIC) */
	__u32 tgid;
	__u32 tid;
	__s32 kernel_stack_id; /* -1: not captured (kprobe mechanism: taken at switch-in) */
	__s32 user_stack_id;
	char comm[STK_OFFCPU_COMM_LEN];
	__u64 content_hash;    /* --unwind dwarf: the sample's key (stack ids are then -1) */
	__u64 kernel_chain;    /* --unwind cfi: the kernel unwinder's chain ids (0: none) */
	__u64 user_chain;
	__u32 cpu;             /* where it switched out (the event log's cpu) */
	__u32 state;           /* its state then, as a letter ('S', 'D', 'R', ...; 0: unknown) */
};

/* offcpu_counts key; the value is the total off-CPU time in nanoseconds. */
struct stk_offcpu_key {
	__u32 tgid;
	__u32 tid; /* 0 unless per_thread */
	__s32 kernel_stack_id;
	__s32 user_stack_id;
	char comm[STK_OFFCPU_COMM_LEN];
	__u64 content_hash; /* --unwind dwarf: which sample (user space has its stacks); else 0 */
	__u64 kernel_chain; /* --unwind cfi: the kernel unwinder's chain ids (0: none) */
	__u64 user_chain;
};

/* Slots of offcpu_stats (per-CPU counters of data stk could not keep). */

#endif
