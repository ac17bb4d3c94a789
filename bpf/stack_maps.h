/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The maps every stack applet counts through, declared once: defined in
 * bpf/stack_maps.bpf.c (STK_STACK_MAPS_HERE), extern everywhere else, and
 * shared by profile, offcputime, stackcount and resources in the one linked
 * object (only one applet loads them in a run). User space selects them by
 * rung and sizes them before load (core/session/session.c).
 */
#ifndef STK_STACK_MAPS_H
#define STK_STACK_MAPS_H

#include "stack_types.h"
#include "stack_sample.h"

#ifdef STK_STACK_MAPS_HERE
#define STK_STACK_MAP
#else
#define STK_STACK_MAP extern
#endif

/* -p and -t: the tgids and tids to count (one entry each; at least one so that they can be created). */
STK_STACK_MAP struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, u8);
} stk_pids SEC(".maps");

STK_STACK_MAP struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, u8);
} stk_tids SEC(".maps");

/* --cgroup: the cgroup v2 directory whose tasks (and its descendants') count. */
STK_STACK_MAP struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, u32);
} stk_cgroup SEC(".maps");

/* Frame-pointer stacks (--unwind fp, and copies the sample buffer had no room for). */
STK_STACK_MAP struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 16384);
	__uint(key_size, sizeof(u32));
	__uint(value_size, 127 * sizeof(u64));
} stk_stacks SEC(".maps");

/* Per-CPU weights by stack: no atomics, no shared cache lines on the hot path. */
STK_STACK_MAP struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 40960);
	__type(key, struct stk_stack_ref);
	__type(value, u64);
} stk_counts SEC(".maps");

/* bpf/stack_stats.h's slots: what could not be kept. */
STK_STACK_MAP struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, STK_STAT_COUNT);
	__type(key, u32);
	__type(value, u64);
} stk_stats SEC(".maps");

/* (tgid, comm) pairs already announced to user space (see announce_process.h). */
STK_STACK_MAP struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, u64);
	__type(value, u8);
} stk_seen SEC(".maps");

/* New tgids, so user space reads their mappings while they still exist. */
STK_STACK_MAP struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(u32));
	__uint(value_size, sizeof(u32));
} stk_new_process SEC(".maps");

/* Stack copies (--unwind dwarf, and cfi's processes without tables yet): one scratch sample per CPU. */
STK_STACK_MAP struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct stk_stack_sample);
} stk_scratch SEC(".maps");

/* The copies, to user space for unwinding. */
STK_STACK_MAP struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(u32));
	__uint(value_size, sizeof(u32));
} stk_samples SEC(".maps");

/* Content hashes of copies already sent (hashed copies go once). */
STK_STACK_MAP struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, u64);
	__type(value, u8);
} stk_sent SEC(".maps");

#undef STK_STACK_MAP

#endif
