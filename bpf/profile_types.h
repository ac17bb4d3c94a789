/* SPDX-License-Identifier: GPL-2.0 */
/* Types shared by bpf/profile.bpf.c and cmd/profile.c. */
#ifndef STK_PROFILE_TYPES_H
#define STK_PROFILE_TYPES_H

#include "stack_stats.h"

#define STK_COMM_LEN 16

/* profile_config (one-entry array map; no global data, so 4.14 loads it). */
struct stk_profile_config {
	__u32 filter_pids;   /* only tgids in profile_pids */
	__u32 filter_tids;   /* only tids in profile_tids */
	__u32 filter_cgroup; /* only tasks under profile_cgroup[0] */
	__u32 include_idle;  /* count the idle task (pid 0) */
	__u32 kernel_stacks; /* capture kernel stacks */
	__u32 user_stacks;   /* capture user stacks */
	__u32 per_thread;    /* key by tid too */
	__u32 stack_bytes;   /* --stack-bytes: user stack copied per sample (dwarf) */
	__u32 max_depth;     /* cfi: frames a user chain keeps */
	__u32 events;        /* STK_EVENTS_* (bpf/event_types.h): an event per sample too */
};

struct stk_profile_key {
	__u32 tgid;
	__u32 tid; /* 0 unless per_thread */
	__s32 kernel_stack_id; /* < 0: not captured (-errno) or not requested */
	__s32 user_stack_id;
	char comm[STK_COMM_LEN];
	__u64 kernel_chain; /* cfi: the kernel unwinder's chain ids (0: none) */
	__u64 user_chain;
};

/* Slots of profile_stats (per-CPU counters of data stk could not keep). */

#endif
