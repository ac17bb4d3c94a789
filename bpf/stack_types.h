/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every stack applet's BPF side shares with user space: the one
 * reference to a stack (the key of stk_counts and the head of every event,
 * bpf/event_types.h), resolved to frames by one resolver in user space
 * (core/session/stack_resolver.h), and the head of every stack applet's
 * configuration, filled by the session from the shared stack options.
 */
#ifndef STK_STACK_TYPES_H
#define STK_STACK_TYPES_H

#include "stack_stats.h"

#define STK_COMM_LEN 16

/* stk_stack_ref.flags */
#define STK_REF_STILL 1 /* a block still going when the capture ended (user space makes these) */

/* stk_stack_ref.who: the thread the weight belongs to, when it is not a plain user thread's. */
#define STK_WHO_USER 0
#define STK_WHO_KTHREAD 1   /* a kernel thread (writeback, kworkers, jbd2, ...) */
#define STK_WHO_IO_WORKER 2 /* an io_uring worker of the process */

/*
 * A stack by reference, as the rung that took it left it: the kernel
 * unwinder's chain ids (cfi), a stack copy's id (dwarf: the content hash the
 * kernel counted it under, or the number user space gave a copy it counted
 * itself), or frame-pointer stack ids in stk_stacks; plus the task and what
 * the weight is. Compared byte for byte as a map key: no padding, and the
 * unused fields zero.
 */
struct stk_stack_ref {
	__u64 kernel_chain;    /* cfi: chain ids (0: none) */
	__u64 user_chain;
	__u64 copy;            /* dwarf: the copy's id (0: none) */
	__s32 kernel_stack_id; /* fp: stack ids, or -errno (-1: not taken) */
	__s32 user_stack_id;
	__u32 tgid;
	__u32 tid;             /* counts: 0 unless threads are kept apart; events: the thread */
	char comm[STK_COMM_LEN];
	__u16 type;            /* what the weight is: the configuration's type, plus stk resources' kind */
	__u16 detail;          /* resources: block read or write; a system call's number + 1 */
	__u16 who;             /* STK_WHO_* */
	__u16 flags;           /* STK_REF_* */
};

/*
 * The head of every stack applet's configuration (its one-entry array map:
 * no global data, so 4.14 loads it), the same for all of them.
 */
struct stk_stack_config {
	__u32 filter_pids;   /* only tgids in stk_pids */
	__u32 filter_tids;   /* only tids in stk_tids */
	__u32 kernel_stacks; /* take kernel stacks */
	__u32 user_stacks;   /* take user stacks */
	__u32 per_thread;    /* count by tid too */
	__u32 stack_bytes;   /* dwarf: user stack copied per event */
	__u32 self_tgid;     /* stk itself, never counted (0: unknown, another PID namespace) */
	__u32 max_depth;     /* cfi: frames a user chain keeps */
	__u32 events;        /* STK_EVENTS_* (bpf/event_types.h): an event per count too */
	__u32 type;          /* the ref.type of what it counts (stk resources adds its kind): 0, or in one capture
			      * of many kinds (stk record) each kind's own, so they stay apart in counts and events */
	__u32 filter_cgroup; /* only tasks under stk_cgroup[0] (--cgroup) */
	__u32 pad;
};

#endif
