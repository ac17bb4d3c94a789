/* SPDX-License-Identifier: GPL-2.0 */
/* Types shared by bpf/stackcount.bpf.c and cmd/stackcount.c. */
#ifndef STK_STACKCOUNT_TYPES_H
#define STK_STACKCOUNT_TYPES_H

#include "stack_stats.h"

#define STK_SC_COMM_LEN 16

/* sc_config (one-entry array map; no global data, so 4.14 loads it). */
struct stk_sc_config {
	__u32 filter_pid;    /* -p: only this tgid */
	__u32 pid;
	__u32 filter_cpu;    /* -c: only this CPU */
	__u32 cpu;
	__u32 kernel_stacks; /* capture kernel stacks */
	__u32 user_stacks;   /* capture user stacks */
	__u32 keep_tgid;     /* key counts by process (-P, or user stacks to symbolize) */
	__u32 stack_bytes;   /* --unwind dwarf: user stack copied per event */
	__u32 self_tgid;     /* stk itself, never counted (0: unknown, another PID namespace) */
	__u32 max_depth;     /* --unwind cfi: frames a user chain keeps */
	__u32 events;        /* STK_EVENTS_* (bpf/event_types.h): an event per hit too */
};

/* sc_counts key; the value is the number of events. */
struct stk_sc_key {
	__u32 tgid;
	__s32 kernel_stack_id;
	__s32 user_stack_id;
	char comm[STK_SC_COMM_LEN];
	__u32 pad;
	__u64 content_hash; /* --unwind dwarf: which sample (user space has its stacks); else 0 */
	__u64 kernel_chain; /* --unwind cfi: the kernel unwinder's chain ids (0: none) */
	__u64 user_chain;
};

/* Slots of sc_stats (per-CPU counters of data stk could not keep). */

#endif
