/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel unwinder's maps (bpf/unwind_types.h), declared once: defined
 * in bpf/unwind.bpf.c (STK_UNWIND_MAPS_HERE), extern everywhere else, and
 * shared by every applet in the one linked object. Sizes of the tables are
 * set by user space before load (core/bpf/unwind_maps.c).
 */
#ifndef STK_UNWIND_MAPS_H
#define STK_UNWIND_MAPS_H

#include "unwind_types.h"

#ifdef STK_UNWIND_MAPS_HERE
#define STK_UNWIND_MAP
#else
#define STK_UNWIND_MAP extern
#endif

STK_UNWIND_MAP struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct stk_cfi_row);
} unwind_rows SEC(".maps");

/* Per mapping, n_pages + 1 row indexes: the row covering each 4 KiB page's start. */
STK_UNWIND_MAP struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, u32);
} unwind_pages SEC(".maps");

STK_UNWIND_MAP struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct stk_unwind_mapping);
} unwind_mappings SEC(".maps");

STK_UNWIND_MAP struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct stk_unwind_proc);
} unwind_procs SEC(".maps");

STK_UNWIND_MAP struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, struct stk_chain_key);
	__type(value, struct stk_chain_chunk);
} unwind_chains SEC(".maps");

STK_UNWIND_MAP struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct stk_walk);
} unwind_scratch SEC(".maps");

STK_UNWIND_MAP struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, STK_USTAT_COUNT);
	__type(key, u32);
	__type(value, u64);
} unwind_stats SEC(".maps");

/* A process's interpreter as the walk reads it (bpf/runtime_types.h), by tgid. */
STK_UNWIND_MAP struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct stk_rt_proc);
} unwind_runtimes SEC(".maps");

/* Where each thread's interpreter state is, by host tid (placed, or found by the walk: the least used go first). */
STK_UNWIND_MAP struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct stk_rt_thread);
} unwind_rt_threads SEC(".maps");

/* Threads' walks (struct stk_walk_memo), by host tid and where they started: the least used go first. */
STK_UNWIND_MAP struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1);
	__type(key, struct stk_walk_memo_key);
	__type(value, struct stk_walk_memo);
} unwind_memo SEC(".maps");

/* Threads' kernel chains at a switch-out (struct stk_kmemo), by host tid and depth: the least used go first. */
STK_UNWIND_MAP struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1);
	__type(key, struct stk_kmemo_key);
	__type(value, struct stk_kmemo);
} unwind_kmemo SEC(".maps");

/* Processes whose mappings changed under the walk (struct stk_unwind_request). */
STK_UNWIND_MAP struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(u32));
	__uint(value_size, sizeof(u32));
} unwind_requests SEC(".maps");

#undef STK_UNWIND_MAP

#endif
