/*
 * What the running kernel really offers, found by loading and attaching a
 * tiny program per mechanism (bpf/feature_probes.bpf.c) and checking that it
 * ran. Used by `stk info` and by core's mechanism choice.
 */
#ifndef STK_FEATURES_H
#define STK_FEATURES_H

#include <stdbool.h>
#include <stddef.h>

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
	STK_FEATURE_USDT,
	STK_FEATURE_RINGBUF,
	STK_FEATURE_TASK_ITER,
	STK_FEATURE_GET_STACK,
	STK_FEATURE_GLOBAL_DATA,
	STK_FEATURE_COUNT,
};

struct stk_feature_result {
	bool probed;
	bool available;
	char detail[192]; /* what was attached and how often it ran, or why not */
};

struct stk_feature_env {
	const char *btf_custom_path; /* NULL: kernel's own BTF */
	const char *tracefs_error;   /* non-NULL when tracefs could not be made reachable */
	bool no_kernel_btf;          /* libbpf finds no BTF of the running kernel itself (--btf and embedded
				      * BTF serve CO-RE only): fentry, tp_btf, iterators cannot load */
};

/* Stable short name, e.g. "kprobe.multi"; used in `stk info` output and tests. */
const char *stk_feature_name(enum stk_feature f);
/* Runs one probe. Needs privileges; never leaves anything attached. */
void stk_feature_probe(const struct stk_feature_env *env, enum stk_feature f,
		       struct stk_feature_result *result);

#endif
