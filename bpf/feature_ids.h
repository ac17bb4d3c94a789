/* SPDX-License-Identifier: GPL-2.0 */
/* Slots of the feature_hits map, shared by bpf/feature_probes.bpf.c and
 * core/bpf/features.c: each probe program counts its own executions there so
 * `stk info` can tell "attached" from "attached and actually ran". */
#ifndef STK_FEATURE_IDS_H
#define STK_FEATURE_IDS_H

enum stk_feature_slot {
	STK_FEAT_SLOT_PERF_EVENT,
	STK_FEAT_SLOT_KPROBE,
	STK_FEAT_SLOT_KPROBE_MULTI,
	STK_FEAT_SLOT_FENTRY,
	STK_FEAT_SLOT_TP_BTF,
	STK_FEAT_SLOT_RAW_TP,
	STK_FEAT_SLOT_TRACEPOINT,
	STK_FEAT_SLOT_UPROBE,
	STK_FEAT_SLOT_UPROBE_MULTI,
	STK_FEAT_SLOT_USDT,
	STK_FEAT_SLOT_TASK_ITER,
	STK_FEAT_SLOT_GET_STACK,
	STK_FEAT_SLOT_TASK_ITER_COPY,
	STK_FEAT_SLOT_COUNT,
};

#endif
