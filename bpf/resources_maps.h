/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stk resources' own maps (the stack maps are every stack applet's,
 * bpf/stack_maps.h), declared once: defined in bpf/resources.bpf.c
 * (STK_RES_MAPS_HERE), extern in the other resources_*.bpf.c, which the
 * Makefile links after it. Sizes are set by user space before load.
 */
#ifndef STK_RESOURCES_MAPS_H
#define STK_RESOURCES_MAPS_H

#include "resources_types.h"

#ifdef STK_RES_MAPS_HERE
#define STK_RES_MAP
#else
#define STK_RES_MAP extern
#endif

STK_RES_MAP struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct stk_res_config);
} res_config SEC(".maps");

STK_RES_MAP struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, STK_RES_FACT_COUNT);
	__type(key, u32);
	__type(value, u64);
} res_facts SEC(".maps");

/* Every Nth event: a counter per kind per CPU. */
STK_RES_MAP struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, STK_RES_KIND_COUNT);
	__type(key, u32);
	__type(value, u64);
} res_every SEC(".maps");

/* rss: the last size seen of each (address space, counter), to weigh a change by its growth. */
struct stk_res_rss_key {
	u64 mm; /* the mm's pointer, or the tracepoint's mm_id */
	u32 member;
	u32 pad;
};
STK_RES_MAP struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct stk_res_rss_key);
	__type(value, s64);
} res_rss_last SEC(".maps");

/* block: requests made and not completed, by start sector and direction. */
STK_RES_MAP struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, u64);
	__type(value, struct stk_res_block_start);
} res_block SEC(".maps");

/* syscall: system calls under way, by thread (an LRU: a thread that died in one gives its entry back). */
STK_RES_MAP struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, u32);
	__type(value, struct stk_res_sys_start);
} res_sys_start SEC(".maps");

#undef STK_RES_MAP

#endif
