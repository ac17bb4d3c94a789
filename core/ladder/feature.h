/*
 * The kernel features stk can use: each is one mechanism (or a helper, map
 * type or program property) that `stk info` probes by loading and running a
 * tiny program (core/bpf/features.c), and that ladder rungs name as their need.
 */
#ifndef STK_FEATURE_H
#define STK_FEATURE_H

#include <stdbool.h>

enum stk_feature {
	STK_FEATURE_PERF_EVENT,
	STK_FEATURE_KPROBE_PMU,
	STK_FEATURE_KPROBE_LEGACY,
	STK_FEATURE_KPROBE_MULTI,
	STK_FEATURE_FENTRY,
	STK_FEATURE_TP_BTF,
	STK_FEATURE_RAW_TP,
	STK_FEATURE_TRACEPOINT,
	STK_FEATURE_UPROBE,
	STK_FEATURE_UPROBE_MULTI,
	STK_FEATURE_USDT,
	STK_FEATURE_RINGBUF,
	STK_FEATURE_TASK_ITER,
	STK_FEATURE_GET_STACK,
	STK_FEATURE_GLOBAL_DATA,
	STK_FEATURE_BPF_LOOP,
	STK_FEATURE_TASK_ITER_COPY, /* iter.s/task with bpf_copy_from_user_task and bpf_find_vma (5.18) */
	STK_FEATURE_COUNT,
};

struct stk_feature_result {
	bool probed;
	bool available;
	char detail[192]; /* what was attached and how often it ran, or why not */
};

/* Stable short name, e.g. "kprobe.multi"; used in `stk info` output and tests. */
const char *stk_feature_name(enum stk_feature f);

#endif
