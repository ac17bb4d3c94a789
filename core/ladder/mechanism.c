#include "core/ladder/mechanism.h"

static const struct stk_mechanism cpu_sampling[] = {
	{ STK_FEATURE_PERF_EVENT, "perf_event" },
};
static const struct stk_mechanism kernel_function[] = {
	{ STK_FEATURE_FENTRY, "fentry" },
	{ STK_FEATURE_KPROBE_MULTI, "kprobe.multi" },
	{ STK_FEATURE_KPROBE_PMU, "kprobe" },
	{ STK_FEATURE_KPROBE_LEGACY, "kprobe_legacy" },
};
static const struct stk_mechanism tracepoint[] = {
	{ STK_FEATURE_RAW_TP, "raw_tp" }, /* not for syscalls:* events: those take the next */
	{ STK_FEATURE_TRACEPOINT, "tracepoint" },
};
static const struct stk_mechanism user_function[] = {
	{ STK_FEATURE_UPROBE, "uprobe" },
};
static const struct stk_mechanism usdt[] = {
	{ STK_FEATURE_USDT, "usdt" },
};
static const struct stk_mechanism sched_switch[] = {
	{ STK_FEATURE_TP_BTF, "tp_btf" },
	{ STK_FEATURE_RAW_TP, "raw_tp" },
	{ STK_FEATURE_TRACEPOINT, "tracepoint" },
	{ STK_FEATURE_KPROBE_PMU, "kprobe" }, /* finish_task_switch, for the oldest kernels */
};
static const struct stk_mechanism thread_sampling[] = {
	{ STK_FEATURE_TASK_ITER, "task_iter" },
	{ STK_FEATURE_TRACEPOINT, "tracepoint_state" }, /* classic tracepoints: no BTF needed */
	{ STK_MECHANISM_NO_BPF, "proc" },
};

#define LIST(a) a, sizeof(a) / sizeof(a[0])

static const struct {
	const char *name;
	const char *users;
	const struct stk_mechanism *list;
	size_t n;
} classes[STK_ATTACH_CLASS_COUNT] = {
	[STK_ATTACH_CPU_SAMPLING] = { "cpu sampling", "profile", LIST(cpu_sampling) },
	[STK_ATTACH_KERNEL_FUNCTION] = { "kernel function", "stackcount", LIST(kernel_function) },
	[STK_ATTACH_TRACEPOINT] = { "tracepoint", "stackcount", LIST(tracepoint) },
	[STK_ATTACH_USER_FUNCTION] = { "user function", "stackcount", LIST(user_function) },
	[STK_ATTACH_USDT] = { "usdt probe", "stackcount", LIST(usdt) },
	[STK_ATTACH_SCHED_SWITCH] = { "sched_switch", "offcputime", LIST(sched_switch) },
	[STK_ATTACH_THREAD_SAMPLING] = { "thread sampling", "threadstate", LIST(thread_sampling) },
};

const char *stk_attach_class_name(enum stk_attach_class c)
{
	return classes[c].name;
}

const char *stk_attach_class_users(enum stk_attach_class c)
{
	return classes[c].users;
}

const struct stk_mechanism *stk_mechanisms_for(enum stk_attach_class c, size_t *n)
{
	*n = classes[c].n;
	return classes[c].list;
}

const struct stk_mechanism *stk_mechanism_choose(enum stk_attach_class c,
						 const struct stk_feature_result results[STK_FEATURE_COUNT])
{
	for (size_t i = 0; i < classes[c].n; i++) {
		const struct stk_mechanism *m = &classes[c].list[i];
		if (m->feature == STK_MECHANISM_NO_BPF || results[m->feature].available)
			return m;
	}
	return NULL;
}
