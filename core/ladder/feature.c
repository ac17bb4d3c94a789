#include "core/ladder/feature.h"

static const char *const feature_names[STK_FEATURE_COUNT] = {
	[STK_FEATURE_PERF_EVENT] = "perf_event",
	[STK_FEATURE_KPROBE_PMU] = "kprobe",
	[STK_FEATURE_KPROBE_LEGACY] = "kprobe_legacy",
	[STK_FEATURE_KPROBE_MULTI] = "kprobe.multi",
	[STK_FEATURE_FENTRY] = "fentry",
	[STK_FEATURE_TP_BTF] = "tp_btf",
	[STK_FEATURE_RAW_TP] = "raw_tp",
	[STK_FEATURE_TRACEPOINT] = "tracepoint",
	[STK_FEATURE_UPROBE] = "uprobe",
	[STK_FEATURE_UPROBE_MULTI] = "uprobe.multi",
	[STK_FEATURE_USDT] = "usdt",
	[STK_FEATURE_RINGBUF] = "ringbuf",
	[STK_FEATURE_TASK_ITER] = "task_iter",
	[STK_FEATURE_GET_STACK] = "bpf_get_stack",
	[STK_FEATURE_GLOBAL_DATA] = "global_data",
	[STK_FEATURE_BPF_LOOP] = "bpf_loop",
	[STK_FEATURE_TASK_ITER_COPY] = "task_iter_copy",
};

const char *stk_feature_name(enum stk_feature f)
{
	return f < STK_FEATURE_COUNT ? feature_names[f] : "?";
}
